"""``nn.Upsample``, ``nn.UpsamplingNearest2d`` and ``nn.UpsamplingBilinear2d``: modules
calling ``F.interpolate`` with their settings, reprs as torch 2.13 prints them
(``Upsample(scale_factor=2.0, mode='nearest')``, ``Upsample(size=(3, 4), mode='bilinear')``).
"""

from __future__ import annotations

from ..ops import FUNCTIONAL as F
from .nn import Module


class Upsample(Module):
    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        set_ = object.__setattr__
        set_(self, "name", type(self).__name__)
        set_(self, "size", size)
        if isinstance(scale_factor, tuple):
            set_(self, "scale_factor", tuple(float(f) for f in scale_factor))
        else:
            set_(self, "scale_factor", float(scale_factor) if scale_factor else None)
        set_(self, "mode", mode)
        set_(self, "align_corners", align_corners)
        set_(self, "recompute_scale_factor", recompute_scale_factor)

    def forward(self, input):
        return F["interpolate"](input, self.size, self.scale_factor, self.mode, self.align_corners,
                                recompute_scale_factor=self.recompute_scale_factor)

    def _extra_repr(self):
        info = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


MEMBERS = {c.__name__: c for c in (Upsample, UpsamplingNearest2d, UpsamplingBilinear2d)}

for _c in MEMBERS.values():
    _c._script_attrs = _c._script_attrs | {"size", "scale_factor", "mode", "align_corners", "recompute_scale_factor"}
