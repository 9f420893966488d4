"""Intel MKL, when its runtime is installed: the vector math and BLAS (gemm, gemv) PyTorch
2.13's CPU build uses, for bit-identical float32 and float64 results.

Optional (``pip install -e '.[exact]'`` installs the ``mkl`` 2024.2 wheel, the version
PyTorch 2.13 links). Loaded lazily on first use through ctypes from the running Python's
``lib`` directory (where the wheel puts ``libmkl_rt.so.2``) or the system's library path;
when it is missing or fails to load, every function returns None and the caller computes
in numpy. ``AUTOTRACE_MKL=0`` turns it off. Vector math runs in high-accuracy mode
(``VML_HA``), as PyTorch sets it; MKL runs on one thread (the results do not depend on the
thread count: sgemm splits rows and columns, not the sum over k).
"""

from __future__ import annotations

import ctypes
import os
import sys

import numpy as np

_lib = None
_tried = False

_VML = {"exp": "Exp", "log": "Ln", "sin": "Sin", "cos": "Cos", "tanh": "Tanh", "sqrt": "Sqrt"}
_VML_HA = 0x2
_ROW_MAJOR, _NO_TRANS, _TRANS = 101, 111, 112
_P = ctypes.POINTER(ctypes.c_float)
_PD = ctypes.POINTER(ctypes.c_double)
#: per dtype: (vector math prefix, BLAS prefix, pointer type, scalar type)
_TYPES = {np.dtype(np.float32): ("vs", "cblas_s", _P, ctypes.c_float),
          np.dtype(np.float64): ("vd", "cblas_d", _PD, ctypes.c_double)}


def _load():
    global _lib, _tried
    if _tried:
        return _lib
    _tried = True
    if os.environ.get("AUTOTRACE_MKL", "1") == "0":
        return None
    candidates = [os.path.join(sys.prefix, "lib", "libmkl_rt.so.2"), "libmkl_rt.so.2", "libmkl_rt.so"]
    for path in candidates:
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        try:
            lib.MKL_Set_Num_Threads(ctypes.c_int(1))
            lib.vmlSetMode.restype = ctypes.c_uint
            lib.vmlSetMode(ctypes.c_uint(_VML_HA))
        except AttributeError:
            continue
        _lib = lib
        return lib
    return None


def available() -> bool:
    """True when MKL's runtime could be loaded."""
    return _load() is not None


def vml(name: str, x: np.ndarray):
    """``name`` (exp, log, sin, cos, tanh, sqrt) of a float32 or float64 array through MKL's
    vector math, or None."""
    lib = _load()
    kind = _TYPES.get(x.dtype)
    if lib is None or kind is None or x.size == 0:
        return None
    a = np.ascontiguousarray(x)
    out = np.empty_like(a)
    getattr(lib, kind[0] + _VML[name])(ctypes.c_int(a.size), a.ctypes.data_as(kind[2]), out.ctypes.data_as(kind[2]))
    return out.reshape(x.shape)


def _operand(x: np.ndarray):
    """(buffer, transpose flag, leading dimension) for a row-major cblas call: a
    transposed view is passed as its contiguous base with the transpose flag, as torch
    passes its strided tensors to BLAS (a different kernel path, different rounding)."""
    if x.flags.c_contiguous:
        return x, _NO_TRANS, x.shape[1]
    if x.T.flags.c_contiguous:
        return x.T, _TRANS, x.shape[0]
    return np.ascontiguousarray(x), _NO_TRANS, x.shape[1]


def gemm(a: np.ndarray, b: np.ndarray):
    """``a @ b`` for 2-D float32/float64 arrays of one dtype through MKL's cblas gemm, or None."""
    lib = _load()
    kind = _TYPES.get(a.dtype)
    m, k = a.shape
    n = b.shape[1]
    if lib is None or kind is None or b.dtype != a.dtype or m == 0 or n == 0 or k == 0:
        return None
    _, blas, ptr, scalar = kind
    abuf, ta, lda = _operand(a)
    bbuf, tb, ldb = _operand(b)
    out = np.empty((m, n), a.dtype)
    getattr(lib, blas + "gemm")(
        ctypes.c_int(_ROW_MAJOR), ctypes.c_int(ta), ctypes.c_int(tb), ctypes.c_int(m), ctypes.c_int(n),
        ctypes.c_int(k), scalar(1.0), abuf.ctypes.data_as(ptr), ctypes.c_int(lda), bbuf.ctypes.data_as(ptr),
        ctypes.c_int(ldb), scalar(0.0), out.ctypes.data_as(ptr), ctypes.c_int(n))
    return out


def gemv(a: np.ndarray, v: np.ndarray):
    """``a @ v`` for a 2-D matrix and a vector of one dtype (float32/float64) through MKL, or None."""
    lib = _load()
    kind = _TYPES.get(a.dtype)
    m, n = a.shape
    if lib is None or kind is None or v.dtype != a.dtype or m == 0 or n == 0:
        return None
    _, blas, ptr, scalar = kind
    abuf, ta, lda = _operand(a)
    rows, cols = abuf.shape
    v = np.ascontiguousarray(v)
    out = np.empty(m, a.dtype)
    getattr(lib, blas + "gemv")(
        ctypes.c_int(_ROW_MAJOR), ctypes.c_int(ta), ctypes.c_int(rows), ctypes.c_int(cols), scalar(1.0),
        abuf.ctypes.data_as(ptr), ctypes.c_int(lda), v.ctypes.data_as(ptr), ctypes.c_int(1), scalar(0.0),
        out.ctypes.data_as(ptr), ctypes.c_int(1))
    return out
