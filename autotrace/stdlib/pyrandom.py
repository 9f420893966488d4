"""``import random`` for scripts: CPython's Mersenne Twister and its exact numbers.

Each run draws from a fresh private ``random.Random`` (seeded from the OS, as CPython
seeds its module instance, until the script calls ``random.seed``); the script gets
only the module-level functions below, never the instance. The functions are CPython's
own (``random.Random``'s methods), so the same seed gives the same numbers; sizes they
would build (``choices(k=...)``, ``sample(..., k)``, ``getrandbits(k)``) are checked
against the sequence and integer limits before anything is made.
"""

from __future__ import annotations

import random as _random

from ..interpreter.builtins import ScriptNamespace
from ..interpreter.limits import RT, int_limit, seq_limit
from ..interpreter.ops import take

_INTS = (int, bool)


class _Rng(_random.Random):
    """CPython's generator, counting a step per draw: the rejection loops of CPython's
    samplers (``vonmisesvariate(0, nan)``, ``gammavariate(inf, 1)`` never end, in
    CPython too) stop at the step and time limits. Overriding ``getrandbits`` as well
    keeps CPython's ``_randbelow`` (and so its numbers for ``randrange``/``shuffle``)."""

    def random(self):
        RT.charge(1)
        return super().random()

    def getrandbits(self, k, /):
        RT.charge(1)
        return super().getrandbits(k)


_state = [_Rng()]


def reset() -> None:
    """A fresh generator for the next run (called before every run)."""
    _state[0] = _Rng()


def _rng() -> _random.Random:
    return _state[0]


def _named(f, name):
    f.__name__ = f.__qualname__ = name
    return f


def _seed(a=None, version=2):
    if type(a) is int and a.bit_length() > RT.max_bits:   # pragma: no cover - ints are already bounded
        raise int_limit(a.bit_length(), "random.seed")
    _rng().seed(a, version)


def _getrandbits(k, /):
    if type(k) in _INTS and k > RT.max_bits:
        raise int_limit(k, "random.getrandbits")
    return _rng().getrandbits(k)


def _choices(population, weights=None, *, cum_weights=None, k=1):
    if type(k) in _INTS and k > RT.max_seq:
        raise seq_limit(k)
    if type(k) in _INTS and k > 0:
        RT.charge(k)
    if weights is not None and type(weights) not in (list, tuple):
        weights = take(weights)
    if cum_weights is not None and type(cum_weights) not in (list, tuple):
        cum_weights = take(cum_weights)
    return _rng().choices(population, weights, cum_weights=cum_weights, k=k)


def _sample(population, k, *, counts=None):
    if type(k) in _INTS and k > RT.max_seq:
        raise seq_limit(k)
    if counts is not None:
        counts = take(counts)
        total = 0
        for c in counts:
            if type(c) in _INTS and c > 0:
                total += c
        if total > RT.max_seq:
            raise seq_limit(total)
    if type(k) in _INTS and k > 0:
        RT.charge(k)
    return _rng().sample(population, k, counts=counts)


def _shuffle(x, /):
    try:
        n = len(x)
    except TypeError:
        n = 0
    RT.charge(n)
    _rng().shuffle(x)


def _method(name):
    def f(*args, **kwargs):
        return getattr(_rng(), name)(*args, **kwargs)
    return _named(f, name)


_PLAIN = ("random", "uniform", "randint", "randrange", "choice", "gauss", "normalvariate",
          "lognormvariate", "expovariate", "vonmisesvariate", "gammavariate", "betavariate",
          "paretovariate", "weibullvariate", "triangular")


def make_module() -> ScriptNamespace:
    """The ``random`` namespace: seed, random, uniform, randint, randrange, choice,
    choices, shuffle, sample, gauss, getrandbits and CPython's other distributions."""
    members = {n: _method(n) for n in _PLAIN}
    members.update(seed=_named(_seed, "seed"), getrandbits=_named(_getrandbits, "getrandbits"),
                   choices=_named(_choices, "choices"), sample=_named(_sample, "sample"),
                   shuffle=_named(_shuffle, "shuffle"))
    return ScriptNamespace("random", members)
