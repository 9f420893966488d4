"""Which of PyTorch's CPU kernels this machine would run: ATen's CPU capability.

PyTorch 2.13's CPU build compiles most kernels several times (``DEFAULT``, ``AVX2``,
``AVX512``) and picks one at start-up (``aten/src/ATen/native/DispatchStub.cpp``):
``AVX512`` when the CPU has AVX-512 VL, BW and DQ and FMA3, else ``AVX2`` when it has AVX2
and FMA3, else ``DEFAULT``; the environment variable ``ATEN_CPU_CAPABILITY`` (``default``,
``avx2``, ``avx512``, compared exactly) replaces the choice, as torch takes it verbatim. ``torch.backends.cpu.get_cpu_capability()``
reports it. A few results differ in the last bit (or the sign of a zero) between the
kernels, so the replicas that depend on the choice ask :func:`capability`.

The CPU's features come from numpy's own dispatch table, so nothing here reads files or
imports torch.
"""

from __future__ import annotations

import functools
import os

DEFAULT, AVX2, AVX512 = "DEFAULT", "AVX2", "AVX512"


def _features() -> dict:
    try:
        from numpy._core._multiarray_umath import __cpu_features__
    except ImportError:                     # numpy < 2
        try:
            from numpy.core._multiarray_umath import __cpu_features__
        except ImportError:
            return {}
    return __cpu_features__


@functools.lru_cache(maxsize=1)
def capability() -> str:
    """``"AVX512"``, ``"AVX2"`` or ``"DEFAULT"``: what torch 2.13 would report on this CPU."""
    asked = {"default": DEFAULT, "avx2": AVX2, "avx512": AVX512}.get(os.environ.get("ATEN_CPU_CAPABILITY", ""))
    if asked:
        return asked
    f = _features()
    best = DEFAULT
    if f.get("AVX2") and f.get("FMA3"):
        best = AVX2
    if f.get("AVX512VL") and f.get("AVX512BW") and f.get("AVX512DQ") and f.get("FMA3"):
        best = AVX512
    return best
