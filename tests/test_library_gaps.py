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
