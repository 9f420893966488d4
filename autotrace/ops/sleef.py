"""SLEEF 3's single-precision vector functions, as ATen's ``Vectorized<float>`` calls them.

PyTorch 2.13's CPU build computes ``exp``, ``log``, ``log1p`` and ``pow`` of float32
vectors with SLEEF's 1-ulp functions (``Sleef_expf8_u10``, ``Sleef_logf8_u10``,
``Sleef_log1pf8_u10``, ``Sleef_powf8_u10`` on AVX2; the ``f16`` forms on AVX512), built
with fused multiply-adds. The functions here follow SLEEF's source
(``src/libm/sleefsimdsp.c``: ``xexpf``, ``xlogf_u1``, ``xlog1pf``, ``xpowf`` with
``logkf``/``expkf``, and the double-float helpers of ``df.h`` in their FMA forms) step by
step in float32 numpy arithmetic with :func:`.kernels.fma32` for every fused step, so each
element has the bits the SIMD code gives it. Where SLEEF has an AVX512-only branch
(``vgetexp``/``vgetmant`` instead of integer exponent extraction) the branch of the
running capability (:data:`.cpu.CAPABILITY`) is taken.

Every function takes a float32 array (or scalar) and returns a float32 array of its shape.
Each is elementwise, so large arrays are computed :data:`.fma.CHUNK` elements at a time:
the same bits, with every temporary small enough to stay in cache.
"""

from __future__ import annotations

import numpy as np

from . import cpu, fma
from .fma import fma32

F32 = np.float32
_INF32 = F32(np.inf)
_NAN_ALL_ONES = np.array(0xFFFFFFFF, np.uint32).view(F32)   # SLEEF ORs NaN masks in: all bits set
_FLT_MIN = F32(1.17549435e-38)
_TWO64 = F32(2.0 ** 64)
_R075 = F32(1.0 / 0.75)
_LN2_HI, _LN2_LO = F32(0.69314718246459960938), F32(-1.904654323148236017e-09)
_R_LN2 = F32(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2U = F32(0.693145751953125)
_L2L = F32(1.428606765330187045e-06)
_EXP_POLY = tuple(F32(c) for c in (0.000198527617612853646278381, 0.00139304355252534151077271,
                                  0.00833336077630519866943359, 0.0416664853692054748535156,
                                  0.166666671633720397949219, 0.5))


def _f(x):
    return np.asarray(x, F32)


def _bits(x):
    return _f(x).view(np.int32)


# -- exponent helpers ------------------------------------------------------------------------


def _pow2i(q):
    return ((q + np.int32(0x7F)) << np.int32(23)).astype(np.int32).view(F32)


def _ilogb2k(d):
    """vilogb2k_vi2_vf: the biased exponent field minus 127 (no subnormal handling)."""
    return ((_bits(d) >> np.int32(23)) & np.int32(0xFF)) - np.int32(0x7F)


def _ldexp3(d, q):
    """vldexp3_vf_vf_vi2: ``q`` added to the exponent field (no range handling)."""
    return (_bits(d) + (q.astype(np.int32) << np.int32(23))).astype(np.int32).view(F32)


def _ldexp(x, q):
    """vldexp_vf_vf_vi2: ``x · 2^q`` in five multiplications, saturating as SLEEF does."""
    q = q.astype(np.int32)
    m = q >> np.int32(31)
    m = (((m + q) >> np.int32(6)) - m) << np.int32(4)
    q = q - (m << np.int32(2))
    m = m + np.int32(0x7F)
    m = np.where(m > 0, m, 0).astype(np.int32)
    m = np.where(m > 0xFF, 0xFF, m).astype(np.int32)
    u = (m << np.int32(23)).astype(np.int32).view(F32)
    x = (((x * u) * u) * u) * u
    return (x * _pow2i(q)).astype(F32)


def _getexp(x):
    """AVX512 ``vgetexp``: floor(log2|x|) as float32 (-inf at 0, inf at inf)."""
    m, e = np.frexp(np.abs(x).astype(np.float64))
    out = (e - 1).astype(F32)
    out = np.where(x == 0, -_INF32, out)
    out = np.where(np.isinf(x), _INF32, out)
    return np.where(np.isnan(x), x, out).astype(F32)


def _getmant(x):
    """AVX512 ``vgetmant`` (interval [0.75, 1.5)): |x| scaled by a power of two into it."""
    m, _ = np.frexp(np.abs(x).astype(np.float64))      # [0.5, 1)
    m = np.where(m < 0.75, m * 2, m)
    return m.astype(F32)


def _log_reduce(d):
    """The argument reduction shared by logf_u1 and logkf: ``(m, e)`` with ``d = m·2^e``,
    ``m`` in about [0.75, 1.5), ``e`` as float32."""
    if cpu.CAPABILITY == cpu.AVX512:
        e = _getexp((d * _R075).astype(F32))
        e = np.where(np.isposinf(e), F32(128), e).astype(F32)
        return _getmant(d), e
    o = d < _FLT_MIN
    d = np.where(o, (d * _TWO64).astype(F32), d).astype(F32)
    e = _ilogb2k((d * _R075).astype(F32))
    m = _ldexp3(d, -e)
    e = np.where(o, e - np.int32(64), e)
    return m, e.astype(F32)


# -- double-float arithmetic (df.h, FMA forms) -----------------------------------------------


def _add_ff(x, y):                    # dfadd_vf2_vf_vf
    s = (x + y).astype(F32)
    return s, ((x - s) + y).astype(F32)


def _add2_ff(x, y):                   # dfadd2_vf2_vf_vf
    s = (x + y).astype(F32)
    v = (s - x).astype(F32)
    return s, ((x - (s - v)) + (y - v)).astype(F32)


def _add_dd(x, y):                    # dfadd_vf2_vf2_vf2
    s = (x[0] + y[0]).astype(F32)
    return s, ((((x[0] - s) + y[0]) + x[1]) + y[1]).astype(F32)


def _add2_dd(x, y):                   # dfadd2_vf2_vf2_vf2
    s = (x[0] + y[0]).astype(F32)
    v = (s - x[0]).astype(F32)
    t = ((x[0] - (s - v)) + (y[0] - v)).astype(F32)
    return s, (t + (x[1] + y[1])).astype(F32)


def _add_df(x, y):                    # dfadd_vf2_vf2_vf
    s = (x[0] + y).astype(F32)
    return s, (((x[0] - s) + y) + x[1]).astype(F32)


def _add2_df(x, y):                   # dfadd2_vf2_vf2_vf
    s = (x[0] + y).astype(F32)
    v = (s - x[0]).astype(F32)
    t = ((x[0] - (s - v)) + (y - v)).astype(F32)
    return s, (t + x[1]).astype(F32)


def _add_fd(x, y):                    # dfadd_vf2_vf_vf2
    s = (x + y[0]).astype(F32)
    return s, (((x - s) + y[0]) + y[1]).astype(F32)


def _normalize(t):                    # dfnormalize_vf2_vf2
    s = (t[0] + t[1]).astype(F32)
    return s, ((t[0] - s) + t[1]).astype(F32)


def _mul_df(x, y):                    # dfmul_vf2_vf2_vf
    s = (x[0] * y).astype(F32)
    return s, fma32(x[1], y, fma32(x[0], y, -s))


def _mul_dd(x, y):                    # dfmul_vf2_vf2_vf2
    s = (x[0] * y[0]).astype(F32)
    return s, fma32(x[0], y[1], fma32(x[1], y[0], fma32(x[0], y[0], -s)))


def _squ(x):                          # dfsqu_vf2_vf2
    s = (x[0] * x[0]).astype(F32)
    return s, fma32((x[0] + x[0]).astype(F32), x[1], fma32(x[0], x[0], -s))


def _div(n, d):                       # dfdiv_vf2_vf2_vf2
    t = (F32(1) / d[0]).astype(F32)
    s = (n[0] * t).astype(F32)
    u = fma32(t, n[0], -s)
    v = fma32(-d[1], t, fma32(-d[0], t, F32(1)))
    return s, fma32(s, v, fma32(n[1], t, u))


# -- the functions ----------------------------------------------------------------------------


@fma.blocked
def expf(d) -> np.ndarray:
    """``xexpf`` (``Sleef_expf8_u10`` / ``Sleef_expf16_u10``)."""
    d = _f(d)
    with np.errstate(all="ignore"):
        q = np.rint(d * _R_LN2)
        q = np.where(np.isfinite(q), q, 0).clip(-(2 ** 31), 2 ** 31 - 1).astype(np.int32)
        qf = q.astype(F32)
        s = fma32(qf, -_L2U, d)
        s = fma32(qf, -_L2L, s)
        u = _EXP_POLY[0]
        for c in _EXP_POLY[1:]:
            u = fma32(u, s, c)
        u = F32(1) + fma32(s * s, u, s)
        h = q >> np.int32(1)
        u = (u * _pow2i(h)) * _pow2i(q - h)
        u = np.where(d < F32(-104), F32(0), u)
        u = np.where(F32(100) < d, _INF32, u)
        u = np.where(np.isnan(d), d, u)
    return _f(u)


@fma.blocked
def logf(d) -> np.ndarray:
    """``xlogf_u1`` (``Sleef_logf8_u10`` / ``Sleef_logf16_u10``)."""
    d = _f(d)
    with np.errstate(all="ignore"):
        m, e = _log_reduce(d)
        s = _mul_df((_LN2_HI, _LN2_LO), e)
        x = _div(_add2_ff(F32(-1), m), _add2_ff(F32(1), m))
        x2 = (x[0] * x[0]).astype(F32)
        t = fma32(F32(0.3027294874), x2, F32(0.3996108174))
        t = fma32(t, x2, F32(0.6666694880))
        s = _add_dd(s, ((x[0] * F32(2)).astype(F32), (x[1] * F32(2)).astype(F32)))
        s = _add_df(s, (((x2 * x[0]).astype(F32)) * t).astype(F32))
        r = (s[0] + s[1]).astype(F32)
        r = np.where(np.isposinf(d), _INF32, r)
        r = np.where((d < 0) | np.isnan(d), F32(np.nan), r)
        r = np.where(d == 0, -_INF32, r)
    return _f(r)


@fma.blocked
def log1pf(d) -> np.ndarray:
    """``xlog1pf`` (``Sleef_log1pf8_u10`` / ``Sleef_log1pf16_u10``)."""
    d = _f(d)
    with np.errstate(all="ignore"):
        dp1 = (d + F32(1)).astype(F32)
        if cpu.CAPABILITY == cpu.AVX512:
            e = _getexp((dp1 * _R075).astype(F32))
            e = np.where(np.isposinf(e), F32(128), e).astype(F32)
            ei = np.rint(np.where(np.isfinite(e), e, 0)).astype(np.int32)
            t = _ldexp3(F32(1), -ei)
        else:
            o = dp1 < _FLT_MIN
            dp1 = np.where(o, (dp1 * _TWO64).astype(F32), dp1).astype(F32)
            ei = _ilogb2k((dp1 * _R075).astype(F32))
            t = _ldexp3(F32(1), -ei)
            e = np.where(o, ei - np.int32(64), ei).astype(F32)
        m = fma32(d, t, (t - F32(1)).astype(F32))
        s = _mul_df((_LN2_HI, _LN2_LO), e)
        x = _div((m, np.zeros_like(m)), _add_ff(F32(2), m))
        x2 = (x[0] * x[0]).astype(F32)
        tt = fma32(F32(0.3027294874), x2, F32(0.3996108174))
        tt = fma32(tt, x2, F32(0.6666694880))
        s = _add_dd(s, ((x[0] * F32(2)).astype(F32), (x[1] * F32(2)).astype(F32)))
        s = _add_df(s, ((x2 * x[0]).astype(F32) * tt).astype(F32))
        r = (s[0] + s[1]).astype(F32)
        r = np.where(d > F32(1e38), _INF32, r)
        r = np.where(F32(-1) > d, F32(np.nan), r)
        r = np.where(d == F32(-1), -_INF32, r)
        r = np.where((d == 0) & np.signbit(d), F32(-0.0), r)
        r = np.where(np.isnan(d), d, r)
    return _f(r)


def _logkf(d):
    m, e = _log_reduce(d)
    x = _div(_add2_ff(F32(-1), m), _add2_ff(F32(1), m))
    x2 = _squ(x)
    t = fma32(F32(0.240320354700088500976562), x2[0], F32(0.285112679004669189453125))
    t = fma32(t, x2[0], F32(0.400007992982864379882812))
    c = (F32(0.66666662693023681640625), F32(3.69183861259614332084311e-09))
    s = _mul_df((_LN2_HI, _LN2_LO), e)
    s = _add_dd(s, ((x[0] * F32(2)).astype(F32), (x[1] * F32(2)).astype(F32)))
    return _add_dd(s, _mul_dd(_mul_dd(x2, x), _add2_dd(_mul_df(x2, t), c)))


def _expkf(d):
    u = ((d[0] + d[1]).astype(F32) * _R_LN2).astype(F32)
    q = np.rint(np.where(np.isfinite(u) & (np.abs(u) < 2.0 ** 31), u, -(2.0 ** 31))).astype(np.int32)
    qf = q.astype(F32)
    s = _add2_df(d, (qf * -_L2U).astype(F32))
    s = _add2_df(s, (qf * -_L2L).astype(F32))
    s = _normalize(s)
    u = F32(0.00136324646882712841033936)
    for c in (0.00836596917361021041870117, 0.0416710823774337768554688,
              0.166665524244308471679688, 0.499999850988388061523438):
        u = fma32(u, s[0], F32(c))
    t = _add_dd(s, _mul_df(_squ(s), u))
    t = _add_fd(F32(1), t)
    u = _ldexp((t[0] + t[1]).astype(F32), q)
    return np.where(d[0] < F32(-104), F32(0), u).astype(F32)


@fma.blocked
def powf(x, y) -> np.ndarray:
    """``xpowf`` (``Sleef_powf8_u10`` / ``Sleef_powf16_u10``), broadcasting ``x`` and ``y``."""
    x, y = np.broadcast_arrays(_f(x), _f(y))
    with np.errstate(all="ignore"):
        ty = np.trunc(y)
        yisint = (ty == y) | (np.abs(y) > F32(1 << 24))
        ti = np.where(np.abs(ty) < 2.0 ** 31, ty, -(2.0 ** 31)).astype(np.int64).astype(np.int32)
        yisodd = ((ti & 1) == 1) & yisint & (np.abs(y) < F32(1 << 24))
        r = _expkf(_mul_df(_logkf(np.abs(x)), y))
        r = np.where(np.isnan(r), _INF32, r).astype(F32)
        sign = np.where(x > 0, F32(1), np.where(yisint, np.where(yisodd, F32(-1), F32(1)), F32(np.nan)))
        r = (r * sign).astype(F32)
        efx = _mulsign((np.abs(x) - F32(1)).astype(F32), y)
        r = np.where(np.isinf(y), np.where(efx < 0, F32(0), np.where(efx == 0, F32(1), _INF32)), r)
        big = np.where(np.signbit(y) ^ (x == 0), F32(0), _INF32)
        r = np.where(np.isinf(x) | (x == 0), _mulsign(big, np.where(yisodd, x, F32(1))), r)
        r = np.where(np.isnan(x) | np.isnan(y), _NAN_ALL_ONES, r)
        r = np.where((y == 0) | (x == 1), F32(1), r)
    return _f(r)


def _mulsign(x, y):
    """vmulsign_vf_vf_vf: ``x`` with its sign bit flipped where ``y``'s is set."""
    xb = _bits(x).astype(np.uint32)
    yb = _bits(y).astype(np.uint32)
    return (xb ^ (yb & np.uint32(0x80000000))).astype(np.uint32).view(F32)
