"""autotrace.printing against real PyTorch: every repr must be the same string.

torch is the oracle only. Under CI (``CI`` set) a missing torch is a failure,
elsewhere the module is skipped.
"""

from __future__ import annotations

import ast
import math
import os
import subprocess
import sys
import timeit
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

if os.environ.get("CI"):
    import torch
else:
    torch = pytest.importorskip("torch")

from autotrace import printing
from autotrace.printing import (
    PrintOptions,
    dtype_repr,
    format_number_for_fstring,
    set_printoptions,
    size_repr,
    tensor_repr,
)

REPO = Path(__file__).resolve().parents[1]
NAN, INF = math.nan, math.inf


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------


def _reset_both() -> None:
    torch.set_printoptions(profile="default")
    set_printoptions(profile="default")


@pytest.fixture(autouse=True)
def default_print_options():
    _reset_both()
    yield
    _reset_both()


def both_set(**kwargs) -> None:
    """Apply the same set_printoptions call to torch and to autotrace."""
    torch.set_printoptions(**kwargs)
    set_printoptions(**kwargs)


def to_torch(arr: np.ndarray):
    # np.array(copy) keeps 0-d arrays 0-d (ascontiguousarray would not).
    return torch.from_numpy(np.array(arr, copy=True, order="C"))


def ours(arr: np.ndarray, **kwargs) -> str:
    return tensor_repr(arr, arr.dtype.name, **kwargs)


def assert_same(arr: np.ndarray) -> str:
    expected = repr(to_torch(arr))
    got = ours(arr)
    assert got == expected, f"\nours:\n{got}\ntorch:\n{expected}"
    return got


def assert_same_with_grad(arr: np.ndarray) -> None:
    """A leaf with requires_grad, and a clone of it (grad_fn=<CloneBackward0>)."""
    leaf = to_torch(arr).requires_grad_(True)
    assert ours(arr, requires_grad=True) == repr(leaf)
    node = leaf.clone()
    name = type(node.grad_fn).__name__
    assert ours(arr, grad_fn_name=name) == repr(node)
    # grad_fn wins over requires_grad, as in PyTorch.
    assert ours(arr, requires_grad=True, grad_fn_name=name) == repr(node)


# ---------------------------------------------------------------------------
# exact strings, checked both literally and against torch
# ---------------------------------------------------------------------------

LITERAL = [
    (np.array(5.0, np.float32), "tensor(5.)"),
    (np.array(0.5, np.float32), "tensor(0.5000)"),
    (np.array(-0.0, np.float32), "tensor(-0.)"),
    (np.array(7, np.int64), "tensor(7)"),
    (np.array(True), "tensor(True)"),
    (np.array([1.0, 2.0, 3.0], np.float32), "tensor([1., 2., 3.])"),
    (np.array([1.0, 2.5], np.float32), "tensor([1.0000, 2.5000])"),
    (np.array([1.0, -2.5], np.float64), "tensor([ 1.0000, -2.5000], dtype=torch.float64)"),
    (np.array([1e10, 1.0], np.float32), "tensor([1.0000e+10, 1.0000e+00])"),
    (np.array([1e-5, 1.0], np.float32), "tensor([1.0000e-05, 1.0000e+00])"),
    (np.array([NAN, INF, -INF, 1.0], np.float32), "tensor([nan, inf, -inf, 1.])"),
    (np.array([True, False]), "tensor([ True, False])"),
    (np.array([1, -20, 300], np.int32), "tensor([  1, -20, 300], dtype=torch.int32)"),
    (np.array([[1, 2], [3, 4]], np.int64), "tensor([[1, 2],\n        [3, 4]])"),
    (np.zeros((0,), np.float32), "tensor([])"),
    (np.zeros((0, 3), np.float32), "tensor([], size=(0, 3))"),
    (np.zeros((0,), np.int64), "tensor([], dtype=torch.int64)"),
    (np.zeros((2, 0), np.bool_), "tensor([], size=(2, 0), dtype=torch.bool)"),
    (
        np.arange(8, dtype=np.float32).reshape(2, 2, 2),
        "tensor([[[0., 1.],\n         [2., 3.]],\n\n        [[4., 5.],\n         [6., 7.]]])",
    ),
]


@pytest.mark.parametrize("arr, expected", LITERAL, ids=[e for _, e in LITERAL])
def test_literal_strings(arr, expected):
    assert ours(arr) == expected
    assert repr(to_torch(arr)) == expected


# ---------------------------------------------------------------------------
# a table of shapes, dtypes and value mixes
# ---------------------------------------------------------------------------

_rng = np.random.default_rng(1234)

CASES = {
    # 0-d
    "0d-float32": np.array(3.14159, np.float32),
    "0d-float64-big": np.array(1.5e12, np.float64),
    "0d-float32-tiny": np.array(3e-7, np.float32),
    "0d-nan": np.array(NAN, np.float32),
    "0d-neg-inf": np.array(-INF, np.float64),
    "0d-int32": np.array(-42, np.int32),
    "0d-bool-false": np.array(False),
    "0d-float16": np.array(0.1, np.float16),
    "0d-uint8": np.array(200, np.uint8),
    # 1-d
    "1d-int-valued-floats": np.array([1.0, -2.0, 30.0, 400.0], np.float32),
    "1d-mixed": np.array([0.001, 1.0, 2.5, -3.75], np.float32),
    "1d-ratio-over-1000": np.array([0.01, 11.0], np.float32),
    "1d-ratio-exactly-1000": np.array([0.01, 10.0], np.float64),
    "1d-max-1e8": np.array([1e8, 2.0e7], np.float64),
    "1d-max-over-1e8": np.array([1.0000001e8, 2.0e7], np.float64),
    "1d-min-1e-4": np.array([1e-4, 0.05], np.float64),
    "1d-min-under-1e-4": np.array([0.99e-4, 0.05], np.float64),
    "1d-huge-ints": np.array([1e15, -3e20, 7.0], np.float64),
    "1d-tiny": np.array([1e-30, -2.5e-35, 1e-38], np.float32),
    "1d-zeros": np.zeros(5, np.float32),
    "1d-neg-zero-mix": np.array([-0.0, 0.0, 1.5], np.float32),
    "1d-neg-zero-int-mode": np.array([-0.0, 0.0, 3.0], np.float32),
    "1d-only-specials": np.array([NAN, INF, -INF, 0.0, -0.0], np.float32),
    "1d-specials-sci": np.array([NAN, -INF, 1e-9, 12345.0], np.float32),
    "1d-specials-narrow": np.array([-INF, NAN, 1.0, 2.0], np.float64),
    "1d-float16": np.array([0.1, 1000.0, -65504.0, 6e-5], np.float16),
    "1d-float32-rounding": np.array([0.1, 0.2, 0.30000001, 1 / 3], np.float32),
    "1d-half-even": np.array([0.00005, 0.00015, 0.00025, 1.00005], np.float64),
    "1d-int8": np.array([-128, 0, 127], np.int8),
    "1d-int16": np.array([-32768, 5], np.int16),
    "1d-uint8": np.array([0, 9, 255], np.uint8),
    "1d-int64-big": np.array([2**62, -(2**63), 0], np.int64),
    "1d-bool-true": np.array([True, True]),
    "1d-single": np.array([2.0], np.float64),
    # 2-d / 3-d / 4-d
    "2d-float32-random": _rng.standard_normal((4, 5)).astype(np.float32),
    "2d-float64-random": _rng.standard_normal((3, 3)) * 1e5,
    "2d-column": np.arange(5, dtype=np.float32).reshape(5, 1) / 4,
    "2d-row": np.arange(5, dtype=np.int64).reshape(1, 5) - 2,
    "2d-bool": _rng.random((3, 4)) < 0.5,
    "2d-int32": _rng.integers(-1000, 1000, (4, 4)).astype(np.int32),
    "3d-float32": _rng.standard_normal((2, 3, 4)).astype(np.float32),
    "3d-int64": np.arange(24, dtype=np.int64).reshape(2, 3, 4) * -7,
    "3d-sci": (10.0 ** _rng.uniform(-12, 12, (2, 2, 3))).astype(np.float64),
    "4d-float32": _rng.standard_normal((2, 2, 2, 3)).astype(np.float32),
    "4d-int-valued": np.arange(36, dtype=np.float32).reshape(3, 2, 3, 2),
    "4d-bool": _rng.random((2, 1, 2, 2)) < 0.5,
    "5d-float64": _rng.standard_normal((1, 2, 1, 2, 2)),
    # long rows: wrapped at linewidth 80
    "wrap-1d-float32": _rng.standard_normal(40).astype(np.float32),
    "wrap-1d-float64-sci": (10.0 ** _rng.uniform(-20, 20, 23)),
    "wrap-1d-int64": np.arange(100, dtype=np.int64) * 1001,
    "wrap-1d-bool": _rng.random(30) < 0.5,
    "wrap-2d-float32": _rng.standard_normal((3, 17)).astype(np.float32),
    "wrap-3d-int32": _rng.integers(-99999, 99999, (2, 2, 20)).astype(np.int32),
    # > 1000 elements: summarised
    "sum-1d-1001": np.arange(1001, dtype=np.float32),
    "sum-1d-int": np.arange(5000, dtype=np.int64),
    "sum-2d": _rng.standard_normal((40, 40)).astype(np.float32),
    "sum-2d-narrow": _rng.standard_normal((1001, 1)).astype(np.float64),
    "sum-2d-short-rows": _rng.standard_normal((300, 4)).astype(np.float32),
    "sum-3d": np.arange(2 * 3 * 200, dtype=np.int64).reshape(2, 3, 200),
    "sum-3d-sci": (10.0 ** _rng.uniform(-10, 10, (10, 10, 11))).astype(np.float32),
    "sum-4d": _rng.standard_normal((7, 7, 7, 7)).astype(np.float32),
    "sum-4d-bool": _rng.random((5, 5, 5, 9)) < 0.5,
    "sum-edges-only-widen": np.concatenate(
        [np.ones(3), np.full(1000, 123456.5), np.ones(3)]
    ).astype(np.float64),
    "sum-with-nan": np.where(np.arange(2000) % 7 == 0, np.nan, np.arange(2000) / 3).astype(
        np.float32
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(name):
    assert_same(CASES[name])


@pytest.mark.parametrize(
    "shape", [(0,), (0, 3), (3, 0), (2, 0, 4), (0, 0, 0, 1), (1, 2, 3, 0)]
)
@pytest.mark.parametrize(
    "dtype", ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]
)
def test_empty(shape, dtype):
    assert_same(np.zeros(shape, dtype=dtype))


def test_summarised_layout_literal():
    got = assert_same(np.arange(1001, dtype=np.int64))
    assert got == "tensor([   0,    1,    2,  ...,  998,  999, 1000])"


def test_summarised_3d_has_blank_line_separators():
    got = assert_same(np.zeros((10, 10, 11), dtype=np.float32))
    assert "...,\n\n" in got and "]],\n\n        [[" in got


def test_wrapping_literal():
    arr = np.arange(20, dtype=np.float64) + 0.5
    expected = (
        "tensor([ 0.5000,  1.5000,  2.5000,  3.5000,  4.5000,  5.5000,  6.5000,  7.5000,\n"
        "         8.5000,  9.5000, 10.5000, 11.5000, 12.5000, 13.5000, 14.5000, 15.5000,\n"
        "        16.5000, 17.5000, 18.5000, 19.5000], dtype=torch.float64)"
    )
    assert assert_same(arr) == expected


# ---------------------------------------------------------------------------
# autograd suffixes, from real torch tensors
# ---------------------------------------------------------------------------


def _node_repr(t) -> tuple[np.ndarray, str, str]:
    return t.detach().numpy(), type(t.grad_fn).__name__, repr(t)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
def test_requires_grad_leaf(dtype):
    x = torch.tensor([1.0, -2.5, 3.0], dtype=dtype, requires_grad=True)
    name = str(dtype).removeprefix("torch.")
    assert tensor_repr(x.detach().numpy(), name, requires_grad=True) == repr(x)


def test_grad_fn_literal():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    data, name, expected = _node_repr(y)
    assert name == "MulBackward0"
    assert expected == "tensor([3., 6.], grad_fn=<MulBackward0>)"
    assert tensor_repr(data, "float32", grad_fn_name=name) == expected


def test_grad_fn_various_nodes():
    x = torch.tensor([[0.5, -1.25], [2.0, 4.0]], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([[1.0, 0.0], [0.0, 1.0]], dtype=torch.float64)
    results = [
        x + 1,
        x.sum(),
        x @ w,
        torch.nn.functional.layer_norm(x, (2,)),
        x.relu(),
        x.exp().mean(),
        torch.addmm(x, x, w),
        x.t(),
        x[0],
    ]
    for y in results:
        data, name, expected = _node_repr(y)
        assert tensor_repr(data, "float64", grad_fn_name=name) == expected


def test_suffix_moves_to_new_line():
    # The last row is nearly full, so dtype= and grad_fn= each go on their own line.
    x = torch.arange(16, dtype=torch.float64).reshape(2, 8).add(0.5).requires_grad_()
    y = x * 1000
    data, name, expected = _node_repr(y)
    assert ",\n       dtype=torch.float64" in expected
    assert tensor_repr(data, "float64", grad_fn_name=name) == expected
    assert tensor_repr(data, "float64", requires_grad=True) == repr(
        (x.detach() * 1000).requires_grad_()
    )


def test_suffix_wrapping_on_one_line_tensor():
    x = torch.full((9,), 1234.5, dtype=torch.float64, requires_grad=True)
    for y in (x, x.clone(), x.exp().log()):
        expected = repr(y)
        name = None if y.grad_fn is None else type(y.grad_fn).__name__
        got = tensor_repr(y.detach().numpy(), "float64", requires_grad=True, grad_fn_name=name)
        assert got == expected


def test_grad_suffix_on_empty_and_summarised():
    for t in (torch.zeros(0, 3, requires_grad=True), torch.zeros(2000, requires_grad=True)):
        y = t * 2
        for z in (t, y):
            name = None if z.grad_fn is None else type(z.grad_fn).__name__
            got = tensor_repr(z.detach().numpy(), "float32", requires_grad=True, grad_fn_name=name)
            assert got == repr(z)


def test_wrap_and_suffix_boundaries_at_every_linewidth():
    # Sweeping linewidth puts every row break and suffix break exactly on its boundary.
    arrays = [
        np.array([1.5, -2.25, 3.0, 4.125, 5.0, 6.5], np.float64),
        np.arange(6, dtype=np.int32).reshape(2, 3) * 111,
        np.array(2.5, np.float16),
        np.arange(12, dtype=np.float32).reshape(3, 4),
    ]
    for linewidth in range(1, 121):
        both_set(linewidth=linewidth)
        for arr in arrays:
            assert_same(arr)
            assert_same_with_grad(arr.astype(np.float64))


@pytest.mark.parametrize("name", ["0d-float32", "2d-float64-random", "wrap-1d-float32", "sum-3d-sci"])
def test_grad_on_table_cases(name):
    assert_same_with_grad(CASES[name])


# ---------------------------------------------------------------------------
# set_printoptions
# ---------------------------------------------------------------------------

OPTION_SETS = [
    {"precision": 2},
    {"precision": 0},
    {"precision": 8},
    {"threshold": 5},
    {"threshold": 5, "edgeitems": 1},
    {"threshold": 5, "edgeitems": 0},
    {"edgeitems": 0},
    {"threshold": 0},
    {"linewidth": 40},
    {"linewidth": 1},
    {"linewidth": 200},
    {"sci_mode": True},
    {"sci_mode": False},
    {"sci_mode": True, "precision": 1},
    {"profile": "short"},
    {"profile": "full"},
    {"profile": "full", "precision": 6},
    {"profile": "default"},
    {"profile": "unknown-profile", "linewidth": 60},
]


@pytest.mark.parametrize("opts", OPTION_SETS, ids=[str(o) for o in OPTION_SETS])
@pytest.mark.parametrize(
    "name",
    ["0d-float32", "1d-mixed", "1d-int-valued-floats", "1d-specials-sci", "1d-zeros", "3d-int64",
     "wrap-1d-float32", "sum-1d-1001", "sum-4d", "sum-4d-bool", "2d-bool", "1d-tiny"],
)
def test_printoptions_match_torch(opts, name):
    both_set(**opts)
    assert printing.get_printoptions() == torch._tensor_str.get_printoptions()
    assert_same(CASES[name])


def test_printoptions_literal_examples():
    # The examples of torch.set_printoptions' docstring.
    set_printoptions(precision=2)
    assert tensor_repr(np.array([1.12345], np.float32), "float32") == "tensor([1.12])"
    set_printoptions(threshold=5)
    assert tensor_repr(np.arange(10), "int64") == "tensor([0, 1, 2,  ..., 7, 8, 9])"
    set_printoptions(profile="default")
    assert tensor_repr(np.array([1.12345], np.float32), "float32") == "tensor([1.1235])"
    assert tensor_repr(np.arange(10), "int64") == "tensor([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])"


def test_set_printoptions_resets_sci_mode_like_torch():
    both_set(sci_mode=True)
    assert printing.options.sci_mode is True
    both_set(precision=3)  # no sci_mode given: back to automatic
    assert printing.options.sci_mode is None
    assert printing.get_printoptions() == torch._tensor_str.get_printoptions()
    assert_same(CASES["1d-mixed"])


def test_options_object_and_defaults():
    assert isinstance(printing.options, PrintOptions)
    assert PrintOptions.precision == 4 and PrintOptions.threshold == 1000
    assert PrintOptions.edgeitems == 3 and PrintOptions.linewidth == 80
    assert PrintOptions.sci_mode is None
    assert printing.options == PrintOptions()
    set_printoptions(profile="full")
    assert printing.options.threshold == math.inf
    # Options are read at call time: mutating the object directly works too.
    printing.options.precision = 1
    torch.set_printoptions(precision=1, profile="full")
    assert_same(CASES["1d-mixed"])


# ---------------------------------------------------------------------------
# Size, dtype and f-string formatting
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(), (0,), (2, 1), (3, 4, 5), (1, 0, 2, 7)])
def test_size_repr(shape):
    assert size_repr(shape) == repr(torch.zeros(shape).shape)
    assert size_repr(tuple(np.int64(n) for n in shape)) == repr(torch.zeros(shape).shape)


@pytest.mark.parametrize(
    "name", ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]
)
def test_dtype_repr(name):
    assert dtype_repr(name) == repr(getattr(torch, name)) == str(getattr(torch, name))


FSTRING_CASES = [
    (np.array(5.0, np.float32), ["", ".2f", ">10", "e", ".3g", "+"]),
    (np.array(0.1, np.float32), ["", ".2f", ".20f", "e"]),
    (np.array(0.1, np.float64), ["", ".2f", "10.4f"]),
    (np.array(0.1, np.float16), ["", ".5f"]),
    (np.array(-0.0, np.float32), ["", ".1f"]),
    (np.array(NAN, np.float32), ["", ".2f"]),
    (np.array(-INF, np.float64), ["", "e"]),
    (np.array(7, np.int64), ["", "d", "05d", ".2f", "x", ">4"]),
    (np.array(-3, np.int8), ["", "d", "+d"]),
    (np.array(200, np.uint8), ["", "b"]),
    (np.array(True), ["", "d", ".1f"]),
]


@pytest.mark.parametrize("arr, specs", FSTRING_CASES, ids=[f"{a.dtype}-{a}" for a, _ in FSTRING_CASES])
def test_format_number_for_fstring(arr, specs):
    t = to_torch(arr)
    for spec in specs:
        assert format_number_for_fstring(arr, arr.dtype.name, spec) == format(t, spec), spec
    assert format_number_for_fstring(np.array(0.1, np.float32), "float32", "") == "0.10000000149011612"
    assert format_number_for_fstring(np.array(5.0, np.float32), "float32", "") == "5.0"
    assert format_number_for_fstring(np.array(5.0, np.float32), "float32", ".2f") == "5.00"


def test_format_number_bad_spec_raises_like_torch():
    for arr, spec in [(np.array(5.0, np.float32), "d"), (np.array(True), "s")]:
        with pytest.raises(ValueError) as ours_err:
            format_number_for_fstring(arr, arr.dtype.name, spec)
        with pytest.raises(ValueError) as torch_err:
            format(to_torch(arr), spec)
        assert str(ours_err.value) == str(torch_err.value)


def test_format_non_scalar():
    arr = np.array([1.0, 2.5], np.float32)
    t = to_torch(arr)
    assert format_number_for_fstring(arr, "float32", "") == f"{t}" == str(t)
    with pytest.raises(TypeError) as torch_err:
        format(t, ".2f")
    with pytest.raises(TypeError, match="unsupported format string passed to Tensor.__format__") as e:
        format_number_for_fstring(arr, "float32", ".2f")
    assert str(e.value) == str(torch_err.value)


# ---------------------------------------------------------------------------
# imports and speed
# ---------------------------------------------------------------------------


def test_module_imports_only_stdlib_and_numpy():
    tree = ast.parse((REPO / "autotrace" / "printing.py").read_text())
    allowed = set(sys.stdlib_module_names) | {"numpy", "__future__"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            continue
        for name in names:
            assert name.split(".")[0] in allowed, name


def test_import_does_not_pull_in_torch():
    code = (
        "import sys; import autotrace.printing; "
        "assert not any(m == 'torch' or m.startswith('torch.') for m in sys.modules)"
    )
    env = dict(os.environ, PYTHONPATH=str(REPO))
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO, env=env)


def test_small_tensor_repr_is_fast():
    arr = np.array([[1.5, -2.0, 3.25], [0.0, 4.0, 5.5]], np.float32)
    per_call = min(timeit.repeat(lambda: tensor_repr(arr, "float32"), number=200, repeat=5)) / 200
    assert per_call < 100e-6


# ---------------------------------------------------------------------------
# property-based comparison with torch
# ---------------------------------------------------------------------------

FLOAT_DTYPES = ["float32", "float64", "float16"]
OTHER_DTYPES = ["int64", "int32", "int16", "int8", "uint8", "bool"]


@st.composite
def shapes(draw, max_dims: int = 4, max_elems: int = 2000) -> tuple[int, ...]:
    """Up to ``max_dims`` dims, at most ``max_elems`` elements, often past 1000."""
    if draw(st.booleans()):
        big = [(1001,), (2000,), (40, 50), (1, 1200), (1100, 1), (3, 7, 60), (8, 8, 8, 3),
               (2, 2, 2, 200), (7, 7, 7, 5), (1, 2, 700), (11, 13, 7)]
        small = [(), (1,), (0,), (5,), (3, 0), (2, 3), (1, 1, 1), (2, 2, 3, 1), (25,), (4, 25)]
        return draw(st.sampled_from(big + small))
    ndim = draw(st.integers(0, max_dims))
    shape: list[int] = []
    size = 1
    for _ in range(ndim):
        side = draw(st.integers(0, max(1, max_elems // max(size, 1))))
        shape.append(side)
        size *= max(side, 1)
    return tuple(shape)


@st.composite
def float_arrays(draw, dtypes=tuple(FLOAT_DTYPES)) -> np.ndarray:
    """Float arrays mixing magnitudes, integer values and nan/inf/zeros."""
    dtype = draw(st.sampled_from(dtypes))
    shape = draw(shapes())
    n = math.prod(shape)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["log", "log", "ints", "unit", "few", "exact"]))
    if kind == "log":
        lo = draw(st.integers(-45, 40))
        span = draw(st.integers(0, 25))
        vals = 10.0 ** rng.uniform(lo, lo + span, n)
        if draw(st.booleans()):
            vals = np.round(vals)
    elif kind == "ints":
        bound = draw(st.sampled_from([2, 10, 1000, 10**6, 10**9]))
        vals = rng.integers(-bound, bound, n).astype(np.float64)
    elif kind == "unit":
        vals = rng.random(n) * draw(st.sampled_from([1.0, 10.0, 999.0, 1001.0]))
    elif kind == "few":
        pool = draw(st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=4))
        vals = np.array(pool, np.float64)[rng.integers(0, len(pool), n)]
    else:  # boundary magnitudes of the scientific-notation rule
        pool = [1e8, 1.00000001e8, 1e-4, 9.9999e-5, 0.001, 1.0, 1000.0, 1000.1, 0.5, 2.0]
        vals = np.array(pool)[rng.integers(0, len(pool), n)]
    vals = vals * np.where(rng.random(n) < draw(st.sampled_from([0.0, 0.5, 1.0])), -1.0, 1.0)
    p_special = draw(st.sampled_from([0.0, 0.0, 0.02, 0.3, 1.0]))
    specials = np.array([NAN, INF, -INF, 0.0, -0.0])[rng.integers(0, 5, n)]
    vals = np.where(rng.random(n) < p_special, specials, vals)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        return vals.astype(dtype).reshape(shape)


@st.composite
def other_arrays(draw) -> np.ndarray:
    dtype = np.dtype(draw(st.sampled_from(OTHER_DTYPES)))
    shape = draw(shapes())
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    if dtype == np.bool_:
        return rng.random(shape) < draw(st.sampled_from([0.0, 0.5, 1.0]))
    info = np.iinfo(dtype)
    lo, hi = draw(st.sampled_from([(info.min, info.max), (0, 10), (-100, 100)]))
    return rng.integers(max(lo, info.min), min(hi, info.max), size=shape, endpoint=True, dtype=dtype)


print_options = st.fixed_dictionaries(
    {},
    optional={
        "precision": st.integers(0, 10),
        "threshold": st.one_of(st.integers(0, 2500), st.just(math.inf)),
        "edgeitems": st.integers(0, 5),
        "linewidth": st.integers(1, 200),
        "profile": st.sampled_from(["default", "short", "full"]),
        "sci_mode": st.one_of(st.none(), st.booleans()),
    },
)

HYP = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@HYP
@given(arr=float_arrays(), grad=st.sampled_from(["none", "leaf", "node"]))
def test_hypothesis_floats_match_torch(arr, grad):
    _reset_both()
    if grad == "none":
        assert_same(arr)
    else:
        t = to_torch(arr).requires_grad_(True)
        if grad == "node":
            t = t.clone()
        name = None if t.grad_fn is None else type(t.grad_fn).__name__
        assert ours(arr, requires_grad=True, grad_fn_name=name) == repr(t)


@HYP
@given(arr=st.one_of(float_arrays(), other_arrays()), opts=print_options)
def test_hypothesis_print_options_match_torch(arr, opts):
    try:
        both_set(**opts)
        assert_same(arr)
    finally:
        _reset_both()


@HYP
@given(
    arr=st.sampled_from([np.float32, np.float64]).flatmap(
        lambda dt: hnp.arrays(
            dt,
            hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=6),
            elements=st.floats(width=32 if dt is np.float32 else 64),
        )
    )
)
def test_hypothesis_arbitrary_float_bits_match_torch(arr):
    _reset_both()
    assert_same(arr)


@HYP
@given(
    arr=st.one_of(
        hnp.arrays(np.float32, (), elements=st.floats(width=32)),
        hnp.arrays(np.float64, (), elements=st.floats()),
        hnp.arrays(np.int64, (), elements=st.integers(-(2**63), 2**63 - 1)),
        hnp.arrays(np.bool_, ()),
    ),
    spec=st.sampled_from(["", ".2f", ".0f", "e", ".3e", "g", "10.3f", "<12", "+.1f"]),
)
def test_hypothesis_fstring_matches_torch(arr, spec):
    t = to_torch(arr)
    try:
        expected = format(t, spec)
    except (ValueError, TypeError) as exc:
        with pytest.raises(type(exc)):
            format_number_for_fstring(arr, arr.dtype.name, spec)
        return
    assert format_number_for_fstring(arr, arr.dtype.name, spec) == expected
