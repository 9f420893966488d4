"""oneDNN's float32 eltwise kernels that torch 2.13 calls instead of ATen's own.

``torch.nn.functional.gelu`` (``approximate='none'``) of a contiguous float32 tensor of
more than one element goes to oneDNN's ``eltwise_gelu_erf`` (``aten/src/ATen/native/
Activation.cpp``, ``use_mkldnn``). On a CPU with AVX512 (:data:`.cpu.ONEDNN_AVX512`) the
JIT injector evaluates it as ``gelu_erf_minimax_approx_compute_vector_fwd`` in
``src/cpu/x64/injectors/jit_uni_eltwise_injector.cpp``: ``erf(x/√2)`` as one of 25
degree-5 minimax polynomials in ``|x|``, picked by the exponent and two leading mantissa
bits of ``|x|``, evaluated by fused multiply-adds, and every element (the tail too, under
a mask) through the same code.
"""

from __future__ import annotations

import numpy as np

from .fma import fma32

F32 = np.float32

# gelu_erf_minimax_pol (float32 bit patterns), one row per degree 0..5, 25 polynomials each:
# index 23 is the constant 1 (erf saturated), index 24 the identity (NaN passes through)
_POL = np.array([
    [0xa6f2cb94, 0x32827792, 0x3381cc0c, 0x34523d4a, 0x351ac44d, 0x35f36d88, 0x36ee8229,
     0x37b8a3bb, 0x3867a213, 0x3940033b, 0x3a2a5a1d, 0x3ae35863, 0x3b7828f2, 0x3c08b14b,
     0x3c515ed3, 0xbb503236, 0xbd8d8e5e, 0xbe8abcd9, 0xbf0c19a2, 0xbeccb328, 0x3e176ced,
     0x3f470d99, 0x3f7abb28, 0x3f800000, 0x00000000],
    [0x3f4c422a, 0x3f4c421f, 0x3f4c4207, 0x3f4c41cb, 0x3f4c413b, 0x3f4c3fad, 0x3f4c3a2f,
     0x3f4c2d40, 0x3f4c146a, 0x3f4bc341, 0x3f4ad08c, 0x3f48f8cf, 0x3f45fac7, 0x3f404e07,
     0x3f3b980f, 0x3f48dff3, 0x3f78b21b, 0x3fbb0704, 0x40019c32, 0x3fe536d6, 0x3f81331e,
     0x3e6c8684, 0x3c98f936, 0x00000000, 0x3f800000],
    [0xb62173f4, 0x3735e4cf, 0x37f2ff89, 0x388c23be, 0x3917535c, 0x39ab2ab0, 0x3a60fadb,
     0x3af9b960, 0x3b6e5491, 0x3c0a4ec5, 0x3ca5aa8c, 0x3d2138d9, 0x3d8737d4, 0x3ddfb660,
     0x3e0f27ab, 0x3d94004b, 0xbe0efdeb, 0xbf1d96c3, 0xbf89db58, 0xbf6d9897, 0xbef69fb8,
     0xbdc4f8a8, 0xbbde6422, 0x00000000, 0x00000000],
    [0xbe081a19, 0xbe084570, 0xbe08639b, 0xbe089837, 0xbe08f409, 0xbe09ab95, 0xbe0b66d0,
     0xbe0e400a, 0xbe124df8, 0xbe1bde02, 0xbe2f19c9, 0xbe4931bf, 0xbe685fbc, 0xbe89c95f,
     0xbe96cbca, 0xbe8044aa, 0xbe0550f2, 0x3dcfd6a1, 0x3e94c826, 0x3e79345f, 0x3decec91,
     0x3ca46568, 0x3aa1e00a, 0x00000000, 0x00000000],
    [0xba3d61db, 0x39f097a3, 0x3a5845dc, 0x3ab1fa35, 0x3b0cefb8, 0x3b653ab6, 0x3bcae527,
     0x3c221712, 0x3c6c5840, 0x3cc0a703, 0x3d1dcc19, 0x3d63656d, 0x3d955907, 0x3dbf9910,
     0x3dd53f69, 0x3db7dcef, 0x3d639ebe, 0xba6ede48, 0xbd22be69, 0xbd041cf1, 0xbc64f5ab,
     0xbb097a32, 0xb8ebf380, 0x00000000, 0x00000000],
    [0x3cb7d80c, 0x3c9b6050, 0x3c978d11, 0x3c92e850, 0x3c8d058b, 0x3c848454, 0x3c6cd623,
     0x3c4c824b, 0x3c2a7935, 0x3be0b390, 0x3b0651ac, 0xbb232f53, 0xbbd42fa0, 0xbc2c5366,
     0xbc492c9e, 0xbc2a7aa6, 0xbbd55d04, 0xba823a76, 0x3b102aa8, 0x3ae25a7e, 0x3a31f792,
     0x38b84375, 0x3689bb5a, 0x00000000, 0x00000000],
], np.uint32).view(F32)

_IDX_BIAS = np.int32(np.uint32(0xc21fffff).view(np.int32))
_RBOUND = np.uint32(0x40b15cee).view(F32)          # ≈ 5.5426: erf(x/√2) is ±1 in float32 past it


def gelu_erf_avx512(x: np.ndarray) -> np.ndarray:
    """``0.5·x·(1 + erf(x/√2))`` of a float32 array as oneDNN's AVX512 JIT computes it:
    ``p = P_i(|x|)`` (Horner by fmas), ``i`` from the bits of ``|x|`` (plus a bias,
    shifted right by 21, clamped to 1..24; 23 past the bound where erf is ±1), the sign of
    ``x`` put on ``p``, then ``(x·(p + 1))·0.5``; a saturated negative ``x`` gives -0."""
    x = np.asarray(x, F32)
    ax = np.abs(x)
    with np.errstate(all="ignore"):
        bits = ax.view(np.int32)
        idx = ((bits + _IDX_BIAS) >> 21).clip(1, 24)      # int32 add wraps, as vpaddd
        idx = np.where(ax > _RBOUND, 23, idx)
        pol = _POL[5][idx]
        for deg in range(4, -1, -1):
            pol = fma32(pol, ax, _POL[deg][idx])
        pol = np.where(np.signbit(x), -pol, pol).astype(F32)
        return ((x * (pol + F32(1))) * F32(0.5)).astype(F32)
