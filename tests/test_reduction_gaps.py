"""Reductions real scripts meet at their edges, each script run under torch 2.13
(tests/torch_oracle.py) and autotrace side by side: empty tensors (torch's IndexError or
RuntimeError for reductions without an identity, nan / 1 / 0 / -inf for those with one,
empty results for softmax), and the nan-aware and two-result reductions (nansum, nanmean,
var_mean, std_mean) with their values to the bit, grad_fn names and gradients."""

from __future__ import annotations

import numpy as np
import pytest

from autotrace import runner
from autotrace.render import json as json_render
from helpers import require_torch
from test_conformance import differences

# prints an outcome without addresses: the result (or its first tensor), its node, and
# the gradient a backward of its sum leaves in x; or the error's type and text
PRELUDE = """import torch
import torch.nn.functional as F
def show(label, f, x):
    x.grad = None
    try:
        r = f()
    except Exception as e:
        print(label, type(e).__name__, e)
        return
    rs = list(r) if isinstance(r, tuple) else [r]
    print(label, [(t, t.grad_fn.name() if t.grad_fn is not None else None) for t in rs])
    if rs[0].requires_grad:
        sum(t.sum() for t in rs if t.requires_grad).backward()
        print(label, 'grad', x.grad)
"""


def agree(tmp_path, src, name="s.py"):
    """Run ``src`` under torch and autotrace; returns their differences (stdout, error,
    warnings, each top-level tensor's value, grad and grad_fn)."""
    require_torch()
    import torch_oracle

    path = tmp_path / name
    path.write_text(src)
    expected = torch_oracle.run(str(path))
    got = json_render.document(runner.run(src, str(path)))
    return differences(expected, got)


EMPTY_SHAPES = [(0,), (0, 3), (3, 0), (2, 0, 4), (0, 0)]

FULL = ["x.max()", "x.min()", "x.argmax()", "x.argmin()", "x.argmax(keepdim=True)", "x.median()", "x.amax()",
        "torch.amin(x)", "x.amax([])", "x.mean()", "x.std()", "x.var(correction=0)", "x.prod()", "x.sum()",
        "x.norm()", "x.norm(p=float('inf'))", "x.norm(p=-float('inf'))", "x.aminmax()", "F.softmax(x)",
        "x.nansum()", "x.nanmean()", "x.nanmedian()", "torch.var_mean(x)", "torch.std_mean(x, unbiased=False)", "torch.max(x)"]

PER_DIM = ["x.max({d})", "torch.min(x, {d}, keepdim=True)", "x.argmax({d})", "x.argmin({d}, keepdim=True)",
           "x.median({d})", "x.amax({d})", "x.amin(({d},))", "x.mean({d})", "x.std({d})",
           "x.var({d}, keepdim=True)", "x.prod({d})", "x.sum({d})", "x.logsumexp({d})", "x.softmax({d})",
           "F.log_softmax(x, {d})", "x.kthvalue(1, {d})", "x.mode({d})", "x.norm(dim={d})",
           "x.norm(p=float('inf'), dim={d})", "x.cumsum({d})", "x.cummax({d})", "x.nansum({d})",
           "x.nanmean({d}, keepdim=True)", "x.nanmedian({d})", "torch.var_mean(x, {d})", "x.std({d}, correction=2)",
           "torch.std_mean(x, dim={d}, keepdim=True)", "x.amax(({d}, 0))", "x.topk(0, {d})"]

INTEGER = ["xi.max()", "xi.argmax()", "xi.median()", "xi.amax()", "xi.sum()", "xi.prod()", "xi.mean()",
           "xi.softmax(0)", "xi.log_softmax(-1)", "xi.max(0)", "xi.median(0)", "xi.nansum()",
           "xi.nanmedian()", "xi.bool().median()"]


def _empty_script(shape):
    lines = [PRELUDE, f"x = torch.zeros({shape}, requires_grad=True)",
             f"xi = torch.zeros({shape}, dtype=torch.long)"]
    exprs = FULL + [e.format(d=d) for d in range(-len(shape), len(shape)) for e in PER_DIM]
    for e in exprs:
        lines.append(f"show({e!r}, lambda: {e}, x)")
    for e in INTEGER:
        lines.append(f"show({e!r}, lambda: {e}, x)")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("shape", EMPTY_SHAPES, ids=str)
def test_reductions_of_empty_tensors_are_torchs(tmp_path, shape):
    assert agree(tmp_path, _empty_script(shape)) == []


@pytest.mark.parametrize("src", [
    "x = torch.zeros(3, 0)\ny = x.amax((1, 5))",        # the empty dim is met first
    "x = torch.zeros(3, 0)\ny = x.amax((5, 1))",        # the bad dim is met first
    "x = torch.zeros(3, 0)\ny = x.max(2)",
    "x = torch.zeros(3, 0)\ny = x.kthvalue(4, 1)",
    "x = torch.zeros(3, 2)\ny = x.kthvalue(4, 1)",
    "x = torch.zeros(0)\ny = x.argmin()",
    "x = torch.zeros(0, 2)\ny = torch.linalg.vector_norm(x, float('inf'), dim=(1, 0))",
    "x = torch.zeros(0, 2)\ny = torch.linalg.matrix_norm(x, 1)",
])
def test_empty_reduction_errors_are_torchs(tmp_path, src):
    assert agree(tmp_path, "import torch\n" + src + "\n") == []


# -- an explicit dim=None or () is torch's dim overload: every dim, keepdim kept ----------

NONE_DIM = ["x.sum(None)", "x.sum(dim=None, keepdim=True)", "torch.sum(x, None, True)", "x.sum(())",
            "x.sum((), keepdim=True)", "x.sum([], True, dtype=torch.float64)", "x.mean(None)",
            "x.mean(dim=None, keepdim=True)", "torch.mean(x, [], keepdim=True)", "x.mean(())",
            "x.sum()", "x.mean()", "x.sum(dtype=torch.float64)", "x.argmax(None, True)",
            "x.argmin(dim=None, keepdim=True)", "torch.argmax(x, None, True)", "x.any(None, True)",
            "x.all(dim=None, keepdim=True)", "x.nansum(None, True)", "x.std(None, keepdim=True)",
            "x.var(dim=None, keepdim=True)", "x.amax(dim=None)"]


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 1, 4)], ids=str)
def test_explicit_none_dim_keeps_dims_as_torch(tmp_path, shape):
    lines = [PRELUDE, "torch.manual_seed(0)", f"x = torch.randn({shape}, requires_grad=True)"]
    lines += [f"show({e!r}, lambda: {e}, x)" for e in NONE_DIM]
    lines.append("g, = torch.autograd.grad(x.mean(None, True), x, torch.full([1] * x.ndim, 3.0), create_graph=True)")
    lines.append("print(g, g.grad_fn.name(), x.var(None, True).grad_fn.name())")
    assert agree(tmp_path, "\n".join(lines) + "\n") == []


# -- nansum / nanmean / var_mean / std_mean over generated inputs --------------------------

# prints each output's bits, shape, dtype and node, then the bits of the gradients a
# backward of the outputs weighted by a fixed pattern leaves in x (a leaf or several)
HEX = """import torch
def hexes(t):
    return [float(v).hex() for v in t.detach().flatten().tolist()]
def weights(t):
    return ((torch.arange(t.numel()) % 7 - 3) / 4).to(t.dtype).reshape(t.shape)
def report(label, out, x, use=None):
    outs = list(out) if isinstance(out, tuple) else [out]
    print(label, [(hexes(t), tuple(t.shape), t.dtype, t.grad_fn.name()) for t in outs])
    leaves = list(x) if isinstance(x, (list, tuple)) else [x]
    for leaf in leaves:
        leaf.grad = None
    picked = [t for i, t in enumerate(outs) if use is None or i == use]
    sum((t * weights(t)).sum() for t in picked).backward()
    print(label, 'grad', [None if leaf.grad is None else hexes(leaf.grad) for leaf in leaves])
"""


def _literal(a):
    return repr(a.tolist()).replace("nan", "float('nan')").replace("inf", "float('inf')")


def _data(shape, seed, nan_share):
    rng = np.random.default_rng(seed)
    a = np.array(rng.standard_normal(shape) * 3)
    if nan_share:
        a[rng.random(shape) < nan_share] = np.nan
        if len(shape) >= 2:
            a[0, ...] = np.nan             # a row that is all nan
    return a


def _dims(shape):
    n = len(shape)
    out = [None] + list(range(-n, n))
    if n >= 2:
        out += [(0, -1), [n - 1, 0]]
    return out


NAN_SHAPES = [(), (7,), (3, 5), (2, 3, 4), (4, 1, 6)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", NAN_SHAPES, ids=str)
def test_nansum_and_nanmean_are_torchs(tmp_path, shape, dtype):
    calls = []
    for dim in _dims(shape):
        for keepdim in (False, True):
            arg = "" if dim is None and not keepdim else f"{dim!r}, keepdim={keepdim}"
            calls += [f"x.nansum({arg})", f"torch.nanmean(x{', ' + arg if arg else ''})"]
    calls += ["torch.nansum(x, dtype=torch.float64)", "x.nanmean(dtype=torch.float64)",
              "torch.nansum(x, dim=None, keepdim=True)", "x.nanmean(dim=None, keepdim=True)"]
    for seed, share in ((1, 0.0), (2, 0.3)):
        src = HEX + f"x = torch.tensor({_literal(_data(shape, seed, share))}, dtype=torch.{dtype}, " \
                    "requires_grad=True)\n"
        src += "".join(f"report({c!r}, {c}, x)\n" for c in calls)
        src += "i = torch.tensor([[1, 2], [3, 4]])\nprint(i.nansum(), i.nansum(0), torch.nansum(i, dtype=torch.float32))\n"
        src += "b = torch.tensor([True, False, True])\nprint(b.nansum(), b.nansum().dtype)\n"
        assert agree(tmp_path, src) == []


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", NAN_SHAPES, ids=str)
def test_var_mean_and_std_mean_are_torchs(tmp_path, shape, dtype):
    calls = []
    for dim in _dims(shape):
        for keepdim in (False, True):
            for corr in ("", ", correction=0", ", unbiased=False", ", correction=2"):
                for fn in ("var_mean", "std_mean"):
                    calls.append(f"torch.{fn}(x, {dim!r}, keepdim={keepdim}{corr})")
    calls += ["torch.var_mean(x)", "torch.std_mean(x)", "torch.var_mean(x, True)", "torch.std_mean(x, False)",
              "torch.var_mean(x, unbiased=True)", "torch.std_mean(x, correction=0.5)"]
    for seed, share in ((3, 0.0), (4, 0.1)):
        src = HEX + f"x = torch.tensor({_literal(_data(shape, seed, share))}, dtype=torch.{dtype}, " \
                    "requires_grad=True)\n"
        src += "".join(f"report({c!r}, {c}, x)\n" for c in calls)
        # one output used: the other's gradient is undefined in the node's backward
        src += "".join(f"report({c + ' only'!r}, {c}, x, use={u})\n"
                       for c in ("torch.var_mean(x)", "torch.std_mean(x, -1)") for u in (0, 1))
        assert agree(tmp_path, src) == []


MOMENT_ERRORS = [
    "torch.var_mean(torch.tensor([1, 2]))", "torch.std_mean(torch.tensor([True]))",
    "torch.nanmean(torch.tensor([1, 2]))", "torch.nanmean(torch.tensor([1, 2]), dtype=torch.float32)",
    "torch.var_mean(x, 2)", "torch.std_mean(x, (0, 0))", "torch.nansum(x, [1, 1])", "torch.nanmean(x, -3)",
    "torch.var_mean(x, [0, 5])", "x.nansum(dim=7)", "torch.nansum([1.0, 2.0])", "torch.var_mean(None)",
    "torch.var_mean(x, 1, True, True)", "torch.std_mean(x, dim=1, correction=0, keepdim=True)",
    "torch.nanmean(torch.tensor(float('nan')))", "torch.nansum(torch.tensor(float('nan')), 0)",
    "torch.var_mean(torch.tensor(2.0), 0, correction=0)", "x.nanmean(())",
]


@pytest.mark.parametrize("expr", MOMENT_ERRORS)
def test_moment_and_nan_reduction_arguments_are_torchs(tmp_path, expr):
    src = ("import torch\nx = torch.ones(2, 3)\ntry:\n"
           f"    y = {expr}\n    print(y)\nexcept Exception as e:\n    print(type(e).__name__, e)\n")
    assert agree(tmp_path, src) == []


@pytest.mark.parametrize("shape", [(9,), (4, 7), (3, 2, 5), ()], ids=str)
def test_median_and_nanmedian_with_nan_and_ties_are_torchs(tmp_path, shape):
    """Values, indices among ties (torch's nth_element breaks them by index), nodes and
    gradients: median is nan where a nan is and sends the gradient to the nan elements;
    nanmedian skips them (nan, index 0, where all are nan)."""
    rng = np.random.default_rng(len(shape) * 11 + 5)
    a = np.array(rng.integers(0, 4, shape).astype(float))
    if a.ndim:
        a[rng.random(shape) < 0.25] = np.nan
    if a.ndim >= 2:
        a[0, ...] = np.nan
    calls = ["x.median()", "x.nanmedian()", "torch.nanmedian(x)"]
    for d in range(-a.ndim, a.ndim) if a.ndim else [0]:
        calls += [f"x.median({d})", f"x.nanmedian({d})", f"torch.nanmedian(x, dim={d}, keepdim=True)"]
    for dtype in ("float32", "float64"):
        src = HEX + f"x = torch.tensor({_literal(a)}, dtype=torch.{dtype}, requires_grad=True)\n"
        src += "".join(f"report({c!r}, {c}, x, use=0)\nprint(tuple({c})[1:] if isinstance({c}, tuple) else '')\n"
                       for c in calls)
        src += "print(x.detach().nanmedian(0))\nprint(x.detach().long().nanmedian())\n" if a.ndim else ""
        assert agree(tmp_path, src) == []
