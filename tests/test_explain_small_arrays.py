"""explain reads a few elements on Python floats (the local derivative recovered as a
ratio, a uniform value, finiteness): each small path against its array definition, over
drawn values with zeros of both signs, infinities, nan, subnormals and near-overflow."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autotrace.explain.diagnostics import _finite
from autotrace.explain.numbers import uniform
from autotrace.explain.steps import _FEW, _ratio, _ratio_array, _ratio_few

SPECIALS = [0.0, -0.0, 1.0, -1.0, 0.5, 3.0, math.inf, -math.inf, math.nan, 1e-45, -1e-45, 1e-40,
            3.4e38, -3.4e38, 1e-38, 1.7e308, 5e-324, 2.0 ** -126]
values = st.one_of(st.sampled_from(SPECIALS), st.floats(allow_nan=True, allow_infinity=True))
dtypes = st.sampled_from([np.float32, np.float64])
shapes = st.sampled_from([(2,), (3,), (2, 3), (1, 2), (4, 4), (16,), (2, 1, 2)])


def _array(draw, shape, dtype):
    n = int(np.prod(shape))
    with np.errstate(all="ignore"):
        return np.array(draw(st.lists(values, min_size=n, max_size=n)), dtype=np.float64).astype(dtype).reshape(shape)


@st.composite
def ratio_cases(draw):
    shape = draw(shapes)
    go = _array(draw, shape, draw(dtypes))
    if draw(st.integers(0, 3)) == 0:   # an upstream gradient of nothing but ordinary numbers
        upstream = np.array(draw(st.lists(st.floats(-1e3, 1e3).filter(bool), min_size=go.size, max_size=go.size)),
                            dtype=draw(dtypes)).reshape(shape)
    else:
        upstream = _array(draw, shape, draw(dtypes))
    if draw(st.booleans()):
        go = go.T       # not contiguous
        upstream = upstream.T
    return go, upstream


def _same(a, b):
    if a is None or b is None:
        return a is b
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@settings(max_examples=400, deadline=None)
@given(ratio_cases())
def test_ratio_of_a_few_elements_is_the_array_ratio(case):
    go, upstream = case
    with np.errstate(all="ignore"):
        few = _ratio_few(go, upstream)
        want = _ratio_array(go, upstream)
    assert _same(few, want), (go, upstream, few, want)


def test_ratio_takes_the_small_path_only_for_float_arrays_of_one_shape():
    go = np.array([2.0, -6.0], dtype=np.float32)
    up = np.array([4.0, 3.0], dtype=np.float32)
    assert _ratio(go, up).tolist() == [0.5, -2.0]
    assert _ratio(go, np.array([4.0, 0.0], dtype=np.float32)) is None
    assert _ratio(go, np.array([4.0, -0.0], dtype=np.float32)) is None
    assert _ratio(go, np.array([4.0, math.nan], dtype=np.float32)) is None
    # inf arriving where the gradient is inf: the ratio is nan, unreadable
    assert _ratio(np.array([math.inf, 1.0]), np.array([math.inf, 1.0])) is None
    # a gradient that is inf where the upstream is finite: the local derivative is inf
    assert _ratio(np.array([math.inf, 1.0]), np.array([2.0, 1.0])).tolist() == [math.inf, 1.0]
    # broadcast upstream and more than _FEW elements go to the array path
    big = np.arange(1, _FEW + 2, dtype=np.float64)
    assert _ratio(big, np.float64(2.0) * np.ones_like(big)).tolist() == (big / 2).tolist()
    assert _ratio(np.array([[2.0, 4.0]]), np.array([2.0])).tolist() == [[1.0, 2.0]]


@settings(max_examples=300, deadline=None)
@given(shape=shapes, dtype=st.sampled_from([np.float32, np.float64, np.int64, np.bool_]),
       value=values, flip=st.lists(st.booleans(), min_size=16, max_size=16), data=st.data())
def test_uniform_of_a_few_elements_is_the_array_rule(shape, dtype, value, flip, data):
    n = int(np.prod(shape))
    other = data.draw(values)
    with np.errstate(all="ignore"):
        vals = [other if f else value for f in flip[:n]]
        if dtype in (np.int64, np.bool_):
            vals = [0 if not math.isfinite(v) else max(-(2 ** 62), min(2 ** 62, int(v))) for v in vals]
        a = np.array(vals).astype(dtype).reshape(shape)
    got = uniform(a)
    first = a.reshape(-1)[0]
    want = first if np.all(a == first) else None
    assert (got is None) == (want is None)
    if got is not None:
        assert type(got) is type(want) and got.tobytes() == want.tobytes()


@settings(max_examples=300, deadline=None)
@given(shape=shapes, dtype=dtypes, data=st.data())
def test_finite_of_a_few_elements_is_the_array_rule(shape, dtype, data):
    a = _array(data.draw, shape, dtype)
    assert _finite(a) is bool(np.all(np.isfinite(a)))


@pytest.mark.parametrize("a, want", [
    (np.array([1.0, 2.0], np.float32), True), (np.array([1.0, np.nan], np.float32), False),
    (np.array([np.inf, 2.0]), False), (np.array([1 + 2j, 3j]), True), (np.array([1 + 2j, np.inf * 1j]), False),
    (np.ones(40), True), (np.array(5.0), True),
])
def test_finite(a, want):
    assert _finite(a) is want
