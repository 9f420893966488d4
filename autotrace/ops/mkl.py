"""Intel MKL, when its runtime is installed: the vector math and ``sgemm`` PyTorch 2.13's
CPU build uses, for bit-identical float32 results.

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

_VML = {"exp": "vsExp", "log": "vsLn", "sin": "vsSin", "cos": "vsCos", "tanh": "vsTanh", "sqrt": "vsSqrt"}
_VML_HA = 0x2
_ROW_MAJOR, _NO_TRANS = 101, 111
_P = ctypes.POINTER(ctypes.c_float)


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
    """``name`` (exp, log, sin, cos, tanh, sqrt) of a float32 array through MKL, or None."""
    lib = _load()
    if lib is None or x.size == 0:
        return None
    a = np.ascontiguousarray(x, dtype=np.float32)
    out = np.empty_like(a)
    getattr(lib, _VML[name])(ctypes.c_int(a.size), a.ctypes.data_as(_P), out.ctypes.data_as(_P))
    return out.reshape(x.shape)


def sgemm(a: np.ndarray, b: np.ndarray):
    """``a @ b`` for 2-D float32 arrays through MKL's cblas_sgemm, or None."""
    lib = _load()
    m, k = a.shape
    n = b.shape[1]
    if lib is None or m == 0 or n == 0 or k == 0:
        return None
    a = np.ascontiguousarray(a, dtype=np.float32)
    b = np.ascontiguousarray(b, dtype=np.float32)
    out = np.empty((m, n), np.float32)
    lib.cblas_sgemm(ctypes.c_int(_ROW_MAJOR), ctypes.c_int(_NO_TRANS), ctypes.c_int(_NO_TRANS),
                    ctypes.c_int(m), ctypes.c_int(n), ctypes.c_int(k), ctypes.c_float(1.0),
                    a.ctypes.data_as(_P), ctypes.c_int(k), b.ctypes.data_as(_P), ctypes.c_int(n),
                    ctypes.c_float(0.0), out.ctypes.data_as(_P), ctypes.c_int(n))
    return out


def sgemv(a: np.ndarray, v: np.ndarray):
    """``a @ v`` for a 2-D float32 matrix and vector through MKL's cblas_sgemv, or None."""
    lib = _load()
    m, n = a.shape
    if lib is None or m == 0 or n == 0:
        return None
    a = np.ascontiguousarray(a, dtype=np.float32)
    v = np.ascontiguousarray(v, dtype=np.float32)
    out = np.empty(m, np.float32)
    lib.cblas_sgemv(ctypes.c_int(_ROW_MAJOR), ctypes.c_int(_NO_TRANS), ctypes.c_int(m), ctypes.c_int(n),
                    ctypes.c_float(1.0), a.ctypes.data_as(_P), ctypes.c_int(n), v.ctypes.data_as(_P),
                    ctypes.c_int(1), ctypes.c_float(0.0), out.ctypes.data_as(_P), ctypes.c_int(1))
    return out
