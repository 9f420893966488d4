"""A float32 fused multiply-add in numpy.

numpy has no float32 fma; :func:`fma32` computes ``a·b + c`` in float64 (the product of
two float32 is exact there) and corrects the rare results that the second rounding, to
float32, would round the wrong way (a float64 sum exactly halfway between two float32
values, with a nonzero remainder).
"""

from __future__ import annotations

import math

import numpy as np

F32, F64 = np.float32, np.float64
_INF32 = F32(np.inf)


def fma32(a, b, c) -> np.ndarray:
    """``a·b + c`` rounded once to float32 (broadcasting float32 arrays or scalars)."""
    if _ndim(a) == 0 and _ndim(b) == 0 and _ndim(c) == 0:
        return _fma32_scalar(a, b, c)
    a64 = np.asarray(a, F32).astype(F64)
    b64 = np.asarray(b, F32).astype(F64)
    c64 = np.asarray(c, F32).astype(F64)
    with np.errstate(all="ignore"):
        s = a64 * b64 + c64     # the product is exact; one float64 rounding
        r = np.asarray(s.astype(F32))
        # rounding s to float32 can be wrong only where s lies exactly on a float32 midpoint
        # (the 29 bits float32 drops are 1000...0) or in float32's subnormal range: only
        # those elements take the exact path
        low = s.view(np.uint64) & _LOW29
        unsure = (low == _HALF29)
        unsure |= np.abs(s) < _TINY32
        if unsure.any():
            idx = np.flatnonzero(unsure)
            shape = s.shape
            pick = [np.broadcast_to(v, shape).reshape(-1)[idx] for v in (a64, b64, c64)]
            r = np.array(r, F32, order="C")        # (reshape(-1) of a C-ordered copy is a view)
            r.reshape(-1)[idx] = _fma32_exact(*pick)
    return r.astype(F32, copy=False)


_LOW29 = np.uint64((1 << 29) - 1)
_HALF29 = np.uint64(1 << 28)
_TINY32 = 2.0 ** -126


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
    """:func:`fma32` of three single numbers, the same steps in Python floats (which are
    float64): a 0-dim float32 array."""
    a, b, c = float(F32(a)), float(F32(b)), float(F32(c))
    p = a * b
    s = p + c
    r = F32(s)
    r64 = float(r)
    if s != r64 and math.isfinite(s):
        bb = s - p
        e = (p - (s - bb)) + (c - bb)
        if e != 0:
            other = np.nextafter(r, _INF32 if s > r64 else -_INF32)
            if s == (r64 + float(other)) * 0.5:
                r = max(r, other) if e > 0 else min(r, other)
    return np.asarray(r, F32)
