"""Intel MKL, when its runtime is installed: the vector math and BLAS (gemm, gemv) PyTorch
2.13's CPU build uses, for bit-identical float32 and float64 results.

Optional (``pip install -e '.[exact]'`` installs the ``mkl`` 2024.2 wheel, the version
PyTorch 2.13 links). Loaded lazily on first use through ctypes from the running Python's
``lib`` directory (where the wheel puts ``libmkl_rt.so.2``) or the system's library path;
when it is missing or fails to load, every function returns None and the caller computes
in numpy. ``AUTOTRACE_MKL=0`` turns it off. Vector math runs in high-accuracy mode
(``VML_HA``), as PyTorch sets it, and MKL gets torch's thread count (the CPUs available,
or ``AUTOTRACE_TORCH_THREADS`` / ``OMP_NUM_THREADS``): how gemm splits a product over
threads changes the rounding of small products.
"""

from __future__ import annotations

import ctypes
import os
import sys
from threading import get_ident

import numpy as np

_lib = None
_tried = False

_VML = {"exp": "Exp", "log": "Ln", "sin": "Sin", "cos": "Cos", "tanh": "Tanh", "sqrt": "Sqrt"}
_VML_HA = 0x2
_ROW_MAJOR, _COL_MAJOR, _NO_TRANS, _TRANS = 101, 102, 111, 112
_P = ctypes.POINTER(ctypes.c_float)
_PD = ctypes.POINTER(ctypes.c_double)
#: per dtype: (vector math prefix, BLAS prefix, pointer type, scalar type)
_TYPES = {np.dtype(np.float32): ("vs", "cblas_s", _P, ctypes.c_float),
          np.dtype(np.float64): ("vd", "cblas_d", _PD, ctypes.c_double)}


#: address space loading MKL takes: libmkl_rt and the kernels it maps on the first gemm
#: and vector-math call (libmkl_core, _intel_thread, _def, _vml_def: about 185 MiB), with
#: room to spare. Under a memory limit that leaves less, MKL is not loaded (the numpy
#: path computes), as MKL would abort the process on a library it cannot map.
LOAD_BYTES = 256 * 1024 * 1024


def _load():
    global _lib, _tried
    if _tried:
        return _lib
    if os.environ.get("AUTOTRACE_MKL", "1") == "0":
        _tried = True
        return None
    from ..resources import memory_left
    if memory_left() < LOAD_BYTES:
        return None         # not now; a later call with more room may load it
    _tried = True
    candidates = [os.path.join(sys.prefix, "lib", "libmkl_rt.so.2"), "libmkl_rt.so.2", "libmkl_rt.so"]
    for path in candidates:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        try:
            from .summation import NUM_THREADS
            lib.MKL_Set_Num_Threads(ctypes.c_int(NUM_THREADS))
            lib.vmlSetMode.restype = ctypes.c_uint
            lib.vmlSetMode(ctypes.c_uint(_VML_HA))
        except AttributeError:
            continue
        _lib = lib
        _warm_up()
        return lib
    return None


def _warm_up() -> None:
    """One tiny call of each kind, so MKL maps the kernel libraries it dispatches to now,
    while :data:`LOAD_BYTES` is known to be free, not at a later call under less room."""
    for dt in _TYPES:
        one = np.ones((2, 2), dt)
        gemm(one, one)
        gemv(one, one[0])
        vml("exp", one)


def available() -> bool:
    """True when MKL's runtime could be loaded."""
    return _load() is not None


def vml(name: str, x: np.ndarray):
    """``name`` (exp, log, sin, cos, tanh, sqrt) of a float32 or float64 array through MKL's
    vector math, or None."""
    n = x.size
    if n <= _FEW:
        few = _few.get((x.dtype, name, get_ident()))
        if few is not None and n:
            call, src, dst, src_at, dst_at = few
            if x.ndim == 0:  # (an element copied in and out keeps its bits, nan payloads too)
                src[0] = x
                call(1, src_at, dst_at)
                return _array(dst[0])
            src[:n] = x.reshape(-1)
            call(n, src_at, dst_at)
            return dst[:n].reshape(x.shape).copy()
    lib = _load()
    kind = _TYPES.get(x.dtype)
    if lib is None or kind is None or x.size == 0:
        return None
    a = np.ascontiguousarray(x)
    out = np.empty_like(a)
    fn = _vml_fns.get((kind[0], name))
    if fn is None:
        fn = _vml_fns[(kind[0], name)] = getattr(lib, kind[0] + _VML[name])
        fn.argtypes = (ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
        fn.restype = None
    fn(a.size, a.ctypes.data, out.ctypes.data)
    if a.size <= _FEW:
        _few_elements(fn, x.dtype, name)
    return out.reshape(x.shape)


_array = np.array
_vml_fns: dict = {}   # (prefix, name) -> the MKL function, its argument types set once
_FEW = 8
#: (dtype, name, thread) -> the call for up to _FEW elements: the function, an input and an
#: output buffer of that thread and their addresses (ctypes' pointer conversions cost more
#: than MKL's work on a few numbers; the result is a fresh array: ``dst[:n]`` reshaped
#: would be overwritten by the next call, so it is copied)
_few: dict = {}
_FEW_CALL = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)


def _few_elements(fn, dtype, name: str) -> None:
    call = _FEW_CALL(ctypes.cast(fn, ctypes.c_void_p).value)
    src, dst = np.empty(_FEW, dtype), np.empty(_FEW, dtype)
    _few[(dtype, name, get_ident())] = (call, src, dst, src.ctypes.data, dst.ctypes.data)


def _strides(x: np.ndarray) -> tuple:
    return tuple(st // x.itemsize for st in x.strides)


def _as_matrix(x, first: int, second: int, rows: int, cols: int):
    """ATen's ``addmm_impl_cpu_`` choice for one operand: (array, transposed, leading dim).
    ``first``/``second`` are the stride positions it tests (swapped when C is computed
    transposed); a layout BLAS cannot take is copied, as torch clones it."""
    st = _strides(x)
    if st[first] == 1 and st[second] >= max(1, rows):
        return x, False
    if st[second] == 1 and st[first] >= max(1, cols):
        return x, True
    return None, None


def gemm(a: np.ndarray, b: np.ndarray, c=None, alpha=1.0, beta=0.0):
    """``alpha * (a @ b) + beta * c`` for 2-D float32/float64 arrays of one dtype through
    MKL's gemm, called the way torch 2.13's ``addmm_impl_cpu_`` calls BLAS: the result
    starts as a copy of ``c`` broadcast to ``(M, N)`` (zeros without it), column-major, C
    computed transposed when it is row-major, each operand passed as stored (its strides
    decide the transpose flag and leading dimension) and ``normalize_last_dims`` applied.
    The same call gives the same rounding (with ``c`` and K = 1, each element is one fused
    multiply-add, not a rounded product plus c). None when MKL is not available."""
    lib = _load()
    kind = _TYPES.get(a.dtype)
    M, K = a.shape
    N = b.shape[1]
    if lib is None or kind is None or b.dtype != a.dtype or M == 0 or N == 0 or K == 0 \
            or (c is not None and c.dtype != a.dtype):
        return None
    _, blas, ptr, scalar = kind
    if c is None or beta == 0:     # torch copies self only for a non-zero beta
        out = np.zeros((M, N), a.dtype)
        beta = 0.0
    else:
        out = np.array(np.broadcast_to(c, (M, N)), dtype=a.dtype, order="C")
    cs = (N, 1)
    if cs[0] == 1 and (N == 1 or cs[1] >= max(1, M)):
        tc, m1, m2, m, n = False, a, b, M, N
    else:
        tc, m1, m2, m, n = True, b, a, N, M
    ldc = cs[0] if tc else cs[1]
    k = K
    i, j = (1, 0) if tc else (0, 1)
    ops = []
    for x, rows, cols in ((m1, m, k), (m2, k, n)):
        arr, trans = _as_matrix(x, i, j, rows, cols)
        if arr is None:                        # torch clones it contiguous
            trans = not tc
            arr = np.ascontiguousarray(x)
        st = _strides(arr)
        ld = st[1] if trans == tc else st[0]
        ops.append((arr, trans, ld))
    (A, ta, lda), (B, tb, ldb) = ops
    # normalize_last_dims (aten/src/ATen/native/CPUBlas.cpp)
    if n == 1:
        ldc = m
    if ta:
        if m == 1:
            lda = k
    elif k == 1:
        lda = m
    if tb:
        if k == 1:
            ldb = n
    elif n == 1:
        ldb = k
    if lda < max(1, k if ta else m) or ldb < max(1, n if tb else k) or ldc < max(1, m):
        return None                            # a layout BLAS would reject: numpy computes it
    getattr(lib, blas + "gemm")(
        ctypes.c_int(_COL_MAJOR), ctypes.c_int(_TRANS if ta else _NO_TRANS), ctypes.c_int(_TRANS if tb else _NO_TRANS),
        ctypes.c_int(m), ctypes.c_int(n), ctypes.c_int(k), scalar(alpha), A.ctypes.data_as(ptr), ctypes.c_int(lda),
        B.ctypes.data_as(ptr), ctypes.c_int(ldb), scalar(beta), out.ctypes.data_as(ptr), ctypes.c_int(ldc))
    return out


def gemv(a: np.ndarray, v: np.ndarray):
    """``a @ v`` for a 2-D matrix and a vector of one dtype (float32/float64) through MKL's
    gemv, called as torch 2.13's ``addmv`` calls it: column-major, ``'n'`` when the matrix
    is stored column by column, ``'t'`` when row by row (else a contiguous copy, ``'t'``).
    None when MKL is not available."""
    lib = _load()
    kind = _TYPES.get(a.dtype)
    m, n = a.shape
    if lib is None or kind is None or v.dtype != a.dtype or m == 0 or n == 0:
        return None
    _, blas, ptr, scalar = kind

    def lda_cond(rows, cols, ld):
        return cols == 1 or ld >= max(1, rows)

    st = _strides(a)
    if st[0] == 1 and lda_cond(m, n, st[1]):
        A, trans, rows, cols, lda = a, _NO_TRANS, m, n, st[1]
    elif st[1] == 1 and lda_cond(n, m, st[0]):
        A, trans, rows, cols, lda = a, _TRANS, n, m, st[0]
    else:
        A = np.ascontiguousarray(a)
        trans, rows, cols, lda = _TRANS, n, m, n
    if cols == 1:
        lda = rows                             # at::native::gemv's normalization
    if lda < max(1, rows):
        return None
    vv = np.ascontiguousarray(v)
    out = np.zeros(m, a.dtype)
    getattr(lib, blas + "gemv")(
        ctypes.c_int(_COL_MAJOR), ctypes.c_int(trans), ctypes.c_int(rows), ctypes.c_int(cols), scalar(1.0),
        A.ctypes.data_as(ptr), ctypes.c_int(lda), vv.ctypes.data_as(ptr), ctypes.c_int(1), scalar(0.0),
        out.ctypes.data_as(ptr), ctypes.c_int(1))
    return out
