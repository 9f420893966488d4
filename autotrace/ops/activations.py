"""More activations of ``torch.nn.functional``: ``selu``, ``celu``, ``mish``, ``hardswish``,
``hardsigmoid``, ``logsigmoid`` (each its own node, as torch 2.13 records it) and the
composites ``softsign`` (``input / (input.abs() + 1)``) and ``tanhshrink``
(``input - input.tanh()``), which record the ops they are built of.

Every function takes a float tensor of any shape and returns one of the same shape and
dtype; integer and bool inputs raise torch's ``NotImplementedError`` naming the CPU kernel
(``"elu_cpu" not implemented for 'Long'``). The ``inplace=True`` forms of ``selu`` and
``celu`` record ``EluBackward1``/``CeluBackward1``, whose backward reads the result (as
torch's ``elu_`` does); the other in-place forms record the same node as out of place.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes, grad_mode
from . import double_backward
from . import RESULT, check_inplace, commit_inplace, export, make, op
from .kernels import log_sigmoid as _log_sigmoid_kernel

# torch.nn.functional.selu's constants (ATen's SELU_ALPHA, SELU_SCALE)
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _word(d) -> str:
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool", "float16": "Half"}.get(d.name, d.name)


def _float_only(input, kernel: str) -> None:
    if input._dtype.category != dtypes.FLOAT:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_word(input._dtype)}\'')


def _finish(input, res, inplace):
    if inplace:
        check_inplace(input)
        return commit_inplace(input, res)
    return res


# -- the elu family: selu and celu ------------------------------------------------------------
# ATen's elu(x, alpha, scale, input_scale) is x·scale for x > 0 and
# alpha·scale·(exp(x·input_scale) − 1) otherwise; selu is (SELU_ALPHA, SELU_SCALE, 1),
# celu (alpha, 1, 1/alpha).


def _elu_forward(x, alpha, scale, input_scale):
    t = x.dtype.type
    with np.errstate(over="ignore", invalid="ignore"):
        z = x * t(input_scale)
        # ATen's vectorized kernel takes SLEEF's 1-ulp expm1f: float64 rounded once is that
        # value on all but a few elements (numpy's float32 expm1 is further off)
        if x.dtype == np.float32:
            em1 = np.expm1(z.astype(np.float64)).astype(np.float32)
            em1 = np.where(z < np.float32(-16.635532333438687426013570), np.float32(-1), em1)  # SLEEF's cut
        else:
            em1 = np.expm1(z)
        neg = em1 * t(alpha * scale)
        return np.asarray(np.where(x > 0, x * t(scale), neg), dtype=x.dtype)


def _elu_grad(g, x, alpha, scale, input_scale):
    pos = (x > 0).to(g.dtype)
    neg = (x * input_scale).exp() * (alpha * scale * input_scale)
    return g * (pos * scale + (1 - pos) * neg)


def _elu_grad_result(g, r, alpha, scale, input_scale):
    # torch's elu_backward with is_result: the negative side is input_scale·(result + alpha·scale)
    pos = (r > 0).to(g.dtype)
    return g * (pos * scale + (1 - pos) * ((r + alpha * scale) * input_scale))


@op("selu", "EluBackward0", ("self",),
    vjp={"self": "grad * scale if self > 0 else grad * alpha * scale * exp(self)  (selu's alpha, scale)"},
    local={"self": "scale if self > 0 else α·scale·exp(self)"})
def SELU(ctx, g):
    if grad_mode.enabled:
        return (double_backward.elu_backward(g, SELU_ALPHA, SELU_SCALE, 1, ctx.self),)
    return (_elu_grad(g, ctx.self, SELU_ALPHA, SELU_SCALE, 1.0),)


@op("selu_", "EluBackward1", ("self",),
    vjp={"self": "grad * scale if result > 0 else grad * (result + alpha * scale)  (in place: reads the result)"},
    local={"self": "scale if result > 0 else result + α·scale"})
def SELU_INPLACE(ctx, g):
    return (_elu_grad_result(g, ctx.result, SELU_ALPHA, SELU_SCALE, 1.0),)


@export(torch=("selu",), functional=("selu",))
def selu(input, inplace=False):
    """``scale·x`` for x > 0, ``scale·alpha·(exp(x) − 1)`` otherwise, with torch's
    alpha ≈ 1.6733 and scale ≈ 1.0507 (EluBackward0; EluBackward1 in place)."""
    _float_only(input, "elu_cpu")
    out = _elu_forward(input._data, SELU_ALPHA, SELU_SCALE, 1.0)
    if inplace:
        return _finish(input, make(SELU_INPLACE, out, (input,), save={"result": RESULT}), True)
    return make(SELU, out, (input,), save={"self": input})


@export(torch=("selu_",))
def selu_(input):
    """In-place :func:`selu` (EluBackward1)."""
    return selu(input, True)


@op("celu", "CeluBackward0", ("self",),
    vjp={"self": "grad if self > 0 else grad * exp(self / alpha)"},
    local={"self": "1 if self > 0 else exp(self/α)"})
def CELU(ctx, g):
    a = ctx.alpha
    inv = 1.0 / float(np.float32(a))   # derivatives.yaml: 1.0 / alpha.toFloat()
    if grad_mode.enabled:
        return (double_backward.elu_backward(g, a, 1, inv, ctx.self),)
    return (_elu_grad(g, ctx.self, a, 1.0, inv),)


@op("celu_", "CeluBackward1", ("self",),
    vjp={"self": "grad if result > 0 else grad * (result / alpha + 1)  (in place: reads the result)"},
    local={"self": "1 if result > 0 else result/α + 1"})
def CELU_INPLACE(ctx, g):
    a = ctx.alpha
    return (_elu_grad_result(g, ctx.result, a, 1.0, 1.0 / float(np.float32(a))),)


@export(torch=("celu",), functional=("celu",))
def celu(input, alpha=1.0, inplace=False):
    """``x`` for x > 0, ``alpha·(exp(x/alpha) − 1)`` otherwise (CeluBackward0;
    CeluBackward1 in place). ``alpha == 0`` is torch's RuntimeError."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    _float_only(input, "elu_cpu")
    out = _elu_forward(input._data, alpha, 1.0, 1.0 / alpha)
    if inplace:
        res = make(CELU_INPLACE, out, (input,), save={"result": RESULT}, attrs={"alpha": alpha})
        return _finish(input, res, True)
    return make(CELU, out, (input,), save={"self": input}, attrs={"alpha": alpha})


@export(torch=("celu_",))
def celu_(input, alpha=1.0):
    """In-place :func:`celu` (CeluBackward1)."""
    return celu(input, alpha, True)


# -- mish ---------------------------------------------------------------------------------------


def _np_mish(x):
    """``x·tanh(log1p(exp(x)))``; float32 in ATen's vector order: SLEEF's expf and log1pf
    (replicated), then tanh (SLEEF's tanhf, here float64 rounded once), each rounded to float32."""
    with np.errstate(over="ignore", invalid="ignore"):
        if x.dtype == np.float32:
            from . import sleef
            sp = sleef.log1pf(sleef.expf(x))
            return x * np.tanh(sp.astype(np.float64)).astype(np.float32)
        return x * np.tanh(np.log1p(np.exp(x)))


@op("mish", "MishBackward0", ("self",),
    vjp={"self": "grad * (tanh(softplus(self)) + self * sigmoid(self) * (1 - tanh(softplus(self))²))"},
    local={"self": "tanh(sp(x)) + x·σ(x)·(1 − tanh²(sp(x)))"})
def MISH(ctx, g):
    x = ctx.self
    ts = x.exp().log1p().tanh()
    return (g * (ts + x * x.sigmoid() * (1 - ts * ts)),)


@export(functional=("mish",))
def mish(input, inplace=False):
    """``x·tanh(softplus(x))`` (MishBackward0)."""
    _float_only(input, "mish_cpu")
    res = make(MISH, np.asarray(_np_mish(input._data), dtype=input._data.dtype), (input,),
               save={"self": input})
    return _finish(input, res, inplace)


# -- hardswish, hardsigmoid ---------------------------------------------------------------------


_ONE_SIXTH_F = float(np.float32(1.0) / np.float32(6.0))


def _relu6_of_x_plus_3(x):
    t = x.dtype.type
    return np.minimum(np.maximum(x + t(3), t(0)), t(6))


@op("hardswish", "HardswishBackward0", ("self",),
    vjp={"self": "0 if self <= -3 else grad * (self / 3 + 0.5) if self < 3 else grad"},
    local={"self": "0 up to −3, self/3 + 1/2 on (−3, 3), 1 from 3 on"})
def HARDSWISH(ctx, g):
    if grad_mode.enabled:
        return (double_backward.hardswish_backward(g, ctx.self),)
    return (hardswish_grad(g, ctx.self),)


def hardswish_grad(g, x):
    from .unary import where
    mid = g * (x / 3 + 0.5)
    return where(x <= -3, 0.0, where(x < 3, mid, g))


@export(functional=("hardswish",))
def hardswish(input, inplace=False):
    """``x·relu6(x + 3)/6`` (HardswishBackward0; the gradient is x/3 + 1/2 on the open
    interval (−3, 3), 0 at −3 and 1 at 3, as torch 2.13's ``hardswish_backward``)."""
    _float_only(input, "hardswish_cpu")
    x = input._data
    out = np.asarray(x * _relu6_of_x_plus_3(x) / x.dtype.type(6), dtype=x.dtype)
    return _finish(input, make(HARDSWISH, out, (input,), save={"self": input}), inplace)


@op("hardsigmoid", "HardsigmoidBackward0", ("self",),
    vjp={"self": "grad / 6 if -3 < self < 3 else 0"},
    local={"self": "1/6 on (−3, 3), 0 elsewhere"})
def HARDSIGMOID(ctx, g):
    if grad_mode.enabled:
        return (_hardsigmoid_backward(g, ctx.self),)
    return (_hardsigmoid_grad(g, ctx.self),)


def _hardsigmoid_grad(g, x):
    from .unary import where
    # ATen's hardsigmoid_backward multiplies by the float constant 1.0f/6.0f in every dtype
    return where((x > -3) & (x < 3), g * _ONE_SIXTH_F, 0.0)


@op("hardsigmoid_backward", "NotImplemented", ("grad_output", "self"),
    vjp={"grad_output": "not implemented", "self": "not implemented"}, local={"grad_output": "-", "self": "-"})
def HARDSIGMOID_BACKWARD(ctx, g):
    raise RuntimeError("derivative for aten::hardsigmoid_backward is not implemented")


def _hardsigmoid_backward(g, x):
    """With create_graph: torch 2.13 has no derivative for ``hardsigmoid_backward``, so the
    gradient hangs off a NotImplemented node over the inputs that require grad, and a
    backward through it raises."""
    v = double_backward._plain(_hardsigmoid_grad, g, x)
    return make(HARDSIGMOID_BACKWARD, v._data, tuple(t for t in (g, x) if t.requires_grad))


@export(functional=("hardsigmoid",))
def hardsigmoid(input, inplace=False):
    """``relu6(x + 3)/6`` (HardsigmoidBackward0; gradient 0 at ±3)."""
    _float_only(input, "hardsigmoid_cpu")
    x = input._data
    out = np.asarray(_relu6_of_x_plus_3(x) / x.dtype.type(6), dtype=x.dtype)
    return _finish(input, make(HARDSIGMOID, out, (input,), save={"self": input}), inplace)


# -- logsigmoid ---------------------------------------------------------------------------------


@op("log_sigmoid", "LogSigmoidBackward0", ("self",),
    vjp={"self": "grad * sigmoid(-self)"},
    local={"self": "σ(−x) = 1 − σ(x)"})
def LOG_SIGMOID(ctx, g):
    if grad_mode.enabled:
        return (double_backward.log_sigmoid_backward(g, ctx.self),)
    return (log_sigmoid_grad(g, ctx.self),)


def log_sigmoid_grad(g, x):
    return g * (-x).sigmoid()


@export(functional=("logsigmoid",))
def logsigmoid(input):
    """``log(sigmoid(x))`` computed as ``min(x, 0) − log1p(exp(−|x|))`` (LogSigmoidBackward0)."""
    _float_only(input, "log_sigmoid_cpu")
    x = input._data
    return make(LOG_SIGMOID, np.asarray(_log_sigmoid_kernel(x), dtype=x.dtype), (input,), save={"self": input})


# -- composites ---------------------------------------------------------------------------------


@export(functional=("softsign",))
def softsign(input):
    """``input / (input.abs() + 1)``: torch's Python composite, so the graph is
    DivBackward0 ← AddBackward0 ← AbsBackward0."""
    return input / (input.abs() + 1)


@export(functional=("tanhshrink",))
def tanhshrink(input):
    """``input - input.tanh()`` (SubBackward0 ← TanhBackward0), torch's composite."""
    return input - input.tanh()
