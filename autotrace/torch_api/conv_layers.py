"""``torch.nn`` convolution and pooling layers: Conv1d/2d, ConvTranspose1d/2d,
MaxPool1d/2d, AvgPool1d/2d, AdaptiveAvgPool2d.

Parameters are initialised as torch 2.13's ``reset_parameters`` does
(``kaiming_uniform_(weight, a=√5)``, bias ``U(−1/√fan_in, 1/√fan_in)``, ``U(0, 0)`` when
fan_in is 0), drawing the same numbers; reprs follow torch's ``extra_repr``.
"""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from ..ops import FUNCTIONAL as F
from ..tensor import Tensor
from . import init
from .nn import Module, make_parameter


def _tuple(v, n):
    if isinstance(v, (list, tuple)):
        return tuple(v)
    return (v,) * n


_CONV_ATTRS = frozenset({"weight", "bias", "in_channels", "out_channels", "kernel_size", "stride", "padding",
                         "dilation", "groups", "output_padding", "padding_mode", "transposed", "reset_parameters"})


class _ConvNd(Module):
    _script_attrs = Module._script_attrs | _CONV_ATTRS
    _script_setattrs = Module._script_setattrs | {"weight", "bias", "padding", "stride", "dilation"}
    _nd = 2
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None, output_padding=0):
        super().__init__()
        n = self._nd
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in _tuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in ("zeros",):
            if padding_mode in ("reflect", "replicate", "circular"):
                raise NotImplementedError(f"padding_mode={padding_mode!r} is not supported yet")
            raise ValueError(f"padding_mode must be one of ['zeros', 'reflect', 'replicate', 'circular'], "
                             f"but got padding_mode='{padding_mode}'")
        dtype = dtype or dtypes.default_float
        set_ = object.__setattr__
        set_(self, "in_channels", in_channels)
        set_(self, "out_channels", out_channels)
        set_(self, "kernel_size", _tuple(kernel_size, n))
        set_(self, "stride", _tuple(stride, n))
        set_(self, "padding", padding if isinstance(padding, str) else _tuple(padding, n))
        set_(self, "dilation", _tuple(dilation, n))
        set_(self, "transposed", self._transposed)
        set_(self, "output_padding", _tuple(output_padding, n))
        set_(self, "groups", groups)
        set_(self, "padding_mode", padding_mode)
        if self._transposed:
            shape = (in_channels, out_channels // groups) + self.kernel_size
        else:
            shape = (out_channels, in_channels // groups) + self.kernel_size
        self.weight = make_parameter(Tensor._make(np.empty(shape, dtype=dtype.np)))
        if bias:
            self.bias = make_parameter(Tensor._make(np.empty((out_channels,), dtype=dtype.np)))
        else:
            set_(self, "bias", None)
            self._params["bias"] = None
        self.reset_parameters()

    def reset_parameters(self):
        """torch 2.13's: ``kaiming_uniform_(weight, a=√5)`` (nothing drawn for a
        zero-element weight), then, when there is a bias, ``uniform_(bias, −b, b)`` with
        ``b = 1/√fan_in``, or 0 when fan_in is 0 (the draws are still taken)."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def _extra_repr(self):
        n = self._nd
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def forward(self, input):
        fn = F[f"conv{self._nd}d"]
        return fn(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv1d(_ConvNd):
    """``nn.Conv1d(in_channels, out_channels, kernel_size, stride=1, padding=0,
    dilation=1, groups=1, bias=True)``: weight (out, in/groups, k)."""
    _nd = 1


class Conv2d(_ConvNd):
    """``nn.Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0,
    dilation=1, groups=1, bias=True)``: weight (out, in/groups, kh, kw)."""
    _nd = 2


class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        if isinstance(padding, str):
            raise ValueError(f"padding={padding!r} is not supported for {type(self).__name__}")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype, output_padding)

    def forward(self, input, output_size=None):
        op_ = self.output_padding
        if output_size is not None:
            n = self._nd
            size = list(output_size)[-n:]
            spatial = input.shape[-n:]
            op_ = []
            for d in range(n):
                base = ((spatial[d] - 1) * self.stride[d] - 2 * self.padding[d]
                        + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
                extra = size[d] - base
                if not 0 <= extra < max(self.stride[d], self.dilation[d]):
                    raise ValueError(f"requested an output size of {size}, but valid sizes range from "
                                     f"{[b for b in [base]]} to {[base + self.stride[d] - 1]} "
                                     f"(for an input of {list(spatial)})")
                op_.append(extra)
            op_ = tuple(op_)
        fn = F[f"conv_transpose{self._nd}d"]
        return fn(input, self.weight, self.bias, self.stride, self.padding, op_, self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    """``nn.ConvTranspose1d``: weight (in, out/groups, k)."""
    _nd = 1


class ConvTranspose2d(_ConvTransposeNd):
    """``nn.ConvTranspose2d``: weight (in, out/groups, kh, kw)."""
    _nd = 2


# -- pooling ---------------------------------------------------------------------------------

_POOL_ATTRS = frozenset({"kernel_size", "stride", "padding", "dilation", "ceil_mode", "return_indices",
                         "count_include_pad", "divisor_override", "output_size"})


class _MaxPoolNd(Module):
    _script_attrs = Module._script_attrs | _POOL_ATTRS
    _fn = "max_pool2d"

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        set_ = object.__setattr__
        set_(self, "kernel_size", kernel_size)
        set_(self, "stride", stride if (stride is not None) else kernel_size)
        set_(self, "padding", padding)
        set_(self, "dilation", dilation)
        set_(self, "return_indices", return_indices)
        set_(self, "ceil_mode", ceil_mode)

    def forward(self, input):
        return F[self._fn](input, self.kernel_size, self.stride, self.padding, self.dilation,
                           ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def _extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    _fn = "max_pool1d"


class MaxPool2d(_MaxPoolNd):
    _fn = "max_pool2d"


class AvgPool1d(Module):
    _script_attrs = Module._script_attrs | _POOL_ATTRS

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        set_ = object.__setattr__
        set_(self, "kernel_size", _tuple(kernel_size, 1))
        set_(self, "stride", _tuple(stride if stride is not None else kernel_size, 1))
        set_(self, "padding", _tuple(padding, 1))
        set_(self, "ceil_mode", ceil_mode)
        set_(self, "count_include_pad", count_include_pad)

    def forward(self, input):
        return F["avg_pool1d"](input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                               self.count_include_pad)

    def _extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool2d(Module):
    _script_attrs = Module._script_attrs | _POOL_ATTRS

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        set_ = object.__setattr__
        set_(self, "kernel_size", kernel_size)
        set_(self, "stride", stride if (stride is not None) else kernel_size)
        set_(self, "padding", padding)
        set_(self, "ceil_mode", ceil_mode)
        set_(self, "count_include_pad", count_include_pad)
        set_(self, "divisor_override", divisor_override)

    def forward(self, input):
        return F["avg_pool2d"](input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                               self.count_include_pad, self.divisor_override)

    def _extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    _script_attrs = Module._script_attrs | _POOL_ATTRS

    def __init__(self, output_size):
        super().__init__()
        object.__setattr__(self, "output_size", output_size)

    def forward(self, input):
        return F["adaptive_avg_pool2d"](input, self.output_size)

    def _extra_repr(self):
        return f"output_size={self.output_size}"


class _AdaptiveMaxPoolNd(Module):
    """``nn.AdaptiveMaxPool1d/2d(output_size, return_indices=False)``."""
    _script_attrs = Module._script_attrs | _POOL_ATTRS
    _fn = None

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        object.__setattr__(self, "output_size", output_size)
        object.__setattr__(self, "return_indices", return_indices)

    def forward(self, input):
        return F[self._fn](input, self.output_size, self.return_indices)

    def _extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveMaxPool1d(_AdaptiveMaxPoolNd):
    _fn = "adaptive_max_pool1d"


class AdaptiveMaxPool2d(_AdaptiveMaxPoolNd):
    _fn = "adaptive_max_pool2d"


MEMBERS = {c.__name__: c for c in (Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d, MaxPool1d, MaxPool2d,
                                   AvgPool1d, AvgPool2d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d)}
