"""PyTorch 2.13's CPU float32 arithmetic, bit for bit, in numpy.

numpy's float32 kernels round differently from PyTorch's in the last bit often enough that
a training loop printed with ``loss.item()`` parts after a few steps. The functions here
compute what PyTorch 2.13's CPU build computes with the kernels of the running CPU
capability (:mod:`.cpu`: AVX2 or AVX512), measured op by op against it
(``benchmarks/bits.py`` prints the table):

* fused multiply-adds where ATen's kernels use them: ``add``/``sub`` with ``alpha``
  (``fma(alpha, other, self)``), ``addcmul`` (``fma(value·t1, t2, self)``), ``lerp``
  (``fma(w, end-start, start)`` for ``w < 0.5``, else ``fma(-(1-w), end-start, end)``),
  ``tanh``'s backward (``grad · fma(-y, y, 1)``), ``linspace``;
* SLEEF's 1-ulp functions (:mod:`.sleef`) where ATen's vectorized code calls
  ``Vectorized<float>``'s ``exp``/``log``/``log1p``/``pow``: ``sigmoid`` and ``pow``
  with a non-special exponent (whole blocks of two vectors per thread chunk; the rest
  through the C library), ``softmax``/``log_softmax`` over the last dimension (lane
  reductions with ATen's shuffle tree), ``logsigmoid``;
* the special forms of ``pow``: ``x**2 = x·x``, ``x**3 = (x·x)·x``, ``x**0.5 = sqrt``,
  ``x**-0.5 = 1/sqrt``, ``x**-1 = 1/x``, ``x**-2 = 1/(x·x)``;
* Intel MKL's vector math (high-accuracy mode) for ``exp``, ``log``, ``sin``, ``cos``,
  ``tanh``, ``sqrt`` and MKL's ``sgemm`` for matrix products, when the ``mkl`` runtime
  PyTorch 2.13 links (2024.2) is installed (``pip install -e '.[exact]'``; see
  :mod:`.mkl`). Without it these are computed in float64 and rounded, which agrees with
  MKL on 95–99.99% of elements (the last bit of the rest), and matrix products use numpy.

Every function takes and returns numpy arrays; float64 and other dtypes fall through to
numpy's own result (PyTorch's float64 kernels are not replicated here).
"""

from __future__ import annotations

import math

import numpy as np

from . import cpu, mkl, sleef
from .fma import fma32

F32, F64 = np.float32, np.float64
_INF32 = F32(np.inf)


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
    """``x ** exponent`` for a number exponent, as ATen's ``pow_tensor_scalar_kernel``
    computes float32 and float64: 0 → ones, 1 → a copy, ``2 → x·x``, ``3 → (x·x)·x``,
    ``0.5 → sqrt``, ``-0.5 → 1/sqrt``, ``-1 → 1/x``, ``-2 → 1/(x·x)`` (so ``(-0.0) **
    -0.5`` is -inf and ``(-inf) ** 0.5`` nan, as torch's); any other float32 exponent
    through ``cpu_kernel_vec``: whole blocks of two vectors with SLEEF's ``powf_u10``
    (exponent rounded to float32), the rest with the C library's double ``pow`` (the
    exponent kept double), rounded to float32. Other float64 exponents and other dtypes:
    numpy's power (torch's float64 blocks use SLEEF's ``pow`` ``u10``, not modelled: the
    last bit differs on a few per cent of elements)."""
    if x.dtype != F32 and x.dtype != F64:
        return np.power(x, x.dtype.type(exponent))
    one = x.dtype.type(1)
    with np.errstate(all="ignore"):
        if exponent == 2:
            return x * x
        if exponent == 3:
            return (x * x) * x
        if exponent == 0.5:
            return sqrt(x)                       # torch.sqrt's (MKL)
        if exponent == -0.5:
            return one / np.sqrt(x)              # rsqrt: 1 / IEEE sqrt
        if exponent == -1:
            return one / x
        if exponent == -2:
            return one / (x * x)
        if exponent == 1:
            return x.copy()
        if exponent == 0:
            return np.ones_like(x)
        if x.dtype == F64:
            return np.power(x, F64(exponent))
        e64 = float(exponent)
        e32 = F32(e64)
        flat = np.ascontiguousarray(x).reshape(-1)
        out = by_spans(flat, 2 * cpu.FLOAT_LANES, lambda v: sleef.powf(v, e32),
                       lambda t: np.power(t.astype(F64), e64).astype(F32))
        return out.reshape(x.shape)


# -- the C library, for ATen's scalar tails ------------------------------------------------------


_LIBM = {}


def _libm(name, nargs=1):
    """The C library's float function ``name`` (``expf``, ``log1pf``, ``powf``) of ``nargs``
    float arguments through ctypes, or None where there is no libm to load."""
    if (name, nargs) not in _LIBM:
        fn = None
        try:
            import ctypes
            import ctypes.util
            lib = ctypes.CDLL(ctypes.util.find_library("m") or "libm.so.6")
            fn = getattr(lib, name)
            fn.restype, fn.argtypes = ctypes.c_float, [ctypes.c_float] * nargs
        except (OSError, AttributeError):
            fn = None
        _LIBM[name, nargs] = fn
    return _LIBM[name, nargs]


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
        return (np.minimum(x, F32(0)) - sleef.log1pf(sleef.expf(-np.abs(x)))).astype(F32)


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


def by_spans(flat, block, vec_fn, scalar_fn):
    """``flat`` (1-D) mapped as ATen's ``cpu_kernel_vec`` maps a contiguous tensor: the
    whole ``block``-element blocks of each thread's chunk through ``vec_fn``, the rest
    through ``scalar_fn`` (see :func:`.cpu.vector_spans`)."""
    out = np.empty(flat.shape, flat.dtype)
    for b, v, e in cpu.vector_spans(flat.size, block):
        if v > b:
            out[b:v] = vec_fn(flat[b:v])
        if e > v:
            out[v:e] = scalar_fn(flat[v:e])
    return out


def sigmoid(x) -> np.ndarray:
    """torch.sigmoid: ``1/(1 + exp(-x))``. ATen's ``cpu_kernel_vec`` takes whole blocks of
    two vectors (16 float32 on AVX2, 32 on AVX512) through SLEEF's exp and the rest of
    the flattened tensor through the C library's ``expf``; float64 blocks (8 on AVX2,
    16 on AVX512) take SLEEF's double exp (not replicated: numpy's exp), the rest the C
    library's ``exp``."""
    if x.dtype not in (F32, F64):
        with np.errstate(all="ignore"):
            return x.dtype.type(1) / (x.dtype.type(1) + np.exp(-x))
    flat = np.ascontiguousarray(x).reshape(-1)
    with np.errstate(all="ignore"):
        if x.dtype == F64:
            e = by_spans(-flat, cpu.FLOAT_LANES, np.exp,
                         lambda t: np.array([math.exp(v) if v < 709.78 else math.inf for v in t.tolist()], F64))
            return (1.0 / (1.0 + e)).reshape(x.shape)
        e = by_spans(-flat, 2 * cpu.FLOAT_LANES, sleef.expf, _libm_expf)
        return (F32(1) / (F32(1) + e)).reshape(x.shape)


# -- the last dimension, ATen's vec::reduce_all -------------------------------------------------


def reduce_rows(x2: np.ndarray, op, lanes: int | None = None) -> np.ndarray:
    """ATen's ``vec::reduce_all`` over each row of a 2-D float32 array: one accumulator per
    lane of ``Vectorized<float>`` (:data:`.cpu.FLOAT_LANES`: 8 on AVX2, 16 on AVX512),
    the tail merged into the first lanes, then the shuffle tree (lanes i and i^(W/2), ...,
    i^1); rows shorter than one vector reduce left to right."""
    w = lanes or cpu.FLOAT_LANES
    n = x2.shape[1]
    if n < w:
        acc = x2[:, 0].copy()
        for i in range(1, n):
            acc = op(acc, x2[:, i])
        return acc.astype(F32)
    acc = x2[:, :w].copy()
    full = n - n % w
    for d in range(w, full, w):
        acc = op(acc, x2[:, d:d + w])
    if full < n:
        t = n - full
        acc[:, :t] = op(acc[:, :t], x2[:, full:])
    idx = np.arange(w)
    step = w // 2
    while step:
        acc = op(acc, acc[:, idx ^ step])
        step //= 2
    return acc[:, 0].astype(F32)


def _rows_last(x, dim):
    moved = np.moveaxis(x, dim, -1)
    return moved, np.ascontiguousarray(moved).reshape(-1, moved.shape[-1])


def softmax(x, dim: int) -> np.ndarray | None:
    """torch.softmax over the last dimension of a float32 tensor, as ATen's
    ``_vec_softmax_lastdim``: ``m = reduce_all(max)``, ``e = SLEEF exp(x - m)``,
    ``e · (1 / reduce_all(+, e))`` (lanes of the running capability). None for other
    dimensions and dtypes (the caller's own formula applies)."""
    if x.dtype != F32 or x.size == 0 or x.ndim == 0 or dim % x.ndim != x.ndim - 1:
        return None
    moved, rows = _rows_last(x, dim)
    with np.errstate(all="ignore"):
        mx = reduce_rows(rows, np.maximum)
        e = sleef.expf(rows - mx[:, None])
        inv = (F32(1) / reduce_rows(e, np.add)).astype(F32)
        out = (e * inv[:, None]).astype(F32)
    return np.moveaxis(out.reshape(moved.shape), -1, dim)


def log_softmax(x, dim: int) -> np.ndarray | None:
    """torch.log_softmax over the last dimension of a float32 tensor, as ATen's
    ``_vec_log_softmax_lastdim``: ``m = reduce_all(max)``, ``s = map_reduce_all(+, SLEEF
    exp(x - m))``, ``(x - m) - SLEEF log(s)`` (``vec::map`` takes every row sum through
    SLEEF's logf, the last partial vector too). None for other dimensions and dtypes."""
    if x.dtype != F32 or x.size == 0 or x.ndim == 0 or dim % x.ndim != x.ndim - 1:
        return None
    moved, rows = _rows_last(x, dim)
    with np.errstate(all="ignore"):
        mx = reduce_rows(rows, np.maximum)
        shifted = (rows - mx[:, None]).astype(F32)
        s = reduce_rows(sleef.expf(shifted), np.add)
        out = (shifted - sleef.logf(s)[:, None]).astype(F32)
    return np.moveaxis(out.reshape(moved.shape), -1, dim)


def softmax_backward(g, r, dim: int) -> np.ndarray | None:
    """SoftmaxBackward0 over the last dimension of float32 tensors, as ATen's
    ``_vec_host_softmax_backward_lastdim``: ``s = map2_reduce_all(+, g·r)`` (lane sums of
    rounded products), then ``(g - s)·r``. None for other dims and dtypes. (A tensor of
    a single row can differ from torch in the last bit on a few percent of rows.)"""
    if g.dtype != F32 or r.dtype != F32 or r.size == 0 or r.ndim == 0 or dim % r.ndim != r.ndim - 1:
        return None
    moved, rows_g = _rows_last(np.broadcast_to(g, r.shape), dim)
    _, rows_r = _rows_last(r, dim)
    with np.errstate(all="ignore"):
        s = reduce_rows((rows_g * rows_r).astype(F32), np.add)
        out = ((rows_g - s[:, None]) * rows_r).astype(F32)
    return np.moveaxis(out.reshape(moved.shape), -1, dim)


def log_softmax_backward(g, r, dim: int) -> np.ndarray | None:
    """LogSoftmaxBackward0 over the last dimension of float32 tensors, as ATen's
    ``_vec_log_softmax_backward``: ``s = reduce_all(+, g)``, then ``g - SLEEF exp(r)·s``
    as one fused negative multiply-add (GCC contracts it). None for other dims and dtypes."""
    if g.dtype != F32 or r.dtype != F32 or r.size == 0 or r.ndim == 0 or dim % r.ndim != r.ndim - 1:
        return None
    moved, rows_g = _rows_last(np.broadcast_to(g, r.shape), dim)
    _, rows_r = _rows_last(r, dim)
    with np.errstate(all="ignore"):
        s = reduce_rows(rows_g, np.add)
        e = sleef.expf(rows_r)
        out = fma32(-e, np.broadcast_to(s[:, None], e.shape), rows_g)
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
    f.__name__ = f.vml = name
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
