"""``F.pad`` with ``mode='reflect'`` and ``mode='replicate'`` (ReflectionPad1D/2D/3D and
ReplicationPad1D/2D/3DBackward0), as torch 2.13's CPU kernels index them.

``pad`` has 2, 4 or 6 entries, padding the last 1, 2 or 3 dims of an input with one or
two more dims (batch, channels); anything else raises torch's NotImplementedError. The
source index of output position ``j`` along a dim of size ``n`` padded by ``(l, r)`` is
ATen's: reflect ``2l − j`` before the input, ``2(n + l − 1) − j`` after it (so ``l`` and
``r`` must be below ``n``); replicate clamps to the edge; negative amounts crop. The
gradient adds each output's grad back to its source, in output order (np.add.at, as the
kernel's loop does).

``mode='circular'`` (:func:`pad_circular`) is not a kernel in torch 2.13 but slices and
copies, recorded here the same way (CopySlices over SliceBackward0).
"""

from __future__ import annotations

import numpy as np

from .. import grad_mode
from ..resources import check_shape
from ..tensor import Tensor
from . import make, op

_SUPPORTED = ("Supported combinations for non-constant padding:\n"
              "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
              "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
              "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")


def _grad(g, self_shape, key):
    from .indexing import embed
    return embed(g, self_shape, key, accumulate=True)


def _backward(ctx, g):
    if grad_mode.enabled:
        return (_pad_backward(ctx, g),)
    ctx.self  # torch unpacks the saved input (its in-place check) though the kernel needs only its shape
    return (_grad(g, ctx.self_shape, ctx.key),)


def _pad_backward(ctx, g):
    """With create_graph: ``reflection_pad{k}d_backward(grad, self, padding)`` as one
    node (ReflectionPad{k}DBackwardBackward0 ...) over the grad and ``self``."""
    prev = grad_mode.enabled
    grad_mode.enabled = False
    try:
        v = _grad(g, ctx.self_shape, ctx.key)
    finally:
        grad_mode.enabled = prev
    return make(BACKWARD_OPS[ctx.mode, len(ctx.pad) // 2], v._data, (g, ctx.self),
                attrs={"pad": ctx.pad, "padding": ctx.padding, "mode": ctx.mode, "self_shape": ctx.self_shape})


def _double_backward(ctx, gg):
    return pad_mode(gg, ctx.pad, ctx.mode), Tensor._make(np.zeros(ctx.self_shape, gg._data.dtype))


OPS = {}
BACKWARD_OPS = {}
for _mode, _name in (("reflect", "Reflection"), ("replicate", "Replication")):
    for _k in (1, 2, 3):
        OPS[_mode, _k] = op(f"{_name.lower()}_pad{_k}d", f"{_name}Pad{_k}DBackward0", ("self",),
                            vjp={"self": "zeros(self.sizes()) with each output's grad added at its source"},
                            local={"self": "1 from each output element to the input element it copies"})(_backward)
        BACKWARD_OPS[_mode, _k] = op(
            f"{_name.lower()}_pad{_k}d_backward", f"{_name}Pad{_k}DBackwardBackward0", ("grad_output", "self"),
            vjp={"grad_output": f"{_name.lower()}_pad{_k}d(grad, padding)", "self": "zeros_like(self)"})(
            _double_backward)


def _source(n, left, right, reflect):
    j = np.arange(n + left + right)
    if reflect:
        ip = np.where(j < left, 2 * left - j, np.where(j < n + left, j, 2 * (n + left - 1) - j))
    else:
        ip = np.clip(j, left, n + left - 1)
    return ip - max(left, 0) + max(-left, 0)


def pad_mode(input: Tensor, pad, mode: str) -> Tensor:
    k = len(pad) // 2
    nd = input.ndim
    if k not in (1, 2, 3) or nd not in (k + 1, k + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {nd}D input tensor.\n{_SUPPORTED}")
    shape = tuple(input.shape)
    if any(s == 0 for s in shape[1:]):
        raise RuntimeError(f"Expected {k + 1}D or {k + 2}D (batch mode) tensor with possibly 0 batch size and other "
                           f"non-zero dimensions for input, but got: {list(shape)}")
    reflect = mode == "reflect"
    key = [np.arange(s) for s in shape]
    for i in range(k):
        d = nd - 1 - i
        left, right = int(pad[2 * i]), int(pad[2 * i + 1])
        if reflect and (left >= shape[d] or right >= shape[d]):
            raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding input "
                               f"dimension, but got: padding ({left}, {right}) at dimension {d} of input {list(shape)}")
        key[d] = _source(shape[d], left, right, reflect)
    check_shape(tuple(len(a) for a in key), input._data.dtype.itemsize)
    ix = np.ix_(*key)
    return make(OPS[mode, k], np.ascontiguousarray(input._data[ix]), (input,), save={"self": input},
                attrs={"key": ix, "self_shape": input._data.shape, "pad": tuple(pad), "mode": mode,
                       "padding": _shown(pad)})


def _shown(pad):
    """``_saved_padding`` as torch 2.13 shows it: a negative amount read as unsigned 64-bit."""
    return tuple(int(p) % (1 << 64) for p in pad)


def _slice(t: Tensor, dim: int, start: int, end: int) -> Tensor:
    """ATen's ``slice(dim, start, end)``: negative bounds wrap once, then clamp; always a
    SliceBackward0 view, even of the whole dim."""
    from .shape import narrow
    n = t.shape[dim]
    start = start + n if start < 0 else start
    end = end + n if end < 0 else end
    start = min(max(start, 0), n)
    end = min(max(end, start), n)
    return narrow(t, dim, start, end - start)


def pad_circular(input: Tensor, pad) -> Tensor:
    """``F.pad(x, pad, mode='circular')`` as torch 2.13's ``_pad_circular`` builds it: an
    empty output, the input's slice copied into its middle, then each dim's left and right
    bands copied from the opposite end of the output, dim by dim from the last (so the
    grad_fn is a chain of CopySlices over SliceBackward0 views). An amount above the dim's
    size is torch's "wrapping around more than once" RuntimeError; negative amounts crop.
    torch leaves output elements no copy reaches (a crop on one side with a band wider
    than what is left) uninitialised; here they are 0."""
    pad = [int(p) for p in pad]
    k = len(pad) // 2
    nd = input.ndim
    if k not in (1, 2, 3) or nd not in (k + 1, k + 2):
        raise NotImplementedError(f"Padding size {len(pad)} is not supported for {nd}D input tensor.\n{_SUPPORTED}")
    in_shape = tuple(input.shape)
    out_shape = list(in_shape)
    lead = nd - k
    for i in range(k):
        pl, pr = pad[2 * (k - i - 1)], pad[2 * (k - i - 1) + 1]
        size = in_shape[lead + i]
        out_shape[lead + i] = size + pl + pr
        if not (pl <= size and pr <= size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        if out_shape[lead + i] < 0:
            raise RuntimeError("Negative padding value is resulting in an empty dimension")
    check_shape(tuple(out_shape), input._data.dtype.itemsize)
    out = Tensor._make(np.zeros(out_shape, dtype=input._data.dtype), dtype=input._dtype)
    out_slice, in_slice = out, input
    for i in range(k):
        d = nd - i - 1
        pl, pr = pad[2 * i], pad[2 * i + 1]
        out_slice = _slice(out_slice, d, max(pl, 0), out_shape[d] - max(pr, 0))
        in_slice = _slice(in_slice, d, max(-pl, 0), in_shape[d] - max(-pr, 0))
    out_slice.copy_(in_slice)
    for i in range(k):
        d = nd - i - 1
        pl, pr = pad[2 * i], pad[2 * i + 1]
        if pl > 0:
            _slice(out, d, 0, pl).copy_(_slice(out, d, out_shape[d] - pl - max(pr, 0), out_shape[d] - max(pr, 0)))
        if pr > 0:
            _slice(out, d, out_shape[d] - pr, out_shape[d]).copy_(_slice(out, d, max(pl, 0), max(pl, 0) + pr))
    return out
