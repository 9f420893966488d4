"""``F.scaled_dot_product_attention`` as torch 2.13 computes it on CPU when gradients are
involved: ATen's math composite (``_scaled_dot_product_attention_math``), so values and
the ``grad_fn`` chain are torch's: both query and key are scaled by ``sqrt(scale)``
(MulBackward1), ``matmul``, the mask added in place (AddBackward0), ``_safe_softmax``
(SafeSoftmaxBackward0: a row that is all ``-inf`` gives zeros, not NaN), dropout, and
``matmul`` with the values.
"""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from ..tensor import Tensor, wrap_dim
from . import RESULT, export, make, op


@op("safe_softmax", "SafeSoftmaxBackward0", ("self",),
    vjp={"self": "result * (grad - (grad * result).sum(dim, keepdim=True))"},
    local={"self": "diag(s) − s·sᵀ along dim (0 for fully masked rows)"})
def SAFE_SOFTMAX(ctx, g):
    r = ctx.result
    return (r * (g - (g * r).sum(ctx.dim, keepdim=True)),)


def safe_softmax(input: Tensor, dim: int) -> Tensor:
    """``softmax`` along ``dim`` with rows that are entirely ``-inf`` set to 0."""
    from .nn import softmax
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
    ``is_causal`` masks the upper triangle; ``dropout_p`` applies dropout to the weights."""
    from .arith import mul_scalar
    from .nn import dropout
    for name, t in (("query", query), ("key", key), ("value", value)):
        if not isinstance(t, Tensor):
            raise TypeError(f"scaled_dot_product_attention(): argument '{name}' must be Tensor, "
                            f"not {type(t).__name__}")
    if enable_gqa:
        raise NotImplementedError("scaled_dot_product_attention(enable_gqa=True) is not supported by autotrace")
    if attn_mask is not None and attn_mask._dtype is dtypes.bool_:
        attn_mask = _bool_mask_to_float(attn_mask, query._dtype)
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
