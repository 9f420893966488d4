"""``torch.nn`` activation modules beyond the basic ones: SELU, CELU, Mish, Hardswish,
Hardsigmoid, Softsign, Tanhshrink, LogSigmoid.

Each ``forward`` calls the matching ``torch.nn.functional`` op (so graphs are torch's)
and reprs are torch 2.13's: ``SELU()``, ``SELU(inplace=True)``, ``CELU(alpha=1.0)``,
``Mish(inplace=True)``; Hardswish and Hardsigmoid print no arguments even in place.
"""

from __future__ import annotations

from ..ops import FUNCTIONAL as F
from .nn import Module


class _Inplace(Module):
    """An activation ``F.<_fn>(input, inplace)``; ``_show`` prints ``inplace=True``."""
    _fn = None
    _show = True

    def __init__(self, inplace=False):
        super().__init__()
        object.__setattr__(self, "inplace", inplace)

    def forward(self, input):
        return F[self._fn](input, inplace=self.inplace)

    def _extra_repr(self):
        return "inplace=True" if self.inplace and self._show else ""


class SELU(_Inplace):
    _fn = "selu"


class Mish(_Inplace):
    _fn = "mish"


class Hardswish(_Inplace):
    _fn = "hardswish"
    _show = False


class Hardsigmoid(_Inplace):
    _fn = "hardsigmoid"
    _show = False


class CELU(Module):
    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        object.__setattr__(self, "alpha", alpha)
        object.__setattr__(self, "inplace", inplace)

    def forward(self, input):
        return F["celu"](input, self.alpha, self.inplace)

    def _extra_repr(self):
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class _Plain(Module):
    _fn = None

    def forward(self, input):
        return F[self._fn](input)


class Softsign(_Plain):
    _fn = "softsign"


class Tanhshrink(_Plain):
    _fn = "tanhshrink"


class LogSigmoid(_Plain):
    _fn = "logsigmoid"


MEMBERS = {c.__name__: c for c in (SELU, CELU, Mish, Hardswish, Hardsigmoid, Softsign, Tanhshrink, LogSigmoid)}

for _c in MEMBERS.values():
    _c._script_attrs = _c._script_attrs | {"inplace", "alpha"}
