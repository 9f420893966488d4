"""The script-facing samplers and in-place initialisers draw exactly torch 2.13's CPU
numbers for the same seed (values compared bit for bit against real torch)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from autotrace.tensor import Tensor  # noqa: E402
from autotrace.torch_api import modules  # noqa: E402

M = modules()["torch"]
P = [0.1, 0.2, 0.3, 0.4]


def _t(lib, a):
    return torch.tensor(a) if lib is torch else Tensor._make(np.array(a))


CASES = {
    "uniform_": lambda L: _t(L, np.zeros((5, 7), np.float32)).uniform_(-2, 3),
    "uniform_ f64": lambda L: _t(L, np.zeros(9)).uniform_(),
    "normal_ 16+": lambda L: _t(L, np.zeros(37, np.float32)).normal_(1.0, 2.0),
    "normal_ small": lambda L: _t(L, np.zeros(5)).normal_(),
    "random_ to": lambda L: _t(L, np.zeros(20, np.float32)).random_(10),
    "random_ from to": lambda L: _t(L, np.zeros(20, np.int64)).random_(-5, 2 ** 30),
    "random_ full f32": lambda L: _t(L, np.zeros(20, np.float32)).random_(),
    "random_ full i64": lambda L: _t(L, np.zeros(20, np.int64)).random_(),
    "random_ full i32": lambda L: _t(L, np.zeros(20, np.int32)).random_(),
    "bernoulli_ p": lambda L: _t(L, np.zeros(30, np.float32)).bernoulli_(0.3),
    "bernoulli_ tensor": lambda L: _t(L, np.zeros(4, np.float32)).bernoulli_(_t(L, np.array(P, np.float32))),
    "bernoulli f64": lambda L: L.bernoulli(_t(L, np.full(20, 0.5))),
    "exponential_": lambda L: _t(L, np.zeros(25, np.float32)).exponential_(3.0),
    "normal tensors": lambda L: L.normal(_t(L, np.arange(20, dtype=np.float32)), _t(L, np.full(20, 2, np.float32))),
    "normal floats": lambda L: L.normal(2.0, 3.0, (4, 5)),
    "multinomial": lambda L: L.multinomial(_t(L, np.array([1, 5, 0, 2, 7], np.float32)), 3),
    "multinomial rep": lambda L: L.multinomial(_t(L, np.array([P, P[::-1]], np.float32)), 6, replacement=True),
    "generator": lambda L: L.rand(3, 2, generator=L.Generator().manual_seed(11)),
    "randint size=": lambda L: L.randint(3, 9, size=(2, 3)),
    "randperm": lambda L: L.randperm(12),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_numbers_as_torch(name):
    torch.manual_seed(5)
    expected = CASES[name](torch).numpy()
    M.manual_seed(5)
    got = CASES[name](M)._data
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
