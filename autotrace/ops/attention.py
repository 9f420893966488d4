"""``F.scaled_dot_product_attention`` as torch 2.13 picks its CPU kernel.

4-d query, key and value with the same batch and head sizes, one head dim, a unit last
stride, no dropout and a mask that is None, 2-d or 4-d and needs no gradient take the
fused flash kernel (``_scaled_dot_product_flash_attention_for_cpu``, one node
ScaledDotProductFlashAttentionForCpuBackward0 over query, key and value; its output has
query's layout). Anything else runs ATen's math composite
(``_scaled_dot_product_attention_math``): both query and key are scaled by ``sqrt(scale)``
(MulBackward1), ``matmul``, the mask added in place (AddBackward0), ``_safe_softmax``
(SafeSoftmaxBackward0: a row that is all ``-inf`` gives zeros, not NaN), dropout, and
``matmul`` with the values.
"""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from ..tensor import Tensor, wrap_dim
from ..resources import check_matmul
from ..tensor import _CPP_TYPE
from . import RESULT, export, make, op


@op("safe_softmax", "SafeSoftmaxBackward0", ("self",),
    vjp={"self": "result * (grad - (grad * result).sum(dim, keepdim=True))"},
    local={"self": "diag(s) − s·sᵀ along dim (0 for fully masked rows)"})
def SAFE_SOFTMAX(ctx, g):
    r = ctx.result
    return (r * (g - (g * r).sum(ctx.dim, keepdim=True)),)


def safe_softmax(input: Tensor, dim: int) -> Tensor:
    """``softmax`` along ``dim`` with rows that are entirely ``-inf`` set to 0."""
    from .softmax import softmax
    d = wrap_dim(dim, input.ndim)
    x = input._data
    with np.errstate(invalid="ignore"):
        s = softmax(Tensor._make(x), d)._data
    masked = np.all(x == -np.inf, axis=d, keepdims=True)
    out = np.where(masked, np.zeros((), x.dtype), s).astype(x.dtype)
    return make(SAFE_SOFTMAX, out, (input,), save={"result": RESULT}, attrs={"dim": d})


def _bool_mask_to_float(mask: Tensor, dtype) -> Tensor:
    m = mask._data
    return Tensor._make(np.where(m, np.zeros((), dtype.np), np.array(-np.inf, dtype.np)), dtype)


@export(functional=("scaled_dot_product_attention",))
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None,
                                 enable_gqa=False):
    """``softmax(q kᵀ · scale + mask) v`` over the last two dims (query ``(..., L, E)``,
    key ``(..., S, E)``, value ``(..., S, Ev)`` → ``(..., L, Ev)``); ``scale`` defaults to
    ``1/sqrt(E)``; a bool ``attn_mask`` keeps the True positions, a float one is added;
    ``is_causal`` masks the upper triangle; ``dropout_p`` applies dropout to the weights.
    The kernel and so the ``grad_fn`` are torch 2.13's CPU choice (see the module doc);
    RuntimeError, as torch's, for mixed dtypes or a mask neither bool nor query's dtype."""
    from .arith import mul_scalar
    from .nn import dropout
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(f"scaled_dot_product_attention(): argument '{name}' must be Tensor, "
                            f"not {type(t).__name__}")
    if enable_gqa:
        raise NotImplementedError("scaled_dot_product_attention(enable_gqa=True) is not supported by autotrace")
    _validate(query, key, value, attn_mask)
    if attn_mask is not None and attn_mask._dtype is dtypes.bool_:
        attn_mask = _bool_mask_to_float(attn_mask, query._dtype)
    if _flash_eligible(query, key, value, attn_mask, dropout_p):
        return _flash(query, key, value, attn_mask, is_causal, scale)
    negative = scale is not None and scale < 0
    base = abs(scale) if scale is not None else 1.0 / math.sqrt(query.shape[-1])
    factor = math.sqrt(base)
    q = mul_scalar(query, -factor if negative else factor)
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
        L, S = q.shape[-2], key.shape[-2]
        attn_mask = _bool_mask_to_float(Tensor._make(np.tril(np.ones((L, S), dtype=bool))), q._dtype)
    attn = q.matmul(mul_scalar(key.transpose(-2, -1), factor))
    if attn_mask is not None:
        attn = attn.add_(attn_mask)
    attn = safe_softmax(attn, -1)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    return attn.matmul(value)


@op("sdpa_flash_cpu", "ScaledDotProductFlashAttentionForCpuBackward0", ("query", "key", "value"),
    vjp={"query": "scale · dS·key with dS = P ⊙ (grad·valueᵀ − rowsum(grad ⊙ output))",
         "key": "scale · dSᵀ·query", "value": "Pᵀ·grad (P = exp(scale·q·kᵀ + mask − logsumexp))"},
    local={"query": "scale·(∂softmax)·key per row", "key": "scale·(∂softmax)ᵀ·query", "value": "Pᵀ"})
def SDPA_FLASH_CPU(ctx, g):
    q, k, v = ctx.query._data, ctx.key._data, ctx.value._data
    p = _flash_probs(q, k, ctx.attn_mask, ctx.softmax_scale, ctx.is_causal, ctx.logsumexp._data)
    do = g._data.astype(q.dtype, copy=False)
    check_matmul(do, np.swapaxes(v, -1, -2))
    dp = np.matmul(do, np.swapaxes(v, -1, -2))
    delta = np.sum(do * ctx.output._data, axis=-1, keepdims=True, dtype=q.dtype)
    ds = p * (dp - delta)
    scale = q.dtype.type(ctx.softmax_scale)
    grads = (np.matmul(ds, k) * scale, np.matmul(np.swapaxes(ds, -1, -2), q) * scale,
             np.matmul(np.swapaxes(p, -1, -2), do))
    return tuple(_flash_grad(gr.astype(x.dtype, copy=False), x) if ctx.needs(i) else None
                 for i, (gr, x) in enumerate(zip(grads, (q, k, v))))


@op("sdpa_flash_cpu_backward", "NotImplemented", ("grad",), vjp={"grad": "not implemented"}, local={"grad": "-"})
def SDPA_FLASH_CPU_BACKWARD(ctx, g):
    raise RuntimeError("derivative for aten::_scaled_dot_product_flash_attention_for_cpu_backward is not implemented")


def _validate(query, key, value, attn_mask):
    names = [_CPP_TYPE.get(t._dtype.name, t._dtype.name) for t in (query, key, value)]
    if not query._dtype is key._dtype is value._dtype:
        raise RuntimeError("Expected query, key, and value to have the same dtype, but got query.dtype: "
                           f"{names[0]} key.dtype: {names[1]} and value.dtype: {names[2]} instead.")
    if attn_mask is not None and attn_mask._dtype is not dtypes.bool_ and attn_mask._dtype is not query._dtype:
        raise RuntimeError("Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                           f"attn_mask.dtype: {_CPP_TYPE.get(attn_mask._dtype.name, attn_mask._dtype.name)} and  "
                           f"query.dtype: {names[0]} instead.")


def _flash_grad(data, like):
    """A gradient of the flash node in its input's layout; under ``create_graph`` it gets
    torch's NotImplemented node (the flash backward has no derivative in torch 2.13)."""
    out = np.empty_like(like)
    out[...] = data
    from .. import grad_mode
    if grad_mode.enabled:
        t = Tensor._make(out)
        t._requires_grad = True
        return make(SDPA_FLASH_CPU_BACKWARD, out, (t,))
    return Tensor._make(out)


def _flash_scores(q, k, mask, scale, is_causal):
    check_matmul(q, np.swapaxes(k, -1, -2))
    s = np.matmul(q, np.swapaxes(k, -1, -2)) * q.dtype.type(scale)
    if mask is not None:
        s = s + mask._data
    if is_causal:
        L, S = s.shape[-2:]
        s = np.where(np.tril(np.ones((L, S), dtype=bool)), s, q.dtype.type(-np.inf))
    return s


def _flash_probs(q, k, mask, scale, is_causal, lse):
    s = _flash_scores(q, k, mask, scale, is_causal)
    with np.errstate(invalid="ignore", over="ignore"):
        p = np.exp(s - lse[..., None])
    return np.where(np.isfinite(lse)[..., None], p, np.zeros((), q.dtype)).astype(q.dtype, copy=False)


def _flash_attention(query, key, value, mask, scale, is_causal):
    """The fused CPU kernel's result: rows normalised once (``exp(s − max) · v / Σ``),
    a fully masked row 0; the output takes query's layout."""
    q, k, v = query._data, key._data, value._data
    s = _flash_scores(q, k, mask, scale, is_causal)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        mx = np.max(s, axis=-1, keepdims=True)
        dead = ~np.isfinite(mx)
        e = np.exp(s - np.where(dead, np.zeros((), q.dtype), mx))
        total = np.sum(e, axis=-1, keepdims=True, dtype=q.dtype)
        check_matmul(e, v)
        o = np.matmul(e, v) / total
        lse = (np.log(total) + mx)[..., 0]
    o = np.where(dead, np.zeros((), q.dtype), o)
    lse = np.where(dead[..., 0], q.dtype.type(-np.inf), lse)
    out = np.empty_like(q)
    out[...] = o
    return out, lse.astype(q.dtype, copy=False)


def _flash_eligible(query, key, value, attn_mask, dropout_p):
    """The checks of torch 2.13's ``use_flash_attention_cpp`` (sdp_utils_cpp.cpp)."""
    q, k, v = query._data, key._data, value._data
    if q.ndim != 4 or k.ndim != 4 or v.ndim != 4 or dropout_p > 0.0:
        return False
    if not (q.shape[:2] == k.shape[:2] == v.shape[:2]) or not (q.shape[-1] == k.shape[-1] == v.shape[-1]):
        return False
    if 0 in q.shape or 0 in k.shape or 0 in v.shape:
        return False
    if any(x.strides[-1] != x.itemsize for x in (q, k, v)):
        return False
    if q.dtype not in (np.float32, np.float64):
        return False
    if attn_mask is not None and (attn_mask.ndim not in (2, 4) or attn_mask._requires_grad):
        return False
    return True


def _flash(query, key, value, attn_mask, is_causal, scale):
    sc = float(scale) if scale is not None else 1.0 / math.sqrt(query.shape[-1])
    out, lse = _flash_attention(query, key, value, attn_mask, sc, is_causal)
    save = {"query": query, "key": key, "value": value, "output": RESULT, "logsumexp": Tensor._make(lse),
            "attn_mask": attn_mask}
    return make(SDPA_FLASH_CPU, out, (query, key, value), save=save,
                attrs={"scale": scale, "softmax_scale": sc, "is_causal": bool(is_causal), "dropout_p": 0.0})
