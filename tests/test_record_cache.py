"""The recorder's shared attribute mappings: a node record's ``attrs`` and ``scalars`` are
looked up by the entries' keys, types and values (autotrace/record.py). Whatever was asked
before, each answer must equal what the plain computation gives, type for type."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings, strategies as st

from autotrace import record
from autotrace.node import SavedTensor

KEYS = st.sampled_from(["alpha", "dim", "keepdim", "self", "other", "exponent", "sizes"])
VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from([0.0, -0.0, 1.0, 2.5, math.nan, math.inf]),
    st.sampled_from(["mean", "sum", "tanh"]),
    st.tuples(st.integers(0, 3), st.integers(0, 3)), st.tuples(st.floats(0, 2, width=32), st.integers(0, 1)),
    st.sampled_from([np.float32(1.5), np.int64(2), np.bool_(True)]),
    st.just("SAVED"), st.just("ARRAY"))


def _value(v):
    if isinstance(v, str) and v == "SAVED":
        return SavedTensor.number(1.0)
    if isinstance(v, str) and v == "ARRAY":
        return np.ones(2)
    return v


def _typed(mapping):
    return sorted((k, type(v).__name__, repr(v)) for k, v in mapping.items())


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.dictionaries(KEYS, VALUES, max_size=3), st.dictionaries(KEYS, VALUES, max_size=3)),
                min_size=1, max_size=6))
def test_node_attrs_equal_the_plain_computation(cases):
    rec = record.Recorder(keep_values=False)
    for attrs, saved in cases * 2:          # twice: the second time answers come from the cache
        attrs = {k: _value(v) for k, v in attrs.items()}
        saved = {k: _value(v) for k, v in saved.items()}
        names = tuple(k for k, v in saved.items() if isinstance(v, SavedTensor))
        got = rec.node_attrs(attrs, saved, names)
        want = record.plain_attrs(attrs, saved, names)
        assert _typed(got) == _typed(want)
        with np.testing.assert_raises(TypeError):
            got["x"] = 1                    # read-only, as records are


def test_equal_values_of_other_types_stay_apart():
    rec = record.Recorder(keep_values=False)
    one, one_float, true = rec.node_attrs({"alpha": 1}, None, ()), rec.node_attrs({"alpha": 1.0}, None, ()), \
        rec.node_attrs({"alpha": True}, None, ())
    assert [type(m["alpha"]) for m in (one, one_float, true)] == [int, float, bool]
    ints, floats = rec.node_attrs({"sizes": (1, 2)}, None, ()), rec.node_attrs({"sizes": (1.0, 2.0)}, None, ())
    assert [type(m["sizes"][0]) for m in (ints, floats)] == [int, float]
    zero, negative_zero = rec.node_attrs({"alpha": 0.0}, None, ()), rec.node_attrs({"alpha": -0.0}, None, ())
    assert [math.copysign(1, m["alpha"]) for m in (zero, negative_zero)] == [1.0, -1.0]


def test_scalars_are_shared_and_typed():
    rec = record.Recorder(keep_values=False)
    a, b = rec.node_scalars({"other": 2.0}), rec.node_scalars({"other": 2.0})
    assert a is b and dict(a) == {"other": 2.0}
    c = rec.node_scalars({"other": 2})
    assert type(c["other"]) is int and c is not a


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["other", "self"]),
                          st.one_of(st.booleans(), st.integers(-3, 3), st.sampled_from(
                              [0.0, -0.0, 1.0, 1.000001, -2.5, math.nan, math.inf, -math.inf, 2.0 ** 53]))),
                min_size=1, max_size=8))
def test_one_scalar_mapping_equals_the_plain_one(cases):
    rec = record.Recorder(keep_values=False)
    for name, value in cases * 2:
        got = rec.node_scalar(name, value)
        assert _typed(got) == _typed({name: value})
        if value == 0:
            assert math.copysign(1, got[name]) == math.copysign(1, value)
