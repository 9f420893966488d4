"""PyTorch's default CPU random number generator, re-implemented with numpy.

A script that calls ``torch.manual_seed(s)`` and then draws random numbers gets,
from :func:`manual_seed` and the :class:`Generator` methods here, the numbers that
PyTorch 2.13 (CPU build, x86-64 with AVX2 or AVX-512, the ATen CPU capability
reported by ``torch.backends.cpu.get_cpu_capability()``) gives.  Nothing here imports
torch.

How PyTorch's CPU generator works (and so how this module works)
-----------------------------------------------------------------
* The engine is a standard 32-bit Mersenne Twister (mt19937).  ``manual_seed(s)``
  stores the full 64-bit seed (negative seeds wrap modulo 2**64) for
  :meth:`Generator.initial_seed`, but the twister is initialised (``init_genrand``)
  from its low 32 bits only.  Each draw is one 32-bit output; a "64-bit draw" is two
  consecutive outputs, the first one being the high word.
* float32 uniforms take the low 24 bits of one 32-bit draw times 2**-24; float64
  uniforms take the low 53 bits of one 64-bit draw times 2**-53.  ``uniform_(a, b)``
  is ``fma(u, b - a, a)`` in the tensor's precision (GCC contracts it to a fused
  multiply-add), and a result that rounds up to ``b`` is replaced by ``a``.
* ``normal_``/``randn`` has two algorithms.  Contiguous tensors of 16 or more elements
  are first filled with uniforms (one per element), then each block of 16 is turned
  into normals by Box-Muller, pairing element ``j`` (radius) with ``j + 8`` (angle);
  when the size is not a multiple of 16, 16 *fresh* uniforms are drawn and the last
  16 elements are recomputed from them.  float32 uses the AVX "avx_mathfun" Cephes
  polynomials for log/sin/cos (emulated here operation for operation, including the
  places where the compiler fused multiply-adds); float64 uses the C library's
  ``log``/``sin``/``cos`` (called here through :mod:`math`, which is the same libm).
  Smaller tensors draw pairs of float64 uniforms per element in double precision
  (``r = sqrt(-2 log1p(-u2))``, ``theta = 2 pi u1``), return ``r cos(theta)`` and
  cache ``r sin(theta)`` in the generator for the next small-path draw; the cache is
  part of the state and is cleared by ``manual_seed``.
* ``randint`` uses one 32-bit draw per element (``draw % range + low``) when
  ``high - low < 2**28`` and one 64-bit draw otherwise.
* ``bernoulli_(p)`` (the dropout mask) compares one float64 uniform per element
  with ``p``.
* ``randperm(n)`` is a Fisher-Yates shuffle with ``n - 1`` 32-bit draws (and, for
  n >= 214748364, PyTorch's "inside-out" variant with 64-bit draws).

Exactness: every function here is bit-identical to torch 2.13 on CPU, float32 and
float64 alike -- no ulp tolerance is needed anywhere (``tests/test_random.py`` compares
with ``==``; the float32 Box-Muller kernel was also checked against torch over all 2**24
possible float32 uniforms, by feeding crafted mt19937 states to both).

Platform caveats: float64 normals and the small-tensor normal path call the C
library's transcendental functions exactly as PyTorch does, so they are bit-identical
when torch and Python share the same libm (always so on one machine).  The float32
large-tensor ``randn``/``normal_`` path reproduces PyTorch's AVX2/AVX-512 kernel; on a
CPU without AVX2, or under ``ATEN_CPU_CAPABILITY=default``, PyTorch itself switches to a
scalar kernel (angle in double precision, libm ``logf``/``cosf``/``sinf``) whose float32
results differ from these in the low bits (measured on 10**6 ``randn`` values: 39% of
them differ, by at most 2.3e-6 absolute).  Everything else is independent of the CPU
capability.

Public API: :class:`Generator`, :data:`default_generator`, :func:`manual_seed`,
:func:`initial_seed`, :func:`seed`, :func:`get_rng_state`, :func:`set_rng_state` and
:func:`kaiming_uniform_linear`.  Shapes are an int or a tuple of ints (``()`` gives a
0-d array); dtypes are ``"float32"``/``"float64"`` (numpy dtypes are accepted too).
"""

from __future__ import annotations

import math
import os
import numpy as np

__all__ = [
    "Generator",
    "default_generator",
    "manual_seed",
    "initial_seed",
    "seed",
    "get_rng_state",
    "set_rng_state",
    "kaiming_uniform_linear",
    "DEFAULT_RNG_SEED",
    "STATE_DTYPE",
]

#: The seed of a freshly constructed ``torch.Generator()`` (``default_rng_seed_val``).
DEFAULT_RNG_SEED = 67280421310721

_N = 624
_M = 397
_MATRIX_A = np.uint32(0x9908B0DF)
_UPPER = np.uint32(0x80000000)
_LOWER = np.uint32(0x7FFFFFFF)
_U64_MASK = (1 << 64) - 1
_NUMPY_DRAWS = 2048  # from this many draws on, numpy's own MT19937 generates them
_CHUNK = 1 << 16     # elements per chunk of the float32 normal kernel (fits the caches)

#: numpy layout of the 5056-byte state that ``torch.get_rng_state()`` returns
#: (``CPUGeneratorImplState``: the legacy TH generator record plus the float cache).
STATE_DTYPE = np.dtype(
    [
        ("the_initial_seed", "<u8"),
        ("left", "<i4"),
        ("seeded", "<i4"),
        ("next", "<u8"),
        ("state", "<u8", (_N,)),
        ("normal_x", "<f8"),
        ("normal_y", "<f8"),
        ("normal_rho", "<f8"),
        ("normal_is_valid", "<i4"),
        ("_pad0", "<i4"),
        ("next_float_normal_sample", "<f4"),
        ("is_next_float_normal_sample_valid", "u1"),
        ("_pad1", "u1", (3,)),
    ]
)
assert STATE_DTYPE.itemsize == 5056


# ----------------------------------------------------------------------------- helpers


def _normalize_seed(seed) -> int:
    """``torch.manual_seed``'s seed rules: ``int(seed)``, in [-2**63, 2**64); negatives wrap."""
    s = int(seed)
    if s < -(1 << 63) or s > _U64_MASK:
        raise ValueError("Overflow when unpacking long long")
    return s & _U64_MASK


def _shape(shape) -> tuple[int, ...]:
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    shape = tuple(int(d) for d in shape)
    for d in shape:
        if d < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {d}: {list(shape)}"
            )
    return shape


def _float_dtype(dtype) -> np.dtype:
    dt = np.dtype(dtype)
    if dt not in (np.float32, np.float64):
        raise TypeError(f"expected dtype float32 or float64, got {dt}")
    return dt


def _numel(shape: tuple[int, ...]) -> int:
    return math.prod(shape)


# Error-free transformations used to emulate fused multiply-add in numpy.


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _add_round_to_odd(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a + b`` in float64 rounded to odd (inexact results get an odd last bit)."""
    s, err = _two_sum(a, b)
    fix = (err != 0) & ((s.view(np.int64) & 1) == 0)
    if np.any(fix):
        s = np.where(fix, np.where(err > 0, np.nextafter(s, np.inf), np.nextafter(s, -np.inf)), s)
    return s


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c = a * 134217729.0  # 2**27 + 1 (Veltkamp)
    hi = c - (c - a)
    return hi, a - hi


def _fma64(a, b, c) -> np.ndarray:
    """Correctly rounded float64 ``a * b + c`` (Boldo-Melquiond emulation via round-to-odd).

    Exact for finite operands as long as ``a * b`` and its rounding error stay clear of
    overflow and of the subnormal range (true of everything this module feeds it).
    """
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    c = np.asarray(c, np.float64)
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    with np.errstate(invalid="ignore", over="ignore"):
        th, tl = _two_sum(c, p)
        v = _add_round_to_odd(tl, e)
        out = th + v
    # Non-finite operands: the plain expression has the right inf/nan.
    bad = ~np.isfinite(out) | ~np.isfinite(p)
    if np.any(bad):
        out = np.where(bad, p + c, out)
    return out


def _fma32(a, b, c) -> np.ndarray:
    """Correctly rounded float32 ``a * b + c`` for float32 operands.

    The float64 product of two float32 values is exact; adding ``c`` with round-to-odd
    in float64 and then rounding to float32 is a correct single rounding.
    """
    p = np.asarray(a, np.float32).astype(np.float64) * np.asarray(b, np.float32).astype(np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        out = _add_round_to_odd(p, np.asarray(c, np.float32).astype(np.float64))
        return out.astype(np.float32)


_TIE_MASK = np.uint64((1 << 29) - 1)
_TIE = np.uint64(1 << 28)


def _pick(v, idx):
    return v.ravel()[idx] if isinstance(v, np.ndarray) and v.ndim else v


def _fma32f(a, b, c, subnormal: bool = False) -> np.ndarray:
    """:func:`_fma32` at numpy speed: ``a * b`` is exact in float64, ``+ c`` rounds once
    in float64 and the cast to float32 rounds again. The two roundings can differ from
    one correct rounding only when the float64 sum lands exactly on a float32 midpoint
    (low 29 mantissa bits ``1000...0``); those rare elements are recomputed exactly.
    ``subnormal``: also recompute results in float32's subnormal range (whose midpoints
    sit higher), for inputs that can get there."""
    s = np.multiply(a, b, dtype=np.float64)
    np.add(s, c, out=s, casting="unsafe")
    out = s.astype(np.float32)
    bits = s.view(np.uint64)
    np.bitwise_and(bits, _TIE_MASK, out=bits)
    redo = bits == _TIE
    if subnormal:
        redo |= np.abs(out) < _F(2.0**-126)
    if redo.any():
        idx = np.flatnonzero(redo)
        shape = out.shape
        flat = out.ravel()
        flat[idx] = _fma32(_pick(a, idx) if np.ndim(a) else a, _pick(b, idx) if np.ndim(b) else b,
                           _pick(c, idx) if np.ndim(c) else c)
        out = flat.reshape(shape)
    return out


def _libm(fn, x: np.ndarray) -> np.ndarray:
    """Apply a :mod:`math` function (the C library's, as PyTorch calls it) elementwise."""
    flat = x.ravel().tolist()
    return np.fromiter(map(fn, flat), dtype=np.float64, count=len(flat)).reshape(x.shape)


# --------------------------------------------------------- avx_mathfun (float32 Cephes)

_F = np.float32
_MIN_NORM_POS = np.array(0x00800000, np.int32).view(np.float32)
_LOG_P = [_F(v) for v in (
    7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1,
    1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1,
    3.3333331174e-1,
)]
_LOG_Q1 = _F(-2.12194440e-4)
_LOG_Q2 = _F(0.693359375)
_SQRTHF = _F(0.707106781186547524)
_DP1 = _F(-0.78515625)
_DP2 = _F(-2.4187564849853515625e-4)
_DP3 = _F(-3.77489497744594108e-8)
_SINCOF = [_F(-1.9515295891e-4), _F(8.3321608736e-3), _F(-1.6666654611e-1)]
_COSCOF = [_F(2.443315711809948e-005), _F(-1.388731625493765e-003), _F(4.166664568298827e-002)]
_FOPI = _F(1.27323954473516)
_TWO_PI_F = _F(2.0 * math.pi)


def _log_ps(x: np.ndarray) -> np.ndarray:
    """``log256_ps`` from PyTorch's avx_mathfun.h for positive float32 input, bit for bit.

    GCC (-mfma) fuses the polynomial's multiply-adds and ``y*z + e*q1``; the other
    products are exact, so fused or not makes no difference for them.
    """
    x = np.maximum(x, _MIN_NORM_POS)
    xi = x.view(np.int32)
    e = ((xi >> 23) - 0x7F).astype(_F) + _F(1)
    x = ((xi & ~0x7F800000) | np.array(0.5, _F).view(np.int32)).view(_F)
    mask = x < _SQRTHF
    tmp = np.where(mask, x, _F(0))
    x = x - _F(1)
    e = e - np.where(mask, _F(1), _F(0))
    x = x + tmp
    z = x * x
    y = _fma32f(_LOG_P[0], x, _LOG_P[1])
    for p in _LOG_P[2:]:
        y = _fma32f(y, x, p)
    y = y * x
    y = _fma32f(y, z, e * _LOG_Q1)
    y = y - z * _F(0.5)
    x = x + y
    x = x + e * _LOG_Q2
    return x


def _sincos_ps(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``sincos256_ps`` from PyTorch's avx_mathfun.h (float32), bit for bit, with GCC's FMAs."""
    sign_sin = np.signbit(x)
    x = np.abs(x)
    j = (x * _FOPI).astype(np.int32)  # cvttps: truncation
    j = (j + 1) & ~1
    y = j.astype(_F)
    swap_sign_sin = (j & 4) != 0
    poly_mask = (j & 2) == 0
    x = _fma32f(y, _DP1, x)
    x = _fma32f(y, _DP2, x)
    x = _fma32f(y, _DP3, x)
    cos_negative = (~(j - 2) & 4) != 0
    sign_sin = sign_sin ^ swap_sign_sin
    z = x * x
    yc = _fma32f(_COSCOF[0], z, _COSCOF[1])
    yc = _fma32f(yc, z, _COSCOF[2])
    yc = yc * z
    yc = _fma32f(yc, z, -(z * _F(0.5)))
    yc = yc + _F(1)
    ys = _fma32f(_SINCOF[0], z, _SINCOF[1])
    ys = _fma32f(ys, z, _SINCOF[2])
    ys = ys * z
    ys = _fma32f(ys, x, x)
    s = np.where(poly_mask, ys, yc)
    c = np.where(poly_mask, yc, ys)
    s = np.where(sign_sin, -s, s)
    c = np.where(cos_negative, -c, c)
    return s, c


def _box_muller16_f32(u: np.ndarray, mean: np.float32, std: np.float32) -> np.ndarray:
    """PyTorch's AVX2 ``NormalFill16<float>`` applied to every block of 16 uniforms."""
    blocks = u.reshape(-1, 16)
    u1 = _F(1) - blocks[:, :8]
    u2 = blocks[:, 8:]
    radius = np.sqrt(_F(-2) * _log_ps(u1))
    theta = _TWO_PI_F * u2
    sin_t, cos_t = _sincos_ps(theta)
    out = np.empty_like(blocks)
    out[:, :8] = _fma32f(radius * cos_t, std, mean, subnormal=True)
    out[:, 8:] = _fma32f(radius * sin_t, std, mean, subnormal=True)
    return out.ravel()


def _box_muller16_f64(u: np.ndarray, mean: float, std: float) -> np.ndarray:
    """PyTorch's scalar ``NormalFill16<double>`` (libm log/cos/sin, fma) on blocks of 16."""
    blocks = u.reshape(-1, 16)
    u1 = 1.0 - blocks[:, :8]
    u2 = blocks[:, 8:]
    radius = np.sqrt(-2.0 * _libm(math.log, u1))
    theta = (2.0 * math.pi) * u2
    out = np.empty_like(blocks)
    out[:, :8] = _fma64(radius * _libm(math.cos, theta), std, mean)
    out[:, 8:] = _fma64(radius * _libm(math.sin, theta), std, mean)
    return out.ravel()


# ----------------------------------------------------------------------------- mt19937


def _init_genrand(seed32: int) -> np.ndarray:
    state = [0] * _N
    x = seed32 & 0xFFFFFFFF
    for j in range(_N):
        state[j] = x
        x = (1812433253 * (x ^ (x >> 30)) + j + 1) & 0xFFFFFFFF
    return np.array(state, dtype=np.uint32)


def _twist(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    y = (u & _UPPER) | (v & _LOWER)
    return (y >> np.uint32(1)) ^ np.where((v & np.uint32(1)) != 0, _MATRIX_A, np.uint32(0))


def _next_state(old: np.ndarray) -> np.ndarray:
    """One mt19937 regeneration of all 624 words, in four vectorised chunks."""
    new = np.empty_like(old)
    k = _N - _M  # 227
    new[:k] = old[_M:] ^ _twist(old[:k], old[1 : k + 1])
    new[k : 2 * k] = new[:k] ^ _twist(old[k : 2 * k], old[k + 1 : 2 * k + 1])
    new[2 * k : _N - 1] = new[k : _N - 1 - k] ^ _twist(old[2 * k : _N - 1], old[2 * k + 1 : _N])
    new[_N - 1] = new[_N - 1 - k] ^ _twist(old[_N - 1 : _N], new[0:1])[0]
    return new


def _temper(y: np.ndarray) -> np.ndarray:
    y = y ^ (y >> np.uint32(11))
    y = y ^ ((y << np.uint32(7)) & np.uint32(0x9D2C5680))
    y = y ^ ((y << np.uint32(15)) & np.uint32(0xEFC60000))
    return y ^ (y >> np.uint32(18))


class _MT19937:
    """at::mt19937 with PyTorch's ``left``/``next`` bookkeeping (so states round-trip)."""

    __slots__ = ("seed", "state", "left", "next")

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.state = _init_genrand(seed & 0xFFFFFFFF)
        self.left = 1  # the first draw regenerates
        self.next = 0

    def copy(self) -> "_MT19937":
        other = _MT19937.__new__(_MT19937)
        other.seed, other.state, other.left, other.next = self.seed, self.state.copy(), self.left, self.next
        return other

    def random32(self, n: int) -> np.ndarray:
        """The next ``n`` 32-bit outputs (uint32)."""
        if n >= _NUMPY_DRAWS:
            return self._random32_numpy(n)
        out = np.empty(n, dtype=np.uint32)
        done = 0
        while done < n:
            if self.left <= 1:
                self.state = _next_state(self.state)
                self.left = _N + 1
                self.next = 0
            k = min(n - done, self.left - 1, _N - self.next)
            if k <= 0:
                raise RuntimeError("Invalid mt19937 state")
            out[done : done + k] = _temper(self.state[self.next : self.next + k])
            self.next += k
            self.left -= k
            done += k
        return out

    def _random32_numpy(self, n: int) -> np.ndarray:
        """numpy's MT19937 is the same twister (same regeneration and tempering): hand it
        this state (``pos`` 624 means "regenerate first") and read the state back."""
        bg = np.random.MT19937()
        pos = _N if self.left <= 1 else self.next
        bg.state = {"bit_generator": "MT19937", "state": {"key": self.state, "pos": pos}}
        out = np.random.Generator(bg).integers(0, 1 << 32, size=n, dtype=np.uint32)
        st = bg.state["state"]
        self.state = st["key"].astype(np.uint32)
        self.next = int(st["pos"])
        self.left = _N + 1 - self.next
        return out

    def random64(self, n: int) -> np.ndarray:
        """The next ``n`` 64-bit draws (uint64): first 32-bit output is the high word."""
        r = self.random32(2 * n).astype(np.uint64).reshape(n, 2)
        return (r[:, 0] << np.uint64(32)) | r[:, 1]


# --------------------------------------------------------------------------- Generator


class Generator:
    """PyTorch's CPU generator (``torch.Generator()`` / ``torch.default_generator``).

    ``Generator(seed)`` behaves like ``torch.Generator().manual_seed(seed)``;
    ``Generator()`` seeds itself from ``os.urandom`` like PyTorch's default generator
    at start-up (``torch.Generator()`` itself starts at :data:`DEFAULT_RNG_SEED`; pass
    that to reproduce it).  All sampling methods return new numpy arrays of the given
    shape and consume the generator exactly as the matching torch call does, so calls
    can be interleaved in any order.
    """

    _script_attrs = frozenset({"manual_seed", "seed", "initial_seed", "device"})

    def __repr__(self) -> str:
        return f"<torch._C.Generator object at 0x{id(self):x}>"

    @property
    def device(self):
        from .device import CPU
        return CPU

    def __init__(self, seed: int | None = None) -> None:
        self._engine: _MT19937
        self._normal_cache: float | None = None
        if seed is None:
            self.seed()
        else:
            self.manual_seed(seed)

    # -- seeding and state ------------------------------------------------------------

    def manual_seed(self, seed: int) -> "Generator":
        """``torch.Generator.manual_seed`` / ``torch.manual_seed``: reseed, clear the normal cache.

        ``int(seed)`` must lie in [-2**63, 2**64) (negatives wrap modulo 2**64), else
        ``ValueError`` as in torch.  Returns ``self``.
        """
        s = _normalize_seed(seed)
        self._engine = _MT19937(s)
        self._normal_cache = None
        return self

    def seed(self) -> int:
        """``torch.Generator.seed``: reseed from ``os.urandom`` and return the new 64-bit seed."""
        s = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        """``torch.Generator.initial_seed``: the last seed, as an unsigned 64-bit int."""
        return self._engine.seed

    def get_state(self) -> np.ndarray:
        """A copy of the state: uint8 array of 5056 bytes in ``torch.get_rng_state()``'s layout.

        It is interchangeable with torch's (``torch.set_rng_state(torch.from_numpy(s))``
        gives torch this generator's state, and ``set_state(torch.get_rng_state().numpy())``
        the reverse).
        """
        rec = np.zeros((), dtype=STATE_DTYPE)
        e = self._engine
        rec["the_initial_seed"] = e.seed
        rec["left"] = e.left
        rec["seeded"] = 1
        rec["next"] = e.next
        rec["state"] = e.state.astype(np.uint64)
        if self._normal_cache is not None:
            rec["normal_is_valid"] = 1
            rec["normal_y"] = self._normal_cache
        return np.frombuffer(rec.tobytes(), dtype=np.uint8).copy()

    def set_state(self, state) -> None:
        """Restore a state from :meth:`get_state` (or from ``torch.get_rng_state()``)."""
        raw = np.asarray(state, dtype=np.uint8).ravel()
        if raw.size != STATE_DTYPE.itemsize:
            raise RuntimeError(
                f"Expected either a THGeneratorState of size 5048 or a CPUGeneratorImplState "
                f"of size {STATE_DTYPE.itemsize} but found the input RNG state size to be {raw.size}"
            )
        rec = raw.copy().view(STATE_DTYPE)[0]
        left, nxt = int(rec["left"]), int(rec["next"]) & 0xFFFFFFFF
        if not (int(rec["seeded"]) and 0 < left <= _N and nxt <= _N):
            raise RuntimeError("Invalid mt19937 state")
        e = _MT19937.__new__(_MT19937)
        e.seed = int(rec["the_initial_seed"])
        e.state = (rec["state"] & np.uint64(0xFFFFFFFF)).astype(np.uint32)
        e.left, e.next = left, nxt
        self._engine = e
        self._normal_cache = float(rec["normal_y"]) if int(rec["normal_is_valid"]) else None

    def clone(self) -> "Generator":
        """An independent generator in the same state (``torch.Generator.clone_state``)."""
        g = Generator.__new__(Generator)
        g._engine = self._engine.copy()
        g._normal_cache = self._normal_cache
        return g

    # -- raw uniforms -----------------------------------------------------------------

    def _uniform01(self, n: int, dtype: np.dtype) -> np.ndarray:
        """``at::uniform_real_distribution<T>(0, 1)`` ``n`` times (float32: 24 bits, float64: 53)."""
        if dtype == np.float32:
            r = self._engine.random32(n) & np.uint32(0xFFFFFF)
            return r.astype(np.float32) * np.float32(2.0**-24)
        r = self._engine.random64(n) & np.uint64((1 << 53) - 1)
        return r.astype(np.float64) * (2.0**-53)

    # -- sampling ---------------------------------------------------------------------

    def rand(self, shape, dtype="float32") -> np.ndarray:
        """Matches ``torch.rand(shape, dtype=dtype)`` on CPU bit for bit (float32 and float64).

        Uniform on [0, 1): float32 values are multiples of 2**-24 (one 32-bit draw
        each), float64 values multiples of 2**-53 (one 64-bit draw each).
        """
        return self.uniform_(shape, 0.0, 1.0, dtype)

    def uniform_(self, shape, a: float = 0.0, b: float = 1.0, dtype="float32") -> np.ndarray:
        """What ``torch.empty(shape, dtype=dtype).uniform_(a, b)`` writes, bit for bit.

        ``a``/``b`` are rounded to ``dtype``; each value is ``fma(u, b - a, a)`` with a
        uniform ``u`` as in :meth:`rand`, and a value equal to ``b`` becomes ``a``.
        """
        shape = _shape(shape)
        dt = _float_dtype(dtype)
        if not a <= b:
            raise RuntimeError(
                f"uniform_ expects to return a [from, to) range, but found from={a:g} > to={b:g}"
            )
        if b - a > np.finfo(dt).max:
            raise RuntimeError(
                "uniform_ expects to-from <= std::numeric_limits<Float>::max(), but found "
                f"to={b:g} and from={a:g} which result in to-from to exceed the limit"
            )
        n = _numel(shape)
        u = self._uniform01(n, dt)
        lo, hi = dt.type(a), dt.type(b)
        if lo == 0 and hi == 1:
            out = u  # fma(u, 1, 0) == u and u < 1
        else:
            width = hi - lo
            out = _fma32f(u, width, lo, subnormal=True) if dt == np.float32 else _fma64(u, width, lo)
            out = np.where(out == hi, lo, out).astype(dt)
        return out.reshape(shape)

    def randn(self, shape, dtype="float32") -> np.ndarray:
        """Matches ``torch.randn(shape, dtype=dtype)`` on CPU bit for bit (float32 and float64).

        See :meth:`normal_` for the two algorithms (16 or more elements vs. fewer).
        """
        return self.normal_(shape, 0.0, 1.0, dtype)

    def normal_(self, shape, mean: float = 0.0, std: float = 1.0, dtype="float32") -> np.ndarray:
        """What ``torch.empty(shape, dtype=dtype).normal_(mean, std)`` writes, bit for bit.

        * 16 or more elements: ``n`` uniforms of ``dtype`` are drawn, Box-Muller is
          applied per block of 16 (element j gives the radius, j + 8 the angle,
          outputs ``r cos`` to j and ``r sin`` to j + 8, then ``fma(z, std, mean)``);
          for ``n % 16 != 0`` 16 more uniforms are drawn and the last 16 outputs are
          recomputed from them.  float32 runs PyTorch's AVX2 Cephes polynomials
          (``avx_mathfun.h``) with ``mean``/``std`` rounded to float32; float64 uses
          libm log/cos/sin.
        * fewer than 16 elements: per element, the cached second sample if there is
          one, else two float64 uniforms ``u1, u2`` (64-bit draws) give
          ``r = sqrt(-2 log1p(-u2))``, ``theta = 2 pi u1``; ``r cos(theta)`` is used and
          ``r sin(theta)`` cached in the generator.  The value is
          ``fma(z, std, mean)`` in float64, then rounded to ``dtype``.
        """
        shape = _shape(shape)
        dt = _float_dtype(dtype)
        if not std >= 0.0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
        n = _numel(shape)
        if n >= 16:
            if dt == np.float32:
                m, s = np.float32(mean), np.float32(std)
                fill = _box_muller16_f32
            else:
                m, s = float(mean), float(std)
                fill = _box_muller16_f64
            full = (n // 16) * 16
            if dt == np.float32:
                errs = np.seterr(over="ignore", invalid="ignore")
                # in chunks: draws, uniforms and the kernel's temporaries stay small
                data = np.empty(n, dt)
                for start in range(0, full, _CHUNK):
                    stop = min(full, start + _CHUNK)
                    data[start:stop] = fill(self._uniform01(stop - start, dt), m, s)
                if n > full:
                    self._engine.random32(n - full)  # drawn for the tail, then overwritten
                np.seterr(**errs)
            else:
                data = self._uniform01(n, dt)
                data[:full] = fill(data[:full], m, s)
            if n % 16:
                data[n - 16 :] = fill(self._uniform01(16, dt), m, s)
            return data.reshape(shape)
        out = np.empty(n, dtype=np.float64)
        for i in range(n):
            if self._normal_cache is not None:
                z, self._normal_cache = self._normal_cache, None
            else:
                u1, u2 = self._uniform01(2, np.dtype(np.float64)).tolist()
                r = math.sqrt(-2.0 * math.log1p(-u2))
                theta = 2.0 * math.pi * u1
                self._normal_cache = r * math.sin(theta)
                z = r * math.cos(theta)
            out[i] = z
        return _fma64(out, float(std), float(mean)).astype(dt).reshape(shape)

    def randint(self, low: int, high: int, shape) -> np.ndarray:
        """Matches ``torch.randint(low, high, shape)`` (int64) on CPU exactly.

        ``range = high - low``; each value is ``draw % range + low`` with a 32-bit
        draw when ``range < 2**28`` and a 64-bit draw otherwise.
        """
        shape = _shape(shape)
        low, high = int(low), int(high)
        if not (-(1 << 63) <= low < (1 << 63) and -(1 << 63) <= high < (1 << 63)):
            raise ValueError("Overflow when unpacking long long")
        if not low < high:
            raise RuntimeError(
                f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
            )
        rng = high - low
        n = _numel(shape)
        if rng >= 1 << 28:
            v = self._engine.random64(n) % np.uint64(rng)
        else:
            v = self._engine.random32(n).astype(np.uint64) % np.uint64(rng)
        out = (v + np.uint64(low & _U64_MASK)).view(np.int64)
        return out.reshape(shape)

    def bernoulli(self, p: float, shape, dtype="float32") -> np.ndarray:
        """What ``torch.empty(shape, dtype=dtype).bernoulli_(p)`` writes (0/1), exactly.

        One float64 uniform (64-bit draw) per element; the value is ``u < p``.
        ``torch.nn.functional.dropout(x, p, training=True)`` on CPU draws its mask as
        ``bernoulli(1 - p, x.shape, x.dtype)`` and returns ``x * mask / (1 - p)``
        (for ``p == 0`` and ``p == 1`` it draws nothing).
        """
        shape = _shape(shape)
        p = float(p)
        if not 0.0 <= p <= 1.0:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
        dt = np.dtype(dtype)
        u = self._uniform01(_numel(shape), np.dtype(np.float64))
        return (u < p).astype(dt).reshape(shape)

    def randperm(self, n: int) -> np.ndarray:
        """Matches ``torch.randperm(n)`` (int64) on CPU exactly.

        Fisher-Yates: for i in 0..n-2 swap positions i and ``i + draw32 % (n - i)``.
        (For n >= 214748364 PyTorch's inside-out shuffle with 64-bit draws; that size is
        slow here, the shuffle being a Python loop.)
        """
        n = int(n)
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
        if n < 0xFFFFFFFF // 20:
            draws = self._engine.random32(max(n - 1, 0)).astype(np.int64)
            if n > 1:
                offsets = (draws % np.arange(n, 1, -1, dtype=np.int64)).tolist()
            else:
                offsets = []
            perm = list(range(n))
            for i, z in enumerate(offsets):
                j = i + z
                perm[i], perm[j] = perm[j], perm[i]
            return np.array(perm, dtype=np.int64)
        draws = self._engine.random64(n)
        zs = (draws % np.arange(1, n + 1, dtype=np.uint64)).astype(np.int64).tolist()
        perm = [0] * n
        for i, z in enumerate(zs):
            perm[i] = perm[z]
            perm[z] = i
        return np.array(perm, dtype=np.int64)


# ------------------------------------------------------------------- module-level API

#: The module's default generator (``torch.default_generator``): seeded from
#: ``os.urandom`` at import, like PyTorch's; :func:`manual_seed` reseeds it.
default_generator = Generator()


def manual_seed(seed) -> Generator:
    """``torch.manual_seed(seed)``: reseed :data:`default_generator` and return it."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """``torch.seed()``: reseed :data:`default_generator` non-deterministically."""
    return default_generator.seed()


def initial_seed() -> int:
    """``torch.initial_seed()``."""
    return default_generator.initial_seed()


def get_rng_state() -> np.ndarray:
    """``torch.get_rng_state()`` as a uint8 numpy array (same 5056-byte layout)."""
    return default_generator.get_state()


def set_rng_state(state) -> None:
    """``torch.set_rng_state(state)``."""
    default_generator.set_state(state)


def kaiming_uniform_linear(
    gen: Generator,
    out_features: int,
    in_features: int,
    dtype="float32",
    bias: bool = True,
) -> tuple[np.ndarray, np.ndarray | None]:
    """``torch.nn.Linear(in_features, out_features, bias=bias, dtype=dtype)``'s initial
    ``(weight, bias)``, bit for bit, consuming ``gen`` in the same order.

    ``reset_parameters``: ``kaiming_uniform_(weight, a=sqrt(5))``, i.e.
    ``weight.uniform_(-bound, bound)`` with ``bound = sqrt(3) * sqrt(2 / (1 + a**2)) /
    sqrt(fan_in)`` (computed with Python floats in torch's order), then
    ``bias.uniform_(-1/sqrt(fan_in), 1/sqrt(fan_in))`` (bound 0 when fan_in is 0).
    ``weight`` has shape ``(out_features, in_features)``, ``bias`` ``(out_features,)``
    (``None`` when ``bias=False``).  A weight with a zero dimension draws nothing (torch
    leaves it uninitialised; zeros here).
    """
    dt = _float_dtype(dtype)
    out_features, in_features = int(out_features), int(in_features)
    wshape = (out_features, in_features)
    if out_features == 0 or in_features == 0:
        weight = np.zeros(wshape, dtype=dt)
    else:
        a = math.sqrt(5)
        gain = math.sqrt(2.0 / (1 + a**2))
        std = gain / math.sqrt(in_features)
        bound = math.sqrt(3.0) * std
        weight = gen.uniform_(wshape, -bound, bound, dt)
    b = None
    if bias:
        fan_in = in_features
        bbound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        b = gen.uniform_((out_features,), -bbound, bbound, dt)
    return weight, b

