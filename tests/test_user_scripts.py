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
