"""Elementwise functions of one tensor (exp, log, sqrt, abs, relu, tanh, ...) and the
binary elementwise functions with kinks (maximum, minimum, clamp, where).

PyTorch's subgradient conventions are kept, not "fixed": relu'(0) = 0, abs'(0) = 0,
sqrt'(0) = inf, clamp at its bound passes the gradient (1), maximum/minimum at a tie
split it (0.5 each). Masking backwards *select* as PyTorch does (``where(mask, grad, 0)``,
``masked_fill``), so an inf/nan gradient from above gives 0 where masked off, not nan;
``abs`` multiplies (``grad * sign(self)``), so inf·0 there is nan as in PyTorch.
"""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes, grad_mode
from ..tensor import Tensor
from .errors import broadcast_error
from . import kernels, mkl
from .fma import fma32_float
from . import SAVE_RESULT, as_tensor_arg, check_inplace, commit_inplace, export, make, op


def _float_input(x: Tensor) -> np.ndarray:
    """Integer inputs to float functions compute in float32 (torch's default dtype)."""
    d = x._data
    if x._dtype.category != dtypes.FLOAT:
        return d.astype(np.float32)
    return d


def zeros_like_grad(g: Tensor) -> Tensor:
    return Tensor._make(np.zeros_like(g._data))


def where_scalar_zero(mask, value: Tensor) -> Tensor:
    """``value`` with zeros where ``mask`` (a bool tensor or Python bool) is True."""
    if isinstance(mask, bool):
        return zeros_like_grad(value) if mask else value
    return where(mask, zeros_like_grad(value), value)


def _unary(name, node, npfn, vjp, local, backward, save="self", torch_names=None,
           tensor_names=None, doc="", inplace=True, integers=None):
    """Define an elementwise op ``name`` and export it as torch.X, Tensor.X (and X_).

    By default integer inputs compute in float32. ``integers`` = (error class, message)
    keeps integer inputs in their own dtype, as torch does for relu/abs/floor/…, and raises
    that error for bool inputs; ``integers=()`` keeps bool too (sign). When ``npfn`` is one
    of :mod:`.kernels`' MKL vector-math functions (its ``vml`` name), MKL is asked first
    here, so that the common case skips numpy's error-state switch."""
    o = op(name, node, ("self",), vjp={"self": vjp}, local={"self": local}, doc=doc)(backward)
    vml = getattr(npfn, "vml", None)

    def fn(input):
        if integers is not None and input._dtype.category != dtypes.FLOAT:
            if input._dtype is dtypes.bool_:
                if integers:
                    raise integers[0](integers[1])
                return Tensor._make(input._data.copy())  # sign of a bool is itself
            return Tensor._make(np.asarray(npfn(input._data)).astype(input._data.dtype))
        x = _float_input(input)
        out = mkl.vml(vml, x) if vml is not None else None   # MKL leaves numpy's error state alone
        if out is None:
            with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                out = npfn(x)
        if type(out) is not np.ndarray:
            out = np.asarray(out, dtype=x.dtype)
        saves = {"self": input} if save == "self" else SAVE_RESULT if save == "result" else None
        return make(o, out, (input,), save=saves)

    fn.__name__ = name
    fn.__doc__ = doc or f"Elementwise {name} (torch.{name}); gradient {vjp}."
    export(torch=torch_names or (name,), tensor=tensor_names or (name,), name=name)(fn)
    if inplace:
        def fn_(self):
            check_inplace(self)
            return commit_inplace(self, fn(self))
        fn_.__name__ = name + "_"
        # torch 2.13 has Tensor.sign_ but no torch.sign_
        export(tensor=(name + "_",), torch=() if name == "sign" else (name + "_",), name=name + "_")(fn_)
    return fn


exp = _unary("exp", "ExpBackward0", kernels.exp, "grad * result", "exp(self)",
             lambda ctx, g: (g * ctx.result,), save="result")
log = _unary("log", "LogBackward0", kernels.log, "grad / self", "1/self",
             lambda ctx, g: (g / ctx.self,))
log2 = _unary("log2", "Log2Backward0", np.log2, "grad / (self * ln 2)", "1/(self·ln 2)",
              lambda ctx, g: (g / (ctx.self * math.log(2.0)),))
log10 = _unary("log10", "Log10Backward0", np.log10, "grad / (self * ln 10)", "1/(self·ln 10)",
               lambda ctx, g: (g / (ctx.self * math.log(10.0)),))
log1p = _unary("log1p", "Log1PBackward0", np.log1p, "grad / (1 + self)", "1/(1+self)",
               lambda ctx, g: (g / (ctx.self + 1),))
expm1 = _unary("expm1", "Expm1Backward0", np.expm1, "grad * (result + 1)", "exp(self)",
               lambda ctx, g: (g * (ctx.result + 1),), save="result")
sqrt = _unary("sqrt", "SqrtBackward0", kernels.sqrt, "grad / (2 * result)", "1/(2·√self)",
              lambda ctx, g: (g / (ctx.result * 2),), save="result")
rsqrt = _unary("rsqrt", "RsqrtBackward0", lambda x: 1 / np.sqrt(x), "-0.5 * grad * result³",
               "−½·self^(−3/2)", lambda ctx, g: (g * (ctx.result.pow(3) * -0.5),), save="result")
reciprocal = _unary("reciprocal", "ReciprocalBackward0", lambda x: 1 / x,
                    "-grad * result²", "−1/self²", lambda ctx, g: (-g * (ctx.result * ctx.result),),
                    save="result")
sin = _unary("sin", "SinBackward0", kernels.sin, "grad * cos(self)", "cos(self)",
             lambda ctx, g: (g * ctx.self.cos(),))
cos = _unary("cos", "CosBackward0", kernels.cos, "-grad * sin(self)", "−sin(self)",
             lambda ctx, g: (g * -ctx.self.sin(),))
tan = _unary("tan", "TanBackward0", np.tan, "grad * (1 + result²)", "1 + tan²(self)",
             lambda ctx, g: (g * (ctx.result * ctx.result + 1),), save="result")


def _tanh_vjp(ctx, g):
    if grad_mode.enabled:
        return (_db().tanh_backward(g, ctx.result),)
    yd, gd = ctx.saved_array("result"), g._data  # (no tensor rebuilt for the output)
    if yd is not None and gd.dtype == np.float32 and yd.dtype == np.float32:
        return (_tanh_backward_f32(gd, yd),)
    return (_tanh_backward(g, ctx.result),)


tanh = _unary("tanh", "TanhBackward0", kernels.tanh, "grad * (1 - result²)", "1 − tanh²(self)",
              _tanh_vjp, save="result")
sigmoid = _unary("sigmoid", "SigmoidBackward0", lambda x: kernels.sigmoid(x),
                 "grad * result * (1 - result)", "σ(self)·(1 − σ(self))",
                 lambda ctx, g: ((g * (1 - ctx.result)) * ctx.result if not grad_mode.enabled
                                 else _db().sigmoid_backward(g, ctx.result),), save="result")
abs = _unary("abs", "AbsBackward0", np.abs, "grad * sign(self)", "sign(self)  (0 at 0)",
             lambda ctx, g: (g * ctx.self.sign(),), tensor_names=("abs", "__abs__", "absolute"),
             torch_names=("abs", "absolute"),
             integers=(NotImplementedError, "\"abs_cpu\" not implemented for 'Bool'"))
sign = _unary("sign", "SignBackward0", np.sign, "0", "0",
              lambda ctx, g: (zeros_like_grad(g),), save=None, integers=())
floor = _unary("floor", "FloorBackward0", np.floor, "0", "0", lambda ctx, g: (zeros_like_grad(g),), save=None,
               integers=(NotImplementedError, "\"floor_vml_cpu\" not implemented for 'Bool'"))
ceil = _unary("ceil", "CeilBackward0", np.ceil, "0", "0", lambda ctx, g: (zeros_like_grad(g),), save=None,
              integers=(NotImplementedError, "\"ceil_vml_cpu\" not implemented for 'Bool'"))
trunc = _unary("trunc", "TruncBackward0", np.trunc, "0", "0", lambda ctx, g: (zeros_like_grad(g),), save=None,
               integers=(NotImplementedError, "\"trunc_vml_cpu\" not implemented for 'Bool'"))
frac = _unary("frac", "FracBackward0", lambda x: x - np.trunc(x), "grad", "1", lambda ctx, g: (g,), save=None)


_F32 = dtypes.float32
_FEW = 8            # TanhBackward0 of up to this many float32 elements on Python floats
_isnan = math.isnan


def _tanh_backward(g, y):
    """``grad · (1 - y²)`` as torch's kernel computes it (a fused ``1 - y·y``); with
    create_graph the same formula in Tensor ops, so it can be differentiated again."""
    if grad_mode.enabled or g._data.dtype != np.float32 or y._data.dtype != np.float32:
        return g * (1 - y * y)
    return _tanh_backward_f32(g._data, y._data)


def _tanh_backward_f32(gd, yd):
    """:func:`_tanh_backward` of float32 arrays ``gd`` (the gradient) and ``yd`` (tanh's
    output), as a new tensor."""
    if gd.ndim == 0 and yd.ndim == 0:
        # one element in Python floats: the float32 product of two float32 values is exact
        # in float64, so rounding it once is numpy's product (a nan is left to numpy)
        v = yd.item()
        v = gd.item() * fma32_float(-v, v, 1.0)
        if v == v:
            return Tensor._make(np.array(v, np.float32), _F32)
    elif gd.size <= _FEW and gd.shape == yd.shape:
        # a few elements, each as above (the array kernel's fixed cost is ~8 of these)
        out = [a * fma32_float(-v, v, 1.0) for a, v in zip(gd.ravel().tolist(), yd.ravel().tolist())]
        if not any(map(_isnan, out)):
            r = np.array(out, np.float32)
            r.shape = gd.shape      # in place: a reshaped view would keep a second array object
            return Tensor._make(r, _F32)
    if type(gd) is not np.ndarray or type(yd) is not np.ndarray or gd.shape != yd.shape:
        gd, yd = np.broadcast_arrays(gd, yd)   # (which returns arrays of one shape as they are)
    return Tensor._make(kernels.tanh_backward(gd, yd))


def _relu_backward(ctx, g):
    # threshold_backward(grad, result, 0): selects, so inf/nan from above stays out
    if grad_mode.enabled:
        return (_db().threshold_backward(g, ctx.result, 0),)
    return (where(ctx.result > 0, g, 0.0),)


def _db():
    from . import double_backward
    return double_backward


relu = _unary("relu", "ReluBackward0", lambda x: np.maximum(x, 0).astype(x.dtype),
              "threshold_backward(grad, result, 0) = where(result > 0, grad, 0)", "1 if self > 0 else 0  (0 at 0)", _relu_backward, save="result", integers=(RuntimeError, "Boolean inputs not supported for relu"))


@op("round", "RoundBackward0", ("self",), vjp={"self": "0"}, local={"self": "0"})
def ROUND(ctx, g):
    return (zeros_like_grad(g),)


@op("round_decimals", "RoundBackward1", ("self",), vjp={"self": "0"}, local={"self": "0"})
def ROUND_DECIMALS(ctx, g):
    return (zeros_like_grad(g),)


@export(torch=("round",), tensor=("round",))
def round(input, decimals=0):
    """Round half to even (torch.round); zero gradient."""
    x = input._data
    out = np.round(x, decimals) if decimals else np.round(x)
    return make(ROUND_DECIMALS if decimals else ROUND, np.asarray(out, dtype=x.dtype), (input,),
                attrs={"decimals": decimals})


# -- clamp -----------------------------------------------------------------------------


@op("clamp", "ClampBackward1", ("self",),
    vjp={"self": "where((self >= min) & (self <= max), grad, 0)"},
    local={"self": "1 if min ≤ self ≤ max else 0"})
def CLAMP(ctx, g):
    x = ctx.self
    mask = None
    if ctx.min is not None:
        mask = x >= ctx.min
    if ctx.max is not None:
        m2 = x <= ctx.max
        mask = m2 if mask is None else mask & m2
    return (where(mask, g, 0.0),)


@op("clamp_min", "ClampMinBackward0", ("self",),
    vjp={"self": "where(self >= min, grad, 0)"}, local={"self": "1 if self ≥ min else 0"})
def CLAMP_MIN(ctx, g):
    return (where(ctx.self >= ctx.min, g, 0.0),)


@op("clamp_max", "ClampMaxBackward0", ("self",),
    vjp={"self": "where(self <= max, grad, 0)"}, local={"self": "1 if self ≤ max else 0"})
def CLAMP_MAX(ctx, g):
    return (where(ctx.self <= ctx.max, g, 0.0),)


def _num(v):
    if isinstance(v, Tensor):
        return v.item()
    if isinstance(v, dtypes.NumberLike):
        return v.torch_number()
    return v


def _promoted(input, *bounds):
    """``input``'s data in the result type of input and the number bounds (torch 2.13:
    ``int_tensor.clamp(max=2.5)`` is float32, ``bool_tensor.clamp(max=2)`` int64)."""
    x = input._data
    dt = dtypes.result_type([input], [b for b in bounds if b is not None])
    return (x if dt is input._dtype else x.astype(dt.np)), dt


@export(torch=("clamp", "clip"), tensor=("clamp", "clip"))
def clamp(input, min=None, max=None):
    """Limit to [min, max] (torch.clamp, ClampBackward1): the gradient passes where
    min ≤ x ≤ max, bounds included."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return _clamp_tensor(input, min, max)
    lo, hi = _num(min), _num(max)
    x, dt = _promoted(input, lo, hi)
    out = x
    if lo is not None:
        out = np.maximum(out, x.dtype.type(lo))
    if hi is not None:
        out = np.minimum(out, x.dtype.type(hi))
    out = np.asarray(out, dtype=x.dtype)
    return make(CLAMP, out, (input,), save={"self": input, "min": lo, "max": hi}, dtype=dt)


@op("clamp_tensor", "ClampBackward0", ("self", "min", "max"),
    vjp={"self": "where(min <= self <= max, grad, 0)",
         "min": "where(self < min and min <= max, grad, 0)",
         "max": "where(max(self, min) > max, grad, 0)"},
    local={"self": "1 if min ≤ self ≤ max else 0", "min": "1 if self < min ≤ max else 0",
           "max": "1 if max < max(self, min) else 0"})
def CLAMP_TENSOR(ctx, g):
    x, lo, hi = ctx.self, ctx.min, ctx.max
    z = zeros_like_grad(g)
    keep = None
    if lo is not None:
        keep = x >= lo
    if hi is not None:
        keep = (x <= hi) if keep is None else keep & (x <= hi)
    gx = where(keep, g, z) if ctx.needs(0) else None
    gmin = gmax = None
    if lo is not None and ctx.needs(1):
        below = x < lo if hi is None else (x < lo) & (lo <= hi)
        gmin = where(below, g, z)
    if hi is not None and ctx.needs(2):
        above = x > hi if lo is None else (x > hi) | (lo > hi)
        gmax = where(above, g, z)
    return gx, gmin, gmax


def _clamp_tensor(input, min, max):
    """clamp with tensor bounds (ClampBackward0, three edges: self, min, max; a missing bound
    is (None, 0)); bounds broadcast against the input, as in torch 2.13."""
    lo = as_tensor_arg(min) if min is not None else None
    hi = as_tensor_arg(max) if max is not None else None
    dt = dtypes.result_type([t for t in (input, lo, hi) if t is not None])
    out = input._data.astype(dt.np, copy=False)
    if lo is not None:
        out = np.maximum(out, lo._data.astype(dt.np, copy=False))
    if hi is not None:
        out = np.minimum(out, hi._data.astype(dt.np, copy=False))
    return make(CLAMP_TENSOR, np.asarray(out, dtype=dt.np), (input, lo, hi),
                save={"self": input, "min": lo, "max": hi}, dtype=dt)


@export(torch=("clamp_min",), tensor=("clamp_min",))
def clamp_min(input, min):
    lo = _num(min)
    x, dt = _promoted(input, lo)
    return make(CLAMP_MIN, np.asarray(np.maximum(x, x.dtype.type(lo)), dtype=x.dtype), (input,),
                save={"self": input, "min": lo}, dtype=dt)


@export(torch=("clamp_max",), tensor=("clamp_max",))
def clamp_max(input, max):
    hi = _num(max)
    x, dt = _promoted(input, hi)
    return make(CLAMP_MAX, np.asarray(np.minimum(x, x.dtype.type(hi)), dtype=x.dtype), (input,),
                save={"self": input, "max": hi}, dtype=dt)


#: the C++ type names torch 2.13's in-place clamp with number bounds words a cast error in
_CTYPE = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
          "bool": "bool", "float32": "float", "float64": "double"}


for _n, _f in (("clamp", clamp), ("clip", clamp), ("clamp_min", clamp_min), ("clamp_max", clamp_max)):
    def _make_inplace(f):
        def method(self, *args, **kwargs):
            check_inplace(self)
            res = f(self, *args, **kwargs)
            bounds = list(args) + list(kwargs.values())
            if res._dtype is not self._dtype and not any(isinstance(b, Tensor) for b in bounds) \
                    and self._dtype.category < res._dtype.category:
                word = {"float32": "Float", "float64": "Double", "int64": "Long"}.get(res._dtype.name, res._dtype.name)
                raise RuntimeError(f"result type {word} can't be cast to the desired output type "
                                   f"{_CTYPE.get(self._dtype.name, self._dtype.name)}")
            return commit_inplace(self, res)
        return method
    export(tensor=(_n + "_",), name=_n + "_")(_make_inplace(_f))


# -- maximum / minimum -------------------------------------------------------------------


@op("maximum", "MaximumBackward0", ("self", "other"),
    vjp={"self": "where(self == other, grad / 2, grad).masked_fill(self < other, 0)",
         "other": "where(self == other, grad / 2, grad).masked_fill(self > other, 0)"},
    local={"self": "1 if self > other, ½ if equal, else 0", "other": "1 if other > self, ½ if equal, else 0"})
def MAXIMUM(ctx, g):
    return _extremum_backward(ctx, g, True)


def _extremum_backward(ctx, g, is_max):
    """torch 2.13's maximum/minimum backward: ties get grad / 2, the losing side is
    masked to 0 (a select: an inf/nan gradient does not leak into it)."""
    a, b = ctx.self, ctx.other
    tie = a == b
    half = where(tie, g / 2, g)
    lt, gt = a < b, a > b
    ga = where(lt if is_max else gt, 0.0, half) if ctx.needs(0) else None
    gb = where(gt if is_max else lt, 0.0, half) if ctx.needs(1) else None
    return ga, gb


@op("minimum", "MinimumBackward0", ("self", "other"),
    vjp={"self": "where(self == other, grad / 2, grad).masked_fill(self > other, 0)",
         "other": "where(self == other, grad / 2, grad).masked_fill(self < other, 0)"},
    local={"self": "1 if self < other, ½ if equal, else 0", "other": "1 if other < self, ½ if equal, else 0"})
def MINIMUM(ctx, g):
    return _extremum_backward(ctx, g, False)


def _pair(input, other):
    from .arith import _binary
    return _binary(input, other)


def _elementwise_extreme(name, op_, npfn, input, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    a, b, ad, bd, dt = _pair(input, other)
    try:
        out = npfn(ad, bd)
    except ValueError:
        raise broadcast_error(ad.shape, bd.shape) from None
    return make(op_, np.asarray(out), (a, b), save={"self": a, "other": b}, dtype=dt)


@export(torch=("maximum",), tensor=("maximum",))
def maximum(input, other):
    """Elementwise max (torch.maximum); ties split the gradient 0.5/0.5; nan propagates."""
    return _elementwise_extreme("maximum", MAXIMUM, np.maximum, input, other)


@export(torch=("minimum",), tensor=("minimum",))
def minimum(input, other):
    """Elementwise min (torch.minimum); ties split the gradient 0.5/0.5."""
    return _elementwise_extreme("minimum", MINIMUM, np.minimum, input, other)


# -- where -------------------------------------------------------------------------------


@op("where", "WhereBackward0", ("self", "other"),
    vjp={"self": "where(condition, grad, 0)", "other": "where(condition, 0, grad)"},
    local={"self": "1 where condition else 0", "other": "0 where condition else 1"})
def WHERE(ctx, g):
    c = ctx.condition
    z = zeros_like_grad(g)
    return (where(c, g, z) if ctx.needs(0) else None,
            where(c, z, g) if ctx.needs(1) else None)


_WHERE_SIGNATURES = ("Tensor condition", "Tensor condition, Tensor input, Tensor other, *, Tensor out = None",
                     "Tensor condition, Number self, Tensor other", "Tensor condition, Tensor input, Number other",
                     "Tensor condition, Number self, Number other")
_OPERANDS = (Tensor, bool, int, float, dtypes.NumberLike)


@export(torch=("where",))
def where(condition, input=None, other=None):
    """``torch.where(condition, input, other)``: picks elementwise; each branch's gradient
    is masked by the condition (so a nan/inf gradient in the unselected branch still
    reaches its inputs as nan: the well-known trap)."""
    if input is None and other is None:
        idx = np.nonzero(condition._data)
        return tuple(Tensor._make(np.asarray(i, dtype=np.int64)) for i in idx)
    if not (isinstance(condition, Tensor) and isinstance(input, _OPERANDS) and isinstance(other, _OPERANDS)):
        from .errors import invalid_arguments
        raise invalid_arguments("where", (condition, input, other), {}, _WHERE_SIGNATURES)
    if isinstance(condition, Tensor) and condition._dtype is not dtypes.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype {condition._dtype.name.capitalize() if condition._dtype.category != dtypes.FLOAT else 'Float'}")
    a, b, ad, bd, dt = _pair(input, other)
    try:
        out = np.where(condition._data, ad, bd)
    except ValueError:
        raise broadcast_error(condition._data.shape, ad.shape, bd.shape) from None
    return make(WHERE, np.asarray(out, dtype=dt.np), (a, b), save={"condition": condition}, dtype=dt)


@export(tensor=("masked_fill",), torch=("masked_fill",))
def masked_fill(input, mask, value):
    """Fill where ``mask`` is True (MaskedFillBackward0): those positions get no gradient."""
    v = _num(value)
    out = np.where(mask._data, input._data.dtype.type(v), input._data)
    return make(MASKED_FILL, np.asarray(out, dtype=input._data.dtype), (input,), save={"mask": mask})


@op("masked_fill", "MaskedFillBackward0", ("self",),
    vjp={"self": "grad.masked_fill(mask, 0)"}, local={"self": "0 where mask else 1"})
def MASKED_FILL(ctx, g):
    return (masked_fill(g, ctx.mask, 0.0),)


@export(tensor=("masked_fill_",))
def masked_fill_(self, mask, value):
    check_inplace(self)
    return commit_inplace(self, masked_fill(self, mask, value))


# -- no-gradient predicates -------------------------------------------------------------


@export(torch=("isnan",), tensor=("isnan",))
def isnan(input):
    return Tensor._make(np.isnan(input._data))


@export(torch=("isinf",), tensor=("isinf",))
def isinf(input):
    return Tensor._make(np.isinf(input._data))


@export(torch=("isfinite",), tensor=("isfinite",))
def isfinite(input):
    return Tensor._make(np.isfinite(input._data))


@export(tensor=("where",), name="where_method")
def where_method(self, condition, other):
    """``x.where(condition, y)``: ``torch.where(condition, x, y)``."""
    return where(condition, self, other)
