"""A float32 fused multiply-add in numpy.

numpy has no float32 fma; :func:`fma32` computes ``a·b + c`` in float64 (the product of
two float32 is exact there) and corrects the rare results that the second rounding, to
float32, would round the wrong way (a float64 sum exactly halfway between two float32
values, with a nonzero remainder).
"""

from __future__ import annotations

import functools
import math

import numpy as np

F32, F64 = np.float32, np.float64
_INF32 = F32(np.inf)


def fma32(a, b, c) -> np.ndarray:
    """``a·b + c`` rounded once to float32 (broadcasting float32 arrays or scalars): a
    float32 array of the broadcast shape. Arrays of more than :data:`CHUNK` elements are
    taken :data:`CHUNK` elements at a time (the float64 temporaries stay in cache)."""
    if _ndim(a) == 0 and _ndim(b) == 0 and _ndim(c) == 0:
        return _fma32_scalar(a, b, c)
    return _fma32_arrays(a, b, c)


#: elements per block of :func:`blocked` functions (elementwise, so the block size does
#: not change a bit): small enough that a block's float64 temporaries stay in L2
CHUNK = 1 << 14


def blocked(fn):
    """``fn`` (elementwise, of float32 arrays that broadcast together) over flat blocks of
    :data:`CHUNK` elements when the result is larger than one block and every array is
    one element or C-contiguous of the result's shape (others take one pass, so that the
    result's memory order is numpy's, which later sums and views depend on).

    The result owns its data, as a numpy result does: numpy's temporary elision then
    computes ``x * result`` as ``result *= x``, and where both operands are NaN the
    operand order decides which NaN survives (a view would change it)."""
    @functools.wraps(fn)
    def run(*args):
        args = [np.asarray(a, F32) for a in args]
        shape = np.broadcast_shapes(*(a.shape for a in args))
        n = math.prod(shape)
        if n <= CHUNK or not all(a.size == 1 or (a.shape == shape and a.flags.c_contiguous) for a in args):
            return fn(*args)
        flat = [a.reshape(()) if a.size == 1 else a.reshape(-1) for a in args]
        out = np.empty(shape, F32)
        flat_out = out.reshape(-1)
        for i in range(0, n, CHUNK):
            j = min(n, i + CHUNK)
            flat_out[i:j] = fn(*(a if a.ndim == 0 else a[i:j] for a in flat))
        return out
    return run


@blocked
def _fma32_arrays(a, b, c) -> np.ndarray:
    """:func:`fma32` of float32 arrays, in one pass of each step."""
    shape = np.broadcast_shapes(a.shape, b.shape, c.shape)
    with np.errstate(all="ignore"):
        s = np.multiply(a, b, dtype=F64)     # the product is exact
        if s.shape == shape:
            np.add(s, c, out=s)                 # one float64 rounding
        else:
            s = np.add(s, c, dtype=F64)
        r = s.astype(F32)
        # rounding s to float32 can be wrong only where s lies exactly on a float32 midpoint
        # (the 29 bits float32 drops are 1000...0) or in float32's subnormal range (|r| at
        # most the smallest normal, where the midpoints sit higher): only those elements
        # take the exact path
        low = np.bitwise_and(s.view(np.uint64), _LOW29)
        unsure = np.equal(low, _HALF29)
        unsure |= np.less_equal(np.abs(r), _TINY32)
        if unsure.any():
            idx = np.flatnonzero(unsure)
            r = np.ascontiguousarray(r)        # (reshape(-1) of a C-ordered array is a view)
            pick = [np.broadcast_to(v, shape).reshape(-1)[idx].astype(F64) for v in (a, b, c)]
            r.reshape(-1)[idx] = _fma32_exact(*pick)
    return r


_LOW29 = np.uint64((1 << 29) - 1)
_HALF29 = np.uint64(1 << 28)
_TINY32 = F32(2.0 ** -126)


def _fma32_exact(a64, b64, c64) -> np.ndarray:
    """``a·b + c`` rounded once to float32 for float64 arrays holding float32 values: the
    float64 sum corrected by its TwoSum error where it fell on a float32 midpoint."""
    p = a64 * b64
    with np.errstate(all="ignore"):
        s = p + c64
        bb = s - p
        e = (p - (s - bb)) + (c64 - bb)          # p + c = s + e exactly (TwoSum)
        r = np.asarray(s.astype(F32))
        r64 = r.astype(F64)
        suspect = (s != r64) & (e != 0) & np.isfinite(s)
        if suspect.any():
            other = np.nextafter(r, np.where(s > r64, _INF32, -_INF32))
            mid = (r64 + other.astype(F64)) * 0.5
            fix = suspect & (s == mid)
            if fix.any():
                r = np.where(fix, np.where(e > 0, np.maximum(r, other), np.minimum(r, other)), r)
    return r.astype(F32, copy=False)


def _ndim(x) -> int:
    return x.ndim if isinstance(x, (np.ndarray, np.generic)) else np.ndim(x)


def _fma32_scalar(a, b, c) -> np.ndarray:
    """:func:`fma32` of three single numbers, by :func:`fma32_float`: a 0-dim float32
    array."""
    a, b, c = float(F32(a)), float(F32(b)), float(F32(c))
    r = fma32_float(a, b, c)
    if r != r:
        return np.asarray(F32(a * b + c), F32)  # nan: its sign and payload as numpy rounds it
    return np.asarray(r, F32)


def fma32_float(a: float, b: float, c: float) -> float:
    """``a·b + c`` rounded once to float32, for Python floats holding float32 values: the
    steps of :func:`_fma32_exact` in Python floats (which are float64); the result is a
    Python float holding a float32 value (nan when the sum is nan)."""
    p = a * b
    s = p + c
    r64 = float(F32(s))
    if s != r64 and math.isfinite(s):
        bb = s - p
        e = (p - (s - bb)) + (c - bb)
        if e != 0:
            r = F32(r64)
            other = np.nextafter(r, _INF32 if s > r64 else -_INF32)
            if s == (r64 + float(other)) * 0.5:
                r64 = float(max(r, other) if e > 0 else min(r, other))
    return r64
