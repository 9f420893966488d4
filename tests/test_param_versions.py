"""``p._version`` of nn module parameters and buffers matches torch 2.13: construction
leaves 1 on each tensor ``reset_parameters`` fills in place (2 on an Embedding weight with
``padding_idx``, 0 on a zero-element weight ``kaiming_uniform_`` skips), running stats
written by the batch-norm kernel do not move, and each optimizer step, ``zero_grad``,
``load_state_dict`` and ``nn.init`` call adds what torch's in-place ops add."""

from __future__ import annotations

import pytest

from autotrace import runner
from test_select_views import _torch_out

LAYERS = {
    "Linear": "nn.Linear(3, 2)", "LinearNoBias": "nn.Linear(3, 2, bias=False)", "LinearEmptyIn": "nn.Linear(0, 3)",
    "LinearEmptyOut": "nn.Linear(3, 0)", "Conv1d": "nn.Conv1d(2, 3, 3)", "Conv2d": "nn.Conv2d(2, 3, 3, bias=False)",
    "ConvTranspose1d": "nn.ConvTranspose1d(2, 3, 3)", "ConvTranspose2d": "nn.ConvTranspose2d(2, 3, 3)",
    "BatchNorm1d": "nn.BatchNorm1d(3)", "BatchNorm2d": "nn.BatchNorm2d(3, affine=False)",
    "BatchNormNoStats": "nn.BatchNorm1d(3, track_running_stats=False)", "LayerNorm": "nn.LayerNorm(3)",
    "LayerNormNoAffine": "nn.LayerNorm([2, 3], elementwise_affine=False)", "LayerNormNoBias": "nn.LayerNorm(3, bias=False)",
    "GroupNorm": "nn.GroupNorm(2, 4)", "Embedding": "nn.Embedding(5, 3)", "EmbeddingPad": "nn.Embedding(5, 3, padding_idx=1)",
    "PReLU": "nn.PReLU()", "PReLU3": "nn.PReLU(3, init=0.1)", "RNN": "nn.RNN(3, 4, num_layers=2, bidirectional=True)",
    "LSTM": "nn.LSTM(3, 4, proj_size=2)", "GRU": "nn.GRU(3, 4, bias=False)", "RNNCell": "nn.RNNCell(3, 4)",
    "LSTMCell": "nn.LSTMCell(3, 4)", "GRUCell": "nn.GRUCell(3, 4)", "Sequential": "nn.Sequential(nn.Linear(2, 2), nn.ReLU())",
}

PRELUDE = """import torch
import torch.nn as nn
torch.manual_seed(0)
def versions(m):
    return [(n, p._version) for n, p in m.named_parameters()] + [(n, b._version) for n, b in m.named_buffers()]
"""


def _same(src: str, name: str) -> str:
    src = PRELUDE + src
    want = _torch_out(src)
    trace = runner.run(src, f"{name}.py")
    assert trace.error is None, trace.error
    assert trace.stdout == want
    return want


def test_constructed_layers_have_torchs_versions():
    body = "".join(f"print({name!r}, versions({ctor}))\n" for name, ctor in LAYERS.items())
    want = _same(body, "layers")
    assert "('weight', 1)" in want and "('weight', 2)" in want and "('weight', 0)" in want


def test_parameter_and_from_pretrained_share_the_tensors_counter():
    _same("""
t = torch.zeros(2, 3)
t.add_(1)
p = nn.Parameter(t)
print(p._version, t._version)
t.mul_(2)
print(p._version)
p.data.mul_(2)
print(p._version, t._version)
e = nn.Embedding.from_pretrained(t)
print(e.weight._version)
q = nn.Parameter(torch.ones(2), requires_grad=False)
print(q._version)
""", "parameter")


OPTIMIZERS = ["torch.optim.SGD(ps, lr=0.1)", "torch.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.1, nesterov=True)",
              "torch.optim.Adam(ps, lr=0.01)", "torch.optim.Adam(ps, lr=0.01, weight_decay=0.1, amsgrad=True)",
              "torch.optim.AdamW(ps, lr=0.01)", "torch.optim.AdamW(ps, lr=0.01, weight_decay=0)",
              "torch.optim.Adam(ps, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)",
              "torch.optim.RMSprop(ps, lr=0.01, momentum=0.5, centered=True)", "torch.optim.Adagrad(ps, lr=0.1)",
              "torch.optim.Adadelta(ps)"]


@pytest.mark.parametrize("ctor", OPTIMIZERS)
@pytest.mark.parametrize("set_to_none", [True, False])
def test_versions_after_steps_and_zero_grad(ctor, set_to_none):
    _same(f"""
model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.Tanh(), nn.LayerNorm(4), nn.Linear(4, 1))
ps = list(model.parameters())
opt = {ctor}
x = torch.randn(5, 3)
for step in range(3):
    opt.zero_grad(set_to_none={set_to_none})
    loss = model(x).pow(2).mean()
    loss.backward()
    opt.step()
    print(step, versions(model), [p.grad._version for p in ps])
model.zero_grad(set_to_none={set_to_none})
print(versions(model), [None if p.grad is None else p.grad._version for p in ps])
model.eval()
model(x)
print(versions(model))
model.load_state_dict(model.state_dict())
nn.init.xavier_uniform_(model[0].weight)
nn.init.zeros_(model[0].bias)
with torch.no_grad():
    model[4].weight[0, 0] = 2.0
    model[4].bias -= 1
print(versions(model))
""", "optim")


def test_functional_batch_norm_leaves_running_stats_versions():
    _same("""
import torch.nn.functional as F
x = torch.randn(4, 3)
rm, rv = torch.zeros(3), torch.ones(3)
w = torch.ones(3, requires_grad=True)
F.batch_norm(x, rm, rv, w, None, training=True)
F.batch_norm(x, rm, rv, training=True, momentum=0.5)
print(rm._version, rv._version, rm, rv)
bn = nn.BatchNorm2d(3)
for _ in range(3):
    bn(torch.randn(2, 3, 2, 2))
print(versions(bn), bn.num_batches_tracked)
""", "functional_bn")
