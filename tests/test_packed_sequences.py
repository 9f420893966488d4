"""Packed sequences against torch 2.13: ``pack_padded_sequence``, ``pad_packed_sequence``,
``pack_sequence``, ``unpack_sequence``, ``PackedSequence`` and nn.RNN / LSTM / GRU over a
packed batch. Generated batches (batch sizes, lengths with ties and unsorted,
``batch_first`` both ways, 1-2 layers, bidirectional, a given ``h0`` or none) run as one
script under torch (tests/torch_oracle.py) and under autotrace; the printed lines (node
names, lengths, indices, and the packed output data as exact float lists), every
top-level tensor's value, gradient and grad_fn, and every parameter's gradient must
agree. Errors keep torch's types and messages; hostile lengths end at the limits."""

from __future__ import annotations

import random

import pytest

from autotrace import runner
from helpers import require_torch
from test_reduction_gaps import agree

HEAD = """import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pack_sequence, unpack_sequence
from torch.nn.utils.rnn import PackedSequence
def chain(f, depth):
    if f is None or depth == 0:
        return None
    return [f.name(), [chain(n, depth - 1) for n, _ in f.next_functions]]
"""


def rnn_config(seed):
    r = random.Random(seed)
    B = r.randint(1, 5)
    T = r.randint(1, 5)
    lengths = [r.randint(1, T) for _ in range(B)]
    lengths[r.randrange(B)] = T
    if r.random() < 0.3:
        lengths = sorted(lengths, reverse=True)
    return {"mode": r.choice(["RNN", "LSTM", "GRU"]), "B": B, "T": T, "lengths": lengths,
            "I": r.randint(1, 4), "H": r.randint(1, 4), "L": r.randint(1, 2), "bd": r.random() < 0.5,
            "bf": r.random() < 0.5, "h0": r.random() < 0.5, "tensor_lengths": r.random() < 0.5,
            "relu": r.random() < 0.3, "total": r.random() < 0.3, "seed": seed}


def rnn_script(c):
    B, T, I, H, L = c["B"], c["T"], c["I"], c["H"], c["L"]
    D = 2 if c["bd"] else 1
    lengths = c["lengths"]
    sorted_ = lengths == sorted(lengths, reverse=True)
    extra = ", nonlinearity='relu'" if c["mode"] == "RNN" and c["relu"] else ""
    shape = (B, T, I) if c["bf"] else (T, B, I)
    lines = [HEAD, f"torch.manual_seed({c['seed']})",
             f"m = nn.{c['mode']}({I}, {H}, num_layers={L}, bidirectional={c['bd']}, batch_first={c['bf']}{extra})",
             f"x = torch.randn{shape}.requires_grad_()",
             f"lengths = {'torch.tensor(%r)' % (lengths,) if c['tensor_lengths'] else repr(lengths)}",
             f"p = pack_padded_sequence(x, lengths, batch_first={c['bf']}, enforce_sorted={sorted_})"]
    state = "None"
    if c["h0"]:
        lines.append(f"h0 = torch.randn({L * D}, {B}, {H}).requires_grad_()")
        state = "h0"
        if c["mode"] == "LSTM":
            lines.append(f"c0 = torch.randn({L * D}, {B}, {H}).requires_grad_()")
            state = "(h0, c0)"
    lines.append(f"out, hn = m(p, {state})")
    if c["mode"] == "LSTM":
        lines.append("hn, cn = hn")
    total = f", total_length={T + 1}" if c["total"] else ""
    lines += [f"padded, lens = pad_packed_sequence(out, batch_first={c['bf']}{total})",
              "data = out.data",
              "w = torch.randn(padded.shape)",
              "loss = (padded * w).sum() + (hn * hn).sum()" + (" + cn.sum() * 0.5" if c["mode"] == "LSTM" else ""),
              "loss.backward()",
              "print(type(out).__name__, p.data.grad_fn.name(), data.grad_fn.name(), hn.grad_fn.name(), "
              "padded.grad_fn.name(), lens, out.batch_sizes, out.sorted_indices, out.unsorted_indices)",
              "print(chain(hn.grad_fn, 7))",
              "print(chain(data.grad_fn, 6))"]
    if not (c["mode"] == "LSTM" and len(set(lengths)) == 1):
        # the step-by-step cells are torch's to the bit; full-length LSTM batches go through
        # torch's oneDNN layer, which agrees within float32 rounding (compared as variables)
        lines += ["print('data', data.tolist())", "print('hn', hn.tolist())"]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(36))
def test_rnn_over_a_packed_batch_is_torchs(tmp_path, seed):
    assert agree(tmp_path, rnn_script(rnn_config(seed))) == []


def test_packing_helpers_are_torchs(tmp_path):
    """pack_sequence / unpack_sequence / PackedSequence construction, printing, tuple
    behaviour, dtype conversion and the gradients through pack and pad."""
    src = HEAD + """torch.manual_seed(1)
seqs = [torch.randn(n, 2).requires_grad_() for n in (2, 4, 1, 4, 3)]
p = pack_sequence(seqs, enforce_sorted=False)
print(p)
print(type(p), isinstance(p, PackedSequence), isinstance(p, tuple), len(p), p.is_cuda, p.is_pinned())
data, batch_sizes, sorted_indices, unsorted_indices = p
print(batch_sizes, sorted_indices, unsorted_indices, p.data.grad_fn.name())
back = unpack_sequence(p)
print([(t.shape, t.grad_fn.name()) for t in back])
sum((t * (i + 1)).sum() for i, t in enumerate(back)).backward()
print([s.grad for s in seqs])
q = pack_sequence([torch.ones(3, 1), torch.ones(2, 1), torch.ones(2, 1)])
print(q, q.double().data.dtype, q.float() is q, q.to(torch.float32) is q)
r = PackedSequence(torch.arange(6.0), torch.tensor([3, 2, 1]), torch.tensor([2, 0, 1]))
print(r.unsorted_indices, pad_packed_sequence(r, padding_value=-1.0))
print(PackedSequence((torch.ones(3), torch.tensor([2, 1]))).batch_sizes)
x = torch.randn(4, 3, 2, requires_grad=True)
packed = pack_padded_sequence(x, torch.tensor([2.0, 3.0, 3.0, 1.0]), batch_first=True, enforce_sorted=False)
padded, lens = pad_packed_sequence(packed, batch_first=True, total_length=5, padding_value=7.0)
(padded * torch.arange(40.0).view(4, 5, 2)).sum().backward()
print(padded, lens, padded.grad_fn.name(), x.grad)
"""
    assert agree(tmp_path, src) == []


ERRORS = [
    "pack_padded_sequence(x, [3, 5, 3, 5])",
    "pack_padded_sequence(x, [5, 5, 3, 0])",
    "pack_padded_sequence(x, [5, 0, 3, 2], enforce_sorted=False)",
    "pack_padded_sequence(x, [5, 4, 3, -1])",
    "pack_padded_sequence(x, [5, 4, 3])",
    "pack_padded_sequence(x, torch.tensor([[5, 4, 3, 1]]))",
    "pack_padded_sequence(x, torch.tensor(5))",
    "pack_padded_sequence(torch.zeros(0, 4, 2), [0, 0, 0, 0])",
    "pack_padded_sequence(x[0, 0], [2])",
    "pack_padded_sequence(x, [5, 4, 3, 2], batch_first=True)",
    "pad_packed_sequence(pack_padded_sequence(x, [5, 4, 3, 1]), total_length=3)",
    "pad_packed_sequence(PackedSequence(torch.ones(3), torch.tensor([2.0, 1.0])))",
    "PackedSequence(torch.ones(3))",
    "PackedSequence(torch.ones(3), [2, 1])",
    "pack_sequence([])",
    "pack_sequence([torch.ones(2, 3), torch.ones(3, 3)])",
    "pack_sequence([torch.ones(3, 3), torch.ones(3, 2)])",
    "nn.GRU(2, 3)(pack_padded_sequence(torch.zeros(3, 2, 5), [3, 1]))",
    "nn.RNN(2, 3)(pack_padded_sequence(x, [5, 4, 3, 1]), torch.zeros(2, 4, 3))",
    "nn.GRU(2, 3)(pack_padded_sequence(x, [5, 4, 3, 1]), torch.zeros(4, 3))",
    "nn.RNN(2, 3)(PackedSequence(torch.ones(4, 2), torch.tensor([2, 2, 1])))",
    "torch.ones(3, 2).index_select(0, torch.tensor([3]))",
    "pack_padded_sequence(x, [9, 4, 3, 1]).data.sum().backward()",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_errors_are_torchs(tmp_path, expr):
    src = HEAD + f"x = torch.randn(5, 4, 2, requires_grad=True)\nr = {expr}\n"
    assert agree(tmp_path, src) == []


def test_lengths_past_the_input_are_cut_as_torch(tmp_path):
    """torch documents that a length past T is truncated: ``data`` keeps T steps while
    ``batch_sizes`` keeps ``lengths[0]`` entries."""
    src = HEAD + """x = torch.randn(5, 4, 2, requires_grad=True)
p = pack_padded_sequence(x, [9, 4, 3, 1])
print(p.batch_sizes, p.data.shape)
data = p.data
"""
    assert agree(tmp_path, src) == []


def _error(src):
    t = runner.run(HEAD + src, "h.py")
    assert t.error is not None, src
    return t.error


@pytest.mark.parametrize("src, etype", [
    # batch_sizes of 10**12 entries: refused before allocating (torch tries 8 TB)
    ("x = torch.zeros(2, 1, 1)\np = pack_padded_sequence(x, [10 ** 12])", "LimitError"),
    ("p = pack_padded_sequence(torch.zeros(2, 1, 1), [2] * 10 ** 9)", "LimitError"),
    ("p = pad_packed_sequence(PackedSequence(torch.ones(1), torch.tensor([1])), total_length=10 ** 12)",
     "LimitError"),
    ("p = pad_packed_sequence(PackedSequence(torch.ones(1), torch.tensor([10 ** 12])))", "LimitError"),
    # a crafted batch_sizes longer than the data stops at the first step that runs out
    ("p = PackedSequence(torch.ones(3, 2), torch.ones(10 ** 6, dtype=torch.long))\n"
     "out = nn.GRU(2, 2)(p)", "RuntimeError"),
    ("p = pack_sequence([torch.ones(2)])\np._replace(data=1)", "AttributeError"),
    ("p = pack_sequence([torch.ones(2)])\np.__class__.__new__", "AttributeError"),
    ("p = pack_sequence([torch.ones(2)])\np._asdict()", "AttributeError"),
])
def test_hostile_packed_inputs_end_cleanly(src, etype):
    err = _error(src)
    assert err["type"] == etype, (src, err)
