"""``F.embedding_bag`` (EmbeddingBagBackward0): sums, means or maxima of bags of rows of
``weight``, as torch 2.13's CPU kernel (aten/src/ATen/native/EmbeddingBag.cpp) defines
them: bag ``i`` holds ``input[offsets[i]:offsets[i+1]]`` (the last runs to the end, or
``include_last_offset`` makes the last offset an end), rows equal to ``padding_idx`` are
skipped (and not counted by ``mean``), an empty bag is zeros. Sums accumulate row by row
in the weight's dtype (float32 per-sample weights with one rounding, as fbgemm's fused
multiply-add); ``mean`` divides by the count. Not yet bit-exact with torch's fbgemm
kernels for ``mean`` and ``per_sample_weights`` (last-bit differences)."""

from __future__ import annotations

import numpy as np

from ..resources import check_shape
from ..tensor import Tensor
from . import export, make, op


@op("embedding_bag", "EmbeddingBagBackward0", ("weight", "per_sample_weights"),
    vjp={"weight": "each looked-up row gets its bag's grad (× its per-sample weight, / count for mean; "
                   "for max only the row that gave each maximum)",
         "per_sample_weights": "grad of its bag · weight[index]"},
    local={"weight": "1, per_sample_weight, 1/count, or 1 at the maximum", "per_sample_weights": "weight[index]"})
def EMBEDDING_BAG(ctx, g):
    from .indexing import embed
    w_shape = ctx.weight_shape
    gw = gp = None
    if ctx.mode == 2:
        if ctx.needs(0):
            gw = embed(g[Tensor._make(ctx.keep)], w_shape, (ctx.argmax, ctx.cols), accumulate=True)
        return gw, None
    pos, bags = ctx.positions, ctx.bag_index
    rows = g[Tensor._make(bags)]
    if ctx.needs(0):
        scaled = rows
        if ctx.psw is not None:
            scaled = rows * ctx.psw[Tensor._make(pos)].unsqueeze(1)
        elif ctx.mode == 1:
            scaled = rows * Tensor._make(ctx.inv_count[bags][:, None])
        gw = embed(scaled, w_shape, (ctx.indices[pos],), accumulate=True)
    if ctx.needs(1):
        sel = (rows * ctx.weight[Tensor._make(ctx.indices[pos])]).sum(1)
        gp = embed(sel, (ctx.indices.shape[0],), (pos,))
    return gw, gp


def _check_index(name, t):
    from .. import dtypes
    if not isinstance(t, Tensor) or t._dtype not in (dtypes.int64,) and t._dtype.name != "int32":
        got = type(t).__name__ if not isinstance(t, Tensor) else t._dtype.name
        raise RuntimeError(f"embedding_bag: expected {name} to be an integer (Long or Int) tensor, got {got}")


@export(functional=("embedding_bag",))
def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Bags of rows of ``weight`` (num_embeddings, dim) reduced by ``mode`` ('sum',
    'mean', 'max') → (bags, dim). ``input`` is 1-D with 1-D ``offsets``, or 2-D (each row
    a bag, no offsets). ``per_sample_weights`` (input's shape) scale rows, 'sum' only.
    torch 2.13's ValueErrors/RuntimeErrors for bad shapes, offsets, indices and
    padding_idx; ``max_norm``/``scale_grad_by_freq``/``sparse`` are not supported."""
    for name, t in (("input", input), ("weight", weight)):
        if not isinstance(t, Tensor):
            raise TypeError(f"embedding_bag(): argument '{name}' must be Tensor, not {type(t).__name__}")
    psw = per_sample_weights
    if psw is not None and tuple(input.shape) != tuple(psw.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({psw.shape}) is not None, "
                         f"then it must have the same shape as the input ({input.shape})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if input.ndim == 2:
        if offsets is not None:
            from ..interpreter import typeobj
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type "
                             f"{typeobj.type_repr(type(offsets)) or str(type(offsets))}")
        n, length = input.shape
        offs = np.arange(0, n * length, max(length, 1), dtype=np.int64)[:n] if length else np.zeros(n, np.int64)
        include_last_offset = False
        idx = input._data.reshape(-1)
        if psw is not None:
            psw = psw.reshape(-1)
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        offs = offsets._data.astype(np.int64)
        idx = input._data
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    modes = {"sum": 0, "mean": 1, "max": 2}
    if mode not in modes:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("F.embedding_bag with max_norm, scale_grad_by_freq or sparse is not supported yet")
    if psw is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                  "on GitHub.")
    _check_index("indices", input)
    num, dim = weight.shape
    idx = idx.astype(np.int64)
    if padding_idx is None:
        padding_idx = -1
    else:
        if not -num <= padding_idx < num:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{num} through {num - 1}, "
                               f"but got {padding_idx}")
        padding_idx = padding_idx % num
    bad = np.nonzero((idx < 0) | (idx >= num))[0]
    if bad.size:
        raise RuntimeError(f"Index {bad[0]} of input takes value {idx[bad[0]]} which is not in the valid range "
                           f"[0, {num})")
    if offs.size and offs[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {offs[0]}\n[ torch.LongTensor{{}} ]")
    if offs.size and offs[-1] > idx.size:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {idx.size} but got offsets[-1] of "
                           f"{offs[-1]}")
    n_bags = max(offs.size - 1, 0) if include_last_offset else offs.size
    ends = np.append(offs[1:], idx.size)[:n_bags] if not include_last_offset else offs[1:]
    check_shape((n_bags, dim), weight._data.itemsize)
    w = weight._data
    dt = w.dtype
    out = np.zeros((n_bags, dim), dtype=dt)
    bag_of = np.full(idx.size, -1, dtype=np.int64)
    for b in range(n_bags):
        bag_of[offs[b]:ends[b]] = b
    positions = np.nonzero((bag_of >= 0) & (idx != padding_idx))[0]
    counts = np.bincount(bag_of[positions], minlength=n_bags)
    attrs = {"weight_shape": w.shape, "mode": modes[mode], "indices": idx, "positions": positions,
             "bag_index": bag_of[positions]}
    if mode == "max":
        argmax = np.zeros((n_bags, dim), dtype=np.int64)
        seen = np.zeros(n_bags, dtype=bool)
        for p in positions:
            b, row = bag_of[p], w[idx[p]]
            if not seen[b]:
                out[b], argmax[b], seen[b] = row, idx[p], True
            else:
                take = row > out[b]
                out[b] = np.where(take, row, out[b])
                argmax[b] = np.where(take, idx[p], argmax[b])
        keep = seen[:, None] & np.ones(dim, bool)
        attrs.update(argmax=argmax[keep], cols=np.nonzero(keep)[1], keep=keep)
        return make(EMBEDDING_BAG, out, (weight, None), attrs=attrs)
    ps = psw._data.astype(dt) if psw is not None else None
    for p in positions:
        row = w[idx[p]]
        b = bag_of[p]
        if ps is None:
            out[b] += row
        elif dt == np.float32:  # fbgemm's fused multiply-add, one rounding
            out[b] = (row.astype(np.float64) * np.float64(ps[p]) + out[b]).astype(dt)
        else:
            out[b] += row * ps[p]
    if mode == "mean":
        inv = np.zeros(n_bags, dtype=dt)
        nz = counts > 0
        inv[nz] = (dt.type(1) / counts[nz].astype(dt)).astype(dt)
        out[nz] /= counts[nz].astype(dt)[:, None]
        attrs["inv_count"] = inv
    return make(EMBEDDING_BAG, out, (weight, psw), save={"weight": weight, "psw": psw}, attrs=attrs)
