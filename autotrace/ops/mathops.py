"""More elementwise math and matrix-shape ops, each as torch 2.13 defines it:
inverse trig/hyperbolic functions, ``sinh``/``cosh``, ``logit``, ``atan2``, ``hypot``,
``xlogy``, ``lerp``, ``addcmul``/``addcdiv``, ``tril``/``triu``, ``trace``, ``roll``.
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor, wrap_dim
from . import tensor_params, as_tensor_arg, export, make, op
from .arith import _binary
from .shape import sum_to
from .unary import _unary

asin = _unary("asin", "AsinBackward0", np.arcsin, "grad / sqrt(1 - self²)", "1/√(1 − self²)",
              lambda ctx, g: (g / (1 - ctx.self * ctx.self).sqrt(),), torch_names=("asin", "arcsin"),
              tensor_names=("asin", "arcsin"))
acos = _unary("acos", "AcosBackward0", np.arccos, "-grad / sqrt(1 - self²)", "−1/√(1 − self²)",
              lambda ctx, g: (-g / (1 - ctx.self * ctx.self).sqrt(),), torch_names=("acos", "arccos"),
              tensor_names=("acos", "arccos"))
atan = _unary("atan", "AtanBackward0", np.arctan, "grad / (1 + self²)", "1/(1 + self²)",
              lambda ctx, g: (g / (ctx.self * ctx.self + 1),), torch_names=("atan", "arctan"),
              tensor_names=("atan", "arctan"))
asinh = _unary("asinh", "AsinhBackward0", np.arcsinh, "grad / sqrt(self² + 1)", "1/√(self² + 1)",
               lambda ctx, g: (g / (ctx.self * ctx.self + 1).sqrt(),), torch_names=("asinh", "arcsinh"),
               tensor_names=("asinh", "arcsinh"))
acosh = _unary("acosh", "AcoshBackward0", np.arccosh, "grad / sqrt(self² - 1)", "1/√(self² − 1)",
               lambda ctx, g: (g / (ctx.self * ctx.self - 1).sqrt(),), torch_names=("acosh", "arccosh"),
               tensor_names=("acosh", "arccosh"))
atanh = _unary("atanh", "AtanhBackward0", np.arctanh, "grad / (1 - self²)", "1/(1 − self²)",
               lambda ctx, g: (g / (1 - ctx.self * ctx.self),), torch_names=("atanh", "arctanh"),
               tensor_names=("atanh", "arctanh"))
sinh = _unary("sinh", "SinhBackward0", np.sinh, "grad * cosh(self)", "cosh(self)",
              lambda ctx, g: (g * ctx.self.cosh(),))
cosh = _unary("cosh", "CoshBackward0", np.cosh, "grad * sinh(self)", "sinh(self)",
              lambda ctx, g: (g * ctx.self.sinh(),))


@op("logit", "LogitBackward0", ("self",), vjp={"self": "grad / (self * (1 - self)) (0 outside [eps, 1 - eps])"},
    local={"self": "1/(self·(1 − self))"})
def LOGIT(ctx, g):
    x = ctx.self
    d = g / (x * (1 - x))
    if ctx.eps is not None:
        from .unary import masked_fill
        d = masked_fill(d, (x < ctx.eps) | (x > 1 - ctx.eps), 0.0)
    return (d,)


@export(torch=("logit",), tensor=("logit",))
def logit(input, eps=None):
    """``log(p / (1 - p))``, with ``p`` clamped to [eps, 1 - eps] when ``eps`` is given."""
    from .unary import _float_input
    x = _float_input(input)
    if eps is not None:
        x = np.clip(x, eps, 1 - eps)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(x / (1 - x))
    return make(LOGIT, np.asarray(out, dtype=x.dtype), (input,), save={"self": input}, attrs={"eps": eps})


def _pair(name, node, fn, vjp, local, backward):
    o = op(name, node, ("self", "other"), vjp=vjp, local=local)(backward)

    def f(input, other):
        a, b, ad, bd, dt = _binary(input, other)
        if dt.category != 2:
            from .. import dtypes
            dt = dtypes.default_float
            ad, bd = ad.astype(dt.np), bd.astype(dt.np)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            out = np.asarray(fn(ad, bd), dtype=dt.np)
        return make(o, out, (a, b), save={"self": a, "other": b}, dtype=dt)
    f.__name__ = name
    f.__doc__ = f"Elementwise torch.{name} with broadcasting; gradients {vjp}."
    return export(torch=(name,), tensor=(name,), name=name)(f)


def _to_shape(g, t):
    return sum_to(g, t._data.shape) if g._data.shape != t._data.shape else g


def _atan2_back(ctx, g):
    """torch 2.13's ``atan2_backward``: ``recip = (self² + other²).reciprocal()``, filled
    with 0 where the denominator is 0 (both zero, or both squares underflowing; a
    denominator that is tiny but not 0 keeps its infinite reciprocal), then ``grad * other
    * recip`` and ``grad * -self * recip``, rounded in that order; so (0, 0) gets 0 and -0,
    not nan, and the double-backward graph has torch's nodes (MaskedFillBackward0,
    ReciprocalBackward0)."""
    from .unary import masked_fill
    a, b = ctx.self, ctx.other
    den = a * a + b * b
    recip = masked_fill(den.reciprocal(), den == 0, 0.0)
    return (_to_shape(g * b * recip, a) if ctx.needs(0) else None,
            _to_shape(g * -a * recip, b) if ctx.needs(1) else None)


atan2 = _pair("atan2", "Atan2Backward0", np.arctan2,
              {"self": "grad * other / (self² + other²) (0 where self² + other² = 0)",
               "other": "-grad * self / (self² + other²) (0 where self² + other² = 0)"},
              {"self": "other/(self² + other²)", "other": "−self/(self² + other²)"}, _atan2_back)


def _hypot_back(ctx, g):
    a, b = ctx.self, ctx.other
    r = (a * a + b * b).sqrt()
    return (_to_shape(g * a / r, a) if ctx.needs(0) else None, _to_shape(g * b / r, b) if ctx.needs(1) else None)


hypot = _pair("hypot", "HypotBackward0", np.hypot,
              {"self": "grad * self / result", "other": "grad * other / result"},
              {"self": "self/result", "other": "other/result"}, _hypot_back)


def _xlogy_back(ctx, g):
    from .unary import masked_fill
    a, b = ctx.self, ctx.other
    ga = gb = None
    if ctx.needs(0):
        ga = _to_shape(masked_fill(g * b.log(), (a == 0) & (b <= 0), 0.0), a)
    if ctx.needs(1):
        gb = _to_shape(g * a / b, b)
    return ga, gb


def _xlogy(a, b):
    return np.where(a == 0, 0.0, a * np.log(b)).astype(np.result_type(a, b))


xlogy = _pair("xlogy", "XlogyBackward0", _xlogy,
    {"self": "grad * log(other) (0 where self = 0 and other <= 0)", "other": "grad * self / other"},
    {"self": "log(other)  (0 where self = 0 and other ≤ 0)", "other": "self/other"}, _xlogy_back)


@op("lerp", "LerpBackward0", ("self", "end"), vjp={"self": "grad * (1 - weight)", "end": "grad * weight"},
    local={"self": "1 − weight", "end": "weight"})
def LERP(ctx, g):
    w = ctx.weight
    return (_to_shape(g * (1 - w), ctx.self) if ctx.needs(0) else None,
            _to_shape(g * w, ctx.end) if ctx.needs(1) else None)


@op("lerp_tensor", "LerpBackward1", ("self", "end", "weight"),
    vjp={"self": "grad * (1 - weight)", "end": "grad * weight", "weight": "grad * (end - self)"},
    local={"self": "1 − weight", "end": "weight", "weight": "end − self"})
def LERP_TENSOR(ctx, g):
    w, s, e = ctx.weight, ctx.self, ctx.end
    return (_to_shape(g * (1 - w), s) if ctx.needs(0) else None, _to_shape(g * w, e) if ctx.needs(1) else None,
            _to_shape(g * (e - s), w) if ctx.needs(2) else None)


@export(torch=("lerp",), tensor=("lerp",))
@tensor_params('end')
def lerp(input, end, weight):
    """``input + weight * (end - input)`` (LerpBackward0 for a number weight, 1 for a tensor)."""
    a, e = input._data, end._data
    if isinstance(weight, Tensor):
        if weight._dtype is not input._dtype:
            raise RuntimeError(f"expected dtype {_cpp(input)} for `weight` but got dtype {_cpp(weight)}")
        w = weight._data
        out = np.where(np.abs(w) < 0.5, a + w * (e - a), e - (e - a) * (1 - w)).astype(a.dtype)
        return make(LERP_TENSOR, out, (input, end, weight), save={"self": input, "end": end, "weight": weight})
    w = a.dtype.type(weight)
    out = np.asarray(a + w * (e - a) if abs(weight) < 0.5 else e - (e - a) * (1 - w), dtype=a.dtype)
    return make(LERP, out, (input, end), save={"self": input, "end": end}, attrs={"weight": weight})


def _cpp(t):
    return {"float32": "float", "float64": "double"}.get(t._dtype.name, t._dtype.name)


def _check_broadcast(*ts):
    from .errors import broadcast_shapes
    broadcast_shapes(*(t._data.shape for t in ts))


@op("addcmul", "AddcmulBackward0", ("self", "tensor1", "tensor2"),
    vjp={"self": "grad", "tensor1": "grad * tensor2 * value", "tensor2": "grad * tensor1 * value"},
    local={"self": "1", "tensor1": "value·tensor2", "tensor2": "value·tensor1"})
def ADDCMUL(ctx, g):
    v, t1, t2 = ctx.value, ctx.tensor1, ctx.tensor2
    return ((sum_to(g, ctx.self_sizes) if g._data.shape != tuple(ctx.self_sizes) else g) if ctx.needs(0) else None,
            _to_shape(g * t2 * v, t1) if ctx.needs(1) else None, _to_shape(g * t1 * v, t2) if ctx.needs(2) else None)


@export(torch=("addcmul",), tensor=("addcmul",))
@tensor_params('tensor1', 'tensor2')
def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2`` (AddcmulBackward0)."""
    _check_broadcast(input, tensor1, tensor2)
    out = input._data + input._data.dtype.type(value) * tensor1._data * tensor2._data
    return make(ADDCMUL, np.asarray(out, dtype=input._data.dtype), (input, tensor1, tensor2),
                save={"tensor1": tensor1, "tensor2": tensor2}, attrs={"value": value, "self_sizes": input._data.shape})


@op("addcdiv", "AddcdivBackward0", ("self", "tensor1", "tensor2"),
    vjp={"self": "grad", "tensor1": "grad * value / tensor2", "tensor2": "-grad * value * tensor1 / tensor2²"},
    local={"self": "1", "tensor1": "value/tensor2", "tensor2": "−value·tensor1/tensor2²"})
def ADDCDIV(ctx, g):
    v, t1, t2 = ctx.value, ctx.tensor1, ctx.tensor2
    return ((sum_to(g, ctx.self_sizes) if g._data.shape != tuple(ctx.self_sizes) else g) if ctx.needs(0) else None,
            _to_shape(g * v / t2, t1) if ctx.needs(1) else None,
            _to_shape(-g * v * t1 / (t2 * t2), t2) if ctx.needs(2) else None)


@export(torch=("addcdiv",), tensor=("addcdiv",))
@tensor_params('tensor1', 'tensor2')
def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2`` (AddcdivBackward0)."""
    _check_broadcast(input, tensor1, tensor2)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = input._data + input._data.dtype.type(value) * (tensor1._data / tensor2._data)
    return make(ADDCDIV, np.asarray(out, dtype=input._data.dtype), (input, tensor1, tensor2),
                save={"tensor1": tensor1, "tensor2": tensor2}, attrs={"value": value, "self_sizes": input._data.shape})


def _tri(name, node, npfn):
    o = op(name, node, ("self",), vjp={"self": f"grad.{name}(diagonal)"},
           local={"self": "1 inside the kept triangle, 0 outside"})(
        lambda ctx, g: (getattr(g, name)(ctx.diagonal),))

    def f(input, diagonal=0):
        if input._data.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        return make(o, npfn(input._data, diagonal), (input,), attrs={"diagonal": diagonal})
    f.__name__ = name
    f.__doc__ = f"The {'lower' if name == 'tril' else 'upper'} triangle of the last two dims ({node})."
    return export(torch=(name,), tensor=(name,), name=name)(f)


tril = _tri("tril", "TrilBackward0", lambda x, k: np.tril(x, k))
triu = _tri("triu", "TriuBackward0", lambda x, k: np.triu(x, k))


@op("trace", "TraceBackward0", ("self",), vjp={"self": "eye-shaped grad (grad on the diagonal)"},
    local={"self": "1 on the diagonal"})
def TRACE(ctx, g):
    n, m = ctx.self_sym_sizes
    eye = Tensor._make(np.eye(n, m, dtype=g._data.dtype))
    return (eye * g,)


@export(torch=("trace",), tensor=("trace",))
def trace(input):
    """Sum of the main diagonal of a 2-d tensor (TraceBackward0)."""
    x = input._data
    if x.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {x.ndim}")
    return make(TRACE, np.asarray(np.trace(x), dtype=x.dtype), (input,), attrs={"self_sym_sizes": x.shape})


@op("roll", "RollBackward0", ("self",), vjp={"self": "grad.roll(-shifts, dims)"}, local={"self": "1"})
def ROLL(ctx, g):
    shifts = tuple(-s for s in ctx.shifts)
    return (roll(g, shifts, ctx.dims),)


@export(torch=("roll",), tensor=("roll",))
def roll(input, shifts, dims=None):
    """Shift elements along ``dims`` (flattened when None), wrapping around (RollBackward0)."""
    x = input._data
    sh = (shifts,) if isinstance(shifts, int) else tuple(shifts)
    if dims is None:
        out = np.roll(x.reshape(-1), sh[0]).reshape(x.shape)
        ds = None
    else:
        ds = (dims,) if isinstance(dims, int) else tuple(dims)
        if len(ds) != len(sh):
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:{len(ds)}")
        ds = tuple(wrap_dim(d, x.ndim) for d in ds)
        out = np.roll(x, sh, ds)
    return make(ROLL, out, (input,), attrs={"shifts": sh, "dims": ds})
