"""``nn.MultiheadAttention`` as torch 2.13's ``torch/nn/modules/activation.py`` defines it.

Parameters are registered and drawn in torch's order, so a seeded script gets torch's
numbers: ``in_proj_weight`` (or ``q/k/v_proj_weight`` when ``kdim``/``vdim`` differ from
``embed_dim``) and ``in_proj_bias`` are made empty, ``out_proj`` (a
NonDynamicallyQuantizableLinear) draws its kaiming-uniform weight and bias, then
``_reset_parameters`` draws ``xavier_uniform_`` for the projection weights, zeroes both
biases and draws ``xavier_normal_`` for ``bias_k``/``bias_v`` (``add_bias_kv``).

``forward`` is torch's slow path (``F.multi_head_attention_forward``), the one torch takes
whenever gradients are involved or the module is training. Where torch takes its
inference fast path (``eval()`` with no gradient, self-attention, ``batch_first``, an even
number of heads, bool or no masks) the result is laid out as its fused kernel's
(contiguous); the kernel's own rounding is not replicated (the last bits can differ).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..resources import check_shape
from ..ops.mha import canonical_mask, multi_head_attention_forward, none_or_dtype
from ..tensor import Tensor
from . import init
from .nn import Linear, Module, make_parameter


class NonDynamicallyQuantizableLinear(Linear):
    """``nn.Linear`` under torch's other name (MultiheadAttention's ``out_proj``)."""


def _empty(shape, dtype):
    check_shape(shape, dtype.itemsize)
    return make_parameter(Tensor._make(np.zeros(shape, dtype=dtype.np), dtype))


class MultiheadAttention(Module):
    """``nn.MultiheadAttention(embed_dim, num_heads, dropout=0.0, bias=True,
    add_bias_kv=False, add_zero_attn=False, kdim=None, vdim=None, batch_first=False)``.

    ``forward(query, key, value, key_padding_mask=None, need_weights=True,
    attn_mask=None, average_attn_weights=True, is_causal=False)`` returns
    ``(attn_output, attn_weights)``: query ``(L, N, E)`` (``(N, L, E)`` with
    ``batch_first``; ``(L, E)`` unbatched), key/value ``(S, N, kdim/vdim)``; output like
    query; weights ``(N, L, S)`` averaged over heads, ``(N, heads, L, S)`` otherwise, None
    with ``need_weights=False``. ValueError for non-positive sizes and AssertionError when
    ``embed_dim`` is not divisible by ``num_heads``, with torch's messages."""

    _script_attrs = Module._script_attrs | {
        "embed_dim", "kdim", "vdim", "num_heads", "dropout", "batch_first", "head_dim", "in_proj_weight",
        "in_proj_bias", "q_proj_weight", "k_proj_weight", "v_proj_weight", "out_proj", "bias_k", "bias_v",
        "add_zero_attn", "merge_masks"}
    _script_setattrs = Module._script_setattrs | {"dropout", "batch_first"}

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        super().__init__()
        dtype = dtype or dtypes.default_float
        set_ = object.__setattr__
        set_(self, "embed_dim", embed_dim)
        set_(self, "kdim", kdim if kdim is not None else embed_dim)
        set_(self, "vdim", vdim if vdim is not None else embed_dim)
        set_(self, "_qkv_same_embed_dim", self.kdim == embed_dim and self.vdim == embed_dim)
        set_(self, "num_heads", num_heads)
        set_(self, "dropout", dropout)
        set_(self, "batch_first", batch_first)
        set_(self, "head_dim", embed_dim // num_heads)
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = _empty((embed_dim, embed_dim), dtype)
            self.k_proj_weight = _empty((embed_dim, self.kdim), dtype)
            self.v_proj_weight = _empty((embed_dim, self.vdim), dtype)
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = _empty((3 * embed_dim, embed_dim), dtype)
            for n in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                self.register_parameter(n, None)
        if bias:
            self.in_proj_bias = _empty((3 * embed_dim,), dtype)
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, dtype=dtype)
        if add_bias_kv:
            self.bias_k = _empty((1, 1, embed_dim), dtype)
            self.bias_v = _empty((1, 1, embed_dim), dtype)
        else:
            set_(self, "bias_k", None)
            set_(self, "bias_v", None)
        set_(self, "add_zero_attn", add_zero_attn)
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        is_batched = query.ndim == 3
        fast = self._fast_path(query, key, value, attn_mask, key_padding_mask)
        key_padding_mask = canonical_mask(key_padding_mask, "key_padding_mask", none_or_dtype(attn_mask),
                                          "attn_mask", query._dtype)
        attn_mask = canonical_mask(attn_mask, "attn_mask", None, "", query._dtype, check_other=False)
        if self.batch_first and is_batched:
            if key is value:
                if query is key:
                    query = key = value = query.transpose(1, 0)
                else:
                    query, key = query.transpose(1, 0), key.transpose(1, 0)
                    value = key
            else:
                query, key, value = query.transpose(1, 0), key.transpose(1, 0), value.transpose(1, 0)
        separate = not self._qkv_same_embed_dim
        out, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias,
            self.bias_k, self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=separate,
            q_proj_weight=self.q_proj_weight if separate else None,
            k_proj_weight=self.k_proj_weight if separate else None,
            v_proj_weight=self.v_proj_weight if separate else None,
            average_attn_weights=average_attn_weights, is_causal=is_causal and not fast)
        if fast:
            return Tensor._make(np.ascontiguousarray(out._data.swapaxes(0, 1)), out._dtype), weights
        if self.batch_first and is_batched:
            return out.transpose(1, 0), weights
        return out, weights

    def _fast_path(self, query, key, value, attn_mask, key_padding_mask):
        """Whether torch 2.13 runs ``_native_multi_head_attention`` (inference: no
        gradient anywhere): its result is a fresh contiguous tensor, and the
        ``is_causal`` hint is ignored there."""
        from .. import grad_mode
        if any(m is not None and m._dtype.category == dtypes.FLOAT for m in (attn_mask, key_padding_mask)):
            return False
        if query.ndim != 3 or query is not key or key is not value or self.training or self.num_heads % 2:
            return False
        w, b = self.in_proj_weight, self.in_proj_bias
        if w is None or b is None or query._dtype is not w._dtype or query._dtype is not b._dtype:
            return False
        if not self.batch_first or self.bias_k is not None or self.bias_v is not None or self.add_zero_attn:
            return False
        args = (query, w, b, self.out_proj.weight, self.out_proj.bias)
        return not (grad_mode.enabled and any(t is not None and t._requires_grad for t in args))

    def merge_masks(self, attn_mask, key_padding_mask, query):
        """torch's ``merge_masks``: ``(merged mask, mask type)`` — type 1 for a key
        padding mask alone, 2 once there is an attention mask (both expanded to
        ``(N, heads, L, S)`` and added), ``(None, None)`` for neither."""
        mask_type = merged = None
        if key_padding_mask is not None:
            mask_type, merged = 1, key_padding_mask
        if attn_mask is not None:
            batch_size, seq_len, _ = query.shape
            mask_type = 2
            if attn_mask.ndim == 3:
                expanded = attn_mask.view(batch_size, -1, seq_len, seq_len)
            else:
                expanded = attn_mask.view(1, 1, seq_len, seq_len).expand(batch_size, self.num_heads, -1, -1)
            merged = expanded
            if key_padding_mask is not None:
                merged = expanded + key_padding_mask.view(batch_size, 1, 1, seq_len).expand(-1, self.num_heads, -1, -1)
        return merged, mask_type


MEMBERS = {"MultiheadAttention": MultiheadAttention}


def _expose_out_proj_class():
    """``type(mha.out_proj)`` is reachable although ``torch.nn`` does not export it."""
    from . import _expose_class
    _expose_class(NonDynamicallyQuantizableLinear)


_expose_out_proj_class()
