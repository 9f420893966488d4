"""``itertools`` for scripts: lazy iterators written over the interpreter's limits.

Each iterator is an autotrace object whose ``__next__`` counts a step, so an endless
``count()`` or ``cycle()`` stops at the loop, step and time limits like a script loop,
and the combinatoric ones know their length: ``list(product(range(100), repeat=9))``
is refused by the sequence limit before any tuple is made. Results, argument errors
and reprs follow CPython 3.11's ``itertools``.
"""

from __future__ import annotations

import itertools as _it
import math as _math

from ..interpreter.builtins import ScriptNamespace
from ..interpreter.limits import RT, seq_limit
from ..interpreter.ops import add, take

_INTS = (int, bool)


class _Iter:
    """A one-pass iterator over a Python generator, one step per item."""

    __slots__ = ("_gen", "_left")
    _script_attrs = frozenset()
    _script_type_name = "itertools._grouper"     # the base serves as groupby's groups

    def __init__(self, gen, total=None):
        self._gen = gen
        self._left = total

    def __iter__(self):
        return self

    def __next__(self):
        RT.charge(1)
        v = next(self._gen)
        if self._left is not None:
            self._left -= 1
        return v

    def __length_hint__(self):
        return self._left if self._left is not None else 0

    def _script_length(self):
        """Items left when known (combinatoric iterators): lets the sequence limit refuse
        ``list(product(...))`` before building it."""
        return self._left

    def __repr__(self):
        return f"<itertools.{type(self).__name__} object at 0x{id(self):x}>"


def _kind(name):
    cls = type(name, (_Iter,), {"__slots__": (), "_script_type_name": f"itertools.{name}",
                                "__module__": __name__})
    return cls


_count, _cycle, _repeat, _chain, _islice, _zip_longest, _accumulate, _product, _permutations, \
    _combinations, _cwr, _starmap, _takewhile, _dropwhile, _filterfalse, _compress, _pairwise, _groupby = (
        _kind(n) for n in ("count", "cycle", "repeat", "chain", "islice", "zip_longest", "accumulate",
                           "product", "permutations", "combinations", "combinations_with_replacement",
                           "starmap", "takewhile", "dropwhile", "filterfalse", "compress", "pairwise",
                           "groupby"))


def _capped(lg: float, exact) -> int:
    """``exact()`` when its log (``lg``, natural) is small; else a number just past any
    sequence limit (huge ``math.perm``/``comb`` values are never computed)."""
    if lg > 64 * _math.log(2):
        return 1 << 64
    return exact()


def _lg_perm(n, r):
    return _math.lgamma(n + 1) - _math.lgamma(n - r + 1)


def _lg_comb(n, r):
    return _math.lgamma(n + 1) - _math.lgamma(r + 1) - _math.lgamma(n - r + 1)


def _pool(iterable):
    return tuple(take(iterable))


class _Count(_count):
    """``itertools.count``: CPython's repr (``count(5)``, ``count(0, 2)``) shows where it is."""

    __slots__ = ("_n", "_step")

    def __init__(self, start, step):
        super().__init__(None)
        self._n = start
        self._step = step

    def __next__(self):
        RT.charge(1)
        v = self._n
        self._n = add(v, self._step)
        return v

    def __repr__(self):
        from ..interpreter.ops import safe_repr
        if type(self._step) is int and self._step == 1:
            return f"count({safe_repr(self._n)})"
        return f"count({safe_repr(self._n)}, {safe_repr(self._step)})"


def count(start=0, step=1):
    for v in (start, step):
        if not isinstance(v, (int, float, complex)) and not hasattr(type(v), "__add__"):
            raise TypeError("a number is required")
    return _Count(start, step)


def cycle(iterable, /):
    saved = _pool(iterable)

    def gen():
        while saved:
            yield from saved
    return _cycle(gen())


class _Repeat(_repeat):
    """``itertools.repeat``: CPython's repr (``repeat('x')``, ``repeat('x', 2)``)."""

    __slots__ = ("_obj", "_times")

    def __init__(self, obj, times):
        super().__init__(_it.repeat(obj) if times is None else _it.repeat(obj, times),
                         None if times is None else max(times, 0))
        self._obj = obj
        self._times = times

    def __repr__(self):
        from ..interpreter.ops import safe_repr
        if self._times is None:
            return f"repeat({safe_repr(self._obj)})"
        return f"repeat({safe_repr(self._obj)}, {max(self._left, 0)})"


def repeat(object, times=None):
    if times is not None and type(times) not in _INTS:
        raise TypeError(f"'{type(times).__name__}' object cannot be interpreted as an integer")
    return _Repeat(object, times)


class _ChainFunction:
    """``itertools.chain`` and ``chain.from_iterable``."""

    __slots__ = ()
    _script_attrs = frozenset({"from_iterable"})
    _script_type_name = "type"
    __name__ = "chain"

    def __call__(self, *iterables):
        def gen():
            for it in iterables:
                yield from _lazy(it)
        return _chain(gen())

    @staticmethod
    def from_iterable(iterable, /):
        def gen():
            for it in _lazy(iterable):
                yield from _lazy(it)
        return _chain(gen())

    def __repr__(self):
        return "<class 'itertools.chain'>"


chain = _ChainFunction()


def _lazy(iterable):
    """Iterate ``iterable`` in Python, one step per item (C iterators of script data would
    otherwise run unbounded inside ``yield from``)."""
    it = iter(iterable)
    while True:
        RT.charge(1)
        try:
            v = next(it)
        except StopIteration:
            return
        yield v


def islice(iterable, *args):
    s = slice(*args)
    for v, what in ((s.start, "Indices"), (s.stop, "Stop argument"), (s.step, "Step")):
        if v is not None and (type(v) not in _INTS or v < 0):
            if what == "Step" and type(v) in _INTS and v == 0:
                break
            raise ValueError("Indices for islice() must be None or an integer: 0 <= x <= sys.maxsize."
                             if what != "Stop argument" else
                             "Stop argument for islice() must be None or an integer: 0 <= x <= sys.maxsize.")
    if s.step is not None and s.step == 0:
        raise ValueError("Step for islice() must be a positive integer or None.")
    return _islice(_it.islice(_lazy(iterable), *args))


def zip_longest(*iterables, fillvalue=None):
    return _zip_longest(_it.zip_longest(*(_lazy(i) for i in iterables), fillvalue=fillvalue))


def accumulate(iterable, func=None, *, initial=None):
    def gen():
        it = _lazy(iterable)
        total = initial
        if initial is None:
            try:
                total = next(it)
            except StopIteration:
                return
        yield total
        for x in it:
            total = add(total, x) if func is None else func(total, x)
            yield total
    return _accumulate(gen())


def _repeat_arg(repeat):
    if type(repeat) not in _INTS:
        raise TypeError(f"'{type(repeat).__name__}' object cannot be interpreted as an integer")
    if repeat < 0:
        raise ValueError("repeat argument cannot be negative")
    return repeat


def product(*iterables, repeat=1):
    repeat = _repeat_arg(repeat)
    if len(iterables) * repeat > RT.max_seq:
        raise seq_limit(len(iterables) * repeat)
    pools = [_pool(p) for p in iterables] * repeat if repeat else []
    if not all(pools):
        total = 0
    else:
        total = _capped(sum(_math.log(len(p)) for p in pools), lambda: _math.prod(len(p) for p in pools))
    return _product(_it.product(*pools), total)


def _r_arg(r, n):
    if r is None:
        return n
    if type(r) not in _INTS:
        raise TypeError("Expected int as r")
    if r < 0:
        raise ValueError("r must be non-negative")
    return r


def permutations(iterable, r=None):
    pool = _pool(iterable)
    r = _r_arg(r, len(pool))
    if r > RT.max_seq:
        raise seq_limit(r)
    if r > len(pool):
        return _permutations(iter(()), 0)
    return _permutations(_it.permutations(pool, r), _capped(_lg_perm(len(pool), r), lambda: _math.perm(len(pool), r)))


def combinations(iterable, r):
    pool = _pool(iterable)
    r = _r_arg(r, len(pool))
    if r > RT.max_seq:
        raise seq_limit(r)
    if r > len(pool):
        return _combinations(iter(()), 0)
    return _combinations(_it.combinations(pool, r), _capped(_lg_comb(len(pool), r), lambda: _math.comb(len(pool), r)))


def combinations_with_replacement(iterable, r):
    pool = _pool(iterable)
    r = _r_arg(r, len(pool))
    if r > RT.max_seq:
        raise seq_limit(r)
    n = len(pool)
    total = _capped(_lg_comb(n + r - 1, r), lambda: _math.comb(n + r - 1, r)) if n else (1 if r == 0 else 0)
    return _cwr(_it.combinations_with_replacement(pool, r), total)


def starmap(function, iterable, /):
    def gen():
        for args in _lazy(iterable):
            yield function(*args)
    return _starmap(gen())


def takewhile(predicate, iterable, /):
    def gen():
        for x in _lazy(iterable):
            if not predicate(x):
                return
            yield x
    return _takewhile(gen())


def dropwhile(predicate, iterable, /):
    def gen():
        it = _lazy(iterable)
        for x in it:
            if not predicate(x):
                yield x
                break
        yield from it
    return _dropwhile(gen())


def filterfalse(function, iterable, /):
    def gen():
        for x in _lazy(iterable):
            if not (bool(x) if function is None else function(x)):
                yield x
    return _filterfalse(gen())


def compress(data, selectors):
    return _compress(_it.compress(_lazy(data), _lazy(selectors)))


def pairwise(iterable, /):
    return _pairwise(_it.pairwise(_lazy(iterable)))


def groupby(iterable, key=None):
    def gen():
        for k, g in _it.groupby(_lazy(iterable), key):
            yield k, _Iter(iter(take(g)))
    return _groupby(gen())


def make_module() -> ScriptNamespace:
    """The ``itertools`` namespace."""
    from ..interpreter import typeobj
    members = {f.__name__: f for f in (count, cycle, repeat, islice, zip_longest, accumulate, product,
                                       permutations, combinations, combinations_with_replacement, starmap,
                                       takewhile, dropwhile, filterfalse, compress, pairwise, groupby)}
    members["chain"] = chain
    for cls in (_count, _cycle, _repeat, _chain, _islice, _zip_longest, _accumulate, _product, _permutations,
                _combinations, _cwr, _starmap, _takewhile, _dropwhile, _filterfalse, _compress, _pairwise,
                _groupby):
        typeobj.QUALIFIED[cls] = f"itertools.{cls.__name__}"
    return ScriptNamespace("itertools", members)
