"""Idioms from the scripts users bring, each checked against torch 2.13's printed output
on generated inputs (shapes, dtypes and values drawn from a seed)."""

from __future__ import annotations

import random

from helpers import autotrace_stdout, torch_stdout

DTYPES = ["float32", "float64", "int64", "int32", "int16", "uint8",
          "bool", "float16"]


def _shapes(seed, n):
    rng = random.Random(seed)
    return [tuple(rng.randint(0, 4) for _ in range(rng.randint(0, 3))) for _ in range(n)]


def test_size_and_kind_queries_match_torch():
    """``nbytes``/``itemsize`` (numel × itemsize, for views and expanded tensors too),
    ``torch.is_floating_point``/``is_complex``/``is_nonzero`` and their errors."""
    cases = [(s, d) for s, d in zip(_shapes(1, 16), DTYPES * 2)]
    src = f"""
import torch
for shape, dtype in {cases!r}:
    x = torch.zeros(shape, dtype=getattr(torch, dtype))
    print(shape, x.nbytes, x.itemsize, torch.is_floating_point(x), torch.is_complex(x), x.is_complex())
    if x.dim() >= 1:
        print(x[..., ::2].nbytes, x.unsqueeze(0).expand(3, *x.shape).nbytes)
    try:
        print(torch.is_nonzero(x + 1))
    except RuntimeError as e:
        print('RuntimeError', e)
for v in [0, 1, 2.5, True]:
    print(torch.is_nonzero(torch.tensor([v])), torch.is_nonzero(torch.tensor(v)))
for f in (torch.is_floating_point, torch.is_complex, torch.is_nonzero):
    try:
        f(3)
    except TypeError as e:
        print(e)
"""
    assert autotrace_stdout(src) == torch_stdout(src)


def test_parameter_list_and_dict_print_as_torch():
    """ParameterList prints ``torch.float32``, ParameterDict the legacy ``torch.FloatTensor``;
    one entry stays on the module's line; inside a model both indent as children."""
    rng = random.Random(2)
    entries = [(f"p{i}", rng.choice(DTYPES[:2]), s) for i, s in enumerate(_shapes(3, 5))]
    src = f"""
import torch
import torch.nn as nn
entries = {entries!r}
for k in range(len(entries) + 1):
    ps = [nn.Parameter(torch.zeros(s, dtype=getattr(torch, d))) for _, d, s in entries[:k]]
    print(nn.ParameterList(ps))
    print(nn.ParameterDict({{n: p for (n, _, _), p in zip(entries[:k], ps)}}))
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.d = nn.ParameterDict({{'w': nn.Parameter(torch.ones(2, 2))}})
        self.l = nn.ParameterList([nn.Parameter(torch.ones(3)), nn.Parameter(torch.ones(1, dtype=torch.float64))])
        self.fc = nn.Linear(2, 1)
print(M())
"""
    assert autotrace_stdout(src) == torch_stdout(src)


FUNCTIONAL_SCRIPT = """
import torch
from torch.autograd.functional import vjp, jvp, vhp, hvp
torch.manual_seed(SEED)
n = N
x = torch.randn(n, dtype=torch.float64)
y = torch.randn(n, dtype=torch.float64)
W = torch.randn(n, n, dtype=torch.float64)
def f(a):
    return torch.sin(a) * a ** 2 + W @ a.exp()
def two(a, b):
    return (a * b).sin(), (a - b) ** 3
def s(a):
    return (a ** 3).sum() + (W @ a).pow(2).sum() * a[0]
def s2(a, b):
    return (a.exp() * b).sum() + (b ** 2).sum()
v = torch.randn(n, dtype=torch.float64)
for cg in (False, True):
    print(vjp(f, x, v, create_graph=cg))
    print(jvp(f, x, v, create_graph=cg))
    print(vhp(s, x, v, create_graph=cg))
    print(hvp(s, x, v, create_graph=cg))
    print(vjp(two, (x, y), (v, v * 2), create_graph=cg))
    print(jvp(two, (x, y), (v, -v), create_graph=cg))
    print(vhp(s2, (x, y), (v, v), create_graph=cg))
    print(hvp(s2, (x, y), (v, v), create_graph=cg))
print(vjp(lambda a: (a ** 2).sum(), x[:1]), jvp(lambda a: a.exp(), torch.tensor(0.5, dtype=torch.float64)))
r = vjp(f, x.requires_grad_(), v, create_graph=True)[1]
print(r.requires_grad, r.grad_fn is not None)
bad = [lambda: vjp(f, x, torch.ones(n + 1)), lambda: vjp(f, x), lambda: jvp(f, x), lambda: vhp(f, x, v),
       lambda: hvp(s, x, (v, v)), lambda: vjp(two, (x, y), v),
       lambda: vjp(lambda a, b: a * 2, (x, y), v, strict=True),
       lambda: jvp(lambda a: a * 2, x, v, strict=True), lambda: jvp(lambda a: a.sum() * 0 + 1, x, v, strict=True),
       lambda: hvp(lambda a: a.sum() * 2, x, v, strict=True), lambda: vhp(lambda a: a.sum() * 2, x, v, strict=True),
       lambda: vjp(f, x, [1, 2]), lambda: jvp(f, [x], v), lambda: vjp(f, (x, 3), v), lambda: vjp(3, x, v)]
for b in bad:
    try:
        print(b())
    except (RuntimeError, TypeError) as e:
        print(type(e).__name__, e)
"""


def test_autograd_functional_products_match_torch():
    """vjp, jvp (double-backward trick), vhp and hvp on generated float64 inputs: one and
    two inputs and outputs, create_graph both ways, v=None for one element, and torch's
    errors for a wrong v, a non-scalar function, strict mode and non-tensor arguments."""
    for seed, n in ((0, 3), (1, 5), (7, 1)):
        src = FUNCTIONAL_SCRIPT.replace("SEED", str(seed)).replace("N", str(n), 1)
        assert autotrace_stdout(src) == torch_stdout(src)


def test_autograd_functional_hostile():
    """A function that never returns or recurses without end under vjp/hvp ends at the
    run's limits with one error line, not a hang or a traceback."""
    from helpers import run_cli
    for body in ("def f(a):\n    while True:\n        a = a * 1\n",
                 "def f(a):\n    return f(a * 2)\n"):
        for call in ("vjp(f, torch.ones(2), torch.ones(2))", "hvp(lambda a: f(a).sum(), torch.ones(2), torch.ones(2))"):
            src = "import torch\nfrom torch.autograd.functional import vjp, hvp\n" + body + call + "\n"
            proc = run_cli("run", "-", "--timeout", "3", "--limit", "loop-iterations=2000", input=src)
            assert proc.returncode == 1, (proc.returncode, proc.stderr)
            assert "Traceback" not in proc.stderr and "error" in proc.stderr


PAD_SCRIPT = """
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(SEED)
for mode in ('reflect', 'replicate'):
    for shape, pad in CASES:
        for dtype in (torch.float32, torch.float64):
            x = torch.randn(*shape, dtype=dtype, requires_grad=True)
            try:
                y = F.pad(x, pad, mode=mode)
            except (RuntimeError, NotImplementedError) as e:
                print(type(e).__name__, e)
                continue
            w = torch.randn_like(y)
            (y * w).sum().backward()
            print(mode, y.grad_fn.name(), tuple(y.shape), y.flatten()[-60:].tolist(), x.grad.flatten()[:60].tolist())
            print(y.double().sum().item(), x.grad.double().pow(2).sum().item())
print(nn.ReflectionPad2d(1), nn.ReplicationPad1d((1, 2)), nn.ReflectionPad3d(2), nn.ZeroPad2d((1, 0, 2, 0)),
      nn.ConstantPad1d(2, 3.5), nn.ConstantPad3d((1, 2, 0, 0, 1, 1), -1.0))
print(nn.ReplicationPad2d((1, 0, 2, 1))(torch.arange(6.).view(1, 2, 3)), nn.ZeroPad1d(1)(torch.ones(1, 2)),
      nn.ConstantPad2d(1, -1.)(torch.ones(1, 1, 1)), type(nn.ReflectionPad1d(1)))
"""


def _pad_cases(seed):
    rng = random.Random(seed)
    cases = []
    for _ in range(12):
        k = rng.randint(1, 3)
        nd = rng.choice((k + 1, k + 2, k + 2, k, k + 3))
        shape = tuple(rng.randint(1, 5) for _ in range(nd))
        pad = tuple(rng.randint(-1, 4) for _ in range(2 * k))
        cases.append((shape, pad))
    return cases


def test_reflect_and_replicate_padding_match_torch():
    """F.pad's reflect and replicate modes on generated shapes and amounts (negative ones
    crop; too large, wrong rank and empty inputs raise torch's errors): the node, the
    values and the gradient to the last bit (float32 and float64), and the nn padding
    modules' output and repr."""
    for seed in (0, 1, 2):
        src = PAD_SCRIPT.replace("SEED", str(seed)).replace("CASES", repr(_pad_cases(seed)))
        theirs = torch_stdout(src)
        assert "ReflectionPad" in theirs and "Padding size" in theirs
        assert autotrace_stdout(src) == theirs


def test_padding_is_counted_before_it_is_made():
    """A replicate pad of a huge amount is refused by the elements limit, not allocated."""
    from helpers import run_cli
    src = "import torch\nimport torch.nn.functional as F\nF.pad(torch.ones(1, 2), (10**9, 10**9), mode='replicate')\n"
    proc = run_cli("run", "-", input=src)
    assert proc.returncode == 1 and "LimitError" in proc.stderr and "Traceback" not in proc.stderr
