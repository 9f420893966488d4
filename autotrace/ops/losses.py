"""More ``torch.nn.functional`` losses and activations: smooth_l1_loss
(SmoothL1LossBackward0), huber_loss (HuberLossBackward0), kl_div and margin_ranking_loss
(composed as torch 2.13 does), elu (EluBackward0)."""

from __future__ import annotations

import numpy as np

from .. import grad_mode
from ..tensor import Tensor
from . import check_inplace, commit_inplace, export, make, op
from .nn import _bcast, _check_target_size, _reduction


def _reduce_np(loss, reduction, dt):
    if reduction == "none":
        return loss.astype(dt)
    if reduction == "sum":
        return np.asarray(np.sum(loss, dtype=dt))
    return np.asarray(np.mean(loss, dtype=dt))


def _grad_scale(ctx, g):
    return g / ctx.n if ctx.reduction == "mean" else g


@op("smooth_l1_loss", "SmoothL1LossBackward0", ("self", "target"),
    vjp={"self": "grad · clamp((self − target)/beta, −1, 1)  (/ numel for mean)",
         "target": "−grad · clamp((self − target)/beta, −1, 1)"},
    local={"self": "(self − target)/beta if |self − target| < beta else sign(self − target)",
           "target": "−(self − target)/beta if |self − target| < beta else −sign(self − target)"})
def SMOOTH_L1(ctx, g):
    d = ctx.self - ctx.target
    beta = ctx.beta
    inner = (d.abs() < beta).to(d.dtype)
    local = inner * (d / beta) + (1 - inner) * d.sign()
    gi = _grad_scale(ctx, g) * local
    return (gi if ctx.needs(0) else None, -gi if ctx.needs(1) else None)


@export(functional=("smooth_l1_loss",))
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """``0.5·d²/beta`` where ``|d| < beta``, else ``|d| − 0.5·beta`` (SmoothL1LossBackward0);
    ``beta == 0`` is ``l1_loss`` (torch 2.13). A target of another shape warns and
    broadcasts."""
    reduction = _reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        from .nn import l1_loss
        return l1_loss(input, target, reduction=reduction)
    _check_target_size(input, target)
    if input.shape != target.shape:
        input, target = _bcast(input, target)
    x = input._data
    dt = x.dtype
    z = np.abs(x - target._data.astype(dt))
    loss = np.where(z < beta, dt.type(0.5) * z * z / dt.type(beta), z - dt.type(0.5 * beta))
    return make(SMOOTH_L1, _reduce_np(loss, reduction, dt), (input, target), save={"self": input, "target": target},
                attrs={"reduction": reduction, "n": x.size, "beta": beta})


@op("huber_loss", "HuberLossBackward0", ("self", "target"),
    vjp={"self": "grad · clamp(self − target, −delta, delta)  (/ numel for mean)",
         "target": "−grad · clamp(self − target, −delta, delta)"},
    local={"self": "self − target if |self − target| < delta else delta·sign(self − target)",
           "target": "−(self − target) if |self − target| < delta else −delta·sign(self − target)"})
def HUBER(ctx, g):
    d = ctx.self - ctx.target
    delta = ctx.delta
    inner = (d.abs() <= delta).to(d.dtype)
    local = inner * d + (1 - inner) * d.sign() * delta
    gi = _grad_scale(ctx, g) * local
    return (gi if ctx.needs(0) else None, -gi if ctx.needs(1) else None)


@export(functional=("huber_loss",))
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """``0.5·d²`` where ``|d| < delta``, else ``delta·(|d| − 0.5·delta)`` (HuberLossBackward0)."""
    _reduction(None, None, reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    _check_target_size(input, target)
    if input.shape != target.shape:
        input, target = _bcast(input, target)
    x = input._data
    dt = x.dtype
    z = np.abs(x - target._data.astype(dt))
    loss = np.where(z < delta, dt.type(0.5) * z * z, dt.type(delta) * (z - dt.type(0.5 * delta)))
    return make(HUBER, _reduce_np(loss, reduction, dt), (input, target), save={"self": input, "target": target},
                attrs={"reduction": reduction, "n": x.size, "delta": delta})


@export(functional=("kl_div",))
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """KL divergence with log-probabilities ``input``, composed as torch 2.13:
    ``xlogy(target, target) − target·input`` (or ``exp(target)·(target − input)`` with
    ``log_target``), then sum / mean / ``sum / batch`` ('batchmean'); ``'mean'`` warns."""
    from .. import diagnostics
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        diagnostics.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
            "'mean' will be changed to behave the same as 'batchmean' in the next major release.")
    if reduction not in ("none", "mean", "sum", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if log_target:
        out = target.exp() * (target - input)
    else:
        t = target._data
        with np.errstate(divide="ignore", invalid="ignore"):
            xl = np.where(t == 0, 0, t * np.log(np.where(t == 0, 1, t))).astype(t.dtype)
        if target._requires_grad:
            xlogy = target * target.log()
        else:
            xlogy = Tensor._make(xl)
        out = xlogy - target * input
    if reduction == "none":
        return out
    if reduction == "batchmean":
        return out.sum() / (input.shape[0] if input.ndim else 1)
    if reduction == "mean":
        return out.mean()
    return out.sum()


@op("add_scalar", "AddBackward1", ("self",), vjp={"self": "grad"}, local={"self": "1"})
def ADD_SCALAR(ctx, g):
    return (g,)


def add_scalar(input, value):
    """ATen's ``add(Tensor, Scalar)`` as C++ composites call it (AddBackward1, one edge);
    Python's ``t + 0.1`` records AddBackward0 instead."""
    return make(ADD_SCALAR, (input._data + input._data.dtype.type(value)).astype(input._data.dtype), (input,))


@export(torch=("margin_ranking_loss",), functional=("margin_ranking_loss",))
def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    """``max(0, −target·(input1 − input2) + margin)`` per element (target is +1 where
    input1 should rank higher, −1 where input2 should), then mean / sum / none; composed
    of recorded ops as ATen does (ClampMinBackward0 over AddBackward1 over MulBackward0)."""
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    for name, t in (("input1", input1), ("input2", input2), ("target", target)):
        if not isinstance(t, Tensor):
            raise TypeError(f"margin_ranking_loss(): argument '{name}' must be Tensor, not {type(t).__name__}")
    if not input1.ndim == input2.ndim == target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    out = add_scalar((-target) * (input1 - input2), margin).clamp_min(0)
    if reduction == "none":
        return out
    if reduction == "sum":
        return out.sum()
    if reduction == "mean":
        return out.mean()
    raise ValueError(f"{reduction} is not a valid value for reduction")


@op("prelu_kernel", "PreluKernelBackward0", ("self", "weight"),
    vjp={"self": "grad where self > 0, grad · weight elsewhere",
         "weight": "grad · self where self ≤ 0, summed to weight's shape"},
    local={"self": "1 if self > 0 else weight", "weight": "0 if self > 0 else self"})
def PRELU_KERNEL(ctx, g):
    from .shape import sum_to
    x, w = ctx.self, ctx.weight
    pos = (x > 0).to(g.dtype)
    gs = sum_to(g * (pos + (1 - pos) * w), tuple(x.shape)) if ctx.needs(0) else None
    gw = sum_to(g * ((1 - pos) * x), tuple(w.shape)) if ctx.needs(1) else None
    return gs, gw


@export(torch=("prelu",), functional=("prelu",))
def prelu(input, weight):
    """``x`` where x > 0, ``weight · x`` elsewhere; ``weight`` has 1 value or one per
    channel (dim 1) and, for input of 2+ dims, is reshaped to broadcast as ATen does
    (ViewBackward0), then PreluKernelBackward0."""
    for name, t in (("input", input), ("weight", weight)):
        if not isinstance(t, Tensor):
            raise TypeError(f"prelu(): argument '{name}' (position {1 if name == 'input' else 2}) must be Tensor, "
                            f"not {type(t).__name__}")
    n = weight.numel()
    if input.ndim == 0 and n != 1:
        raise RuntimeError("Not allow zero-dim input tensor.")
    channels = input.shape[1] if input.ndim >= 2 else 1
    if n != 1 and n != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = {n} "
                           f"and channel size = {channels}.")
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    w = weight
    if input.ndim > 1:  # ATen leaves the weight of a 0-d or 1-d input as it is
        dims = [1] * input.ndim
        dims[1] = n
        w = weight.reshape(dims)
    x = input._data
    out = np.where(x > 0, x, w._data * x).astype(x.dtype).reshape(x.shape)
    return make(PRELU_KERNEL, out, (input, w), save={"self": input, "weight": w})


@op("elu", "EluBackward0", ("self",), vjp={"self": "grad if self > 0 else grad · alpha · exp(self)"},
    local={"self": "1 if self > 0 else alpha·exp(self)"})
def ELU(ctx, g):
    if grad_mode.enabled:
        from .double_backward import elu_backward
        return (elu_backward(g, ctx.alpha, 1, 1, ctx.self),)
    x = ctx.self
    pos = (x > 0).to(g.dtype)
    return (g * (pos + (1 - pos) * (x.exp() * ctx.alpha)),)


@export(functional=("elu",))
def elu(input, alpha=1.0, inplace=False):
    """``x`` for x > 0, ``alpha·(exp(x) − 1)`` otherwise (EluBackward0)."""
    x = input._data
    with np.errstate(over="ignore"):
        out = np.where(x > 0, x, x.dtype.type(alpha) * np.expm1(x)).astype(x.dtype)
    res = make(ELU, out, (input,), save={"self": input}, attrs={"alpha": alpha})
    if inplace:
        check_inplace(input)
        return commit_inplace(input, res)
    return res
