"""torch_sum / sum / mean reproduce torch's CPU float rounding bit for bit.

Compares bit patterns against real torch over random vectors (sizes 1..5000, plus a few
sizes that take torch's multi-thread paths) and 2-d/3-d shapes reduced over every dim,
with and without keepdim, float32 and float64.
"""

import numpy as np
import pytest

from helpers import require_torch

from autotrace.ops import reduce
from autotrace.ops import summation
from autotrace.ops.summation import small_sum, torch_sum
from autotrace.tensor import Tensor

DTYPES = (np.float32, np.float64)
SHAPES_2D = [(a, b) for a in (1, 2, 3, 5, 7, 8, 9, 16, 33, 64, 65, 129)
             for b in (1, 3, 4, 7, 8, 9, 16, 31, 32, 33, 40, 65, 100)]
SHAPES_3D = [(3, 5, 7), (4, 17, 33), (2, 100, 9), (6, 8, 70), (5, 1, 40)]


def _bits(x):
    x = np.asarray(x)
    return x.shape, x.tobytes()


def _cases(rng, dtype):
    for n in list(range(1, 130)) + [int(v) for v in rng.integers(130, 5001, 400)]:
        yield (rng.standard_normal(n) * rng.choice([1.0, 1e3])).astype(dtype), None, False
    for shape in SHAPES_2D + SHAPES_3D:
        a = rng.standard_normal(shape).astype(dtype)
        yield a, None, False
        for d in range(len(shape)):
            for keepdim in (False, True):
                yield a, d, keepdim
    for shape in [(70000,), (64, 1000), (1000, 64), (300, 200)]:  # threaded paths
        a = rng.standard_normal(shape).astype(dtype)
        yield a, None, False
        for d in range(len(shape)):
            yield a, d, False


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
def test_torch_sum_bit_exact(dtype):
    torch = require_torch()
    rng = np.random.default_rng(20240)
    total, bad = 0, []
    for a, d, keepdim in _cases(rng, dtype):
        t = torch.from_numpy(a)
        ref = (t.sum() if d is None else t.sum(d, keepdim=keepdim)).numpy()
        total += 1
        if _bits(torch_sum(a, d, keepdim)) != _bits(ref):
            bad.append((a.shape, d, keepdim))
        # transposed views iterate in memory order, as torch does
        if a.ndim == 2:
            tt = t.T
            ref = (tt.sum() if d is None else tt.sum(d, keepdim=keepdim)).numpy()
            total += 1
            if _bits(torch_sum(a.T, d, keepdim)) != _bits(ref):
                bad.append(("T", a.shape, d, keepdim))
    assert total >= 1000
    assert not bad, f"{len(bad)}/{total} differ from torch, e.g. {bad[:5]}"


@pytest.mark.parametrize("dtype", ("float32", "float64"))
def test_sum_and_mean_ops_match_torch(dtype):
    torch = require_torch()
    rng = np.random.default_rng(7)
    for shape in [(1000,), (37, 29), (8, 300), (300, 8), (4, 5, 66)]:
        a = rng.standard_normal(shape).astype(dtype)
        x, t = Tensor._make(a.copy()), torch.from_numpy(a)
        for d in [None] + list(range(len(shape))):
            for name in ("sum", "mean"):
                fn = getattr(reduce, name)
                ours = fn(x) if d is None else fn(x, d)
                ref = getattr(t, name)() if d is None else getattr(t, name)(d)
                assert _bits(ours._data) == _bits(ref.numpy()), (name, shape, d)


def test_integer_sums_stay_exact():
    a = np.arange(10**6, dtype=np.int64) * 3
    assert torch_sum(a) == a.sum()
    assert np.array_equal(torch_sum(a.reshape(1000, 1000), 0), a.reshape(1000, 1000).sum(0))
    assert torch_sum(np.ones(10, bool)) == 10


def test_negative_zero_sums_to_positive_zero():
    assert np.signbit(np.float32(-0.0))
    assert not np.signbit(torch_sum(np.full(20, -0.0, np.float32)))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.__name__)
def test_small_sums_take_the_scalar_path_bit_exact(dtype):
    """Fewer elements than one SIMD vector are summed in scalar arithmetic (the fast
    path): checked against torch over wide magnitudes (cancellation), signed zeros,
    inf/nan, and shapes whose reduced dim is the only non-1 dim."""
    torch = require_torch()
    rng = np.random.default_rng(7)
    bad = []
    lanes = summation._lanes(dtype)  # one SIMD vector: below it, the scalar path
    for n in range(1, 8):
        for trial in range(400):
            x = (rng.standard_normal(n) * 10.0 ** rng.integers(-8, 9, n)).astype(dtype)
            if trial % 9 == 0:
                x[rng.integers(0, n)] = -0.0
            if trial % 13 == 0:
                x[:] = -0.0
            if trial == 17:
                x[0] = np.inf
            if trial == 19:
                x[-1] = -np.inf
                x[0] = np.inf
            if trial == 23:
                x[n // 2] = np.nan
            if trial in (29, 31):   # float32 partial sums that overflow, or round to the largest finite
                x[:] = np.finfo(dtype).max * (1.0 if trial == 29 else 0.5)
                x[-1] = -x[-1] if trial == 31 else x[-1]
            for a, d in ((x, None), (x.reshape(1, n), 1), (x.reshape(n, 1), 0), (x.reshape(1, n, 1), None)):
                ref = (torch.from_numpy(a).sum() if d is None else torch.from_numpy(a).sum(d)).numpy()
                if _bits(torch_sum(a, d)) != _bits(ref):
                    bad.append((a.shape, d, x.tolist()))
                if d is None:
                    # the op's shortcut (reduce.sum of fewer elements than one vector)
                    short = small_sum(a)
                    if (short is None) != (n >= lanes) or (short is not None and _bits(short) != _bits(ref)) \
                            or _bits(reduce.sum(Tensor._make(a))._data) != _bits(ref):
                        bad.append(("small_sum", a.shape, x.tolist()))
    assert not bad, bad[:3]
    assert small_sum(np.ones(8, np.float32)) is None and small_sum(np.ones(4)) is None  # one vector: the cascade
    assert small_sum(np.ones((3, 2), np.float32).T) is None  # not C-contiguous: torch_sum's layout
    assert small_sum(np.ones(3, np.int64)) is None and small_sum(np.float32(1).reshape(())) is None
