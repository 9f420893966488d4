"""``F.multi_head_attention_forward``, composed as torch 2.13's ``torch/nn/functional.py``
composes it, op for op, so the values and the ``grad_fn`` chain are torch's.

The in-projection is one ``linear`` when query, key and value are the same tensor (its
result unflattened, transposed and made contiguous: CloneBackward0, then SelectBackward0
per part), split weights for key is value, chunks otherwise, or the separate
``q/k/v_proj_weight``. With ``need_weights`` the scores are ``baddbmm(mask, q·√(1/E), kᵀ)``
(or ``bmm``), ``softmax``, dropout and ``bmm`` with the values, and the weights are
returned (averaged over heads by default); without it the heads go through
``F.scaled_dot_product_attention`` (the fused flash kernel on CPU).
"""

from __future__ import annotations

import math

import numpy as np

from .. import diagnostics, dtypes
from ..tensor import Tensor
from . import FUNCTIONAL, export


def _floating(t):
    return t._dtype.category == dtypes.FLOAT


def canonical_mask(mask, mask_name, other_type, other_name, target_type, check_other=True):
    """torch 2.13's ``F._canonical_mask``: a bool mask becomes 0 / -inf in ``target_type``
    (a float mask is kept); other dtypes are an AssertionError; a dtype that differs from
    the other mask's warns."""
    if mask is None:
        return None
    if mask._dtype is not dtypes.bool_ and not _floating(mask):
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask._dtype is not other_type:
        diagnostics.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. "
                         "Use same type for both instead.")
    if not _floating(mask):
        m = mask._data
        return Tensor._make(np.where(m, np.array(-np.inf, target_type.np), np.zeros((), target_type.np)), target_type)
    return mask


def none_or_dtype(t):
    if t is None:
        return None
    if isinstance(t, Tensor):
        return t._dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads):
    if query.ndim == 3:
        if key.ndim != 3 or value.ndim != 3:
            raise AssertionError("For batched (3-D) `query`, expected `key` and `value` to be 3-D"
                                 f" but found {key.ndim}-D and {value.ndim}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 2:
            raise AssertionError("For batched (3-D) `query`, expected `key_padding_mask` to be `None` or 2-D"
                                 f" but found {key_padding_mask.ndim}-D tensor instead")
        if attn_mask is not None and attn_mask.ndim not in (2, 3):
            raise AssertionError("For batched (3-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                                 f" but found {attn_mask.ndim}-D tensor instead")
        return True
    if query.ndim == 2:
        if key.ndim != 2 or value.ndim != 2:
            raise AssertionError("For unbatched (2-D) `query`, expected `key` and `value` to be 2-D"
                                 f" but found {key.ndim}-D and {value.ndim}-D tensors respectively")
        if key_padding_mask is not None and key_padding_mask.ndim != 1:
            raise AssertionError("For unbatched (2-D) `query`, expected `key_padding_mask` to be `None` or 1-D"
                                 f" but found {key_padding_mask.ndim}-D tensor instead")
        if attn_mask is not None:
            if attn_mask.ndim not in (2, 3):
                raise AssertionError("For unbatched (2-D) `query`, expected `attn_mask` to be `None`, 2-D or 3-D"
                                     f" but found {attn_mask.ndim}-D tensor instead")
            expected = (num_heads, query.shape[0], key.shape[0])
            if attn_mask.ndim == 3 and tuple(attn_mask.shape) != expected:
                raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")
        return False
    raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D query tensor")


def _in_projection_packed(q, k, v, w, b):
    linear = FUNCTIONAL["linear"]
    E = q.shape[-1]
    if k is v:
        if q is k:
            proj = linear(q, w, b).unflatten(-1, (3, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
            return proj[0], proj[1], proj[2]
        w_q, w_kv = w.split([E, E * 2])
        b_q, b_kv = (None, None) if b is None else b.split([E, E * 2])
        q_proj = linear(q, w_q, b_q)
        kv = linear(k, w_kv, b_kv).unflatten(-1, (2, E)).unsqueeze(0).transpose(0, -2).squeeze(-2).contiguous()
        return q_proj, kv[0], kv[1]
    w_q, w_k, w_v = w.chunk(3)
    b_q, b_k, b_v = (None, None, None) if b is None else b.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _in_projection(q, k, v, w_q, w_k, w_v, b_q, b_k, b_v):
    Eq, Ek, Ev = q.shape[-1], k.shape[-1], v.shape[-1]
    for what, w, shape in (("query", w_q, (Eq, Eq)), ("key", w_k, (Eq, Ek)), ("value", w_v, (Eq, Ev))):
        if tuple(w.shape) != shape:
            raise AssertionError(f"expecting {what} weights shape of {shape}, but got {w.shape}")
    for what, b in (("query", b_q), ("key", b_k), ("value", b_v)):
        if b is not None and tuple(b.shape) != (Eq,):
            raise AssertionError(f"expecting {what} bias shape of {(Eq,)}, but got {b.shape}")
    linear = FUNCTIONAL["linear"]
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


@export(functional=("multi_head_attention_forward",))
def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight, in_proj_bias,
                                 bias_k, bias_v, add_zero_attn, dropout_p, out_proj_weight, out_proj_bias,
                                 training=True, key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None,
                                 v_proj_weight=None, static_k=None, static_v=None, average_attn_weights=True,
                                 is_causal=False):
    """Multi-head attention of query ``(L, N, E)`` over key ``(S, N, Ek)`` and value
    ``(S, N, Ev)`` (2-d: unbatched), as torch 2.13: returns ``(attn_output (L, N, E),
    weights)`` with weights ``(N, L, S)`` averaged over heads, ``(N, heads, L, S)`` with
    ``average_attn_weights=False``, None without ``need_weights``. Masks are bool (True
    masks out) or float (added); ``key_padding_mask`` is ``(N, S)``, ``attn_mask``
    ``(L, S)`` or ``(N·heads, L, S)``. AssertionError / RuntimeError with torch's messages
    for bad shapes; ``static_k``/``static_v`` are refused (not supported by autotrace)."""
    if static_k is not None or static_v is not None:
        raise NotImplementedError("multi_head_attention_forward(static_k=, static_v=) is not supported by autotrace")
    F = FUNCTIONAL
    is_batched = _shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not is_batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask", none_or_dtype(attn_mask), "attn_mask",
                                      query._dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None
    else:
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query._dtype, check_other=False)
        if key_padding_mask is not None:
            is_causal = False
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        if key.shape[:2] != value.shape[:2]:
            raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's "
                                 f"{value.shape[:2]}")
    elif key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")

    if not use_separate_proj_weight:
        if in_proj_weight is None:
            raise AssertionError("use_separate_proj_weight is False but in_proj_weight is None")
        q, k, v = _in_projection_packed(query, key, value, in_proj_weight, in_proj_bias)
    else:
        for n, w in (("q", q_proj_weight), ("k", k_proj_weight), ("v", v_proj_weight)):
            if w is None:
                raise AssertionError(f"use_separate_proj_weight is True but {n}_proj_weight is None")
        b_q, b_k, b_v = (None, None, None) if in_proj_bias is None else in_proj_bias.chunk(3)
        q, k, v = _in_projection(query, key, value, q_proj_weight, k_proj_weight, v_proj_weight, b_q, b_k, b_v)

    if attn_mask is not None:
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.ndim == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                                   f"{(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")

    from .shape import cat
    if bias_k is not None and bias_v is not None:
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        if attn_mask is not None:
            attn_mask = F["pad"](attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F["pad"](key_padding_mask, (0, 1))
    elif bias_k is not None:
        raise AssertionError("bias_k is set but bias_v is None")
    elif bias_v is not None:
        raise AssertionError("bias_v is set but bias_k is None")

    q = q.view(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = k.view(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = v.view(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)

    if add_zero_attn:
        zeros = Tensor._make(np.zeros((bsz * num_heads, 1, head_dim), dtype=k._data.dtype), k._dtype)
        k = cat([k, zeros], dim=1)
        v = cat([v, Tensor._make(np.zeros((bsz * num_heads, 1, head_dim), dtype=v._data.dtype), v._dtype)], dim=1)
        if attn_mask is not None:
            attn_mask = F["pad"](attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = F["pad"](key_padding_mask, (0, 1))

    src_len = k.shape[1]
    if key_padding_mask is not None:
        if key_padding_mask.shape[0] != bsz:
            raise AssertionError(f"Expected key_padded_mask.shape[0] to be {bsz}, but got {key_padding_mask.shape[0]}")
        if key_padding_mask.shape[1] != src_len:
            raise AssertionError(f"Expected key_padded_mask.shape[1] to be {src_len}, but got "
                                 f"{key_padding_mask.shape[1]}")
        key_padding_mask = (key_padding_mask.view(bsz, 1, 1, src_len).expand(-1, num_heads, -1, -1)
                            .reshape(bsz * num_heads, 1, src_len))
        attn_mask = key_padding_mask if attn_mask is None else attn_mask + key_padding_mask

    if not training:
        dropout_p = 0.0

    if need_weights:
        E = q.shape[-1]
        q_scaled = q * math.sqrt(1.0 / float(E))
        if is_causal and attn_mask is None:
            raise AssertionError("FIXME: is_causal not implemented for need_weights")
        if attn_mask is not None:
            weights = attn_mask.baddbmm(q_scaled, k.transpose(-2, -1))
        else:
            weights = q_scaled.bmm(k.transpose(-2, -1))
        weights = F["softmax"](weights, dim=-1)
        if dropout_p > 0.0:
            weights = F["dropout"](weights, p=dropout_p)
        out = weights.bmm(v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = F["linear"](out, out_proj_weight, out_proj_bias)
        out = out.view(tgt_len, bsz, out.shape[1])
        weights = weights.view(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not is_batched:
            out = out.squeeze(1)
            weights = weights.squeeze(0)
        return out, weights

    if attn_mask is not None:
        if attn_mask.shape[0] == 1 and attn_mask.ndim == 3:
            attn_mask = attn_mask.unsqueeze(0)
        else:
            attn_mask = attn_mask.view(bsz, num_heads, -1, src_len)
    q = q.view(bsz, num_heads, tgt_len, head_dim)
    k = k.view(bsz, num_heads, src_len, head_dim)
    v = v.view(bsz, num_heads, src_len, head_dim)
    out = F["scaled_dot_product_attention"](q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = F["linear"](out, out_proj_weight, out_proj_bias)
    out = out.view(tgt_len, bsz, out.shape[1])
    if not is_batched:
        out = out.squeeze(1)
    return out, None

