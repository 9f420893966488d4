"""autotrace.render.jsontext.dumps is json.dumps(sort_keys=True, indent=1,
ensure_ascii=False) to the byte, error for error: drawn documents (nested dicts and lists,
every scalar type, strings with escapes, controls, non-ASCII and surrogates), non-finite
floats with and without allow_nan, and values it hands to the standard library."""

from __future__ import annotations

import enum
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autotrace.render import jsontext

texts = st.one_of(st.text(), st.sampled_from(["", "\"", "\\", "\n", "\t\x00\x1f", "é", "∂z/∂x", "\u2028",
                                              "\ud800", "中文", "a\"b\\c"]))
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.integers(-(2 ** 70), 2 ** 70),
                    st.floats(allow_nan=False, allow_infinity=False), texts,
                    st.sampled_from([0.0, -0.0, 1e300, 5e-324, 0.1, 1.0, -1.5, 2 ** 53, -(2 ** 63)]))
documents = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.lists(inner, max_size=3).map(tuple),
    st.dictionaries(texts, inner, max_size=5)), max_leaves=40)


def _std(obj, allow_nan=True):
    return json.dumps(obj, sort_keys=True, indent=1, ensure_ascii=False, allow_nan=allow_nan)


@settings(max_examples=500, deadline=None)
@given(documents, st.integers(0, 4))
def test_same_text_as_json_dumps(doc, level):
    assert jsontext.dumps(doc) == _std(doc)
    assert jsontext.dumps(doc, allow_nan=False) == _std(doc, allow_nan=False)
    # nested level deep in a larger document: as the standard library writes it there
    assert jsontext.dumps(doc, level=2) in _std({"k": [doc]})
    assert jsontext.dumps(doc, level=level) == _std(doc).replace("\n", "\n" + " " * level)


class Color(enum.IntEnum):
    RED = 1


@pytest.mark.parametrize("doc", [
    {"a": [1.0, math.nan]}, {"a": math.inf}, [-math.inf], {"b": {"c": [math.nan]}},
])
def test_non_finite_floats_as_the_standard_library(doc):
    assert jsontext.dumps(doc) == _std(doc)
    with pytest.raises(ValueError) as got:
        jsontext.dumps(doc, allow_nan=False)
    with pytest.raises(ValueError) as want:
        _std(doc, allow_nan=False)
    assert str(got.value) == str(want.value)


@pytest.mark.parametrize("doc", [
    {1: "int key", 2: "b"}, {None: 1}, {"x": Color.RED}, [np.float64(0.5)], {"s": np.str_("x")},
    [True, 1, 1.0], {"": {}}, {"e": [], "f": {}, "g": ()},
])
def test_values_left_to_the_standard_library(doc):
    assert jsontext.dumps(doc) == _std(doc)
    assert jsontext.dumps(doc, level=3) == _std(doc).replace("\n", "\n   ")


@pytest.mark.parametrize("doc", [{"a": 1, 2: "b"}, {"x": object()}, [np.float32(0.5)], {"x": {1, 2}}])
def test_errors_are_the_standard_librarys(doc):
    with pytest.raises(TypeError) as got:
        jsontext.dumps(doc)
    with pytest.raises(TypeError) as want:
        _std(doc)
    assert str(got.value) == str(want.value)


def test_a_tree_too_deep_for_recursion_as_the_standard_library():
    deep = []
    for _ in range(5000):
        deep = [deep]
    with pytest.raises(RecursionError):
        _std(deep)
    with pytest.raises(RecursionError):
        jsontext.dumps(deep)


def test_circular_reference_as_the_standard_library():
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular reference"):
        jsontext.dumps(loop)
