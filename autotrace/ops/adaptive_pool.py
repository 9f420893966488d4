"""Adaptive max pooling (``F.adaptive_max_pool1d/2d``), as torch 2.13's CPU kernel.

Output cell ``(i, j)`` of an ``(oh, ow)`` output takes the maximum of the input bin
rows ``[floor(i·H/oh), ceil((i+1)·H/oh))`` × columns ``[floor(j·W/ow), ceil((j+1)·W/ow))``
and its flat index ``row·W + col`` in the input plane (int64). Ties keep the first
maximum in row-major order; a nan wins, and of several nans the last one (the kernel's
``val > maxval || isnan(val)``). The gradient goes to those indices, summed where bins
overlap (AdaptiveMaxPool2DBackward0). The 1-d form is recorded as torch records it:
``unsqueeze(-2)``, the 2-d pool, ``squeeze(-2)``.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..resources import check_count, check_work
from ..tensor import Tensor
from . import export, make, op


def _word(d) -> str:
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool", "float16": "Half"}.get(d.name, d.name)


def _bins(size: int, out: int):
    """Start, end (exclusive) of each of ``out`` adaptive bins over ``size`` (numpy int64)."""
    i = np.arange(out, dtype=np.int64)
    return (i * size) // out, -((-(i + 1) * size) // out)


def _output_size_2d(input, output_size, name):
    if isinstance(output_size, float):
        raise TypeError("object of type 'float' has no len()")
    if isinstance(output_size, (list, tuple)):
        size = list(output_size)
        if len(size) != 2:
            raise RuntimeError(f"{name}(): internal error: output_size.size() must be 2")
    elif isinstance(output_size, int):
        size = [output_size, output_size]
    else:
        raise TypeError(f"{name}(): argument 'output_size' (position 2) must be tuple of ints, "
                        f"not {type(output_size).__name__}")
    for k, v in enumerate(size):
        if isinstance(v, int) and not -2 ** 63 <= v < 2 ** 63:
            raise ValueError("Overflow when unpacking long long")
        if v is None:
            size[k] = input.shape[-2 + k]
        elif isinstance(v, bool) or not isinstance(v, int):
            if k == 0:
                raise TypeError(f"{name}(): argument 'output_size' (position 2) must be tuple of ints, "
                                f"but found element of type {type(v).__name__} at pos 0")
            # torch's argument parser words a bad later element differently (and counts from 1)
            raise TypeError(f"{name}(): argument 'output_size' failed to unpack the object at pos {k + 1} "
                            f"with error \"type must be tuple of ints,but got {type(v).__name__}\"")
    return size


@op("adaptive_max_pool2d", "AdaptiveMaxPool2DBackward0", ("self",),
    vjp={"self": "grad routed to each bin's argmax (indices), summed where bins share it"},
    local={"self": "1 at each bin's max, 0 elsewhere"})
def ADAPTIVE_MAX_POOL2D(ctx, g):
    from .indexing import embed
    return (embed(g, ctx.self_shape, ctx.key, accumulate=True),)


def _adaptive_max_pool2d(input, output_size, name="adaptive_max_pool2d"):
    """The pooled tensor and its int64 indices, for a (C, H, W) or (N, C, H, W) input."""
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(input.shape)}")
    oh, ow = _output_size_2d(input, output_size, name)
    shape = list(input.shape)
    for d in range(1, input.ndim):
        if shape[d] == 0:
            raise RuntimeError("adaptive_max_pool2d(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {shape} with dimension {d} being empty")
    if oh < 0 or ow < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {oh if oh < 0 else ow}: "
                           f"{shape[:-2] + [oh, ow]}")
    if input._dtype.category != dtypes.FLOAT:
        raise NotImplementedError(f'"adaptive_max_pool2d" not implemented for \'{_word(input._dtype)}\'')
    x4 = input._data if input.ndim == 4 else input._data[None]
    n, c, h, w = x4.shape
    hs, he = _bins(h, oh)
    ws, we = _bins(w, ow)
    kh = int((he - hs).max()) if oh else 1
    kw = int((we - ws).max()) if ow else 1
    check_count(n * c * oh * ow, 8)
    check_count(n * c * oh * ow * kh * kw, x4.dtype.itemsize + 1)
    check_work(4.0 * n * c * oh * ow * kh * kw, "adaptive_max_pool2d")
    rows = hs[:, None] + np.arange(kh)[None, :]                                     # (oh, kh)
    cols = ws[:, None] + np.arange(kw)[None, :]                                     # (ow, kw)
    valid = (rows < he[:, None])[:, None, :, None] & (cols < we[:, None])[None, :, None, :]  # (oh, ow, kh, kw)
    R = np.minimum(rows, h - 1)[:, None, :, None]
    C = np.minimum(cols, w - 1)[None, :, None, :]
    vals = x4[:, :, R, C]                                                           # (n, c, oh, ow, kh, kw)
    vals = np.where(valid, vals, -np.inf).astype(x4.dtype, copy=False).reshape(n, c, oh, ow, kh * kw)
    nan = np.isnan(vals)
    last_nan = kh * kw - 1 - nan[..., ::-1].argmax(-1) if kh * kw else nan.sum(-1)
    pick = np.where(nan.any(-1), last_nan, vals.argmax(-1) if kh * kw else 0)      # (n, c, oh, ow)
    out = np.take_along_axis(vals, pick[..., None], -1)[..., 0].astype(x4.dtype)
    ri = hs[:, None] + pick // kw
    ci = ws[None, :] + pick % kw
    indices = (ri * w + ci).astype(np.int64)
    nn_, cc_ = np.indices((n, c), sparse=True)
    if input.ndim == 4:
        key = (nn_[..., None, None], cc_[..., None, None], ri, ci)
    else:
        out, indices = out[0], indices[0]
        key = (cc_[0][..., None, None], ri[0], ci[0])
    res = make(ADAPTIVE_MAX_POOL2D, out, (input,),
               attrs={"self_shape": input._data.shape, "key": key, "result1": Tensor._make(indices)})
    return res, Tensor._make(indices)


@export(functional=("adaptive_max_pool2d",))
def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Adaptive max pooling of a (C, H, W) or (N, C, H, W) float tensor to ``output_size``
    (an int, or a pair whose ``None`` keeps that input side); ``return_indices=True``
    also returns the int64 flat ``H·W`` index of each maximum."""
    out, idx = _adaptive_max_pool2d(input, output_size)
    return (out, idx) if return_indices else out


def _adaptive_max_pool1d(input, output_size):
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 "
                           "'self' (while checking arguments for adaptive_max_pool1d)")
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != 1:
            raise RuntimeError(f"adaptive_max_pool1d() argument 'output_size' should contain one int "
                               f"(got {len(output_size)})")
        output_size = output_size[0]
    if isinstance(output_size, int) and not -2 ** 63 <= output_size < 2 ** 63:
        raise ValueError("Overflow when unpacking long long")
    if isinstance(output_size, bool) or not isinstance(output_size, int):
        raise TypeError("adaptive_max_pool1d(): argument 'output_size' (position 2) must be tuple of ints, "
                        f"not {type(output_size).__name__}")
    out, idx = _adaptive_max_pool2d(input.unsqueeze(-2), (1, output_size))
    return out.squeeze(-2), Tensor._make(idx._data.squeeze(-2))


@export(torch=("adaptive_max_pool1d",))
def adaptive_max_pool1d_both(input, output_size):
    """``torch.adaptive_max_pool1d``: always the pair (values, indices)."""
    return _adaptive_max_pool1d(input, output_size)


@export(functional=("adaptive_max_pool1d",))
def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Adaptive max pooling of an (N, C, L) or (C, L) float tensor over its last side
    (SqueezeBackward1 ← AdaptiveMaxPool2DBackward0 ← UnsqueezeBackward0)."""
    out, idx = _adaptive_max_pool1d(input, output_size)
    return (out, idx) if return_indices else out


@export(functional=("adaptive_max_pool2d_with_indices",))
def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """:func:`adaptive_max_pool2d` returning (values, indices) whatever ``return_indices`` says."""
    return _adaptive_max_pool2d(input, output_size)


@export(functional=("adaptive_max_pool1d_with_indices",))
def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """:func:`adaptive_max_pool1d` returning (values, indices) whatever ``return_indices`` says."""
    return _adaptive_max_pool1d(input, output_size)
