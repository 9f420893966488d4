"""Powers: ``pow`` in its three overloads (PowBackward0 tensor ** number, PowBackward1
tensor ** tensor, PowBackward2 number ** tensor), ``square`` and ``float_power``, with
torch 2.13's promotion and its special forms for the exponents 0, 1, 2, 3, ±0.5, -1, -2
(:func:`.kernels.pow_scalar`)."""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..tensor import Tensor
from .errors import broadcast_error
from . import kernels
from . import RESULT, BadOperand, export, make, op
from .arith import _SCALARS, _arr, _binary, _inplace


@op("pow", "PowBackward0", ("self",),
    vjp={"self": "grad * exponent * self^(exponent - 1)"}, local={"self": "exponent·self^(exponent−1)"})
def POW(ctx, g):
    e = ctx.exponent
    if e == 0:
        from .unary import zeros_like_grad
        return (zeros_like_grad(g),)
    x = ctx.self
    return (g * (e * x.pow(e - 1)),)


@op("pow_tensor", "PowBackward1", ("self", "exponent"),
    vjp={"self": "where(exponent == 0, 0, grad * exponent * self^(exponent - 1))",
         "exponent": "grad * where((self == 0) & (exponent >= 0), 0, result * log(self))"},
    local={"self": "exponent·self^(exponent−1)  (0 where exponent = 0)",
           "exponent": "self^exponent·ln(self)  (0 where self = 0 and exponent ≥ 0)"})
def POW_TENSOR(ctx, g):
    # torch 2.13 pow_backward_self / pow_backward_exponent
    from .unary import where
    x, e = ctx.self, ctx.exponent
    gs = where(e == 0, 0.0, g * (e * x.pow(e - 1))) if ctx.needs(0) else None
    ge = None
    if ctx.needs(1):
        ge = g * where((x == 0) & (e >= 0), 0.0, ctx.result * x.log())
    return gs, ge


@op("pow_scalar_base", "PowBackward2", ("exponent",),
    vjp={"exponent": "grad * result * log(self)  (base 0: grad * where(exponent >= 0, 0, result * log(self)))"},
    local={"exponent": "self^exponent·ln(self)"})
def POW_SCALAR_BASE(ctx, g):
    # torch 2.13 pow_backward_exponent(grad, Scalar base, exponent, result)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_base = float(np.log(np.float64(ctx.self)))
    if ctx.self == 0:
        from .unary import where
        return (g * where(ctx.exponent >= 0, 0.0, ctx.result * log_base),)
    return (g * (ctx.result * log_base),)


@export(torch=("pow",), tensor=("pow",))
def pow(input, exponent):
    """``input ** exponent`` (torch.pow): PowBackward0 for a number exponent,
    PowBackward1 for a tensor exponent, PowBackward2 for a number base."""
    te = type(exponent)
    if (te is int or te is float) and type(input) is Tensor and input._dtype is dtypes.float32 \
            and input._data.dtype == np.float32:
        # a float32 tensor to a Python int or float power: the result is float32 (no promotion),
        # and the float32 kernel ignores floating-point errors itself
        return make(POW, _arr(kernels.pow_scalar(input._data, exponent)), (input,),
                    save={"self": input, "exponent": exponent}, dtype=input._dtype)
    if isinstance(input, _SCALARS):
        return _scalar_base_pow(input, exponent)
    if isinstance(exponent, _SCALARS):
        dt = dtypes.result_type([input], [exponent])
        x = input._data if input._data.dtype == dt.np else input._data.astype(dt.np)
        if dt.category != dtypes.FLOAT and isinstance(exponent, int) and exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if dt.category == dtypes.FLOAT:
                out = kernels.pow_scalar(x, exponent)
            elif exponent == 2:
                out = x * x
            elif exponent == 1:
                out = x.copy()
            else:
                out = np.power(x, dt.np.type(exponent))
        return make(POW, _arr(out), (input,), save={"self": input, "exponent": exponent}, dtype=dt)
    a, b, ad, bd, dt = _binary(input, exponent)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        try:
            out = np.power(ad, bd)
        except ValueError:
            raise broadcast_error(ad.shape, bd.shape) from None
    return make(POW_TENSOR, _arr(out), (a, b),
                save={"self": a, "exponent": b, "result": RESULT if b._requires_grad else None}, dtype=dt)


def _scalar_base_pow(base, exponent):
    dt = dtypes.result_type([exponent], [base])
    e = exponent._data.astype(dt.np, copy=False)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        out = np.power(dt.np.type(base), e)
    return make(POW_SCALAR_BASE, _arr(out), (exponent,),
                save={"self": base, "exponent": exponent, "result": RESULT}, dtype=dt)


@export(tensor=("__pow__",))
def _pow_op(self, other):
    try:
        return pow(self, other)
    except BadOperand:
        return NotImplemented


@export(tensor=("__rpow__",))
def _rpow(self, other):
    if not isinstance(other, _SCALARS):
        return NotImplemented
    return _scalar_base_pow(other, self)


@export(torch=("square",), tensor=("square",))
def square(input):
    """``input ** 2`` (PyTorch records it as PowBackward0)."""
    return pow(input, 2)


@export(torch=("float_power",), tensor=("float_power",))
def float_power(input, exponent):
    from .shape import to
    x = to(input, dtypes.float64) if isinstance(input, Tensor) else float(input)
    e = to(exponent, dtypes.float64) if isinstance(exponent, Tensor) else float(exponent)
    return pow(x, e)


for _name, _fn in (("pow", pow), ("square", square)):
    export(tensor=(_name + "_",), name=_name + "_")(_inplace(_fn))
export(tensor=("__ipow__",), name="__ipow__")(_inplace(pow, operator=True))
