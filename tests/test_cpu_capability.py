"""autotrace picks the kernel variant torch 2.13 picks on this CPU (autotrace/ops/cpu.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from helpers import require_torch
from autotrace.ops import cpu
from autotrace import dtypes
from autotrace.tensor import Tensor
from autotrace.ops.nn import gelu

torch = require_torch()


def test_capability_is_torchs():
    assert cpu.CAPABILITY == torch.backends.cpu.get_cpu_capability()


@pytest.mark.parametrize("asked", ["default", "avx2", "avx512"])
def test_environment_lowers_the_capability_as_torch_does(asked):
    env = dict(os.environ, ATEN_CPU_CAPABILITY=asked)
    code = "import {m}; print({f})"
    ours = subprocess.run([sys.executable, "-c", code.format(m="autotrace.ops.cpu", f="autotrace.ops.cpu.CAPABILITY")],
                          env=env, capture_output=True, text=True, check=True).stdout
    theirs = subprocess.run([sys.executable, "-c", code.format(m="torch", f="torch.backends.cpu.get_cpu_capability()")],
                            env=env, capture_output=True, text=True, check=True).stdout
    assert ours == theirs


def test_gelu_sign_of_a_saturated_zero_is_torchs():
    x = np.array([-6.0, -10.0, -30.0, -1e30, -0.0, 0.0, -3.0] * 5, np.float32)
    ours = gelu(Tensor._make(x, dtypes.float32))._data
    ref = torch.nn.functional.gelu(torch.from_numpy(x)).numpy()
    assert np.array_equal(np.signbit(ours), np.signbit(ref))
    np.testing.assert_allclose(ours, ref, rtol=1e-4, atol=1e-7)  # 1 + erf cancels near -3


def test_gelu_of_contiguous_float32_is_onednns():
    # oneDNN's AVX512 gelu_erf is replayed bit for bit; its AVX2 form is approximated
    rng = np.random.default_rng(13)
    x = np.concatenate([rng.standard_normal(5000) * s for s in (0.01, 1, 3, 10)]).astype(np.float32)
    x = np.concatenate([x, np.array([np.inf, -np.inf, 1e-40, -1e-40, 5.5426, -5.5427, 3e38], np.float32)])
    ours = gelu(Tensor._make(x, dtypes.float32))._data
    ref = torch.nn.functional.gelu(torch.from_numpy(x)).numpy()
    if cpu.ONEDNN_AVX512:
        assert np.array_equal(ours.view(np.uint32), ref.view(np.uint32))
    else:
        np.testing.assert_allclose(ours, ref, rtol=1e-4, atol=1e-6)
