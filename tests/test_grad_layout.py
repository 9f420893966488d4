"""The layout of ``.grad`` against torch 2.13's AccumulateGrad and its gradient layout
contract (``obeys_layout_contract``/``clone_obey_contract``): generated leaves (contiguous,
transposed and permuted, expanded, sliced) and gradients (elementwise, sums, permutes,
matmuls), the first gradient and in-place accumulation, create_graph's copies and sums,
``retain_grad`` on non-leaves, ``autograd.grad`` results as computed, and the contract's
once-per-run warning; strides, contiguity, ``view(-1)`` and the values."""

from __future__ import annotations

import itertools
import subprocess
import sys

from helpers import require_torch, run_recorded

# strides of size-1 dims are left out where the gradient's own layout decides them: they
# come from the op that made it (numpy's choice there, not always torch's)
SCRIPT = """
import torch

def leaf(kind, shape):
    n = 1
    for s in shape:
        n *= s
    base = torch.arange(1.0, n + 1.0) / 7
    if kind == 'plain':
        return base.reshape(shape).requires_grad_()
    if kind.startswith('perm'):
        perm = [int(c) for c in kind[4:]]
        inv = [perm.index(i) for i in range(len(perm))]
        return base.reshape([shape[p] for p in perm]).permute(inv).detach().requires_grad_()
    if kind == 'expand':
        return base.reshape(shape)[..., :1].expand(shape).requires_grad_()
    big = torch.arange(1.0, 2 * n + 1.0).reshape(list(shape[:-1]) + [2 * shape[-1]]) / 7
    return big[..., ::2].detach().requires_grad_()

def loss_of(how, x):
    if how == 'mul':
        return (x * torch.linspace(-1, 2, x.numel()).reshape(x.shape)).sum()
    if how == 'sum':
        return x.sum() * 3
    if how == 'perm':
        return (x.permute(*reversed(range(x.dim()))).contiguous() ** 2).sum()
    if how == 'mm':
        m = x.reshape(x.shape[0], -1)
        return (m.t() @ torch.ones(m.shape[0], 2)).pow(2).sum()
    return (x * x).sum()

def masked(t):
    return tuple(s if n != 1 else None for n, s in zip(t.shape, t.stride()))

def show(tag, g):
    try:
        g.view(-1)
        v = 'view ok'
    except RuntimeError as e:
        v = str(e)
    print(tag, masked(g), g.is_contiguous(), v, g.tolist())

for shape, kinds in CASES:
    for kind in kinds:
        for how in ('mul', 'sum', 'perm', 'mm', 'sq'):
            tag = (shape, kind, how)
            x = leaf(kind, shape)
            print(tag, 'leaf', masked(x), x.is_contiguous())
            loss_of(how, x).backward()
            show('first', x.grad)
            loss_of(how, x).backward()
            show('accumulated', x.grad)
            x = leaf(kind, shape)
            loss_of(how, x * 1).backward(create_graph=True)
            show('create_graph', x.grad)
            print(type(x.grad.grad_fn).__name__)
            loss_of(how, x * 1).backward(create_graph=True)
            show('create_graph sum', x.grad)
            print(type(x.grad.grad_fn).__name__)
            x = leaf(kind, shape)
            y = x * 1
            y.retain_grad()
            loss_of(how, y).backward(retain_graph=True)
            show('retain_grad', y.grad)
            loss_of(how, y).backward()
            show('retain_grad sum', y.grad)
            if how in ('mul', 'sum', 'perm'):
                x = leaf(kind, shape)
                (g,) = torch.autograd.grad(loss_of(how, x), [x])
                show('autograd.grad', g)
"""


def _cases():
    """Shapes (with and without size-1 dims) and the leaf layouts to try on each."""
    cases = []
    for shape in [(2, 3), (4, 3, 2), (2, 3, 2, 3), (5,), (3, 1, 4), (2, 3, 1, 2), (3, 1)]:
        perms = [p for p in itertools.permutations(range(len(shape))) if list(p) != sorted(p)]
        kinds = ["plain", "slice"] + (["expand"] if shape[-1] > 1 else []) \
            + ["perm" + "".join(map(str, p)) for p in perms[::max(1, len(perms) // 4)]]
        cases.append((shape, kinds))
    return cases


def _torch_stdout(src):
    return subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, check=True).stdout


def _ours(src):
    trace, _ = run_recorded(src, keep_values=False)
    assert trace.error is None, trace.error
    return trace.stdout


def test_grad_layouts_match_torch():
    """Every leaf layout and gradient above: ``.grad``'s strides, contiguity, ``view(-1)``
    and values after the first pass, in-place accumulation, create_graph's copy
    (CopyBackwards, or CloneBackward0 for a leaf that is not dense) and sum, ``retain_grad``
    (contiguous, then summed) and ``autograd.grad`` (as computed, an expanded sum too) as
    torch 2.13 gives them."""
    require_torch()
    src = "CASES = " + repr(_cases()) + "\n" + SCRIPT
    theirs = _torch_stdout(src)
    # the cases cover each branch of the contract
    assert "view size is not compatible" in theirs and "(0, 0)" in theirs
    assert "CloneBackward0" in theirs and "CopyBackwards" in theirs and "AddBackward0" in theirs
    assert _ours(src) == theirs


def test_linear_weight_grad_is_contiguous():
    """The gradient of ``nn.Linear``'s weight is a transposed product; its ``.grad`` is
    contiguous (the weight's strides) and views, as torch 2.13's."""
    require_torch()
    src = """
import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Linear(3, 2)
for _ in range(2):
    model(torch.ones(4, 3)).sum().backward()
    for p in model.parameters():
        print(p.grad.stride(), p.grad.is_contiguous(), p.grad.view(-1))
"""
    theirs = _torch_stdout(src)
    assert "(3, 1) True" in theirs
    assert _ours(src) == theirs


def test_layout_contract_warning_once_per_place():
    """A ``.grad`` set out of the contract and accumulated into warns once per run for
    each of torch's two checks (in place, and the create_graph sum), with its text."""
    require_torch()
    src = """
import torch
import warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter('always')
    for shape in ((2, 3), (4, 2, 3)):
        x = torch.ones(shape, requires_grad=True)
        x.grad = torch.zeros(shape[::-1]).permute(*reversed(range(len(shape))))
        for _ in range(2):
            (x * 2).sum().backward()
            print(x.grad.stride(), x.grad.sum().item())
        y = torch.ones(shape, requires_grad=True)
        y.grad = torch.zeros(shape[::-1]).permute(*reversed(range(len(shape))))
        (y * y).sum().backward(create_graph=True)
        print(y.grad.stride(), type(y.grad.grad_fn).__name__)
        z = torch.ones(shape, requires_grad=True)
        (z * 2).sum().backward()
        (z * 2).sum().backward()
for w in caught:
    if 'layout' in str(w.message):
        print(w.category.__name__, str(w.message).split(' (Triggered internally')[0])
"""
    theirs = _torch_stdout(src)
    assert theirs.count("grad and param do not obey the gradient layout contract") == 2
    assert _ours(src) == theirs
