"""``nn.ReflectionPad1d/2d/3d``, ``nn.ReplicationPad1d/2d/3d``, ``nn.CircularPad1d/2d/3d``
(which first check the input has n + 1 or n + 2 dims: torch's ValueError), ``nn.ZeroPad1d/2d/3d`` and
``nn.ConstantPad1d/2d/3d``: modules calling ``F.pad`` with their padding (an int is used
on every side), printed as torch 2.13 prints them (``ReflectionPad2d((1, 1, 1, 1))``,
``ConstantPad1d(padding=(2, 2), value=3.5)``).
"""

from __future__ import annotations

from ..ops import FUNCTIONAL as F
from .nn import Module


class _Pad(Module):
    mode = "constant"
    n = 1

    def __init__(self, padding, value=0.0):
        super().__init__()
        pad = (padding,) * (2 * self.n) if isinstance(padding, int) else tuple(padding)
        object.__setattr__(self, "padding", pad)
        object.__setattr__(self, "value", value)

    def forward(self, input):
        if self.mode == "circular" and input.dim() not in (self.n + 1, self.n + 2):
            raise ValueError(f"expected {self.n + 1}D or {self.n + 2}D input (got {input.dim()}D input)")
        if self.mode == "constant":
            return F["pad"](input, self.padding, "constant", self.value)
        return F["pad"](input, self.padding, self.mode)

    def _extra_repr(self):
        return f"{self.padding}"


class _Constant(_Pad):
    def _extra_repr(self):
        return f"padding={self.padding}, value={self.value}"


def _make(prefix, base, mode, n):
    return type(f"{prefix}{n}d", (base,), {"mode": mode, "n": n})


MEMBERS = {}
for _n in (1, 2, 3):
    for _c in (_make("ReflectionPad", _Pad, "reflect", _n), _make("ReplicationPad", _Pad, "replicate", _n),
               _make("CircularPad", _Pad, "circular", _n),
               _make("ZeroPad", _Pad, "constant", _n), _make("ConstantPad", _Constant, "constant", _n)):
        MEMBERS[_c.__name__] = _c
        _c._script_attrs = _c._script_attrs | {"padding", "value"}


def _constant_init(self, padding, value):
    _Pad.__init__(self, padding, value)


for _n in (1, 2, 3):
    MEMBERS[f"ConstantPad{_n}d"].__init__ = _constant_init
