"""Losses torch 2.13 composes from ordinary ops, recorded op for op as ATen's composites
(aten/src/ATen/native/Loss.cpp, Distance.cpp) or torch/nn/functional.py write them, so
the grad_fn chains carry torch's node names: ``pairwise_distance`` (NormBackward1 over
AddBackward1 over SubBackward0), ``triplet_margin_loss``, ``hinge_embedding_loss``,
``poisson_nll_loss`` and ``gaussian_nll_loss``."""

from __future__ import annotations

import math

import numpy as np

from .. import grad_mode
from ..tensor import Tensor
from . import export, make, op, RESULT
from .arith import mul_scalar
from .losses import add_scalar
from .nn import _reduction
from .reduce import NORM, norm_values

NORM_SCALAR = op("norm_scalar_dim", "NormBackward1", ("self",),
                 vjp={"self": "grad * self * |self|^(p-2) / result^(p-1)  (0 where result = 0)"},
                 local={"self": "self/‖self‖ for p = 2  (0 at 0)"})(NORM.backward)


def _norm_dim(input: Tensor, p: float, dim: int, keepdim: bool) -> Tensor:
    """``at::norm(self, p, dim, keepdim)`` as C++ composites call it (NormBackward1); the
    value is linalg.vector_norm's."""
    x = input._data
    p = float(p)
    dims = (dim % x.ndim,) if x.ndim else None
    out = norm_values(x, p, dims, keepdim)
    return make(NORM_SCALAR, np.asarray(out, dtype=x.dtype), (input,), save={"self": input, "result": RESULT},
                attrs={"p": p, "dim": dims, "keepdim": keepdim})


def _tensor_arg(fn, name, pos, v):
    if not isinstance(v, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not {type(v).__name__}")


@export(torch=("pairwise_distance",), functional=("pairwise_distance",))
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``‖x1 − x2 + eps‖_p`` over the last dim (torch 2.13's Distance.cpp: SubBackward0,
    AddBackward1, NormBackward1); x1 and x2 broadcast. Raises torch's TypeError for a
    non-tensor."""
    _tensor_arg("pairwise_distance", "x1", 1, x1)
    _tensor_arg("pairwise_distance", "x2", 2, x2)
    inner = max(x1.ndim, x2.ndim) - 1
    if x1.ndim == 0 and x2.ndim == 0:
        inner = 0
    return _norm_dim(add_scalar(x1 - x2, eps), p, inner, keepdim)


def _apply_reduction(out, reduction):
    if reduction == "mean":
        return out.mean()
    if reduction == "sum":
        return out.sum()
    return out


@export(torch=("triplet_margin_loss",), functional=("triplet_margin_loss",))
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """``max(d(a, p) − d(a, n) + margin, 0)`` with ``d`` = pairwise_distance (norm of the
    last dim), then mean / sum / none; ``swap`` uses ``min(d(a, n), d(p, n))``
    (MinimumBackward0). The three inputs need the same number of dims (torch's
    RuntimeError); ``margin <= 0`` is torch's ValueError."""
    reduction = _reduction(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    for i, (name, t) in enumerate((("anchor", anchor), ("positive", positive), ("negative", negative))):
        _tensor_arg("triplet_margin_loss", name, i + 1, t)
    if not anchor.ndim == positive.ndim == negative.ndim:
        raise RuntimeError("The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative "
                           f"{negative.ndim}D inputs")
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        from .unary import minimum
        dist_neg = minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    return _apply_reduction((add_scalar(dist_pos, margin) - dist_neg).clamp_min(0), reduction)


@export(torch=("hinge_embedding_loss",), functional=("hinge_embedding_loss",))
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """``x`` where target is 1, ``max(0, margin − x)`` where it is −1 (both terms where it
    is neither), then mean / sum / none; composed as ATen does: ``where(target != 1,
    (margin − x).clamp_min_(0), 0) + where(target != −1, x, 0)``."""
    from .unary import where
    reduction = _reduction(size_average, reduce, reduction)
    _tensor_arg("hinge_embedding_loss", "input", 1, input)
    _tensor_arg("hinge_embedding_loss", "target", 2, target)
    zeros = Tensor._make(np.zeros_like(input._data))
    margin_clamp = Tensor._make(np.full_like(input._data, margin)).sub_(input).clamp_min_(0)
    output = where(target != 1, margin_clamp, zeros) + where(target != -1, input, zeros)
    return _apply_reduction(output, reduction)


@export(torch=("poisson_nll_loss",), functional=("poisson_nll_loss",))
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """Poisson negative log likelihood: ``exp(x) − target·x`` (``log_input``) or
    ``x − target·log(x + eps)``, plus Stirling's term ``t·log t − t + ½·log(2πt)`` where
    target > 1 with ``full``; then mean / sum / none (torch 2.13's Loss.cpp, op for op)."""
    if size_average is not None or reduce is not None:
        reduction = _reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    _tensor_arg("poisson_nll_loss", "input", 1, input)
    _tensor_arg("poisson_nll_loss", "target", 2, target)
    # g++ evaluates an operator's right operand first: these follow torch's node order
    if log_input:
        prod = target * input
        loss = input.exp() - prod
    else:
        prod = target * add_scalar(input, eps).log()
        loss = input - prod
    if full:
        half_log = mul_scalar(mul_scalar(target, 2 * math.pi).log(), 0.5)
        stirling = target * target.log() - target + half_log
        loss.add_(stirling.masked_fill(target <= 1, 0))
    return _apply_reduction(loss, reduction)


@export(functional=("gaussian_nll_loss",))
def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Gaussian negative log likelihood ``½·(log(max(var, eps)) + (input − target)²/max(var, eps))``
    (+ ``½·log 2π`` with ``full``), torch 2.13's functional.py step for step: a float
    ``var`` is multiplied by ones; a var one dim short of input is unsqueezed at −1; a var
    differing from input in one dim of size 1 broadcasts; else ValueError("var is of
    incorrect size"); a negative var is ValueError; the clamp to ``eps`` runs on a clone
    without grad (CloneBackward0), so its gradient passes where var < eps."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * Tensor._make(np.ones_like(input._data))
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape)[:-1] == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif input.ndim == var.ndim and sum(y for x, y in zip(input.shape, var.shape) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with grad_mode.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss += 0.5 * math.log(2 * math.pi)
    return _apply_reduction(loss, reduction)
