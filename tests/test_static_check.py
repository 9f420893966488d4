"""The torch API a script names is checked before it runs (torch_api/static_check.py)."""

from __future__ import annotations

import pytest

from autotrace.runner import run


@pytest.mark.parametrize("src, message, line", [
    ("import torch\nprint(1)\nx = torch.fft.fft(torch.ones(2))", "torch.fft is not supported by autotrace yet", 3),
    ("import torch.nn as nn\nclass N(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
     "        self.c = nn.NoSuchLayer(1)", "torch.nn.NoSuchLayer is not supported by autotrace yet", 5),
    ("from torch import nn\nm = nn.Linear(1, 1)\nnn.NoSuch", "torch.nn.NoSuch is not supported by autotrace yet", 3),
])
def test_missing_api_is_refused_before_the_run(src, message, line):
    t = run(src, "s.py")
    assert t.stdout == ""
    assert (t.error["type"], t.error["message"], t.error["line"], t.error["phase"]) == \
        ("AttributeError", message, line, "parse")


@pytest.mark.parametrize("src", [
    "import torch\nif hasattr(torch, 'fft'):\n    torch.fft.fft(1)\nprint('ok')",
    "import torch\ntry:\n    f = torch.compile\nexcept AttributeError:\n    pass\nprint('ok')",
    "import torch\nx = torch.nothing if hasattr(torch, 'nothing') else 0\nprint('ok')",
    "import torch\ntorch = {'fft': 1}\nprint('ok')",      # rebound: left to the run
    "import torch\nprint('ok')\nx = torch._C",           # private: the guard's message at run time
])
def test_code_that_guards_itself_is_left_to_the_run(src):
    t = run(src, "s.py")
    assert t.stdout == "ok\n"
