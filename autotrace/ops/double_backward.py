"""Backward functions that are themselves differentiable ops, as torch 2.13 records them
under ``create_graph=True``: ``tanh_backward``, ``sigmoid_backward``, ``threshold_backward``
(relu), ``leaky_relu_backward``, ``hardtanh_backward``, ``elu_backward`` (elu, selu,
celu), ``softplus_backward``, ``gelu_backward``, ``_softmax_backward_data`` and
``_log_softmax_backward_data``. Each is one node (``TanhBackwardBackward0`` ...) whose
inputs are the upstream gradient and the saved self/result of the first-order node, with
torch's saved names (``_saved_grad_output``, ``_saved_output``, ``_saved_self`` ...) and
the second-order formulas of torch's ``derivatives.yaml``.

Without ``create_graph`` the first-order nodes keep their own fast kernels; with it, the
value of the gradient is the same numbers (computed by those kernels with grad mode
off), only the node recorded for it differs. Every function takes the gradient and the
saved tensor of one shape and float dtype and returns a tensor of that shape and dtype.
"""

from __future__ import annotations

import math

from .. import grad_mode
from . import make, op


def _plain(fn, *args):
    """``fn(*args)`` with grad mode off: the numbers of the first-order kernel."""
    prev = grad_mode.enabled
    grad_mode.enabled = False
    try:
        return fn(*args)
    finally:
        grad_mode.enabled = prev


def _zeros(g):
    from .unary import zeros_like_grad
    return zeros_like_grad(g)


# -- tanh, sigmoid ---------------------------------------------------------------------------------


@op("tanh_backward", "TanhBackwardBackward0", ("grad_output", "output"),
    vjp={"grad_output": "tanh_backward(grad, output)", "output": "grad * (-2 * output * grad_output)"})
def TANH_BACKWARD(ctx, gg):
    from .arith import mul_scalar
    return tanh_backward(gg, ctx.output), gg * (mul_scalar(ctx.output, -2) * ctx.grad_output)


def tanh_backward(grad_output, output):
    """``grad_output · (1 − output²)`` (TanhBackwardBackward0; matches torch 2.13's
    ``tanh_backward``)."""
    from .unary import _tanh_backward
    v = _plain(_tanh_backward, grad_output, output)
    return make(TANH_BACKWARD, v._data, (grad_output, output),
                save={"grad_output": grad_output, "output": output})


@op("sigmoid_backward", "SigmoidBackwardBackward0", ("grad_output", "output"),
    vjp={"grad_output": "sigmoid_backward(grad, output)",
         "output": "grad * grad_output * (-2 * output + 1)"})
def SIGMOID_BACKWARD(ctx, gg):
    from .arith import mul_scalar
    from .losses import add_scalar
    y = ctx.output
    return sigmoid_backward(gg, y), gg * ctx.grad_output * add_scalar(mul_scalar(y, -2), 1)


def _sigmoid_grad(g, y):
    return (g * (1 - y)) * y


def sigmoid_backward(grad_output, output):
    """``grad_output · (1 − output) · output`` (SigmoidBackwardBackward0)."""
    v = _plain(_sigmoid_grad, grad_output, output)
    return make(SIGMOID_BACKWARD, v._data, (grad_output, output),
                save={"grad_output": grad_output, "output": output})


# -- the masking ones: relu, leaky_relu, hardtanh ---------------------------------------------------


@op("threshold_backward", "ThresholdBackwardBackward0", ("grad_output", "self"),
    vjp={"grad_output": "threshold_backward(grad, self, threshold)", "self": "zeros_like(grad)"})
def THRESHOLD_BACKWARD(ctx, gg):
    return threshold_backward(gg, ctx.self, ctx.threshold), _zeros(gg)


def _threshold_grad(g, x, threshold):
    from .unary import where
    return where(x > threshold, g, 0.0)


def threshold_backward(grad_output, self, threshold):
    """``grad_output`` where ``self > threshold``, else 0 (ThresholdBackwardBackward0;
    relu's backward is ``threshold_backward(grad, result, 0)``)."""
    v = _plain(_threshold_grad, grad_output, self, threshold)
    return make(THRESHOLD_BACKWARD, v._data, (grad_output, self), save={"self": self},
                attrs={"threshold": threshold})


@op("leaky_relu_backward", "LeakyReluBackwardBackward0", ("grad_output", "self"),
    vjp={"grad_output": "leaky_relu_backward(grad, self, negative_slope)", "self": "zeros_like(grad)"})
def LEAKY_RELU_BACKWARD(ctx, gg):
    return leaky_relu_backward(gg, ctx.self, ctx.negative_slope), _zeros(gg)


def leaky_relu_backward(grad_output, self, negative_slope):
    """``grad_output`` where ``self > 0``, else ``grad_output · negative_slope``
    (LeakyReluBackwardBackward0)."""
    from .nn import leaky_relu_grad
    v = _plain(leaky_relu_grad, grad_output, self, negative_slope)
    return make(LEAKY_RELU_BACKWARD, v._data, (grad_output, self), save={"self": self},
                attrs={"negative_slope": negative_slope})


@op("hardtanh_backward", "HardtanhBackwardBackward0", ("grad_output", "self"),
    vjp={"grad_output": "hardtanh_backward(grad, self, min_val, max_val)", "self": "zeros_like(grad)"})
def HARDTANH_BACKWARD(ctx, gg):
    return hardtanh_backward(gg, ctx.self, ctx.min_val, ctx.max_val), _zeros(gg)


def hardtanh_backward(grad_output, self, min_val, max_val):
    """``grad_output`` where ``min_val < self < max_val``, else 0 (HardtanhBackwardBackward0)."""
    from .nn import hardtanh_grad
    v = _plain(hardtanh_grad, grad_output, self, min_val, max_val)
    return make(HARDTANH_BACKWARD, v._data, (grad_output, self), save={"self": self},
                attrs={"min_val": min_val, "max_val": max_val})


# -- elu, softplus, gelu ---------------------------------------------------------------------------


@op("elu_backward", "EluBackwardBackward0", ("grad_output", "self_or_result"),
    vjp={"grad_output": "elu_backward(grad, alpha, scale, input_scale, is_result, self_or_result)",
         "self_or_result": "elu_backward(grad * grad_output * input_scale, ...) * (self_or_result < 0)"})
def ELU_BACKWARD(ctx, gg):
    x = ctx.self_or_result
    a, s, i = ctx.alpha, ctx.scale, ctx.input_scale
    return (elu_backward(gg, a, s, i, x),
            elu_backward(gg * ctx.grad_output * i, a, s, i, x) * (x < 0).to(gg.dtype))


def elu_backward(grad_output, alpha, scale, input_scale, self):
    """``grad_output · scale`` where ``self > 0``, else
    ``grad_output · input_scale · alpha · scale · exp(self · input_scale)``
    (EluBackwardBackward0, for elu, selu and celu)."""
    from .activations import _elu_grad
    v = _plain(_elu_grad, grad_output, self, alpha, scale, input_scale)
    return make(ELU_BACKWARD, v._data, (grad_output, self),
                save={"grad_output": grad_output, "self_or_result": self},
                attrs={"alpha": alpha, "scale": scale, "input_scale": input_scale, "is_result": False})


@op("softplus_backward", "SoftplusBackwardBackward0", ("grad_output", "self"),
    vjp={"grad_output": "softplus_backward(grad, self, beta, threshold)",
         "self": "sigmoid_backward(grad * grad_output, sigmoid(beta * self)) * (beta * self < threshold) * beta"})
def SOFTPLUS_BACKWARD(ctx, gg):
    from .arith import mul_scalar
    x = ctx.self
    z = mul_scalar(x, ctx.beta)
    second = mul_scalar(sigmoid_backward(gg * ctx.grad_output, z.sigmoid()) * (z < ctx.threshold).to(gg.dtype),
                        ctx.beta)
    return softplus_backward(gg, x, ctx.beta, ctx.threshold), second


def softplus_backward(grad_output, self, beta, threshold):
    """``grad_output · sigmoid(beta · self)``, ``grad_output`` where ``beta · self >
    threshold`` (SoftplusBackwardBackward0)."""
    from .nn import softplus_grad
    v = _plain(softplus_grad, grad_output, self, beta, threshold)
    return make(SOFTPLUS_BACKWARD, v._data, (grad_output, self),
                save={"grad_output": grad_output, "self": self}, attrs={"beta": beta, "threshold": threshold})


_K_BETA = 2 / math.sqrt(math.pi) * math.sqrt(0.5) * 0.5    # ATen's M_2_SQRTPI * M_SQRT1_2 * 0.5
_SQRT2_PI = math.sqrt(2.0 / math.pi)
_KAPPA = 0.044715


@op("gelu_backward", "GeluBackwardBackward0", ("grad_output", "self"),
    vjp={"grad_output": "gelu_backward(grad, self, approximate)",
         "self": "gelu_double_backward(grad, grad_output, self, approximate): grad * grad_output * (2φ(self) − self²·φ(self))"})
def GELU_BACKWARD(ctx, gg):
    x = ctx.self
    go = ctx.grad_output
    if ctx.approximate == "tanh":
        inner = (x + x * x * x * _KAPPA) * _SQRT2_PI
        th = inner.tanh()
        dinner = (x * x * (3 * _KAPPA) + 1) * _SQRT2_PI
        d2 = (1 - th * th) * (dinner - x * th * dinner * dinner + x * x * (3 * _KAPPA * _SQRT2_PI))
    else:
        sq = x * x
        pdf = (sq * -0.5).exp() * _K_BETA
        d2 = pdf * 2 - sq * pdf
    return gelu_backward(gg, x, ctx.approximate), d2 * gg * go


def gelu_backward(grad_output, self, approximate):
    """``grad_output · (Φ(self) + self·φ(self))`` or its tanh form (GeluBackwardBackward0)."""
    from .nn import gelu_grad
    v = _plain(gelu_grad, grad_output, self, approximate)
    return make(GELU_BACKWARD, v._data, (grad_output, self),
                save={"grad_output": grad_output, "self": self}, attrs={"approximate": approximate})


@op("hardswish_backward", "HardswishBackwardBackward0", ("grad_output", "self"),
    vjp={"grad_output": "hardswish_backward(grad, self)",
         "self": "where(-3 < self < 3, grad * grad_output / 3, 0)"})
def HARDSWISH_BACKWARD(ctx, gg):
    from .unary import where
    x = ctx.self
    return hardswish_backward(gg, x), where((x > -3) & (x < 3), gg * ctx.grad_output / 3.0, 0.0)


def hardswish_backward(grad_output, self):
    """``grad_output · (self/3 + 1/2)`` on (−3, 3), 0 up to −3, ``grad_output`` from 3
    (HardswishBackwardBackward0)."""
    from .activations import hardswish_grad
    v = _plain(hardswish_grad, grad_output, self)
    return make(HARDSWISH_BACKWARD, v._data, (grad_output, self), save={"grad_output": grad_output, "self": self})


@op("log_sigmoid_backward", "LogSigmoidBackwardBackward0", ("grad_output", "self"),
    vjp={"grad_output": "log_sigmoid_backward(grad, self, buffer)",
         "self": "log_sigmoid_double_backward(grad * grad_output, self) = grad * grad_output * (sigmoid(self) - 1) * sigmoid(self)"})
def LOG_SIGMOID_BACKWARD(ctx, gg):
    x = ctx.self
    z = x.sigmoid()
    return log_sigmoid_backward(gg, x), gg * ctx.grad_output * (z - 1) * z


def log_sigmoid_backward(grad_output, self):
    """``grad_output · sigmoid(−self)`` (LogSigmoidBackwardBackward0)."""
    from .activations import log_sigmoid_grad
    v = _plain(log_sigmoid_grad, grad_output, self)
    return make(LOG_SIGMOID_BACKWARD, v._data, (grad_output, self), save={"grad_output": grad_output, "self": self})


# -- softmax, log_softmax --------------------------------------------------------------------------


@op("_softmax_backward_data", "SoftmaxBackwardDataBackward0", ("grad_output", "output"),
    vjp={"grad_output": "_softmax_backward_data(grad, output, dim)",
         "output": "grad_output * grad - (output * grad_output).sum(dim, True) * grad"
                   " - grad_output * (output * grad).sum(dim, True)"})
def SOFTMAX_BACKWARD_DATA(ctx, gg):
    y, go, dim = ctx.output, ctx.grad_output, ctx.dim
    second = go * gg - (y * go).sum(dim, keepdim=True) * gg - go * (y * gg).sum(dim, keepdim=True)
    return softmax_backward_data(gg, y, dim), second


def softmax_backward_data(grad_output, output, dim):
    """``output · (grad_output − (grad_output · output).sum(dim))``
    (SoftmaxBackwardDataBackward0)."""
    from .softmax import softmax_grad
    v = _plain(softmax_grad, grad_output, output, dim)
    return make(SOFTMAX_BACKWARD_DATA, v._data, (grad_output, output),
                save={"grad_output": grad_output, "output": output}, attrs={"dim": dim})


@op("_log_softmax_backward_data", "LogSoftmaxBackwardDataBackward0", ("grad_output", "output"),
    vjp={"grad_output": "grad - (grad * output.exp()).sum(dim, True)",
         "output": "-grad_output.sum(dim, True) * output.exp() * grad"})
def LOG_SOFTMAX_BACKWARD_DATA(ctx, gg):
    y, go, dim = ctx.output, ctx.grad_output, ctx.dim
    e = y.exp()
    return gg - (gg * e).sum(dim, keepdim=True), -go.sum(dim, keepdim=True) * e * gg


def log_softmax_backward_data(grad_output, output, dim):
    """``grad_output − exp(output) · grad_output.sum(dim)`` (LogSoftmaxBackwardDataBackward0)."""
    from .softmax import log_softmax_grad
    v = _plain(log_softmax_grad, grad_output, output, dim)
    return make(LOG_SOFTMAX_BACKWARD_DATA, v._data, (grad_output, output),
                save={"grad_output": grad_output, "output": output}, attrs={"dim": dim})
