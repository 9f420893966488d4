"""PyTorch 2.13's CPU float32 arithmetic, bit for bit, in numpy.

numpy's float32 kernels round differently from PyTorch's in the last bit often enough that
a training loop printed with ``loss.item()`` parts after a few steps. The functions here
compute what PyTorch 2.13's CPU build computes, measured op by op against it on an AVX512
machine (``benchmarks/bits.py`` prints the table):

* fused multiply-adds where ATen's kernels use them: ``add``/``sub`` with ``alpha``
  (``fma(alpha, other, self)``), ``addcmul`` (``fma(value·t1, t2, self)``), ``lerp``
  (``fma(w, end-start, start)`` for ``w < 0.5``, else ``fma(-(1-w), end-start, end)``),
  ``tanh``'s backward (``grad · fma(-y, y, 1)``), ``linspace``;
* SLEEF's ``expf_u10`` (the AVX512 ``Sleef_expf16_u10``) where ATen's vectorized code
  calls ``Vectorized<float>::exp``: ``sigmoid`` (whole blocks of 32 elements; the rest
  through the C library's ``expf``) and ``softmax`` over the last dimension (16-lane max
  and sum with ATen's shuffle tree, then ``x · (1/sum)``) and ``log_softmax``
  (``(x - max) - log(sum)``; the log here is the C library's, where ATen's vectorized
  kernel may use SLEEF's ``logf_u10`` for blocks of rows: 99.9% identical);
* the special forms of ``pow``: ``x**2 = x·x``, ``x**3 = (x·x)·x``, ``x**0.5 = sqrt``,
  ``x**-0.5 = 1/sqrt``, ``x**-1 = 1/x``, ``x**-2 = 1/(x·x)``;
* Intel MKL's vector math (high-accuracy mode) for ``exp``, ``log``, ``sin``, ``cos``,
  ``tanh``, ``sqrt`` and MKL's ``sgemm`` for matrix products, when the ``mkl`` runtime
  PyTorch 2.13 links (2024.2) is installed (``pip install -e '.[exact]'``; see
  :mod:`.mkl`). Without it these are computed in float64 and rounded, which agrees with
  MKL on 95–99.99% of elements (the last bit of the rest), and matrix products use numpy.

A float32 fused multiply-add is not in numpy: :func:`fma32` computes ``a·b + c`` in float64
(the product of two float32 is exact there) and corrects the rare results that the second
rounding, to float32, would round the wrong way (a float64 sum exactly halfway between two
float32 values, with a nonzero remainder).

Every function takes and returns numpy arrays; float64 and other dtypes fall through to
numpy's own result (PyTorch's float64 kernels are not replicated here).
"""

from __future__ import annotations

import math

import numpy as np

from . import mkl

F32, F64 = np.float32, np.float64
_INF32 = F32(np.inf)


def fma32(a, b, c) -> np.ndarray:
    """``a·b + c`` rounded once to float32 (broadcasting float32 arrays or scalars)."""
    a64 = np.asarray(a, F32).astype(F64)
    b64 = np.asarray(b, F32).astype(F64)
    c64 = np.asarray(c, F32).astype(F64)
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


def _is32(*arrays) -> bool:
    return all(np.asarray(x).dtype == F32 for x in arrays)


# -- fused forms ------------------------------------------------------------------------------


def add_alpha(a, b, alpha):
    """torch.add(a, b, alpha=alpha) for alpha != 1: ``fma(alpha, b, a)`` in float32."""
    if not _is32(a, b):
        return a + b * alpha
    return fma32(F32(alpha), b, a)


def addcmul(s, t1, t2, value):
    """torch.addcmul: ``fma(value·t1, t2, self)`` in float32."""
    if not _is32(s, t1, t2):
        return s + value * t1 * t2
    return fma32(t1 * F32(value), t2, s)


def addcdiv(s, t1, t2, value):
    """torch.addcdiv: ``self + (value·t1)/t2`` in float32 (no fused step)."""
    if not _is32(s, t1, t2):
        return s + value * t1 / t2
    with np.errstate(all="ignore"):
        return (s + (t1 * F32(value)) / t2).astype(F32)


def lerp(start, end, weight):
    """torch.lerp with a number or tensor weight: ``start + w·(end - start)`` for |w| < 0.5,
    ``end - (1 - w)·(end - start)`` otherwise, each as one fused multiply-add."""
    if not _is32(start, end) or not (np.isscalar(weight) or np.asarray(weight).dtype == F32):
        return start + weight * (end - start)
    w = np.asarray(weight, F32)
    d = (end - start).astype(F32)
    lo = fma32(w, d, start)
    hi = fma32(-(F32(1) - w), d, end)
    return np.where(np.abs(w) < F32(0.5), lo, hi).astype(F32)


def tanh_backward(grad, y):
    """TanhBackward0: ``grad · fma(-y, y, 1)``."""
    if not _is32(grad, y):
        return grad * (1 - y * y)
    return (grad * fma32(-y, y, F32(1))).astype(F32)


def sigmoid_backward(grad, y):
    """SigmoidBackward0: ``(grad · (1 - y)) · y``."""
    with np.errstate(all="ignore"):
        return (grad * (1 - y)) * y


def linspace(start, end, steps: int) -> np.ndarray:
    """torch.linspace in float32: ``step = (end - start)/(steps - 1)``; the first half
    ``fma(step, i, start)``, the second ``fma(-step, steps-1-i, end)``."""
    start, end = F32(start), F32(end)
    if steps == 1:
        return np.array([start], F32)
    step = F32((end - start) / F32(steps - 1))
    half = steps // 2
    i = np.arange(steps)
    lo = fma32(step, i[:half].astype(F32), start)
    hi = fma32(-step, (steps - 1 - i[half:]).astype(F32), end)
    return np.concatenate([lo, hi]).astype(F32)


# -- pow ---------------------------------------------------------------------------------------


def pow_scalar(x, exponent):
    """``x ** exponent`` for a number exponent, with ATen's special forms for float32;
    other exponents in float64, rounded."""
    if x.dtype != F32:
        return np.power(x, x.dtype.type(exponent))
    with np.errstate(all="ignore"):
        if exponent == 2:
            return x * x
        if exponent == 3:
            return (x * x) * x
        if exponent == 0.5:
            return sqrt(x)                       # torch.sqrt's (MKL)
        if exponent == -0.5:
            return F32(1) / np.sqrt(x)           # rsqrt: 1 / IEEE sqrt (_mm512_sqrt_ps)
        if exponent == -1:
            return F32(1) / x
        if exponent == -2:
            return F32(1) / (x * x)
        if exponent == 1:
            return x.copy()
        if exponent == 0:
            return np.ones_like(x)
        return np.power(x.astype(F64), float(exponent)).astype(F32)


# -- SLEEF expf_u10 ------------------------------------------------------------------------------

_R_LN2 = F32(1.442695040888963407359924681001892137426645954152985934135449406931)
_L2U = F32(0.693145751953125)
_L2L = F32(1.428606765330187045e-06)
_EXP_POLY = tuple(F32(c) for c in (0.000198527617612853646278381, 0.00139304355252534151077271,
                                  0.00833336077630519866943359, 0.0416664853692054748535156,
                                  0.166666671633720397949219, 0.5))


def _pow2i(q):
    return ((q + np.int32(0x7F)) << np.int32(23)).astype(np.int32).view(F32)


def sleef_expf(d) -> np.ndarray:
    """SLEEF 3's ``xexpf`` (``Sleef_expf16_u10`` on AVX512: fused multiply-adds, round to
    nearest even), elementwise over a float32 array."""
    d = np.asarray(d, F32)
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
    return np.asarray(u, F32)


def _getexp(x):
    """AVX512 ``vgetexp``: floor(log2|x|) as float32 (-inf at 0, inf at inf)."""
    with np.errstate(all="ignore"):
        m, e = np.frexp(np.abs(x).astype(F64))
        out = (e - 1).astype(F32)
        out = np.where(x == 0, -_INF32, out)
        out = np.where(np.isinf(x), _INF32, out)
        return np.where(np.isnan(x), x, out).astype(F32)


def _df_add_ff(x, y):                 # dfadd_vf2_vf_vf
    s = (x + y).astype(F32)
    return s, ((x - s) + y).astype(F32)


def _df_add_dd(xx, xy, yx, yy):       # dfadd_vf2_vf2_vf2
    s = (xx + yx).astype(F32)
    return s, ((((xx - s) + yx) + xy) + yy).astype(F32)


def _df_add_df(xx, xy, y):            # dfadd_vf2_vf2_vf
    s = (xx + y).astype(F32)
    return s, (((xx - s) + y) + xy).astype(F32)


def _df_mul_df(xx, xy, y):            # dfmul_vf2_vf2_vf, with FMA
    s = (xx * y).astype(F32)
    return s, fma32(xy, y, fma32(xx, y, -s))


def _df_div(nx, ny, dx, dy):          # dfdiv_vf2_vf2_vf2, with FMA
    t = (F32(1) / dx).astype(F32)
    s = (nx * t).astype(F32)
    u = fma32(t, nx, -s)
    v = fma32(-dy, t, fma32(-dx, t, F32(1)))
    return s, fma32(s, v, fma32(ny, t, u))


def sleef_log1pf(d) -> np.ndarray:
    """SLEEF 3's ``xlog1pf`` (``Sleef_log1pf16_u10``, AVX512 with FMA) over a float32 array."""
    d = np.asarray(d, F32)
    with np.errstate(all="ignore"):
        dp1 = (d + F32(1)).astype(F32)
        e = _getexp((dp1 * F32(1.0 / 0.75)).astype(F32))
        e = np.where(np.isposinf(e), F32(128), e)
        ei = np.rint(np.where(np.isfinite(e), e, 0)).astype(np.int32)
        t = (np.int32(0x3F800000) - (ei << np.int32(23))).astype(np.int32).view(F32)
        m = fma32(d, t, (t - F32(1)).astype(F32))
        sx, sy = _df_mul_df(F32(0.69314718246459960938), F32(-1.904654323148236017e-09), e)
        bx, by = _df_add_ff(F32(2), m)
        xx, xy = _df_div(m, np.zeros_like(m), bx, by)
        x2 = (xx * xx).astype(F32)
        tt = fma32(F32(0.3027294874), x2, F32(0.3996108174))
        tt = fma32(tt, x2, F32(0.6666694880))
        sx, sy = _df_add_dd(sx, sy, (xx * F32(2)).astype(F32), (xy * F32(2)).astype(F32))
        sx, sy = _df_add_df(sx, sy, ((x2 * xx).astype(F32) * tt).astype(F32))
        r = (sx + sy).astype(F32)
        r = np.where(d > F32(1e38), _INF32, r)
        r = np.where(F32(-1) > d, F32(np.nan), r)
        r = np.where(d == F32(-1), -_INF32, r)
        r = np.where((d == 0) & np.signbit(d), F32(-0.0), r)
        r = np.where(np.isnan(d), d, r)
    return np.asarray(r, F32)


_LIBM = {}


def _libm(name):
    """The C library's float function ``name`` (``expf``, ``log1pf``) through ctypes, or
    None where there is no libm to load."""
    if name not in _LIBM:
        fn = None
        try:
            import ctypes
            import ctypes.util
            lib = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float]
        except (OSError, AttributeError):
            fn = None
        _LIBM[name] = fn
    return _LIBM[name]


def _scalar_tail(name, npfn, x):
    """ATen's scalar loop over the few elements after the last whole vector block: the C
    library's float function, element by element (float64 rounded without a libm)."""
    x = np.asarray(x, F32)
    fn = _libm(name)
    if fn is None or x.size > 64:
        with np.errstate(all="ignore"):
            return npfn(x.astype(F64)).astype(F32)
    return np.array([fn(float(v)) for v in x.reshape(-1)], F32).reshape(x.shape)


def log_sigmoid(x) -> np.ndarray:
    """ATen's log_sigmoid forward: ``min(x, 0) - log1p(exp(-|x|))``, in float32 through
    SLEEF's expf_u10 and log1pf_u10 for every element (its loop loads the tail as a
    partial vector)."""
    if x.dtype != F32:
        with np.errstate(all="ignore"):
            return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))
    with np.errstate(all="ignore"):
        return (np.minimum(x, F32(0)) - sleef_log1pf(sleef_expf(-np.abs(x)))).astype(F32)


def bce_with_logits(x, t, weight=None, pos_weight=None):
    """The elementwise loss of torch.binary_cross_entropy_with_logits, in ATen's order:
    ``ls = log_sigmoid(x)`` (times ``(pos_weight - 1)·t + 1``), ``(1 - t)·x - ls``, times
    ``weight``."""
    with np.errstate(all="ignore"):
        ls = log_sigmoid(x)
        if pos_weight is not None:
            ls = ls * ((pos_weight - 1) * t + 1)
        loss = (1 - t) * x - ls
        if weight is not None:
            loss = loss * weight
    return loss.astype(x.dtype, copy=False)


def _libm_expf(x):
    """The C library's ``expf``, for ATen's scalar tails."""
    return _scalar_tail("expf", np.exp, x)


def sigmoid(x) -> np.ndarray:
    """torch.sigmoid: ``1/(1 + exp(-x))``; in float32 the elements of whole 32-element
    blocks (of the flattened tensor) take SLEEF's exp, the rest the C library's."""
    if x.dtype == F64:
        # 16-element blocks take SLEEF's double exp (not replicated: numpy's exp), the
        # rest the C library's exp
        flat = np.ascontiguousarray(x).reshape(-1)
        nv = flat.size - flat.size % 16
        e = np.empty(flat.size, F64)
        with np.errstate(all="ignore"):
            e[:nv] = np.exp(-flat[:nv])
            e[nv:] = [math.exp(-v) if -v < 709.78 else math.inf for v in flat[nv:].tolist()]
            return (1.0 / (1.0 + e)).reshape(x.shape)
    if x.dtype != F32:
        with np.errstate(all="ignore"):
            return x.dtype.type(1) / (x.dtype.type(1) + np.exp(-x))
    flat = np.ascontiguousarray(x).reshape(-1)
    n = flat.size
    nv = n - n % 32
    e = np.empty(n, F32)
    if nv:
        e[:nv] = sleef_expf(-flat[:nv])
    if nv < n:
        e[nv:] = _libm_expf(-flat[nv:])
    with np.errstate(all="ignore"):
        return (F32(1) / (F32(1) + e)).reshape(x.shape)


# -- the last dimension, ATen's vec::reduce_all (16 float lanes) --------------------------------


def reduce_rows(x2: np.ndarray, op) -> np.ndarray:
    """ATen's ``vec::reduce_all`` over each row of a 2-D float32 array: 16 lane
    accumulators, the tail merged into the first lanes, then the shuffle tree
    (lanes i and i^8, i^4, i^2, i^1); rows shorter than 16 reduce left to right."""
    n = x2.shape[1]
    if n < 16:
        acc = x2[:, 0].copy()
        for i in range(1, n):
            acc = op(acc, x2[:, i])
        return acc.astype(F32)
    acc = x2[:, :16].copy()
    full = n - n % 16
    for d in range(16, full, 16):
        acc = op(acc, x2[:, d:d + 16])
    if full < n:
        t = n - full
        acc[:, :t] = op(acc[:, :t], x2[:, full:])
    lanes = np.arange(16)
    for step in (8, 4, 2, 1):
        acc = op(acc, acc[:, lanes ^ step])
    return acc[:, 0].astype(F32)


def _rows_last(x, dim):
    moved = np.moveaxis(x, dim, -1)
    return moved, np.ascontiguousarray(moved).reshape(-1, moved.shape[-1])


def softmax(x, dim: int) -> np.ndarray | None:
    """torch.softmax over the last dimension (ATen's vectorized last-dimension kernel);
    None for other dimensions and dtypes (the caller's own formula applies)."""
    if x.dtype != F32 or x.size == 0 or x.ndim == 0 or dim % x.ndim != x.ndim - 1:
        return None
    moved, rows = _rows_last(x, dim)
    with np.errstate(all="ignore"):
        mx = reduce_rows(rows, np.maximum)
        e = sleef_expf(rows - mx[:, None])
        inv = (F32(1) / reduce_rows(e, np.add)).astype(F32)
        out = (e * inv[:, None]).astype(F32)
    return np.moveaxis(out.reshape(moved.shape), -1, dim)


def log_softmax(x, dim: int) -> np.ndarray | None:
    """torch.log_softmax over the last dimension: ``(x - max) - log(sum(exp(x - max)))``;
    None for other dimensions and dtypes."""
    if x.dtype != F32 or x.size == 0 or x.ndim == 0 or dim % x.ndim != x.ndim - 1:
        return None
    moved, rows = _rows_last(x, dim)
    with np.errstate(all="ignore"):
        mx = reduce_rows(rows, np.maximum)
        shifted = (rows - mx[:, None]).astype(F32)
        s = reduce_rows(sleef_expf(shifted), np.add)
        ls = np.log(s.astype(F64)).astype(F32)
        out = (shifted - ls[:, None]).astype(F32)
    return np.moveaxis(out.reshape(moved.shape), -1, dim)


# -- MKL's vector math, else float64 rounded ------------------------------------------------------


def _vml(name: str, npfn):
    def f(x):
        x = np.asarray(x)
        out = mkl.vml(name, x) if x.dtype in (F32, F64) else None
        if out is not None:
            return out
        with np.errstate(all="ignore"):
            if x.dtype == F32:
                return npfn(x.astype(F64)).astype(F32)
            return npfn(x)
    f.__name__ = name
    f.__doc__ = (f"``{npfn.__name__}`` as torch 2.13 computes it: through MKL's vector math (high "
                 "accuracy) when installed, else float32 in float64 and rounded, float64 by numpy.")
    return f


exp = _vml("exp", np.exp)
log = _vml("log", np.log)
sin = _vml("sin", np.sin)
cos = _vml("cos", np.cos)
tanh = _vml("tanh", np.tanh)
sqrt = _vml("sqrt", np.sqrt)


def matmul(a, b) -> np.ndarray:
    """``a @ b`` for 2-D float32/float64 matrices through MKL's gemm (as torch 2.13), else numpy."""
    if a.ndim == 2 and b.ndim == 2 and a.shape[1] == b.shape[0]:
        out = mkl.gemm(a, b)
        if out is not None:
            return out
    return a @ b


def matvec(a, v) -> np.ndarray:
    """``a @ v`` for a 2-D matrix and a vector (torch.mv) through MKL's gemv, else numpy."""
    if a.ndim == 2 and v.ndim == 1 and a.shape[1] == v.shape[0]:
        out = mkl.gemv(a, v)
        if out is not None:
            return out
    return a @ v
