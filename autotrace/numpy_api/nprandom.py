"""``np.random``: the legacy global RandomState and ``default_rng`` Generators, with
numpy's own numbers (numpy draws them). Each run has its own RandomState, seeded 0 until
the script calls ``np.random.seed`` (numpy seeds from the OS; autotrace stays
reproducible). Sizes are checked against the element limit before drawing."""

from __future__ import annotations

import numpy as np

from .. import resources
from .functions import _shape
from .ndarray import NDArray
from .values import as_dtype, to_numpy, wrap

_state: dict = {"rs": None}


def reset() -> None:
    _state["rs"] = None


def _rs() -> np.random.RandomState:
    rs = _state["rs"]
    if rs is None:
        rs = _state["rs"] = np.random.RandomState(0)
    return rs


def _size(size):
    return None if size is None else _shape(size)


def _dims(args):
    return _shape(tuple(args)) if args else None


def _seed(seed):
    if seed is None:
        return 0
    if type(seed) is int:
        return seed
    if type(seed) in (list, tuple, NDArray):
        a = to_numpy(seed)
        resources.check_count(a.size)
        return a
    raise TypeError("Cannot cast scalar from dtype('float64') to dtype('int64') according to the rule 'safe'")


def _arg(x):
    return x if type(x) in (int, float, bool) else to_numpy(x)


def _sample_size(size, *params):
    """The number of values a draw makes: ``size``, else the broadcast of array parameters."""
    if size is not None:
        return _size(size)
    shapes = [np.shape(p) for p in params if isinstance(p, np.ndarray)]
    if shapes:
        resources.check_broadcast_size(*shapes)
    return None


class _Draws:
    """The methods shared by RandomState and Generator (``self._g`` draws)."""

    def random(self, size=None):
        return wrap(self._g.random(_size(size)) if isinstance(self._g, np.random.Generator)
                    else self._g.random_sample(_size(size)))

    def uniform(self, low=0.0, high=1.0, size=None):
        lo, hi = _arg(low), _arg(high)
        return wrap(self._g.uniform(lo, hi, _sample_size(size, lo, hi)))

    def normal(self, loc=0.0, scale=1.0, size=None):
        m, s = _arg(loc), _arg(scale)
        return wrap(self._g.normal(m, s, _sample_size(size, m, s)))

    def standard_normal(self, size=None):
        return wrap(self._g.standard_normal(_size(size)))

    def exponential(self, scale=1.0, size=None):
        s = _arg(scale)
        return wrap(self._g.exponential(s, _sample_size(size, s)))

    def binomial(self, n, p, size=None):
        a, b = _arg(n), _arg(p)
        return wrap(self._g.binomial(a, b, _sample_size(size, a, b)))

    def poisson(self, lam=1.0, size=None):
        a = _arg(lam)
        return wrap(self._g.poisson(a, _sample_size(size, a)))

    def choice(self, a, size=None, replace=True, p=None):
        pool = a if type(a) is int else to_numpy(a)
        n = pool if type(pool) is int else (len(pool) if pool.ndim else 0)
        shape = _size(size)
        if shape is not None and not replace:
            k = 1
            for s in shape:
                k *= s
            resources.check_count(max(k, n if type(pool) is int else 0))
        if type(pool) is int and (not replace or p is not None):
            resources.check_count(max(pool, 0))     # numpy builds arange(a) for p= and no replace
        return wrap(self._g.choice(pool, shape, bool(replace), None if p is None else to_numpy(p)))

    def shuffle(self, x):
        if type(x) is NDArray:
            self._g.shuffle(x._array)
        elif type(x) is list:
            self._g.shuffle(x)
        else:
            raise TypeError("shuffle(): x must be an array or a list")

    def permutation(self, x):
        if type(x) is int:
            resources.check_count(max(x, 0))
            return wrap(self._g.permutation(x))
        return wrap(self._g.permutation(to_numpy(x)))


class RandomState(_Draws):
    """``np.random.RandomState(seed)``; the module functions use the run's own one."""

    __slots__ = ("_g",)
    _script_attrs = frozenset({"seed", "rand", "randn", "randint", "random", "random_sample", "sample",
                               "uniform", "normal", "standard_normal", "exponential", "binomial",
                               "poisson", "choice", "shuffle", "permutation"})

    def __init__(self, seed=None):
        self._g = np.random.RandomState(_seed(seed))

    def seed(self, seed=None):
        self._g.seed(_seed(seed))

    def rand(self, *args):
        return wrap(self._g.rand(*(_dims(args) or ())))

    def randn(self, *args):
        return wrap(self._g.randn(*(_dims(args) or ())))

    def randint(self, low, high=None, size=None, dtype=int):
        lo, hi = _arg(low), None if high is None else _arg(high)
        return wrap(self._g.randint(lo, hi, _sample_size(size, lo, hi), as_dtype(dtype)))

    def random_sample(self, size=None):
        return wrap(self._g.random_sample(_size(size)))

    sample = random_sample


class Generator(_Draws):
    """``np.random.default_rng(seed)``: a PCG64 Generator."""

    __slots__ = ("_g",)
    _script_attrs = frozenset({"random", "integers", "uniform", "normal", "standard_normal", "exponential",
                               "binomial", "poisson", "choice", "shuffle", "permutation"})

    def __init__(self, seed=None):
        self._g = np.random.default_rng(_seed(seed))

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        lo, hi = _arg(low), None if high is None else _arg(high)
        dt = np.dtype(np.int64) if dtype is np.int64 else as_dtype(dtype)
        return wrap(self._g.integers(lo, hi, _sample_size(size, lo, hi), dt, bool(endpoint)))

    def __repr__(self) -> str:
        return "Generator(PCG64)"


def default_rng(seed=None):
    return Generator(seed)


def _global():
    g = RandomState.__new__(RandomState)
    g._g = _rs()
    return g


def _module_fn(name):
    def f(*args, **kwargs):
        return getattr(_global(), name)(*args, **kwargs)
    f.__name__ = name
    return f


def members() -> dict:
    out = {n: _module_fn(n) for n in RandomState._script_attrs}
    out.update(RandomState=RandomState, default_rng=default_rng)
    return out
