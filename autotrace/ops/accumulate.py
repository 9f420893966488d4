"""PyTorch 2.13's CPU accumulations other than sum: running sums/products and variance.

* ``cumsum``/``cumprod`` (``aten/src/ATen/native/cpu/ReduceOpsKernel.cpp``,
  ``cpu_cum_base_kernel``): one running accumulator per line along ``dim`` in
  ``at::acc_type<scalar_t, false>``, which is double for float32, each output the
  accumulator rounded to float32. numpy's ``cumsum``/``cumprod`` of the float64 copy
  add/multiply left to right in the same way.
* ``var``/``std`` reducing to one element (``ReduceOps.cpp``, ``std_var_all_cpu``):
  ``m = float(self.mean())`` (torch's float32 mean), then ``Σ (double(x) - m)²`` left to
  right in double within each thread's chunk (``at::parallel_reduce``, grain 32768),
  chunk sums added in order to ``0.0``, divided by ``max(0, N - correction)``, square
  root in double, rounded to float32.
* ``var``/``std`` with several outputs (``std_var_kernel_impl``, ``WelfordOps`` with
  double accumulators): per output, Welford's update over the reduced elements in
  memory order (``delta = x - mean; mean += delta / n; m2 += delta·(x - mean)``), then
  ``m2 / max(0, N - correction)`` (and ``sqrt``) in double, rounded.

Every function takes numpy arrays; dtypes other than float32/float64 are not handled here.
"""

from __future__ import annotations

import numpy as np

from .summation import GRAIN_SIZE, NUM_THREADS, _layout, torch_sum

F32, F64 = np.float32, np.float64

#: Welford's loop runs element by element along the reduced length; past this length the
#: float64 two-pass sum stands in (both are within a few float64 ulps of the exact value,
#: so the float32 result differs only when that lands on a float32 rounding boundary)
WELFORD_MAX = 8192


def cumulative(x: np.ndarray, axis: int, kind: str) -> np.ndarray:
    """``torch.cumsum``/``torch.cumprod`` (``kind`` "sum"/"prod") along ``axis`` of a
    float array: accumulated in float64, each output rounded to ``x.dtype``."""
    fn = np.cumsum if kind == "sum" else np.cumprod
    with np.errstate(all="ignore"):
        return fn(x.astype(F64), axis=axis).astype(x.dtype)


def _chunked_sq_sum(dx: np.ndarray) -> float:
    n = dx.size
    if n <= GRAIN_SIZE or NUM_THREADS == 1:
        bounds = [0, n]
    else:
        nt = min(NUM_THREADS, -(-n // GRAIN_SIZE))
        chunk = -(-n // nt)
        bounds = list(range(0, n, chunk)) + [n]
    total = 0.0
    for b, e in zip(bounds[:-1], bounds[1:]):
        total += float(np.cumsum(dx[b:e] * dx[b:e])[-1]) if e > b else 0.0
    return total


def _finish(m2, denom, take_sqrt, dtype):
    with np.errstate(all="ignore"):
        v = np.asarray(m2, F64) / F64(max(0.0, denom))
        if take_sqrt:
            v = np.sqrt(v)
    return v.astype(dtype)


def var_all(x: np.ndarray, correction: float, take_sqrt: bool) -> np.ndarray:
    """``var``/``std`` of all elements of a float32/float64 array (0-d result)."""
    v, _ = _layout(x)
    flat = np.ascontiguousarray(v).reshape(-1)
    mean = float(torch_sum(flat) / flat.dtype.type(flat.size))
    with np.errstate(all="ignore"):
        m2 = _chunked_sq_sum(flat.astype(F64) - mean)
    return _finish(m2, flat.size - correction, take_sqrt, x.dtype)


def var_dims(x: np.ndarray, dims: tuple, keepdim: bool, correction: float, take_sqrt: bool,
             with_mean: bool = False):
    """``var``/``std`` over ``dims`` (sorted) by Welford's update, as torch 2.13 computes it
    with more than one output, and for ``var_mean``/``std_mean`` with any number; with
    ``with_mean`` returns ``(var or std, Welford's mean rounded to the dtype)``."""
    v, perm = _layout(x)
    red = [perm.index(d) for d in dims]                # reduced axes of the memory-order view
    keep = [a for a in range(v.ndim) if a not in red]
    moved = np.transpose(v, keep + sorted(red))
    kept_shape = moved.shape[:len(keep)]
    o = int(np.prod(kept_shape, dtype=np.int64))
    r = int(np.prod(moved.shape[len(keep):], dtype=np.int64))
    rows = np.ascontiguousarray(moved).reshape(o, r).astype(F64)
    with np.errstate(all="ignore"):
        if r <= WELFORD_MAX:
            mean = np.zeros(o)
            m2 = np.zeros(o)
            for i in range(r):
                xi = rows[:, i]
                delta = xi - mean
                mean = mean + delta / F64(i + 1)
                m2 = m2 + delta * (xi - mean)
        else:
            mean = rows.mean(axis=1)
            m2 = np.cumsum((rows - mean[:, None]) ** 2, axis=1)[:, -1]
    kept_orig = [perm[a] for a in keep]

    def shaped(a):
        # back from the memory order of the kept axes to the tensor's order
        a = a.astype(x.dtype).reshape(kept_shape).transpose(np.argsort(kept_orig))
        if keepdim:
            for d in dims:
                a = np.expand_dims(a, d)
        return a

    out = shaped(_finish(m2, r - correction, take_sqrt, x.dtype))
    return (out, shaped(mean)) if with_mean else out


# -- vector norms (linalg.vector_norm / Tensor.norm) ---------------------------------------------


def _powf(x, y) -> np.ndarray:
    """The C library's ``powf`` elementwise (ATen's scalar ``std::pow`` on floats). numpy's
    float32 power loop calls that same ``powf`` when the exponent is a whole array (with a
    scalar exponent it takes shortcuts such as ``sqrt`` for 0.5, which round differently).
    Where a probe shows numpy's loop is not the C library's (numpy built with AVX512
    dispatch runs its own SIMD ``pow`` on a CPU that has it), each element is asked of
    ``powf`` (about a microsecond each), up to :data:`POWF_PER_ELEMENT_MAX` elements;
    past that, and where there is no libm, float64 pow rounded."""
    from .kernels import _libm
    fn = _libm("powf", 2)
    x = np.asarray(x, F32)
    yv = float(F32(y))
    if fn is not None and _numpy_power_is_powf(fn):
        with np.errstate(all="ignore"):
            return np.power(x, np.full(x.shape, F32(yv)))
    if fn is None or x.size > POWF_PER_ELEMENT_MAX:
        with np.errstate(all="ignore"):
            return np.power(x.astype(F64), yv).astype(F32)
    return np.array([fn(v, yv) for v in x.reshape(-1).tolist()], F32).reshape(x.shape)


#: the most elements :func:`_powf` asks of the C library one by one
POWF_PER_ELEMENT_MAX = 1 << 20


_POWER_PROBE: list = []


def _numpy_power_is_powf(fn) -> bool:
    """Whether numpy's float32 power loop gives the C library's ``powf`` bits, on a fixed
    probe of 1,024 bases and 8 exponents (once per process)."""
    if not _POWER_PROBE:
        rng = np.random.default_rng(2013)
        x = np.abs(rng.standard_normal(1024) * 8).astype(F32)
        same = True
        for y in (3.0, 0.5, 2.0, -1.0, 1.5, -0.5, 1 / 3, 2.5):
            y32 = F32(y)
            with np.errstate(all="ignore"):
                got = np.power(x, np.full(x.shape, y32))
            want = np.array([fn(float(v), float(y32)) for v in x], F32)
            if not np.array_equal(got.view(np.uint32), want.view(np.uint32)):
                same = False
                break
        _POWER_PROBE.append(same)
    return _POWER_PROBE[0]


def _lastdim_two(rows: np.ndarray) -> np.ndarray:
    """ATen's contiguous last-dim 2-norm (``binary_kernel_reduce_lastdim``): per row, one
    ``Vectorized<float>`` accumulator (``acc += x·x``, :data:`.cpu.AVX2_FLOAT_LANES` lanes:
    ``norm_stub`` has no AVX512 build, an AVX512 CPU runs the AVX2 one) over
    the whole vectors, its lanes added left to right, then the remaining ``r`` elements as
    GCC compiled the scalar loop: the first ``4·⌊r/4⌋`` as rounded squares added in order
    (an in-order vectorized reduction), the last ``r mod 4`` as fused ``fma(x, x, acc)``;
    then ``sqrt`` in float32."""
    from . import cpu
    from .fma import fma32
    w = cpu.AVX2_FLOAT_LANES
    o, n = rows.shape
    full = n - n % w
    with np.errstate(all="ignore"):
        if full:
            sq = rows[:, :full] * rows[:, :full]
            lanes = _seq_rows(np.moveaxis(sq.reshape(o, full // w, w), 1, 0))
        else:
            lanes = np.zeros((o, w), F32)
        b = lanes[:, 0].copy()
        for j in range(1, w):
            b = b + lanes[:, j]
        k = full + (n - full) // 4 * 4
        for d in range(full, k):
            b = b + rows[:, d] * rows[:, d]
        for d in range(k, n):
            b = fma32(rows[:, d], rows[:, d], b)
        return np.sqrt(b.astype(F32))


def _seq_rows(a2: np.ndarray) -> np.ndarray:
    """Left-to-right float sums down axis 0 of ``a2`` (R, O), starting from +0: numpy's
    ``add.accumulate`` adds strictly in order."""
    return np.add.accumulate(a2, axis=0)[-1] + a2.dtype.type(0)


def _sequential(rows: np.ndarray, f, single: bool) -> np.ndarray:
    """``binary_kernel_reduce``: per row ``acc = acc + f(x)`` left to right from 0; one
    output over 32768+ elements is split into the threads' chunks, combined in order."""
    o, n = rows.shape
    with np.errstate(all="ignore"):
        if single and n >= GRAIN_SIZE and NUM_THREADS > 1:
            nt = min(NUM_THREADS, -(-n // GRAIN_SIZE))
            chunk = -(-n // nt)
            total = F32(0)
            for b in range(0, n, chunk):
                total = F32(total + _seq_rows(f(rows[0, b:b + chunk])[:, None])[0])
            return np.array([total], F32)
        return _seq_rows(np.ascontiguousarray(f(rows).T))


def vector_norm(x: np.ndarray, p: float, dims, keepdim: bool):
    """``torch.linalg.vector_norm(x, p, dims, keepdim)`` of a non-empty float32 array as
    ATen's ``norm_kernel_tensor_iterator_impl`` computes it (measured on AVX2): p = 2 over
    reduced dims that end the tensor in memory through :func:`_lastdim_two`; otherwise per
    output left to right in float32: ``Σ x·x`` then ``sqrt`` (p = 2), ``Σ |x|`` (1),
    ``max |x|`` / ``min |x|`` (±inf), the count of nonzeros (0), or ``Σ powf(|x|, p)``
    then ``powf(acc, 1/p)`` with ``p`` in float32; one element per output gives ``|x|``.
    None for other dtypes and empty input."""
    if x.dtype != F32 or x.size == 0:
        return None
    v, perm = _layout(x)
    red = sorted(perm.index(d) for d in (range(x.ndim) if dims is None else dims))
    keep = [a for a in range(v.ndim) if a not in red]
    moved = np.transpose(v, keep + red)
    kept_shape = moved.shape[:len(keep)]
    o = int(np.prod(kept_shape, dtype=np.int64))
    rows = np.ascontiguousarray(moved).reshape(o, -1)
    big = [a for a in range(v.ndim) if v.shape[a] != 1]
    lastdim = [a for a in big if a in red] == big[len(big) - len([a for a in big if a in red]):]
    pf = F32(p)
    if rows.shape[1] == 1 and p != 0:          # one element per output: |x| (measured)
        out = np.abs(rows[:, 0])
    elif p == 2 and lastdim:
        out = _lastdim_two(rows)
    elif p == 2:
        out = np.sqrt(_sequential(rows, lambda r: r * r, o == 1))
    elif p == 1:
        out = _sequential(rows, np.abs, o == 1)
    elif p == float("inf"):
        out = np.abs(rows).max(axis=1)
    elif p == float("-inf"):
        out = np.abs(rows).min(axis=1)
    elif p == 0:
        out = (rows != 0).sum(axis=1).astype(F32)
    else:
        acc = _sequential(rows, lambda r: _powf(np.abs(r), pf), o == 1)
        out = _powf(acc, F32(1) / pf)
    out = np.asarray(out, F32).reshape(kept_shape)
    kept_orig = [perm[a] for a in keep]
    out = out.transpose(np.argsort(kept_orig))
    if keepdim:
        for d in sorted(range(x.ndim) if dims is None else dims):
            out = np.expand_dims(out, d)
    return out
