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


def _onednn_avx512() -> bool:
    # oneDNN picks its JIT ISA from the CPU alone (``cpu_isa_traits``: avx512_core needs
    # AVX512 F, BW, VL and DQ), capped only by its own ONEDNN_MAX_CPU_ISA / DNNL_MAX_CPU_ISA
    cap = (os.environ.get("ONEDNN_MAX_CPU_ISA") or os.environ.get("DNNL_MAX_CPU_ISA") or "ALL").upper()
    if cap not in ("ALL", "DEFAULT") and not cap.startswith(("AVX512", "AVX10")):
        return False
    flags = _cpu_flags()
    return flags is not None and {"avx512f", "avx512bw", "avx512vl", "avx512dq"} <= flags


#: whether the oneDNN primitives torch calls (float32 GELU) run their AVX512 JIT code; this
#: ignores ATEN_CPU_CAPABILITY, as oneDNN does
ONEDNN_AVX512 = _onednn_avx512()
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
