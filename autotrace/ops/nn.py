"""Neural-network functions (``torch.nn.functional``): activations (the softmax family is
in :mod:`.softmax`), losses, linear, dropout, one_hot — with torch 2.13's node names and graph shapes.

Where PyTorch builds a function out of other ops (``cross_entropy`` = ``log_softmax`` +
``nll_loss``; ``l1_loss`` = ``(input - target).abs().mean()``; ``linear`` = ``addmm`` with
``weight.t()``), the same ops are recorded here so ``grad_fn`` chains agree.
"""

from __future__ import annotations

import math

import numpy as np

from .. import diagnostics, dtypes, grad_mode
from ..resources import check_count
from ..tensor import Tensor
from . import cpu, double_backward, kernels, onednn
from . import FUNCTIONAL, check_inplace, commit_inplace, export, make, op
from .unary import relu, sigmoid, tanh, zeros_like_grad
from .reduce import _mean
from .summation import torch_sum
from .softmax import _word, log_softmax, softmax  # noqa: F401 (softmax: ops.nn's public name)

FUNCTIONAL["relu"] = relu
FUNCTIONAL["sigmoid"] = sigmoid
FUNCTIONAL["tanh"] = tanh

_REDUCTIONS = ("none", "mean", "sum")


def _const(arr) -> Tensor:
    return Tensor._make(arr)


def _reduction(size_average, reduce, reduction):
    """The legacy ``size_average``/``reduce`` pair mapped to ``reduction`` (torch's rule)."""
    if size_average is None and reduce is None:
        if reduction not in _REDUCTIONS:
            raise ValueError(f"{reduction} is not a valid value for reduction")
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        return "mean"
    return "sum" if reduce else "none"


def _check_target_size(input, target):
    if target.shape != input.shape:
        diagnostics.warn(
            f"Using a target size ({target.shape!r}) that is different to the input size "
            f"({input.shape!r}). This will likely lead to incorrect results due to broadcasting. "
            "Please ensure they have the same size.")


# -- activations ------------------------------------------------------------------------


@op("hardtanh", "HardtanhBackward0", ("self",),
    vjp={"self": "where((self > min_val) & (self < max_val), grad, 0)"},
    local={"self": "1 if min_val < self < max_val else 0  (0 at the bounds)"})
def HARDTANH(ctx, g):
    if grad_mode.enabled:
        return (double_backward.hardtanh_backward(g, ctx.self, ctx.min_val, ctx.max_val),)
    return (hardtanh_grad(g, ctx.self, ctx.min_val, ctx.max_val),)


def hardtanh_grad(g, x, min_val, max_val):
    from .unary import where
    return where((x > min_val) & (x < max_val), g, 0.0)


@export(functional=("hardtanh",))
def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Clamp to [min_val, max_val] (HardtanhBackward0). Unlike ``clamp``, the gradient is
    0 *at* the bounds (torch 2.13 ``hardtanh_backward`` uses strict inequalities)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    x = input._data
    out = np.clip(x, x.dtype.type(min_val), x.dtype.type(max_val))
    res = make(HARDTANH, np.asarray(out, dtype=x.dtype), (input,), save={"self": input},
               attrs={"min_val": min_val, "max_val": max_val})
    if inplace:
        check_inplace(input)
        return commit_inplace(input, res)
    return res


@export(functional=("relu6",))
def relu6(input, inplace=False):
    """``hardtanh(input, 0, 6)`` (torch records HardtanhBackward0)."""
    return hardtanh(input, 0.0, 6.0, inplace)


@op("leaky_relu", "LeakyReluBackward0", ("self",),
    vjp={"self": "where(self > 0, grad, grad * negative_slope)"},
    local={"self": "1 if self > 0 else negative_slope"})
def LEAKY_RELU(ctx, g):
    if grad_mode.enabled:
        return (double_backward.leaky_relu_backward(g, ctx.self, ctx.negative_slope),)
    return (leaky_relu_grad(g, ctx.self, ctx.negative_slope),)


def leaky_relu_grad(g, x, negative_slope):
    from .unary import where
    return where(x > 0, g, g * negative_slope)


@export(functional=("leaky_relu",))
def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``x if x > 0 else negative_slope * x`` (LeakyReluBackward0; slope at 0)."""
    x = input._data
    out = np.where(x > 0, x, x * x.dtype.type(negative_slope)).astype(x.dtype, copy=False)
    res = make(LEAKY_RELU, out, (input,), save={"self": input}, attrs={"negative_slope": negative_slope})
    if inplace:
        check_inplace(input)
        return commit_inplace(input, res)
    return res


_SQRT1_2 = 1 / math.sqrt(2.0)
_SQRT2_PI = math.sqrt(2.0 / math.pi)
_erf_vec = np.vectorize(math.erf, otypes=[np.float64])


def np_erf(x: np.ndarray) -> np.ndarray:
    """erf elementwise in float64 precision, returned in ``x``'s dtype."""
    return np.asarray(_erf_vec(x.astype(np.float64)), dtype=x.dtype)


@op("erf", "ErfBackward0", ("self",), vjp={"self": "2 / sqrt(pi) * exp(-self²) * grad"},
    local={"self": "2/√π · exp(−self²)"})
def ERF(ctx, g):
    x = ctx.self
    return (g * ((-(x * x)).exp() * (2 / math.sqrt(math.pi))),)


@export(torch=("erf",), tensor=("erf",))
def erf(input):
    """Gauss error function (ErfBackward0)."""
    x = input._data if input._dtype.category == dtypes.FLOAT else input._data.astype(np.float32)
    return make(ERF, np_erf(x), (input,), save={"self": input})


@op("gelu", "GeluBackward0", ("self",),
    vjp={"self": "grad * (Φ(self) + self·φ(self))  (approximate='tanh': derivative of the tanh form)"},
    local={"self": "Φ(x) + x·φ(x)"})
def GELU(ctx, g):
    if grad_mode.enabled:
        return (double_backward.gelu_backward(g, ctx.self, ctx.approximate),)
    return (gelu_grad(g, ctx.self, ctx.approximate),)


def gelu_grad(g, x, approximate):
    if approximate == "tanh":
        inner = (x + x * x * x * 0.044715) * _SQRT2_PI
        th = inner.tanh()
        dinner = (x * x * (3 * 0.044715) + 1) * _SQRT2_PI
        d = (th + 1) * 0.5 + x * 0.5 * (1 - th * th) * dinner
        return g * d
    cdf = (erf(x * _SQRT1_2) + 1) * 0.5
    pdf = (x * x * -0.5).exp() * (1 / math.sqrt(2 * math.pi))
    return g * (cdf + x * pdf)


@export(functional=("gelu",))
def gelu(input, approximate="none"):
    """GELU, ``x·Φ(x)`` or the tanh approximation (GeluBackward0). Like torch 2.13, a
    contiguous float32 tensor of more than one element takes oneDNN's ``gelu_erf``
    (``Activation.cpp``, ``use_mkldnn``): on an AVX512 CPU its minimax form, bit for bit
    (:func:`.onednn.gelu_erf_avx512`); else its Abramowitz-Stegun form ``S + S·erf`` with
    ``S = 0.5x`` (fused), approximated here by float64 erf, whose saturated negatives
    are +0. Other tensors take ATen's ``x·0.5·(1 + erf(x/√2))`` (-0 there)."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    x = input._data
    if approximate == "tanh":
        out = 0.5 * x * (1 + np.tanh(x.dtype.type(_SQRT2_PI) * (x + x.dtype.type(0.044715) * x * x * x)))
    elif x.dtype == np.float32 and x.size > 1 and x.flags.c_contiguous:
        if cpu.ONEDNN_AVX512:
            out = onednn.gelu_erf_avx512(x)
        else:
            out = x * 0.5 * (1 + np_erf(x * x.dtype.type(_SQRT1_2))) + x.dtype.type(0)
    else:
        out = x * 0.5 * (1 + np_erf(x * x.dtype.type(_SQRT1_2)))
    return make(GELU, np.asarray(out, dtype=x.dtype), (input,), save={"self": input},
                attrs={"approximate": approximate})


@op("softplus", "SoftplusBackward0", ("self",),
    vjp={"self": "grad * sigmoid(beta * self)  (grad where beta * self > threshold)"},
    local={"self": "σ(β·self)"})
def SOFTPLUS(ctx, g):
    if grad_mode.enabled:
        return (double_backward.softplus_backward(g, ctx.self, ctx.beta, ctx.threshold),)
    return (softplus_grad(g, ctx.self, ctx.beta, ctx.threshold),)


def softplus_grad(g, x, beta, threshold):
    z = x * beta
    s = z.sigmoid()
    lin = (z > threshold).to(g.dtype)
    return g * (lin + (1 - lin) * s)


@export(functional=("softplus",))
def softplus(input, beta=1, threshold=20):
    """``log(1 + exp(beta·x)) / beta``, linear where ``beta·x > threshold`` (SoftplusBackward0)."""
    x = input._data
    z = x * x.dtype.type(beta)
    with np.errstate(over="ignore"):
        out = np.where(z > threshold, x, np.log1p(np.exp(z)) / x.dtype.type(beta))
    return make(SOFTPLUS, np.asarray(out, dtype=x.dtype), (input,), save={"self": input},
                attrs={"beta": beta, "threshold": threshold})


@op("silu", "SiluBackward0", ("self",), vjp={"self": "grad * σ(self) * (1 + self * (1 - σ(self)))"},
    local={"self": "σ(x)·(1 + x·(1 − σ(x)))"})
def SILU(ctx, g):
    x = ctx.self
    s = x.sigmoid()
    return (g * (s * (x * (1 - s) + 1)),)


@export(functional=("silu",))
def silu(input, inplace=False):
    """``x·σ(x)`` (SiluBackward0)."""
    from .kernels import sigmoid as _sigmoid
    x = input._data
    return make(SILU, np.asarray(x * _sigmoid(x), dtype=x.dtype), (input,), save={"self": input})


# -- losses -----------------------------------------------------------------------------


@op("nll_loss", "NllLossBackward0", ("self",),
    vjp={"self": "-weight[target] * grad at [n, target[n]] (/ total_weight for mean), 0 elsewhere"},
    local={"self": "−w[target] at the target class, 0 elsewhere"})
def NLL_LOSS(ctx, g):
    coef = ctx.coef  # constant array: -w[t] / total at target positions
    if ctx.reduction == "none" and g.ndim > 0:
        g = g.unsqueeze(1) if coef.ndim > 1 else g
    return (_at_targets(g, coef),)


@op("nll_loss2d", "NllLoss2DBackward0", ("self",),
    vjp={"self": "-weight[target] * grad at [n, target[n, ...], ...] (/ total_weight for mean)"},
    local={"self": "−w[target] at the target class, 0 elsewhere"})
def NLL_LOSS2D(ctx, g):
    coef = ctx.coef
    if ctx.reduction == "none":
        g = g.unsqueeze(1)
    return (_at_targets(g, coef),)


def _at_targets(g, coef):
    """``g * coef`` at the target positions and +0 elsewhere: torch's nll_loss_backward
    writes into zeros, so a non-target gradient is never -0 (which would print as -0.)."""
    from .unary import where

    prod = g * _const(coef)
    return where(_const(coef != 0), prod, zeros_like_grad(prod))


def _nll_cascade(data, valid, wt):
    """The loss and weight sums of ATen's ``nll_loss_out_frame`` (and the 2-d kernel):
    over the targets in order, ``loss[0] -= data·w`` (``-= data`` without weights) into
    eight partial sums; after each non-ignored index ``b``, level ``j`` is added into
    level ``j+1`` and cleared while ``b`` is a multiple of ``2^(p·(j+1))`` (``p =
    max(4, ceil(log2 N) / 8)``); the results are the levels added from 0 in order. The
    weight total without weights is the count of non-ignored targets. Level 0 runs as a
    sequential numpy accumulation between the flush points (an ignored target adds an
    exact +0 there instead of being skipped)."""
    dt = data.dtype.type
    n = data.size
    lp = max(4, (max(n - 1, 0)).bit_length() // 8)
    mask = (1 << lp) - 1
    with np.errstate(all="ignore"):
        neg = -(data if wt is None else (data * wt).astype(data.dtype))
        neg = np.where(valid, neg, dt(0)).astype(data.dtype)
        wv = None if wt is None else np.where(valid, wt, dt(0)).astype(data.dtype)

        def run(v, lo, hi):
            return np.add.accumulate(np.concatenate([[dt(0)], v[lo:hi]]).astype(data.dtype))[-1]

        loss, wsum = [dt(0)] * 8, [dt(0)] * 8
        flush = np.flatnonzero(valid & ((np.arange(n) & mask) == 0))
        seg_l = seg_w = None
        if flush.size > 1 and np.array_equal(np.diff(flush), np.full(flush.size - 1, mask + 1)):
            # equal segments (1, b] between the flush points: one accumulate per row
            k, base = flush.size - 1, int(flush[0]) + 1
            seg_l = np.add.accumulate(neg[base:base + k * (mask + 1)].reshape(k, -1), axis=1)[:, -1] + dt(0)
            if wv is not None:
                seg_w = np.add.accumulate(wv[base:base + k * (mask + 1)].reshape(k, -1), axis=1)[:, -1] + dt(0)
        prev = 0
        for i, b in enumerate(flush.tolist()):
            if seg_l is not None and i:
                loss[0] = seg_l[i - 1]
                if wv is not None:
                    wsum[0] = seg_w[i - 1]
            else:
                loss[0] = run(neg, prev, b + 1)
                if wv is not None:
                    wsum[0] = run(wv, prev, b + 1)
            prev = b + 1
            for j in range(7):
                if b & (mask << (j * lp)):
                    break
                loss[j + 1] = dt(loss[j + 1] + loss[j])
                wsum[j + 1] = dt(wsum[j + 1] + wsum[j])
                loss[j] = wsum[j] = dt(0)
        loss[0] = run(neg, prev, n)
        if wv is not None:
            wsum[0] = run(wv, prev, n)
        total = dt(0)
        for v in loss:
            total = dt(total + v)
        if wt is None:
            return total, dt(int(np.count_nonzero(valid)))
        tw = dt(0)
        for v in wsum:
            tw = dt(tw + v)
    return total, tw


def _nll_coef(x, t, w, ignore_index, reduction):
    """(loss array, coefficient array dloss/dx for a unit upstream grad) for class-index
    targets: ``x`` is (C,), (N, C) or (N, C, d...); ``t`` matches without the class dim."""
    C = x.shape[1] if x.ndim >= 2 else x.shape[0]
    valid = t != ignore_index
    bad = t[valid & ((t < 0) | (t >= C))]
    if bad.size:
        raise IndexError(f"Target {int(bad.reshape(-1)[0])} is out of bounds.")
    tc = np.where(valid, t, 0)
    wt = (w[tc] if w is not None else np.ones(t.shape, dtype=x.dtype)) * valid
    wt = wt.astype(x.dtype)
    if x.ndim == 1:
        picked = x[tc]
        onehot = (np.arange(C) == tc).astype(x.dtype)
    else:
        picked = np.take_along_axis(x, np.expand_dims(tc, 1), axis=1).squeeze(1)
        onehot = (np.arange(C).reshape((1, C) + (1,) * (x.ndim - 2)) == np.expand_dims(tc, 1)).astype(x.dtype)
    losses = -(picked * wt)
    coef = -onehot * np.expand_dims(wt, 1 if x.ndim >= 2 else 0) if x.ndim >= 2 else -onehot * wt
    if reduction == "none":
        return losses.astype(x.dtype), coef.astype(x.dtype)
    total, tw = _nll_cascade(np.ravel(picked).astype(x.dtype), np.ravel(valid),
                             None if w is None else np.ravel(wt).astype(x.dtype))
    if reduction == "sum":
        return np.asarray(total, dtype=x.dtype), coef.astype(x.dtype)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (np.asarray(total / tw, dtype=x.dtype), (coef / tw).astype(x.dtype))


@export(functional=("nll_loss",))
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log-likelihood of class indices (NllLossBackward0; NllLoss2DBackward0 for
    (N, C, H, W) input). ``mean`` divides by the summed weights of non-ignored targets,
    so all-ignored gives nan, as in torch 2.13. Errors: non-int64 target (RuntimeError),
    batch mismatch (ValueError), target out of range (IndexError "Target k is out of bounds.")."""
    reduction = _reduction(size_average, reduce, reduction)
    target = _long_target(target)
    x, t = input._data, target._data
    if x.ndim == 2 and t.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if x.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {x.ndim})")
    if x.ndim >= 2 and (t.ndim == 0 or x.shape[0] != t.shape[0]):
        raise ValueError(f"Expected input batch_size ({x.shape[0]}) to match target batch_size "
                         f"({t.shape[0] if t.ndim else 0}).")
    if x.ndim > 2 and t.shape != x.shape[:1] + x.shape[2:]:
        raise ValueError(f"Expected target size {list(x.shape[:1] + x.shape[2:])}, got {list(t.shape)}")
    _check_class_weight(weight, x.shape[1] if x.ndim >= 2 else x.shape[0])
    w = weight._data if weight is not None else None
    out, coef = _nll_coef(x, t, w, ignore_index, reduction)
    if x.ndim == 4:
        return make(NLL_LOSS2D, out, (input,), attrs={"coef": coef, "reduction": reduction,
                                                       "ignore_index": ignore_index})
    if x.ndim > 2:
        # torch flattens (N, C, d...) to (N, C, 1, prod(d)) and runs the 2-d kernel
        n, c = x.shape[:2]
        x4 = input.reshape(n, c, 1, -1)
        t4 = target.reshape(n, 1, -1)
        res = nll_loss(x4, t4, weight, ignore_index=ignore_index, reduction=reduction)
        return res.reshape(t.shape) if reduction == "none" else res
    return make(NLL_LOSS, out, (input,), attrs={"coef": coef, "reduction": reduction,
                                                "ignore_index": ignore_index})


def _long_target(target):
    """torch 2.13 accepts int64 and uint8 class indices (uint8 is widened)."""
    if target._dtype is dtypes.int64:
        return target
    if target._dtype.name == "uint8":
        return Tensor._make(target._data.astype(np.int64))
    raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_word(target._dtype)}")


def _check_class_weight(weight, n_classes: int) -> None:
    """torch 2.13's check of a per-class ``weight`` (nll_loss, cross_entropy)."""
    if weight is not None and (weight.ndim != 1 or weight.shape[0] != n_classes):
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes or no classes "
                           f"but got weight tensor of shape: {list(weight.shape)}")


@export(functional=("cross_entropy",))
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """Cross entropy as torch 2.13 composes it: class-index targets give
    ``nll_loss(log_softmax(input, 1))`` (NllLossBackward0 → LogSoftmaxBackward0); float
    targets of the input's shape are class probabilities, ``-(log_softmax * target).sum()``
    then ``/ N`` (DivBackward1 → NegBackward0 → SumBackward0 → MulBackward0); label
    smoothing mixes in ``-log_softmax.sum(class_dim)`` as torch does."""
    from .arith import div_scalar, mul_scalar
    reduction = _reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 0 if input.ndim == 1 else 1
    C = input.shape[class_dim]
    _check_class_weight(weight, C)
    lsm = log_softmax(input, class_dim)
    if target.shape == input.shape:  # same shape: class probabilities (torch 2.13)
        if target._dtype.category != dtypes.FLOAT:
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                               f"{_word(target._dtype)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        tgt = target
        if label_smoothing > 0:
            tgt = target * (1 - label_smoothing) + label_smoothing / C
        prod = lsm * tgt
        if weight is not None:
            shape = [1] * input.ndim
            shape[class_dim] = C
            prod = prod * weight.view(*shape)
        if reduction == "none":
            return -prod.sum(class_dim)
        loss = -prod.sum()
        if reduction == "sum":
            return loss
        return div_scalar(loss, input.numel() // C)
    target = _long_target(target)
    nll = nll_loss(lsm, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing <= 0:
        return nll
    from .unary import masked_fill_
    if weight is not None:
        shape = [1] * input.ndim
        shape[class_dim] = C
        smooth = -(lsm * weight.view(*shape)).sum(class_dim)
    else:
        smooth = -lsm.sum(class_dim)
    ignore_mask = target == ignore_index
    with_grad = smooth
    masked_fill_(with_grad, ignore_mask, 0.0)
    if reduction == "mean":
        if weight is not None:
            denom = weight._data[target._data[~ignore_mask._data]].sum()
            ret = with_grad.sum() / Tensor._make(np.asarray(denom, dtype=weight._data.dtype))
        else:
            ret = with_grad.sum() / (~ignore_mask).sum()
    elif reduction == "sum":
        ret = with_grad.sum()
    else:
        ret = with_grad
    return mul_scalar(nll, 1 - label_smoothing) + mul_scalar(ret, label_smoothing / C)


@op("mse_loss", "MseLossBackward0", ("self", "target"),
    vjp={"self": "2 * (self - target) * grad (/ numel for mean)", "target": "-2 * (self - target) * grad (/ numel for mean)"},
    local={"self": "2·(self − target)/n", "target": "−2·(self − target)/n"})
def MSE_LOSS(ctx, g):
    x, t = ctx.self, ctx.target
    # ATen's mse_backward kernel: (float(norm) * (self - target)) * grad, norm = 2 or 2/N
    # (a double: inf for an empty input, whose gradient is empty)
    norm = (2.0 / ctx.n if ctx.n else float("inf")) if ctx.reduction == "mean" else 2.0
    gi = ((x - t) * norm) * g
    return (gi if ctx.needs(0) else None, -gi if ctx.needs(1) else None)


def _bcast(input, target):
    shape = np.broadcast_shapes(input._data.shape, target._data.shape)
    return input.expand(*shape) if input._data.shape != shape else input, \
        target.expand(*shape) if target._data.shape != shape else target


@export(functional=("mse_loss",))
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error (MseLossBackward0, saves self and target). A target of a
    different shape warns (torch's UserWarning) and broadcasts."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_target_size(input, target)
    if input.shape != target.shape:
        input, target = _bcast(input, target)
    if input._dtype.category != dtypes.FLOAT and target._dtype.category != dtypes.FLOAT:
        raise NotImplementedError(
            f'"mse_cpu" not implemented for \'{_word(dtypes.result_type([input, target]))}\'')
    x = input._data
    t = target._data.astype(x.dtype, copy=False)
    d = x - t
    sq = d * d                               # ATen's mse kernel: diff * diff
    if reduction != "none":                  # then its sum / mean (sum divided by numel)
        sq = torch_sum(sq) if reduction == "sum" else _mean(sq, None, False, sq.size)
    out = sq
    return make(MSE_LOSS, np.asarray(out, dtype=x.dtype), (input, target),
                save={"self": input, "target": target},
                attrs={"reduction": reduction, "n": x.size})


@export(functional=("l1_loss",))
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error; torch 2.13 composes it: ``(input - target).abs()`` then
    ``mean()``/``sum()`` (MeanBackward0 → AbsBackward0 → SubBackward0)."""
    reduction = _reduction(size_average, reduce, reduction)
    _check_target_size(input, target)
    loss = (input - target).abs()
    if reduction == "none":
        return loss
    return loss.sum() if reduction == "sum" else loss.mean()


@op("binary_cross_entropy", "BinaryCrossEntropyBackward0", ("self", "target"),
    vjp={"self": "grad * (self - target) / max((1 - self) * self, 1e-12) (* weight, / numel for mean)",
         "target": "grad * (log(1 - self) - log(self)) (* weight, / numel for mean)"},
    local={"self": "(self − target)/(self·(1 − self))"})
def BCE(ctx, g):
    x, t = ctx.self, ctx.target
    w = ctx.weight
    scale = g
    if ctx.reduction == "mean":
        scale = g / ctx.n
    if w is not None:
        scale = scale * w
    gs = gt = None
    if ctx.needs(0):
        gs = scale * (x - t) / ((1 - x) * x).clamp_min(1e-12)
    if ctx.needs(1):
        gt = scale * ((1 - x).log().clamp_min(-100) - x.log().clamp_min(-100))
    return gs, gt


@export(functional=("binary_cross_entropy",))
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """``-(t·log x + (1 − t)·log(1 − x))`` with the logs clamped at −100
    (BinaryCrossEntropyBackward0). Input outside [0, 1] raises torch's RuntimeError; a
    target of another shape raises ValueError."""
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape!r}) that is different to the input size ({input.shape!r}) is deprecated. "
            "Please ensure they have the same size.")
    x, t = input._data, target._data
    if ((x < 0) | (x > 1)).any():
        raise RuntimeError("all elements of input should be between 0 and 1")
    with np.errstate(divide="ignore"):
        lx = np.maximum(np.log(x), x.dtype.type(-100))
        l1x = np.maximum(np.log(1 - x), x.dtype.type(-100))
    loss = -(t * lx + (1 - t) * l1x)
    if weight is not None:
        loss = loss * weight._data
    out = loss if reduction == "none" else np.sum(loss, dtype=x.dtype) if reduction == "sum" else np.mean(loss, dtype=x.dtype)
    return make(BCE, np.asarray(out, dtype=x.dtype), (input, target),
                save={"self": input, "target": target, "weight": weight},
                attrs={"reduction": reduction, "n": x.size})


@op("binary_cross_entropy_with_logits", "BinaryCrossEntropyWithLogitsBackward0", ("self", "target"),
    vjp={"self": "grad * (sigmoid(self) * (pos_weight·target + 1 − target) − pos_weight·target) (* weight, / numel for mean)",
         "target": "grad * ((pos_weight − 1)·(−log σ(self)) − self) (* weight, / numel for mean)"},
    local={"self": "σ(self) − target  (no weights)"})
def BCE_LOGITS(ctx, g):
    x, t = ctx.self, ctx.target
    w, pw = ctx.weight, ctx.pos_weight
    scale = g / ctx.n if ctx.reduction == "mean" else g
    if w is not None:
        scale = scale * w
    gs = gt = None
    s = x.sigmoid()
    if ctx.needs(0):
        # ATen's binary_cross_entropy_with_logits_backward, in its order:
        # ((pw·t + 1 - t)·σ(x) - pw·t, or σ(x) - t) · grad, · weight, / numel for mean
        if pw is not None:
            pt = pw * t
            gs = (pt + 1 - t) * s - pt
        else:
            gs = s - t
        gs = gs * g
        if w is not None:
            gs = gs * w
        if ctx.reduction == "mean":
            gs = gs / ctx.n
    if ctx.needs(1):
        if pw is not None:
            gt = scale * ((pw - 1) * -(x.sigmoid().log()) - x)
        else:
            gt = -scale * x
    return gs, gt


@export(functional=("binary_cross_entropy_with_logits",))
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """BCE on logits, computed stably as ``(1 − t)·x + lw·(log(1 + e^(−|x|)) + max(−x, 0))``
    with ``lw = 1 + (pos_weight − 1)·t`` (BinaryCrossEntropyWithLogitsBackward0)."""
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape!r}) must be the same as input size ({input.shape!r})")
    x, t = input._data, target._data.astype(input._data.dtype, copy=False)
    loss = kernels.bce_with_logits(x, t, None if weight is None else weight._data,
                                   None if pos_weight is None else pos_weight._data)
    if reduction == "none":
        out = loss
    else:
        from .summation import torch_sum
        out = torch_sum(loss)
        if reduction == "mean":
            out = out / x.dtype.type(loss.size)
    return make(BCE_LOGITS, np.asarray(out, dtype=x.dtype), (input, target),
                save={"self": input, "target": target, "weight": weight, "pos_weight": pos_weight},
                attrs={"reduction": reduction, "n": x.size})


# -- linear, dropout, one_hot -----------------------------------------------------------


@export(functional=("linear",))
def linear(input, weight, bias=None):
    """``input @ weight.t() + bias`` as torch 2.13 records it: 2-d input with bias is
    ``addmm(bias, input, weight.t())`` (AddmmBackward0 with a TBackward0 edge); other
    ranks with bias fold to 2-d (ViewBackward0 → AddmmBackward0 → ViewBackward0) when the
    input is contiguous, else ``matmul`` then ``add_(bias)`` (AddBackward0); without bias it
    is ``matmul(input, weight.t())``."""
    from .linalg import addmm, matmul
    if not (isinstance(input, Tensor) and isinstance(weight, Tensor) and (bias is None or isinstance(bias, Tensor))):
        for i, (n, v) in enumerate((("input", input), ("weight", weight), ("bias", bias))):
            if not isinstance(v, Tensor) and (v is not None or i < 2):
                raise TypeError(f"linear(): argument '{n}' (position {i + 1}) must be Tensor, not {type(v).__name__}")
    wt = weight.t()
    if bias is None:
        return matmul(input, wt)
    if input.ndim == 2:
        return addmm(bias, input, wt)
    if input.ndim == 0:
        raise RuntimeError("both arguments to linear need to be at least 1D, but they are 0D and 2D")
    if not input._data.flags.c_contiguous:
        return matmul(input, wt).add_(bias)
    lead = input.shape[:-1]
    out = addmm(bias, input.view(-1, input.shape[-1]), wt)
    return out.view(*lead, weight.shape[0])


@export(functional=("dropout",))
def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by ``1/(1 − p)``
    (MulBackward0 with a None edge for the mask). The mask is drawn from autotrace's
    CPU generator exactly as torch draws it (``bernoulli_(1 − p)``, one float64 uniform
    per element), so seeded scripts agree. ``training=False`` or ``p == 0`` returns the input."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    from .. import random
    from .arith import mul
    if p == 1:
        mask = np.zeros(input._data.shape, dtype=input._data.dtype)
    else:
        mask = random.default_generator.bernoulli(1 - p, input._data.shape, input._data.dtype)
        mask = mask * input._data.dtype.type(1 / (1 - p))
    res = mul(input, _const(mask.astype(input._data.dtype, copy=False)))
    if inplace:
        check_inplace(input)
        return commit_inplace(input, res)
    return res


@export(functional=("one_hot",))
def one_hot(tensor, num_classes=-1):
    """int64 one-hot encoding along a new last dim (no gradient). torch 2.13's errors for
    non-int64 input, negative classes and classes ≥ num_classes."""
    if tensor._dtype is not dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    t = tensor._data
    if num_classes == -1:
        if t.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(t.max()) + 1
    if t.size and t.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if t.size and t.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    check_count(t.size * num_classes, 8 + 1)      # the int64 result and the comparison's bools
    check_count(num_classes)
    out = (t[..., None] == np.arange(num_classes)).astype(np.int64)
    return Tensor._make(out)
