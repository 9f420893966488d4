"""Fast paths give the bits of the plain formulas they replace."""

import numpy as np
import pytest

from autotrace.ops.unary import _sigmoid


def _two_branch_sigmoid(x):
    out = np.empty_like(x)
    pos = x >= 0
    out[pos] = 1 / (1 + np.exp(-x[pos]))
    e = np.exp(x[~pos])
    out[~pos] = e / (1 + e)
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("nan", [False, True])
def test_sigmoid_without_masks_has_the_two_branch_bits(dtype, nan):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal(200_000) * 30).astype(dtype)
    x[:6] = [np.inf, -np.inf, -0.0, 0.0, 1e-30, -1e-30]
    if nan:
        x[7], x[9] = -np.nan, np.nan
    assert np.array_equal(_sigmoid(x).view(np.uint8), _two_branch_sigmoid(x).view(np.uint8))
    for v in (-3.0, 2.0, np.nan, -0.0, -100.0, 100.0):
        x0 = np.array(v, dtype)
        got = _sigmoid(x0)
        assert got.shape == () and got.dtype == dtype
        assert got.tobytes() == _two_branch_sigmoid(x0).tobytes()
    m = x.reshape(400, 500)[:, ::3]  # a strided view
    assert np.array_equal(_sigmoid(m).view(np.uint8), _two_branch_sigmoid(m).view(np.uint8))
