"""``functools`` for scripts: partial, reduce, wraps, lru_cache/cache, cmp_to_key.

``partial`` objects show ``func``/``args``/``keywords`` (the script's own values) and
nothing else; ``wraps`` gives the wrapper the wrapped function's ``__name__`` (a new
script function over the same code, so decorators print the right name);
``lru_cache``/``cache`` cache results in a dictionary bounded by ``maxsize`` and the
sequence limit, with ``cache_info()`` and ``cache_clear()``.
"""

from __future__ import annotations

import functools as _ft
from collections import OrderedDict

from ..interpreter.builtins import ScriptNamespace
from ..interpreter.limits import RT, seq_limit
from ..interpreter.ops import hash_check, safe_callable, safe_repr
from ..interpreter.values import ScriptFunction

_info_type = []


def _cache_info_type():
    if not _info_type:
        from ..interpreter import typeobj
        from .collections_ import namedtuple
        t = namedtuple("CacheInfo", ["hits", "misses", "maxsize", "currsize"])
        typeobj.QUALIFIED[t] = "functools.CacheInfo"
        _info_type.append(t)
    return _info_type[0]


class partial:
    """``functools.partial(func, *args, **keywords)``."""

    __slots__ = ("func", "args", "keywords", "__weakref__")
    _script_attrs = frozenset({"func", "args", "keywords"})
    _script_type_name = "functools.partial"

    def __init__(self, func, /, *args, **keywords):
        if not callable(func):
            raise TypeError("the first argument must be callable")
        if type(func) is partial:
            args = func.args + args
            keywords = {**func.keywords, **keywords}
            func = func.func
        self.func = func
        self.args = args
        self.keywords = keywords

    def __call__(self, *args, **keywords):
        f = safe_callable(self.func)
        return f(*self.args, *args, **{**self.keywords, **keywords})

    def __repr__(self):
        parts = [safe_repr(self.func)] + [safe_repr(a) for a in self.args]
        parts += [f"{k}={safe_repr(v)}" for k, v in self.keywords.items()]
        return f"functools.partial({', '.join(parts)})"


def reduce(function, iterable, *initial):
    """CPython's ``functools.reduce`` (one step per item)."""
    if len(initial) > 1:
        raise TypeError(f"reduce expected at most 3 arguments, got {2 + len(initial)}")
    it = iter(iterable)
    if initial:
        acc = initial[0]
    else:
        try:
            acc = next(it)
        except StopIteration:
            raise TypeError("reduce() of empty iterable with no initial value") from None
    while True:
        RT.charge(1)
        try:
            x = next(it)
        except StopIteration:
            return acc
        acc = function(acc, x)


def _renamed(wrapper, wrapped):
    from ..interpreter.typeobj import name_of
    if type(wrapper) is not ScriptFunction:
        return wrapper
    name = name_of(wrapped)
    if type(name) is not str:
        return wrapper
    code = wrapper._code
    new = type(code).__new__(type(code))
    for slot in type(code).__slots__:
        if hasattr(code, slot):
            setattr(new, slot, getattr(code, slot))
    new.name = name
    qual = getattr(getattr(wrapped, "_code", None), "qualname", None)
    if hasattr(new, "qualname"):
        new.qualname = qual if type(qual) is str else name
    return ScriptFunction(new, wrapper._env, wrapper._defaults, wrapper._kwdefaults)


def wraps(wrapped, assigned=None, updated=None):
    """``@functools.wraps(f)``: the decorated wrapper takes ``f``'s name."""
    def deco(wrapper):
        return _renamed(wrapper, wrapped)
    return deco


def update_wrapper(wrapper, wrapped, assigned=None, updated=None):
    return _renamed(wrapper, wrapped)


class _Cached:
    """A function wrapped by ``lru_cache``/``cache``."""

    __slots__ = ("_f", "_maxsize", "_store", "_hits", "_misses", "__weakref__")
    _script_attrs = frozenset({"cache_info", "cache_clear"})
    _script_type_name = "functools._lru_cache_wrapper"

    def __init__(self, f, maxsize):
        self._f = f
        self._maxsize = maxsize
        self._store = OrderedDict()
        self._hits = 0
        self._misses = 0

    def __call__(self, *args, **kwargs):
        key = args + ((_KWMARK,) + tuple(kwargs.items()) if kwargs else ())
        hash_check(key)
        store = self._store
        if key in store:
            self._hits += 1
            store.move_to_end(key)
            return store[key]
        self._misses += 1
        v = self._f(*args, **kwargs)
        if self._maxsize != 0:
            if len(store) >= RT.max_seq:
                raise seq_limit(len(store) + 1)
            store[key] = v
            if self._maxsize is not None and len(store) > self._maxsize:
                store.popitem(last=False)
        return v

    def cache_info(self):
        return _cache_info_type()(self._hits, self._misses, self._maxsize, len(self._store))

    def cache_clear(self):
        self._store.clear()
        self._hits = self._misses = 0

    def __repr__(self):
        return safe_repr(self._f)


_KWMARK = object()


def lru_cache(maxsize=128, typed=False):
    if callable(maxsize) and not isinstance(maxsize, bool):
        return _renamed_cache(maxsize, 128)
    if maxsize is not None and not isinstance(maxsize, int):
        raise TypeError("Expected first argument to be an integer, a callable, or None")
    if maxsize is not None and maxsize < 0:
        maxsize = 0

    def deco(f):
        return _renamed_cache(f, maxsize)
    return deco


def _renamed_cache(f, maxsize):
    return _Cached(f, maxsize)


def cache(user_function, /):
    return _Cached(user_function, None)


def cmp_to_key(mycmp):
    return _ft.cmp_to_key(mycmp)


def make_module() -> ScriptNamespace:
    """The ``functools`` namespace."""
    from ..interpreter import typeobj
    typeobj.EXPOSED.add(partial)
    typeobj.QUALIFIED[partial] = "functools.partial"
    return ScriptNamespace("functools", {"partial": partial, "reduce": reduce, "wraps": wraps,
                                         "update_wrapper": update_wrapper, "lru_cache": lru_cache,
                                         "cache": cache, "cmp_to_key": cmp_to_key})
