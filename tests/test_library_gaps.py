"""Hostile inputs for the activations, adaptive max pooling, interpolation and numpy
additions: huge sizes are refused before allocating (LimitError), bad arguments give
torch's (or numpy's) error type, and nothing ends in an internal error."""

from __future__ import annotations

import pytest

from autotrace import runner

PRE = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nx = torch.randn(1, 2, 6, 5)\n"

HOSTILE = [
    ("y = F.adaptive_max_pool2d(x, 10**6)", "LimitError"),
    ("y = F.adaptive_max_pool2d(x, (10**9, 10**9))", "LimitError"),
    ("y = F.adaptive_max_pool1d(torch.randn(2, 3), 10**12)", "LimitError"),
    ("y = F.adaptive_max_pool2d(x, (3, 10**12))", "LimitError"),
    ("y = F.adaptive_max_pool2d(x, 2**70)", "ValueError"),
    ("y = F.adaptive_max_pool2d(x, [True, 2])", "TypeError"),
    ("y = F.adaptive_max_pool2d(x, {})", "TypeError"),
    ("y = nn.AdaptiveMaxPool2d(None)(x)", "TypeError"),
    ("y = F.interpolate(x, scale_factor=10**6)", "LimitError"),
    ("y = F.interpolate(x, size=(10**9, 10**9), mode='bilinear')", "LimitError"),
    ("y = F.interpolate(x[0], size=10**13, mode='linear')", "LimitError"),
    ("y = nn.Upsample(scale_factor=1e300)(x)", "RuntimeError"),
    ("y = F.interpolate(x, scale_factor=float('nan'))", "RuntimeError"),
    ("y = F.interpolate(x, size=2**64)", "TypeError"),
    ("y = F.interpolate(x, scale_factor=2, mode='bicubic')", "NotImplementedError"),
    ("y = F.interpolate(x, scale_factor=[None, 2])", "TypeError"),
    ("y = F.interpolate(x, size=(True, 2))", "TypeError"),
    ("y = F.interpolate('x', size=2)", "TypeError"),
    ("y = F.celu(x, alpha=0)", "RuntimeError"),
    ("y = F.selu(torch.arange(3))", "NotImplementedError"),
    ("y = nn.Mish()(torch.tensor([True]))", "NotImplementedError"),
    ("y = F.logsigmoid(torch.arange(2))", "NotImplementedError"),
    ("y = F.hardswish(x.requires_grad_(), inplace=True)", "RuntimeError"),
    ("y = F.selu('a')", "TypeError"),
]


@pytest.mark.parametrize("src,etype", HOSTILE)
def test_hostile_arguments_end_cleanly(src, etype):
    t = runner.run(PRE + src + "\n", "h.py")
    assert t.error is not None and t.error["type"] == etype, t.error
    assert t.error.get("phase") != "internal", t.error


NP_HOSTILE = [
    ("y = np.diff(np.arange(3), n=10**12)", None),                    # no 10**12-step loop: empty at once
    ("y = np.pad(np.zeros(2), 10**9)", "LimitError"),
    ("y = np.pad(np.zeros((2, 2)), ((0, 10**5), (0, 10**5)))", "LimitError"),
    ("y = np.pad(np.zeros(2), (0, 10**7), mode='reflect')", "LimitError"),
    ("y = np.pad(np.zeros(2), 1, mode=print)", "TypeError"),
    ("y = np.pad(np.zeros(2), 1, mode='constant', stat_length=2)", "ValueError"),
    ("y = np.array_split(np.zeros(0), 10**9)", "LimitError"),
    ("y = np.split(np.zeros(0), 10**9)", "LimitError"),
    ("y = np.split(np.zeros(4), 0)", "ZeroDivisionError"),
    ("y = np.einsum('i,j,k,l->ijkl', *[np.zeros(1000)] * 4)", "LimitError"),
    ("y = np.einsum('ij,jk,kl->il', *[np.zeros((3000, 3000))] * 3)", "LimitError"),
    ("y = np.einsum('ij,jk', np.zeros((2, 3)), np.zeros((2, 3)))", "ValueError"),
    ("y = np.einsum('ij->i', np.zeros((2, 2)), optimize='optimal')", "ValueError"),
    ("y = np.linalg.eigh(np.zeros((3, 4)))", "LinAlgError"),
    ("y = np.linalg.eigh(np.zeros((5000, 5000)))", "LimitError"),
    ("y = np.r_[0:10**12]", "LimitError"),
    ("y = np.r_[0:1:10**12 * 1j]", "LimitError"),
    ("y = np.c_[np.zeros(3), np.zeros(4)]", "ValueError"),
    ("y = np.roll(np.arange(3), 10**30)", None),
    ("y = np.copy(np.zeros(10**5))", None),
]


@pytest.mark.parametrize("src,etype", NP_HOSTILE)
def test_numpy_additions_end_cleanly(src, etype):
    t = runner.run("import numpy as np\n" + src + "\n", "h.py")
    if etype is None:
        assert t.error is None, t.error
    else:
        assert t.error is not None and t.error["type"] == etype, t.error


NT_HOSTILE = [
    ("from typing import NamedTuple\nclass P(NamedTuple):\n    x: int\n    def __repr__(self):\n        return 'p'\n",
     "TypeError"),
    ("from typing import NamedTuple\nclass P(NamedTuple):\n    _x: int\n", "ValueError"),
    ("from typing import NamedTuple\nclass P(NamedTuple):\n    x: int\n    _make = 1\n", "AttributeError"),
    ("from typing import NamedTuple\nP = NamedTuple('P', [('a', int)] * 2)\n", "ValueError"),
    ("from typing import NamedTuple\nP = NamedTuple('P', [('f' + str(i), int) for i in range(20000)])\n", "LimitError"),
    ("from typing import NamedTuple\nP = NamedTuple('P', [1, 2])\n", "TypeError"),
    ("from typing import NamedTuple\nclass P(NamedTuple):\n    x: int\n    def f(self):\n        return self.f()\n"
     + "P(1).f()\n", "LimitError"),
    ("from typing import NamedTuple\nclass P(NamedTuple):\n    x: int\np = P(1)\np._script_members = {}\n",
     "AttributeError"),
    ("from typing import NamedTuple\nclass P(NamedTuple):\n    x: int\ny = P._script_members\n", "AttributeError"),
    ("from typing import NamedTuple\nclass P(NamedTuple):\n    x: int\n    y: float = 0.5\nprint(P(1).y + P(2, 1.0).x)\n",
     None),
]


@pytest.mark.parametrize("src,etype", NT_HOSTILE)
def test_named_tuple_classes_end_cleanly(src, etype):
    t = runner.run(src, "h.py")
    if etype is None:
        assert t.error is None, t.error
        assert t.stdout == "2.5\n"
    else:
        assert t.error is not None and t.error["type"] == etype, t.error
        assert t.error.get("phase") != "internal", t.error
