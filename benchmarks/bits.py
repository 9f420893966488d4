"""Bit-identity of autotrace's float32 results with PyTorch's, op by op.

    python benchmarks/bits.py [--seed N] [--mkl | --no-mkl]

For each op it draws random inputs at several sizes (1 element up to a few thousand, so
both ATen's vectorized blocks and its scalar tails are hit), runs the op in PyTorch (the
installed build: the table says which CPU capability it uses) and in autotrace, and counts
the elements whose bits are identical and the tensors that are identical whole. The op
list is the replicated ones (fused forms, SLEEF, ATen's reductions) and the ones that go
through MKL (exact only with the optional mkl runtime: `--no-mkl` shows the pure numpy
fallback). Needs torch (the test extra).
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

SIZES = (1, 3, 16, 17, 31, 32, 33, 64, 100, 257, 1000, 4099)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--no-mkl", action="store_true", help="measure the pure numpy fallback")
    args = ap.parse_args(argv)
    if args.no_mkl:
        os.environ["AUTOTRACE_MKL"] = "0"
    import warnings

    import torch
    warnings.simplefilter("ignore")

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    from autotrace.ops import mkl
    from autotrace.tensor import Tensor
    from autotrace.torch_api import modules

    M = modules()
    at, atF = M["torch"], M["torch.nn.functional"]
    rng = np.random.default_rng(args.seed)

    def ours(a, grad=False):
        t = Tensor._make(np.array(a, copy=True))
        return t.requires_grad_(True) if grad else t

    def theirs(a, grad=False):
        t = torch.from_numpy(np.array(a, copy=True))
        return t.requires_grad_(True) if grad else t

    def normal(n, scale=3.0):
        return (rng.standard_normal(n) * scale).astype(np.float32)

    def pos(n):
        return (np.abs(rng.standard_normal(n)) * 3 + 0.01).astype(np.float32)

    def fwd(fn, make=normal):
        def case(n):
            a = make(n)
            return fn(theirs(a), torch).detach().numpy(), fn(ours(a), at)._data
        return case

    def bwd(fn, make=normal):
        def case(n):
            a, g = make(n), normal(n, 1.0)
            ta, oa = theirs(a, True), ours(a, True)
            tr, orr = fn(ta, torch), fn(oa, at)
            if tr.shape != ta.shape:          # a reduction: its own gradient of ones
                tr.sum().backward()
                orr.sum().backward()
            else:
                tr.backward(theirs(g))
                orr.backward(ours(g))
            return ta.grad.numpy(), oa.grad._data
        return case

    def two(fn, make=normal):
        def case(n):
            a, b = make(n), make(n)
            return fn(theirs(a), theirs(b), torch).detach().numpy(), fn(ours(a), ours(b), at)._data
        return case

    def bwd2(fn, make=normal):
        def case(n):
            a, b = make(n), make(n)
            ta, oa = theirs(a, True), ours(a, True)
            fn(ta, theirs(b), torch).backward()
            fn(oa, ours(b), at).backward()
            return ta.grad.numpy(), oa.grad._data
        return case

    def rows(fn):
        def case(n):
            a = normal((max(1, 4096 // max(n, 1)), n))
            return fn(theirs(a), torch).detach().numpy(), fn(ours(a), at)._data
        return case

    def shaped(fn, shape, make=normal):
        def case(n):
            a = make(shape(n))
            return fn(theirs(a), torch).detach().numpy(), fn(ours(a), at)._data
        return case

    def near1(n):
        return (1 + rng.standard_normal(n) * 0.05).astype(np.float32)

    def matmul(k):
        def case(n):
            a, b = normal((n, k), 1.0), normal((k, n), 1.0)
            return (theirs(a) @ theirs(b)).numpy(), (ours(a) @ ours(b))._data
        return case

    def linspace(n):
        s, e = float(rng.uniform(-10, 0)), float(rng.uniform(0, 10))
        return torch.linspace(s, e, n).numpy(), at.linspace(s, e, n)._data

    cases = [
        ("add(alpha=-0.05)", "fused", two(lambda x, y, L: L.add(x, y, alpha=-0.05))),
        ("sub(alpha=0.3)", "fused", two(lambda x, y, L: L.sub(x, y, alpha=0.3))),
        ("linspace", "fused", linspace),
        ("x**2", "pow form", fwd(lambda x, L: x ** 2)),
        ("x**3", "pow form", fwd(lambda x, L: x ** 3)),
        ("x**-0.5", "pow form", fwd(lambda x, L: x ** -0.5, pos)),
        ("x**-2", "pow form", fwd(lambda x, L: x ** -2)),
        ("x**2.5", "SLEEF", fwd(lambda x, L: x ** 2.5, pos)),
        ("sigmoid", "SLEEF", fwd(lambda x, L: x.sigmoid())),
        ("sigmoid backward", "formula", bwd(lambda x, L: x.sigmoid())),
        ("tanh backward", "fused", bwd(lambda x, L: x.tanh())),
        ("softmax(dim=-1)", "SLEEF", rows(lambda x, L: x.softmax(-1))),
        ("log_softmax(dim=-1)", "SLEEF", rows(lambda x, L: x.log_softmax(-1))),
        ("softmax backward", "SLEEF", bwd(lambda x, L: x.reshape(-1, 7 if x.numel() % 7 == 0 else 1).softmax(-1).reshape(-1)
                                            if x.numel() > 1 else x.softmax(-1))),
        ("log_softmax backward", "SLEEF", bwd(lambda x, L: x.reshape(2, -1).log_softmax(-1).reshape(-1)
                                              if x.numel() % 2 == 0 else x.log_softmax(-1))),
        ("sum", "cascade", fwd(lambda x, L: x.sum())),
        ("mean", "cascade", fwd(lambda x, L: x.mean())),
        ("sum(dim=0)", "cascade", shaped(lambda x, L: x.sum(0), lambda n: (n, 5))),
        ("mean(dim=1) of (n, 9, 7)", "cascade", shaped(lambda x, L: x.mean(1), lambda n: (n, 9, 7))),
        ("sum(dim=(0, 2))", "cascade", shaped(lambda x, L: x.sum((0, 2)), lambda n: (3, n, 7))),
        ("sum(dim=(1, 2))", "cascade", shaped(lambda x, L: x.sum((1, 2)), lambda n: (2, 3, n))),
        ("mean(dim=(0, 1))", "cascade", shaped(lambda x, L: x.mean((0, 1)), lambda n: (n, 3, 5))),
        ("((a-b)**2).mean()", "cascade", two(lambda x, y, L: ((x - y) ** 2).mean())),
        ("mse_loss", "cascade", two(lambda x, y, L: L.nn.functional.mse_loss(x, y))),
        ("mse_loss(sum)", "cascade", two(lambda x, y, L: L.nn.functional.mse_loss(x, y, reduction="sum"))),
        ("mse_loss backward", "formula", bwd2(lambda x, y, L: L.nn.functional.mse_loss(x, y))),
        ("cumsum", "float64 scan", fwd(lambda x, L: x.cumsum(0))),
        ("cumsum(dim=0) of (n, 3)", "float64 scan", shaped(lambda x, L: x.cumsum(0), lambda n: (n, 3))),
        ("cumprod", "float64 scan", fwd(lambda x, L: x.cumprod(0), near1)),
        ("var", "two-pass", fwd(lambda x, L: x.var())),
        ("std", "two-pass", fwd(lambda x, L: x.std())),
        ("var(dim=1)", "Welford", shaped(lambda x, L: x.var(1), lambda n: (4, n))),
        ("std(dim=0)", "Welford", shaped(lambda x, L: x.std(0), lambda n: (n, 6))),
        ("norm", "vectorized", fwd(lambda x, L: x.norm())),
        ("norm(p=1)", "sequential", fwd(lambda x, L: x.norm(p=1))),
        ("norm(p=3)", "sequential", fwd(lambda x, L: x.norm(p=3))),
        ("norm backward", "formula", bwd(lambda x, L: x.norm() * 1.7)),
        ("norm(p=3) backward", "formula", bwd(lambda x, L: x.norm(p=3) * 1.7)),
        ("norm(dim=1) backward", "formula", bwd(lambda x, L: x.reshape(1, -1).norm(p=1.5, dim=1) * 1.7)),
        ("norm(dim=1)", "vectorized", shaped(lambda x, L: x.norm(dim=1), lambda n: (4, n))),
        ("norm(dim=0)", "sequential", shaped(lambda x, L: x.norm(dim=0), lambda n: (n, 6))),
        ("exp", "MKL", fwd(lambda x, L: x.exp())),
        ("log", "MKL", fwd(lambda x, L: x.log(), pos)),
        ("sin", "MKL", fwd(lambda x, L: x.sin())),
        ("cos", "MKL", fwd(lambda x, L: x.cos())),
        ("tanh", "MKL", fwd(lambda x, L: x.tanh())),
        ("sqrt", "MKL", fwd(lambda x, L: x.sqrt(), pos)),
        ("mm, k=2", "MKL", matmul(2)),
        ("mm, k=16", "MKL", matmul(16)),
        ("mm, k=100", "MKL", matmul(100)),
    ]
    cap = torch.backends.cpu.get_cpu_capability()
    print(f"torch {torch.__version__} (CPU capability {cap}); autotrace with MKL: "
          f"{'yes' if mkl.available() else 'no (pure numpy fallback)'}; sizes {', '.join(map(str, SIZES))}")
    print()
    print(f"| op | how autotrace computes it | elements identical | tensors identical |")
    print("|---|---|---|---|")
    for name, how, case in cases:
        same = total = whole = 0
        for n in SIZES:
            t, o = case(n)
            t = np.asarray(t, np.float32).reshape(-1)
            o = np.asarray(o, np.float32).reshape(-1)
            eq = t.view(np.uint32) == o.view(np.uint32)
            same += int(eq.sum())
            total += eq.size
            whole += bool(eq.all())
        print(f"| {name} | {how} | {100 * same / total:.2f}% | {whole} of {len(SIZES)} |")


if __name__ == "__main__":
    main()
