"""Which of ATen's CPU kernels PyTorch 2.13 runs on this machine, and how it splits work.

ATen compiles its vectorized kernels once per CPU capability and picks one at start-up
(``aten/src/ATen/native/DispatchStub.cpp``, ``compute_cpu_capability``): the
``ATEN_CPU_CAPABILITY`` environment variable when set (``default``, ``avx2``, ``avx512``),
else AVX512 when the CPU has AVX512 VL, BW, DQ and FMA, else AVX2 when it has AVX2 and FMA,
else the default (scalar-per-lane) build. The capability fixes the width of
``Vectorized<float>`` (16 lanes on AVX512, 8 otherwise), which decides how reductions
group their terms and which elements take the SIMD path (SLEEF) or the scalar tail (the C
library). The flags are read from ``/proc/cpuinfo`` (Linux); where it cannot be read the
capability is AVX2, the common case.
"""

from __future__ import annotations

import os

from .summation import GRAIN_SIZE, NUM_THREADS

AVX512, AVX2, DEFAULT = "AVX512", "AVX2", "DEFAULT"


def _cpu_flags():
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return None


def _capability() -> str:
    env = os.environ.get("ATEN_CPU_CAPABILITY", "")     # compared verbatim, as ATen does
    if env in ("avx512", "avx2", "default"):
        return {"avx512": AVX512, "avx2": AVX2, "default": DEFAULT}[env]
    flags = _cpu_flags()
    if flags is None:
        return AVX2
    if {"avx512vl", "avx512bw", "avx512dq", "fma"} <= flags:
        return AVX512
    if {"avx2", "fma"} <= flags:
        return AVX2
    return DEFAULT


CAPABILITY = _capability()
#: lanes of ATen's Vectorized<float> in the kernels torch runs here
FLOAT_LANES = 16 if CAPABILITY == AVX512 else 8
#: lanes of Vectorized<float> in kernels registered without an AVX512 build (8 on every
#: capability: the AVX2 build stands in for AVX512, and the default build's
#: ``Vectorized<float>`` holds 32 bytes too)
AVX2_FLOAT_LANES = 8


def vector_spans(n: int, block: int):
    """The ``(start, stop)`` ranges of a contiguous ``n``-element elementwise loop that
    ATen's ``cpu_kernel_vec`` runs through its vectorized function: each thread's chunk
    (``at::parallel_for`` with grain 32768: ``ceil(n / threads)`` elements per thread)
    is taken in whole blocks of ``block`` (two vectors) from its start; the rest of each
    chunk goes through the scalar function."""
    if n >= GRAIN_SIZE and NUM_THREADS > 1:
        nt = min(NUM_THREADS, -(-n // GRAIN_SIZE))
        chunk = -(-n // nt)
    else:
        chunk = max(n, 1)
    spans = []
    for b in range(0, n, chunk):
        e = min(n, b + chunk)
        spans.append((b, b + (e - b) // block * block, e))
    return spans
