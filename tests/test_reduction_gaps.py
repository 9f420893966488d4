"""Reductions real scripts meet at their edges, each script run under torch 2.13
(tests/torch_oracle.py) and autotrace side by side: empty tensors (torch's IndexError or
RuntimeError for reductions without an identity, nan / 1 / 0 / -inf for those with one,
empty results for softmax)."""

from __future__ import annotations

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
        "torch.max(x)"]

PER_DIM = ["x.max({d})", "torch.min(x, {d}, keepdim=True)", "x.argmax({d})", "x.argmin({d}, keepdim=True)",
           "x.median({d})", "x.amax({d})", "x.amin(({d},))", "x.mean({d})", "x.std({d})",
           "x.var({d}, keepdim=True)", "x.prod({d})", "x.sum({d})", "x.logsumexp({d})", "x.softmax({d})",
           "F.log_softmax(x, {d})", "x.kthvalue(1, {d})", "x.mode({d})", "x.norm(dim={d})",
           "x.norm(p=float('inf'), dim={d})", "x.cumsum({d})", "x.cummax({d})", "x.std({d}, correction=2)",
           "x.amax(({d}, 0))", "x.topk(0, {d})"]

INTEGER = ["xi.max()", "xi.argmax()", "xi.median()", "xi.amax()", "xi.sum()", "xi.prod()", "xi.mean()",
           "xi.softmax(0)", "xi.log_softmax(-1)", "xi.max(0)", "xi.median(0)"]


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

