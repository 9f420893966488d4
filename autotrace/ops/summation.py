"""Bit-exact emulation of PyTorch's CPU summation order (``torch.sum`` / ``torch.mean``).

numpy sums floats pairwise; torch 2.13's CPU kernel (aten/src/ATen/native/cpu/SumKernel.cpp,
``cascade_sum``) uses its own order, so the last bits differ.  The order reproduced here:

* ``cascade(x)`` (``multi_row_sum``): with ``s = 2**max(4, ceil_log2(n) // 4)`` the
  elements are summed left to right in blocks of ``s``; block sums are summed left to
  right in groups of ``s`` (level 1), those in groups of ``s`` (level 2), and all level-2
  sums go into one last accumulator.  The result is
  ``((tail + open level-1 group) + open level-2 group) + level-3 accumulator``.
* ``row(x)`` (``row_sum``): four interleaved cascades over ``x[k::4]`` (the first
  ``4 * (n // 4)`` elements); the leftover elements are added to the first one, then
  ``((p0 + p1) + p2) + p3``.
* contiguous inner reduction of ``n >= W`` elements (``vectorized_inner_sum``, ``W`` =
  SIMD lanes: 8 float32 / 4 float64, also on AVX-512 machines): lane ``l`` is
  ``row`` over ``x[l::W]`` (the first ``W * (n // W)`` elements); the result is
  ``0 + leftovers (left to right) + lane 0 + ... + lane W-1``.  Shorter rows use ``row``.
* reduction over a non-innermost dim (``vectorized_outer_sum`` / ``scalar_outer_sum``):
  each output column is a ``cascade`` of its column when it falls in a full group of
  ``4 W`` columns (``4`` columns when the inner size is below ``W``), else a ``row``.
* reduction over several (not all) dims of a contiguous tensor (:func:`_multi`): ATen's
  reduction layout (reduced dims innermost, each kind by stride, adjacent dims coalesced);
  the 2-D loop over the first two dims runs as above for every index of the others and
  each result is added, in that order, into the zero-filled output.
* above 32768 elements torch splits the work over its threads: a full reduction sums
  each thread's contiguous chunk and then the per-thread partial sums; a dim reduction
  splits the output columns (rounded to 128-byte multiples).  The thread count is
  ``AUTOTRACE_TORCH_THREADS`` or ``OMP_NUM_THREADS`` when set, else the CPUs available.

Integer and bool inputs are summed exactly by numpy.
"""

from __future__ import annotations

import os
import struct

import numpy as np

GRAIN_SIZE = 32768


def _simd_bytes() -> int:
    # torch 2.13 runs the sum kernel with 32-byte vectors even on AVX-512 machines
    # (measured: 8 float32 lanes); overridable for other builds.
    env = os.environ.get("AUTOTRACE_TORCH_SIMD_BYTES")
    return int(env) if env else 32


def _num_threads() -> int:
    for var in ("AUTOTRACE_TORCH_THREADS", "OMP_NUM_THREADS"):
        v = os.environ.get(var)
        if v and v.isdigit() and int(v) > 0:
            return int(v)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover
        return max(1, os.cpu_count() or 1)


SIMD_BYTES = _simd_bytes()
NUM_THREADS = _num_threads()


def _lanes(dtype) -> int:
    return SIMD_BYTES // np.dtype(dtype).itemsize


def _fast(x, axis):
    """True when numpy's ``add.reduce`` over ``axis`` runs as plain elementwise adds in
    index order (the innermost loop runs along a unit-stride axis that is kept), so no
    pairwise summation can happen."""
    item = x.itemsize
    if x.ndim < 2 or x.shape[-1] < 2 or x.strides[-1] != item or axis == x.ndim - 1:
        return False
    return all(x.strides[d] > item or x.shape[d] == 1 for d in range(x.ndim - 1))


def _seq(x):
    """Left-to-right sum over axis 0, starting from +0 (as torch's zeroed accumulators)."""
    if x.shape[0] > 1 and _fast(x, 0):
        return np.add.reduce(x, axis=0) + x.dtype.type(0)  # + 0 turns -0 into +0, as torch
    acc = np.zeros(x.shape[1:], x.dtype)
    for k in range(x.shape[0]):
        acc += x[k]
    return acc


def _blocks(x, s):
    """Sums of the full blocks of ``s`` along axis 0 (left to right) and of the rest."""
    nb = x.shape[0] // s
    full = x[:nb * s].reshape((nb, s) + x.shape[1:])
    if nb and _fast(full, 1):
        acc = np.add.reduce(full, axis=1) + x.dtype.type(0)
    else:
        acc = np.zeros((nb,) + x.shape[1:], x.dtype)
        for k in range(s):
            acc += full[:, k]
    return acc, _seq(x[nb * s:])


def cascade(x):
    """torch's ``multi_row_sum`` over axis 0 of ``x`` (n, ...)."""
    n = x.shape[0]
    s = 1 << max(4, ((n - 1).bit_length() if n > 1 else 0) // 4)
    l0, tail = _blocks(x, s)
    l1, acc1 = _blocks(l0, s)
    l2, acc2 = _blocks(l1, s)
    acc3 = _seq(l2)
    return ((tail + acc1) + acc2) + acc3


def row(x):
    """torch's ``row_sum`` over axis 0 of ``x`` (n, ...): four interleaved cascades."""
    n = x.shape[0]
    q = n // 4
    parts = cascade(x[:4 * q].reshape((q, 4) + x.shape[1:]))
    p0 = parts[0]
    for t in x[4 * q:]:
        p0 = p0 + t
    return ((p0 + parts[1]) + parts[2]) + parts[3]


def inner(x, w):
    """torch's ``vectorized_inner_sum`` over axis 0 of ``x`` (n, ...), n >= w."""
    n = x.shape[0]
    v = n // w
    lanes = row(x[:v * w].reshape((v, w) + x.shape[1:]))
    acc = np.zeros(x.shape[1:], x.dtype)
    for t in x[v * w:]:
        acc += t
    for lane in lanes:
        acc += lane
    return acc


def _reduce_first(x, w):
    """Reduction over axis 0 of a contiguous run (full reduction / inner dim)."""
    return inner(x, w) if x.shape[0] >= w else row(x)


def _outer(x, w, threads):
    """Reduction over axis 1 of contiguous ``x`` (O, R, I), I > 1: per column a cascade
    or a row sum, depending on where the column falls in torch's column groups."""
    o, r, i = x.shape
    starts = [0]
    if threads > 1 and x.size > GRAIN_SIZE and i > o:
        # parallel_dim_reduction splits the columns; chunk starts rounded down to 128 bytes
        nt = min(threads, i)
        chunk = -(-i // nt)
        mult = 128 // x.dtype.itemsize
        starts = sorted({(t * chunk) - (t * chunk) % mult for t in range(nt) if t * chunk < i})
    xt = np.moveaxis(x, 1, 0)  # (R, O, I), a view
    out = np.empty((o, i), x.dtype)
    bounds = starts + [i]
    for b, e in zip(bounds[:-1], bounds[1:]):
        g = 4 * w if e - b >= w else 4
        c = b + ((e - b) // g) * g
        if c > b:
            out[:, b:c] = cascade(xt[:, :, b:c])
        if e > c:
            out[:, c:e] = row(xt[:, :, c:e])
    return out


def _full(flat, w, threads):
    n = flat.shape[0]
    if threads > 1 and n > GRAIN_SIZE:
        nt = min(threads, -(-n // GRAIN_SIZE))
        chunk = -(-n // nt)
        parts = [_reduce_first(flat[b:b + chunk, None], w)[0] for b in range(0, n, chunk)]
        buf = np.zeros((threads, 1), flat.dtype)
        buf[:len(parts), 0] = parts
        return _reduce_first(buf, w)[0]
    return _reduce_first(flat[:, None], w)[0]


def _layout(a):
    """View ``a`` in torch's iteration order (axes by decreasing stride) when that makes
    it C-contiguous; returns (view, permutation)."""
    if a.flags.c_contiguous or a.ndim < 2:
        return a, tuple(range(a.ndim))
    perm = tuple(sorted(range(a.ndim), key=lambda d: -a.strides[d]))
    v = a.transpose(perm)
    if v.flags.c_contiguous:
        return v, perm
    return a, tuple(range(a.ndim))


def _small(flat):
    """``row(flat)`` for fewer elements than one SIMD vector: below 4 elements plain left
    to right from +0; from 4 on, ``p_k = x_k`` for k < 4, the rest added to ``p_0`` in
    order, then ``((p0 + p1) + p2) + p3`` (the same order as :func:`row`, without building
    the cascade's blocks). Both orders are one left-to-right chain (``x0, x4, ..., x1, x2,
    x3``), run by numpy's sequential ``add.accumulate``; starting from ``x0`` instead of
    ``+0 + x0`` changes only the sign of an all-zero result (torch's is never -0: a sum
    from +0 is -0 only when both addends are), which the final ``+ 0`` restores."""
    n = flat.shape[0]
    if n > 4:
        flat = flat[_SMALL_ORDER[n]]
    return _asarray(_accumulate(flat)[-1] + _ZEROS[flat.dtype.char])


def small_sum(a):
    """``torch_sum(a)`` of a C-contiguous float32/float64 array of fewer elements than one
    SIMD vector (at least one, at least 1-D), by :func:`_small` without ``torch_sum``'s
    checks; None for any other array."""
    w = _SMALL_LANES.get(a.dtype.char)
    if w is not None and 0 < a.size < w and a.ndim and a.flags.c_contiguous:
        if a.size < 4:
            got = _few(a)
            if got is not None:
                return got
        return _small(a.reshape(-1))
    return None


def _few(a):
    """:func:`_small` of one to three float32/float64 elements, ``((+0 + x0) + x1) + x2``
    on Python floats: float64 is Python's own arithmetic, and a float32 sum done in
    float64 and rounded to float32 is the correctly rounded float32 sum (double rounding
    is innocuous when 53 >= 2 * 24 + 2), so rounding after each add is numpy's float32
    chain. None for a nan result (its sign and payload are numpy's) and for a float32
    partial sum that rounds to infinity (left to numpy's overflow)."""
    v = a.reshape(-1).tolist()
    s = 0.0 + v[0]
    if len(v) > 1:
        s += v[1]
        if len(v) == 3:
            if a.dtype.char == "f":
                try:
                    s = _unpack32(_pack32(s))[0]
                except OverflowError:
                    return None
            s += v[2]
    if s != s:
        return None
    return _array(s, a.dtype)


_pack32, _unpack32 = struct.Struct("f").pack, struct.Struct("f").unpack
_array = np.array


_SMALL_ORDER = {n: [0] + list(range(4, n)) + [1, 2, 3] for n in range(5, 16)}
_accumulate = np.add.accumulate
_asarray = np.asarray
_ZEROS = {"f": np.float32(0), "d": np.float64(0)}
_SMALL_LANES = {"f": _lanes(np.float32), "d": _lanes(np.float64)}


def _columns(xt, w, s0, s1, starts):
    """One 2-D loop of ``cascade_sum`` with the kept dim second: ``xt`` is (size0, ...,
    size1) with the reduced dim first; returns (..., size1)."""
    size0, size1 = xt.shape[0], xt.shape[-1]
    if s0 == 1 and size0 >= w:                 # vectorized_inner_sum
        return inner(xt, w)
    if s0 < s1 and not (s1 == 1 and size1 >= w):
        return row(xt)                         # scalar_inner_sum
    out = np.empty(xt.shape[1:], xt.dtype)
    bounds = list(starts) + [size1]
    for b, e in zip(bounds[:-1], bounds[1:]):
        # vectorized_outer_sum (groups of 4 vectors) or scalar_outer_sum (groups of 4)
        g = 4 * w if (s1 == 1 and e - b >= w) else 4
        c = b + ((e - b) // g) * g
        if c > b:
            out[..., b:c] = cascade(xt[..., b:c])
        if e > c:
            out[..., c:e] = row(xt[..., c:e])
    return out


def _multi(a, axes):
    """torch's sum over several (not all) dims of a C-contiguous float array.

    As ``cascade_sum`` runs over TensorIterator's reduction layout: size-1 dims dropped,
    reduced dims first (innermost), each class by increasing stride, adjacent dims of one
    class that are adjacent in memory coalesced. The 2-D loop covers the first two of
    those dims; it is run for every index of the others, each result added in that order
    into the zero-filled output."""
    w = _lanes(a.dtype)
    item = a.itemsize
    dims = [(a.shape[d], a.strides[d] // item, d in axes, d) for d in range(a.ndim) if a.shape[d] != 1]
    order = sorted((t for t in dims if t[2]), key=lambda t: t[1]) + sorted((t for t in dims if not t[2]), key=lambda t: t[1])
    groups = []                                 # inner to outer: [size, stride, reduced]
    for size, stride, red, _ in order:
        if groups and groups[-1][2] == red and groups[-1][0] * groups[-1][1] == stride:
            groups[-1][0] *= size
        else:
            groups.append([size, stride, red])
    out_shape = [n for d, n in enumerate(a.shape) if d not in axes]
    zero = a.dtype.type(0)
    if not groups or not groups[0][2]:          # nothing to reduce: 0 + x
        return (a.reshape(out_shape) + zero).astype(a.dtype)
    if len(groups) == 1 or all(g[2] for g in groups):
        return np.asarray(_full(a.reshape(-1), w, NUM_THREADS), a.dtype).reshape(out_shape)
    # X: the groups from outer to inner (C order of the iterator)
    rev = groups[::-1]
    X = a.reshape(-1)
    strides = [g[1] * item for g in rev]
    X = np.lib.stride_tricks.as_strided(X, shape=[g[0] for g in rev], strides=strides, writeable=False)
    size0, s0, _ = groups[0]
    size1, s1, red1 = groups[1]
    starts = [0]
    numel = a.size
    if not red1 and NUM_THREADS > 1 and numel >= GRAIN_SIZE:
        # parallel_dim_reduction: the innermost kept dim, or a larger kept dim after it
        split, best = 1, size1
        for k in range(2, len(groups)):
            if not groups[k][2] and groups[k][0] > best:
                split, best = k, groups[k][0]
        if split == 1:
            nt = min(NUM_THREADS, size1)
            chunk = -(-size1 // nt)
            mult = 128 // item
            starts = sorted({(t * chunk) - (t * chunk) % mult for t in range(nt) if t * chunk < size1})
    vals = _columns(np.moveaxis(X, -1, 0), w, s0, s1, starts)   # (outer..., size1)
    nd = vals.ndim
    kept = [k for k in range(nd) if not rev[k][2]]
    red = [k for k in range(nd) if rev[k][2]]
    moved = np.transpose(vals, red + kept)
    m = int(np.prod([vals.shape[k] for k in red], dtype=np.int64))
    res = _seq(np.ascontiguousarray(moved).reshape((m,) + tuple(vals.shape[k] for k in kept)))
    return res.reshape(out_shape)


def torch_sum(array, axis=None, keepdims=False, dtype=None):
    """``array.sum(axis, keepdims=...)`` with torch's CPU float rounding (bit for bit for
    float32/float64 full, single-dim and contiguous multi-dim reductions; measured on
    AVX2, whose 8 float lanes torch also uses on AVX512 for sums)."""
    a = np.asarray(array)
    if dtype is not None and np.dtype(dtype) != a.dtype:
        a = a.astype(dtype)
    if a.dtype not in (np.float32, np.float64) or a.size == 0 or a.ndim == 0:
        return np.asarray(a.sum(axis=axis, keepdims=keepdims))
    if isinstance(axis, (tuple, list)):
        axes = tuple(sorted({d % a.ndim for d in axis}))
        if len(axes) == a.ndim:
            axis = None
        elif len(axes) == 1:
            axis = axes[0]
        elif a.flags.c_contiguous:
            res = _multi(a, axes)
            return np.asarray(np.expand_dims(res, axes) if keepdims else res)
        else:
            return np.asarray(a.sum(axis=axes, keepdims=keepdims))  # strided multi-dim: numpy's order
    w = _lanes(a.dtype)
    if a.size < w and (axis is None or a.size == a.shape[axis % a.ndim]) and a.flags.c_contiguous:
        res = _small(a.reshape(-1))
        if axis is None:
            return res.reshape((1,) * a.ndim) if keepdims else res
        return res.reshape([1 if d == axis % a.ndim else n for d, n in enumerate(a.shape)]
                           if keepdims else [n for d, n in enumerate(a.shape) if d != axis % a.ndim])
    threads = NUM_THREADS
    if axis is None:
        v, _ = _layout(a)
        flat = v.reshape(-1) if v.flags.c_contiguous else np.ascontiguousarray(v).reshape(-1)
        res = np.asarray(_full(flat, w, threads), a.dtype)
        return res.reshape((1,) * a.ndim) if keepdims else res
    ax = axis % a.ndim
    v, perm = _layout(a)
    vax = perm.index(ax)
    shape = v.shape
    o = int(np.prod(shape[:vax], dtype=np.int64))
    r = shape[vax]
    i = int(np.prod(shape[vax + 1:], dtype=np.int64))
    x = np.ascontiguousarray(v).reshape(o, r, i)
    if o * i == 1:  # one output element: a full reduction (split over threads)
        red = np.asarray(_full(x.reshape(-1), w, threads), a.dtype).reshape(1, 1)
    elif r == 1:
        red = np.zeros((o, i), a.dtype) + x[:, 0, :]
    elif i == 1:
        red = _reduce_first(x[:, :, 0].T, w)[:, None]
    else:
        red = _outer(x, w, threads)
    kept = [shape[d] for d in range(len(shape)) if d != vax]
    kept_axes = [perm[d] for d in range(len(shape)) if d != vax]
    res = red.reshape(kept)
    # back to the original axis order
    order = sorted(range(len(kept_axes)), key=lambda k: kept_axes[k])
    res = res.transpose(order)
    if keepdims:
        res = np.expand_dims(res, ax)
    return np.asarray(res)
