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


def var_dims(x: np.ndarray, dims: tuple, keepdim: bool, correction: float, take_sqrt: bool) -> np.ndarray:
    """``var``/``std`` over ``dims`` (sorted, not all of them) with more than one output."""
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
            m2 = np.cumsum((rows - rows.mean(axis=1, keepdims=True)) ** 2, axis=1)[:, -1]
    out = _finish(m2, r - correction, take_sqrt, x.dtype).reshape(kept_shape)
    # back from the memory order of the kept axes to the tensor's order
    kept_orig = [perm[a] for a in keep]
    out = out.transpose(np.argsort(kept_orig))
    if keepdim:
        for d in dims:
            out = np.expand_dims(out, d)
    return out
