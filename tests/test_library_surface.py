"""Library surface real scripts use: script Dataset subclasses with DataLoader, and the
guards around them (internals refused, sizes bounded before allocation, no hang)."""

from __future__ import annotations

import pytest

from autotrace import runner

DS = """import torch
from torch.utils.data import Dataset, DataLoader
class D(Dataset):
    def __init__(self, n):
        self.n = n
    def __len__(self):
        return self.n
    def __getitem__(self, i):
        return torch.tensor([float(i)]), i % 2
"""


def test_dataset_subclass_batches():
    t = runner.run(DS + "dl = DataLoader(D(5), batch_size=2)\n"
                   "print([(x.view(-1).tolist(), y.tolist()) for x, y in dl], len(dl), isinstance(D(1), Dataset))\n",
                   "ok.py")
    assert t.error is None, t.error
    assert t.stdout == "[([0.0, 1.0], [0, 1]), ([2.0, 3.0], [0, 1]), ([4.0], [0])] 3 True\n"


def test_batch_size_none_converts_tuples_to_lists():
    t = runner.run(DS + "print(next(iter(DataLoader(D(2), batch_size=None))))\n", "ok.py")
    assert t.error is None, t.error
    assert t.stdout == "[tensor([0.]), 0]\n"


HOSTILE = [
    # a shuffled loader over a dataset claiming 10**12 samples: refused before any allocation
    (DS + "for b in DataLoader(D(10**12), batch_size=4, shuffle=True):\n    pass\n", "LimitError",
     "over the limit"),
    # __len__ must be a non-negative int, as in Python
    (DS + "class E(D):\n    def __len__(self):\n        return -1\nprint(len(DataLoader(E(1))))\n", "ValueError",
     "__len__() should return >= 0"),
    # a __getitem__ that recurses forever ends at the recursion limit
    (DS + "class F(D):\n    def __getitem__(self, i):\n        return self[i]\nnext(iter(DataLoader(F(3))))\n",
     None, None),
    # the base class's internals stay hidden
    (DS + "x = D(1)._sdict\n", "AttributeError", "_sdict"),
]


@pytest.mark.parametrize("src,etype,message", HOSTILE)
def test_dataset_hostile(src, etype, message):
    t = runner.run(src, "h.py")
    assert t.error is not None
    if etype is not None:
        assert t.error["type"] == etype, t.error
        assert message in t.error["message"]


def test_stride_and_range_index():
    # values printed by torch 2.13 for the same lines
    src = """import torch
a = torch.arange(24.).view(2, 3, 4)
print(a.stride(), a.stride(-1), a.transpose(0, 2).stride(), a[..., ::2].stride(), a.expand(2, 2, 3, 4).stride())
x = torch.arange(12.).view(3, 4)
x[range(2), 0] = -1
print(x[range(3), [0, 1, 2]], x[:, range(0, 4, 2)].shape)
"""
    t = runner.run(src, "ok.py")
    assert t.error is None, t.error
    assert t.stdout == ("(12, 4, 1) 1 (1, 4, 12) (12, 4, 2) (0, 12, 4, 1)\n"
                        "tensor([-1.,  5., 10.]) torch.Size([3, 2])\n")


@pytest.mark.parametrize("src,etype", [
    ("x = torch.ones(3)[range(10**12)]", "LimitError"),
    ("x = torch.ones(3)\nx[range(2**62), 0] = 1", "LimitError"),
    ("x = torch.ones(3)[range(5)]", "IndexError"),
    ("s = torch.tensor(1.).stride(0)", "IndexError"),
])
def test_range_index_and_stride_hostile(src, etype):
    t = runner.run("import torch\n" + src + "\n", "h.py")
    assert t.error is not None and t.error["type"] == etype, t.error


# torch 2.13's errors for the index writes (checked against torch)
PUT_ERRORS = [
    ("torch.zeros(3, 2).index_copy(0, torch.tensor([0, 5]), torch.ones(2, 2))", "IndexError",
     "index_copy_(): index 5 is out of bounds for dimension 0 with size 3"),
    ("torch.zeros(3, 2).index_copy(0, torch.tensor([[0, 1]]), torch.ones(2, 2))", "IndexError",
     "index_copy_(): Index should have dimension 1 or 0 (got 2)"),
    ("torch.zeros(3, 2, 4).index_copy(1, torch.tensor([0]), torch.ones(3, 1, 5))", "RuntimeError",
     "index_copy_(): Source/destination tensor must have same slice shapes. Destination slice shape: 3 4 at "
     "dimension 1 and source slice shape: 3 5 at dimension 0."),
    ("torch.zeros(3).put_(torch.tensor([0, 1]), torch.tensor([1.]))", "IndexError",
     "put_(): Expected source and index to have the same number of elements, but got source.numel() = 1, "
     "index.numel() = 2"),
    ("torch.zeros(3).put(torch.tensor([-4]), torch.tensor([1.]))", "IndexError",
     "out of range: tried to access index -4 on a tensor of 3 elements."),
    ("torch.zeros(3, 2).index_put_((torch.tensor([0, 1]),), torch.ones(3))", "RuntimeError",
     "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [2, 2]"),
    ("torch.zeros(3, 2).index_put_((None, torch.tensor([1])), torch.tensor(7.))", "TypeError",
     "expected Tensor as element 0 in argument 0, but got NoneType"),
    ("torch.zeros(3, 2).index_put_(torch.tensor([0]), torch.tensor(7.))", "TypeError",
     "index_put_(): argument 'indices' (position 1) must be tuple of Tensors, not Tensor"),
    ("torch.zeros(3, 2).index_put_((torch.tensor([0]),) * 3, torch.tensor(7.))", "IndexError",
     "too many indices for tensor of dimension 2 (got 3)"),
    ("torch.zeros(3, requires_grad=True).put_(torch.tensor([0]), torch.tensor([1.]))", "RuntimeError",
     "a leaf Variable that requires grad is being used in an in-place operation."),
]


@pytest.mark.parametrize("src,etype,message", PUT_ERRORS)
def test_index_write_errors(src, etype, message):
    t = runner.run("import torch\nr = " + src + "\n", "e.py")
    assert t.error is not None and t.error["type"] == etype, t.error
    assert t.error["message"] == message


def test_unique_bincount_nodes_and_errors():
    # torch 2.13 prints the same lines
    src = """import torch
x = torch.tensor([[1., 2.], [1., 2.]], requires_grad=True)
u, inv, cnt = torch.unique(x, return_inverse=True, return_counts=True)
print(u, inv, cnt)
print(torch.unique(x, dim=0).grad_fn.name(), torch.unique_consecutive(x).grad_fn.name())
try:
    u.sum().backward()
except NotImplementedError as e:
    print(e)
b = torch.bincount(torch.tensor([0, 1, 1, 1]), weights=x.view(-1))
print(b, torch.bincount(torch.tensor([2, 0]), minlength=4))
try:
    b.sum().backward()
except RuntimeError as e:
    print(e)
"""
    t = runner.run(src, "ok.py")
    assert t.error is None, t.error
    assert t.stdout == ("tensor([1., 2.], grad_fn=<Unique2Backward0>) tensor([[0, 1],\n        [0, 1]]) tensor([2, 2])\n"
                        "UniqueDimBackward0 UniqueConsecutiveBackward0\n"
                        "the derivative for '_unique2' is not implemented.\n"
                        "tensor([1., 5.], grad_fn=<NotImplemented>) tensor([1, 0, 1, 0])\n"
                        "derivative for aten::bincount is not implemented\n")


@pytest.mark.parametrize("src,etype", [
    ("b = torch.bincount(torch.tensor([10**12]))", "LimitError"),
    ("b = torch.bincount(torch.tensor([1]), minlength=10**12)", "LimitError"),
    ("b = torch.bincount(torch.tensor([1.5]))", "NotImplementedError"),
    ("b = torch.unique(torch.ones(2), dim=3)", "IndexError"),
])
def test_counting_hostile(src, etype):
    t = runner.run("import torch\n" + src + "\n", "h.py")
    assert t.error is not None and t.error["type"] == etype, t.error


@pytest.mark.parametrize("src", [
    "m = torch.tensor([[1., 2]]).max(1)._make", "m = torch.tensor([1., 2]).aminmax()._asdict()",
    "m = torch.tensor([1, 2]).mode()._fields", "m = torch.tensor([[1., 2]]).min(1).__class__.__bases__",
])
def test_return_types_internals_refused(src):
    t = runner.run("import torch\n" + src + "\n", "h.py")
    assert t.error is not None and t.error["type"] == "AttributeError", t.error


def test_return_type_names_and_margin_ranking():
    # torch 2.13 prints the same lines
    src = """import torch
r = torch.tensor([[1., 5.], [4., 4.]]).max(1)
print(type(r).__name__, type(torch.tensor([3, 1, 3]).mode()).__name__, torch.aminmax(torch.tensor([3, -1])))
a = torch.tensor([0.5, 0.2], requires_grad=True)
o = torch.nn.MarginRankingLoss(margin=0.5)(a, torch.tensor([0.1, 0.4]), torch.tensor([1., -1.]))
o.backward()
print(o, a.grad, o.grad_fn.next_functions[0][0].next_functions[0][0].name())
"""
    t = runner.run(src, "ok.py")
    assert t.error is None, t.error
    assert t.stdout == ("max mode torch.return_types.aminmax(\nmin=tensor(-1),\nmax=tensor(3))\n"
                        "tensor(0.2000, grad_fn=<MeanBackward0>) tensor([-0.5000,  0.5000]) AddBackward1\n")


@pytest.mark.parametrize("src,etype", [
    ("o = F.scaled_dot_product_attention(torch.ones(2, 3), torch.ones(4, 5), torch.ones(4, 5))", "RuntimeError"),
    ("o = F.scaled_dot_product_attention([1.0], torch.ones(4, 5), torch.ones(4, 5))", "TypeError"),
    ("o = F.scaled_dot_product_attention(torch.ones(2, 3), torch.ones(4, 3), torch.ones(4, 5), is_causal=True, "
     "attn_mask=torch.ones(2, 4))", "RuntimeError"),
])
def test_attention_bad_input(src, etype):
    t = runner.run("import torch\nimport torch.nn.functional as F\n" + src + "\n", "h.py")
    assert t.error is not None and t.error["type"] == etype, t.error


def test_batch_norm_float32_transform_bits():
    """float32 batch_norm applies torch's fused per-channel ``x·alpha + beta``: in eval
    mode (running stats) every element is bit-identical to torch on generated inputs."""
    import numpy as np
    from helpers import require_torch
    from autotrace.tensor import Tensor
    from autotrace.torch_api import modules
    torch = require_torch()
    F = modules()["torch.nn.functional"]
    rng = np.random.default_rng(7)
    for _ in range(60):
        shape = [int(rng.integers(1, 9)), int(rng.integers(1, 6))] + \
            [int(rng.integers(1, 5)) for _ in range(int(rng.integers(0, 3)))]
        c = shape[1]
        x = (rng.standard_normal(shape) * 3 + 1).astype(np.float32)
        w, b, rm = (rng.standard_normal(c).astype(np.float32) for _ in range(3))
        rv = (rng.random(c) + 0.1).astype(np.float32)
        ref = torch.nn.functional.batch_norm(*(torch.from_numpy(a.copy()) for a in (x, rm, rv, w, b))).numpy()
        got = F.batch_norm(*(Tensor._make(a.copy()) for a in (x, rm, rv, w, b)))._data
        np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("src,etype", [
    ("p = pad_sequence([])", "RuntimeError"),
    ("p = pad_sequence([torch.ones(2), [1.0]])", "TypeError"),
    ("p = pad_sequence([torch.ones(2, 3), torch.ones(2, 4)])", "RuntimeError"),
    # 20000 one-step sequences of 10000 features: a 2e8-element result, refused before allocation
    ("p = pad_sequence([torch.ones(1, 10000)] * 20000)", "LimitError"),
    ("p = pad_sequence(iter(int, 1))", "LimitError"),
])
def test_pad_sequence_bad_input(src, etype):
    t = runner.run("import torch\nfrom torch.nn.utils.rnn import pad_sequence\n" + src + "\n", "h.py")
    assert t.error is not None and t.error["type"] == etype, t.error


@pytest.mark.parametrize("src,etype", [
    ("o = F.prelu(torch.randn(2, 4), torch.ones(3))", "RuntimeError"),
    ("o = F.prelu(torch.randn(2, 4), 0.25)", "TypeError"),
    ("o = F.cosine_similarity(torch.ones(2, 3), torch.ones(2, 4))", "RuntimeError"),
    ("o = F.cosine_similarity([1.0], torch.ones(2))", "TypeError"),
    ("o = F.normalize(torch.ones(2), dim=3)", "IndexError"),
])
def test_similarity_prelu_bad_input(src, etype):
    t = runner.run("import torch\nimport torch.nn.functional as F\n" + src + "\n", "h.py")
    assert t.error is not None and t.error["type"] == etype, t.error


@pytest.mark.parametrize("src,etype,message", [
    ("o = torch.optim.Adadelta([torch.ones(1, requires_grad=True)], rho=1.5)", "ValueError", "Invalid rho value: 1.5"),
    ("o = torch.nn.Dropout2d(p=1.5)", "ValueError", "dropout probability has to be between 0 and 1, but got 1.5"),
    ("o = torch.nn.functional.dropout1d(torch.ones(2, 2, 2, 2))", "RuntimeError", "dropout1d: Expected 2D or 3D input"),
])
def test_adadelta_dropout2d_errors(src, etype, message):
    t = runner.run("import torch\n" + src + "\n", "h.py")
    assert t.error is not None and t.error["type"] == etype, t.error
    assert t.error["message"].startswith(message)


def test_cosine_annealing_warm_restarts():
    # the same lines as torch 2.13
    src = """import torch
m = torch.nn.Linear(1, 1)
opt = torch.optim.SGD(m.parameters(), lr=0.1)
s = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=3, T_mult=2, eta_min=0.001)
lrs = []
for epoch in range(12):
    opt.step()
    s.step()
    lrs.append(round(s.get_last_lr()[0], 6))
print(lrs, s.T_i, s.T_cur, s.last_epoch)
s3 = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(torch.optim.SGD(m.parameters(), lr=1.0), 2, T_mult=3)
s3.step(7.5)
print(s3.get_last_lr(), s3.T_i, s3.T_cur)
"""
    t = runner.run(src, "ok.py")
    assert t.error is None and not t.warnings, (t.error, t.warnings)
    assert t.stdout == ("[0.07525, 0.02575, 0.1, 0.093368, 0.07525, 0.0505, 0.02575, 0.007632, 0.1, 0.098313, "
                        "0.093368, 0.085502] 12 3 12\n[0.0170370868554659] 6 5.5\n")
