"""The builtins scripts see, and a safe ``math`` namespace.

Only the names in :data:`BUILTINS` exist for scripts. Types (``int``, ``str``,
``list``, ...) and exception classes are the real ones, so ``isinstance`` and
``except`` behave like Python's; the guard gives scripts none of their attributes,
and calls of ``str``/``list``/``tuple``/``dict``/``set`` are redirected to the
size-limited versions in :data:`~autotrace.interpreter.ops.SAFE_CTORS`. Functions that
consume iterables (``sum``, ``min``, ``sorted``, ...) iterate with step counting and
the sequence limit instead of looping unboundedly in C.
"""

from __future__ import annotations

import builtins as _py
import math as _math

from .classes import NOT_FOUND, ClassMethod, Property, ScriptObject, StaticMethod, make_super
from .guard import get_attr, has_attr, set_attr
from .typeobj import isinstance_ as _isinstance, issubclass_ as _issubclass, type_of
from .limits import RT, int_limit, seq_limit
from .ops import (CONTAINERS, SAFE_CTORS, add, as_index, deep_check, hash_check, mul, pow_, safe_ascii,
                  safe_callable, safe_format, safe_repr, safe_str, take)
from .values import CaughtException

_NO = object()


def _named(name: str):
    def deco(f):
        f.__name__ = name
        f.__qualname__ = name
        return f
    return deco


@_named("print")
def print_(*args, sep=" ", end="\n", file=None, flush=False):
    """print() into the run's captured stdout (``file=`` is refused)."""
    if file is not None:
        raise TypeError("print(file=...) is not supported in autotrace scripts: output always goes to stdout")
    if sep is None:
        sep = " "
    elif type(sep) is not str:
        raise TypeError(f"sep must be None or a string, not {type(sep).__name__}")
    if end is None:
        end = "\n"
    elif type(end) is not str:
        raise TypeError(f"end must be None or a string, not {type(end).__name__}")
    if len(args) == 1:
        text = safe_str(args[0])
        if len(text) + len(end) > RT.max_out - RT.out_len:
            RT.write(text)              # writes what fits, raises the output limit
        RT.write(text + end)
        return
    parts = []
    try:
        for a in args:
            parts.append(safe_str(a))
    except Exception:
        if parts:       # CPython has written the arguments before the failing one, each with its sep
            RT.write(sep.join(parts) + sep)
        raise
    room = RT.max_out - RT.out_len
    total = sum(map(len, parts)) + len(sep) * max(0, len(parts) - 1) + len(end)
    if total > room:
        # join only what can be shown: a huge sep must not be materialised n times
        buf = []
        used = 0
        for i, p in enumerate(parts):
            for piece in ((sep, p) if i else (p,)):
                buf.append(piece[:room + 1 - used])
                used += len(buf[-1])
                if used > room:
                    RT.write("".join(buf))
        RT.write("".join(buf) + end[:room + 1 - used])
    RT.write(sep.join(parts) + end)


def _minmax(name, f):
    @_named(name)
    def mm(*args, key=_NO, default=_NO):
        if not args:
            raise TypeError(f"{name} expected at least 1 argument, got 0")
        if len(args) == 1:
            items = take(args[0])
        else:
            if default is not _NO:
                raise TypeError(f"Cannot specify a default for {name}() with multiple positional arguments")
            items = args
        deep_check(items if type(items) in CONTAINERS else list(items))
        kw = {}
        if key is not _NO:
            kw["key"] = safe_callable(key)
        if default is not _NO:
            kw["default"] = default
        return f(items, **kw)
    return mm


min_ = _minmax("min", _py.min)
max_ = _minmax("max", _py.max)

_NUMS = frozenset({int, float, bool})


@_named("sum")
def sum_(iterable, /, start=0):
    """sum() with checked additions (sizes of sequences) and step counting."""
    if type(start) is str:
        raise TypeError("sum() can't sum strings [use ''.join(seq) instead]")
    items = take(iterable)
    if type(start) in _NUMS and set(map(type, items)) <= _NUMS:
        return _py.sum(items, start)
    acc = start
    for x in items:
        acc = add(acc, x)
    return acc


@_named("sorted")
def sorted_(iterable, /, *, key=None, reverse=False):
    items = list(take(iterable))
    deep_check(items)
    RT.charge(len(items))
    items.sort(key=safe_callable(key), reverse=reverse)
    return items


def _truth(name, want):
    @_named(name)
    def f(iterable, /):
        st = RT
        n = 0
        for v in iterable:
            if bool(v) is want:
                st.charge(n & 1023)
                return want
            n += 1
            if not n & 1023:
                st.charge(1024)
        st.charge(n & 1023)
        return not want
    return f


any_ = _truth("any", True)
all_ = _truth("all", False)


@_named("map")
def map_(func, iterable, /, *iterables):
    return _py.map(safe_callable(func), iterable, *iterables)


@_named("filter")
def filter_(func, iterable, /):
    return _py.filter(safe_callable(func), iterable)


@_named("iter")
def iter_(obj, *sentinel):
    if sentinel:
        return _py.iter(safe_callable(obj), *sentinel)
    return _py.iter(obj)


isinstance_ = _named("isinstance")(_isinstance)
issubclass_ = _named("issubclass")(_issubclass)


@_named("type")
def type_(*args, **kwargs):
    """``type(x)``: a safe type object (see :mod:`.typeobj`); the 3-argument form that
    builds classes is refused."""
    if len(args) == 1 and not kwargs:
        return type_of(args[0])
    if len(args) == 3:
        raise TypeError("type() with 3 arguments (building a class) is not supported yet in autotrace scripts")
    raise TypeError("type() takes 1 or 3 arguments")


_NODEFAULT = object()


@_named("getattr")
def getattr_(obj, name, default=_NODEFAULT, /):
    """``getattr`` through the guard (the same rules as ``obj.name``)."""
    if type(name) is not str:
        raise TypeError(f"attribute name must be string, not '{type(name).__name__}'")
    if default is _NODEFAULT:
        return get_attr(obj, name)
    try:
        return get_attr(obj, name)
    except AttributeError:
        return default


@_named("setattr")
def setattr_(obj, name, value, /):
    """``setattr`` through the guard (the same rules as ``obj.name = value``)."""
    if type(name) is not str:
        raise TypeError(f"attribute name must be string, not '{type(name).__name__}'")
    set_attr(obj, name, value)


@_named("super")
def super_(*args):
    """``super(Cls, obj)``; the zero-argument form is compiled where it is written."""
    if len(args) != 2:
        raise RuntimeError("super(): no arguments") if not args else \
            TypeError("super() with one argument is not supported yet in autotrace scripts")
    return make_super(*args)


@_named("hash")
def hash_(obj, /):
    hash_check(obj)
    return _py.hash(obj)


@_named("hasattr")
def hasattr_(obj, name, /):
    return has_attr(obj, name)


@_named("pow")
def pow_builtin(base, exp, mod=None):
    return pow_(base, exp, mod)


@_named("repr")
def repr_(obj, /):
    return safe_repr(obj)


@_named("format")
def format_(value, format_spec="", /):
    return safe_format(value, format_spec)


def _not_int(x) -> TypeError:
    from .values import display_name
    return TypeError(f"'{display_name(x)}' object cannot be interpreted as an integer")


def _index(x):
    """``x.__index__()`` as CPython's int-taking builtins read it, the script class's name
    in the TypeError (Python would name autotrace's mixin class)."""
    if isinstance(x, ScriptObject):
        raise _not_int(x)
    return x


@_named("chr")
def chr_(i, /):
    """``chr``: CPython's ValueError outside ``range(0x110000)``, OverflowError past a C int."""
    return _py.chr(_index(i))


@_named("ord")
def ord_(c, /):
    if isinstance(c, ScriptObject):
        raise TypeError(f"ord() expected string of length 1, but {c._cls.name} found")
    return _py.ord(c)


def _int_text(name, f):
    @_named(name)
    def g(x, /):
        x = _index(x)
        n = as_index(x)
        if type(n) in (int, bool) and n.bit_length() > RT.max_seq:
            raise seq_limit(n.bit_length() + 3)
        return f(x)
    g.__doc__ = f"``{name}``: the digits of an integer (an integer's size is bounded by the int-bits limit)."
    return g


@_named("ascii")
def ascii_(obj, /):
    return safe_ascii(obj)


bin_ = _int_text("bin", _py.bin)
hex_ = _int_text("hex", _py.hex)
oct_ = _int_text("oct", _py.oct)


EXCEPTIONS = {
    c.__name__: c for c in (
        Exception, RuntimeError, ValueError, TypeError, IndexError, KeyError,
        ZeroDivisionError, AssertionError, ArithmeticError, LookupError,
        NotImplementedError, StopIteration, AttributeError, NameError, OverflowError,
        Warning, UserWarning, DeprecationWarning, FutureWarning, RuntimeWarning,
        PendingDeprecationWarning)
}

#: every name scripts can use without binding it
BUILTINS: dict[str, object] = {
    "__name__": "__main__",     # a script always runs as the main program
    "print": print_, "len": _py.len, "range": _py.range, "abs": _py.abs, "min": min_,
    "max": max_, "sum": sum_, "round": _py.round, "float": _py.float, "int": _py.int,
    "bool": _py.bool, "str": _py.str, "list": _py.list, "tuple": _py.tuple,
    "dict": _py.dict, "set": _py.set, "zip": _py.zip, "enumerate": _py.enumerate,
    "isinstance": isinstance_, "sorted": sorted_, "reversed": _py.reversed, "any": any_,
    "all": all_, "map": map_, "filter": filter_, "pow": pow_builtin, "divmod": _py.divmod,
    "repr": repr_, "format": format_, "iter": iter_, "next": _py.next, "hasattr": hasattr_,
    "callable": _py.callable, "type": type, "issubclass": issubclass_, "getattr": getattr_,
    "setattr": setattr_, "super": super_, "object": object, "staticmethod": StaticMethod,
    "classmethod": ClassMethod, "property": Property, "NotImplemented": NotImplemented,
    "hash": hash_, "__name__": "__main__", "chr": chr_, "ord": ord_, "bin": bin_, "hex": hex_, "oct": oct_,
    "ascii": ascii_, "frozenset": _py.frozenset, "slice": _py.slice,
    **EXCEPTIONS,
}

# ``type(x)`` in a script calls the real ``type`` object (so ``isinstance(c, type)`` works);
# calls of it are redirected like the other builtin types'
SAFE_CTORS[type] = type_


# ---------------------------------------------------------------------------
# namespaces

class ScriptNamespace:
    """A module-like object for scripts: every attribute given is readable.

    ``ScriptNamespace("math", {"pi": 3.14, ...})``. The guard reads members through the
    type's ``_script_getattr`` (the members dict given here, nothing else of the object);
    ``setattrs`` names members scripts may assign.
    """

    __slots__ = ("_members", "_setattrs", "_name")

    def __init__(self, name: str, attrs: dict, setattrs=()):
        self._members = dict(attrs)
        self._setattrs = frozenset(setattrs)
        self._name = name

    def __getattr__(self, name):
        try:
            return object.__getattribute__(self, "_members")[name]
        except KeyError:
            raise AttributeError(name) from None

    def _script_getattr(self, name):
        return self._members.get(name, NOT_FOUND)

    def _script_setattr(self, name, value):
        if name not in self._setattrs:
            from .errors import ScriptAttributeError
            if name in self._members:
                raise ScriptAttributeError(f"attribute {name!r} of module {self._name!r} is not writable")
            raise ScriptAttributeError(f"module {self._name!r} has no attribute {name!r}")
        self._members[name] = value

    def __repr__(self):
        return f"<module {self._name!r}>"


def _bits_of_lgamma(lg: float) -> float:
    return lg / _math.log(2)


def _check_int_result_bits(bits: float, what: str) -> None:
    if bits > RT.max_bits + 1:
        raise int_limit(bits, what)


def _m_factorial(n, /):
    n = as_index(n)
    if type(n) in (int, bool) and n > 20:
        _check_int_result_bits(_bits_of_lgamma(_math.lgamma(min(n, 10**15) + 1)), "math.factorial")
    return _math.factorial(n)


def _m_comb(n, k, /):
    n, k = as_index(n), as_index(k)
    if type(n) in (int, bool) and type(k) in (int, bool) and 0 <= k <= n and n > 60:
        n2 = min(n, 10**15)
        k2 = min(k, n2)
        lg = _math.lgamma(n2 + 1) - _math.lgamma(k2 + 1) - _math.lgamma(n2 - k2 + 1)
        _check_int_result_bits(_bits_of_lgamma(lg), "math.comb")
    return _math.comb(n, k)


def _m_perm(n, k=None, /):
    n, k = as_index(n), as_index(k)
    if type(n) in (int, bool) and n > 20 and (k is None or (type(k) in (int, bool) and 0 <= k <= n)):
        n2 = min(n, 10**15)
        k2 = n2 if k is None else min(k, n2)
        lg = _math.lgamma(n2 + 1) - _math.lgamma(n2 - k2 + 1)
        _check_int_result_bits(_bits_of_lgamma(lg), "math.perm")
    return _math.perm(n, k)


def _m_prod(iterable, /, *, start=1):
    acc = start
    for x in take(iterable):
        acc = mul(acc, x)
    return acc


def _m_fsum(iterable, /):
    return _math.fsum(take(iterable))


def _m_lcm(*ints):
    ints = [as_index(i) for i in ints]
    if sum(i.bit_length() for i in ints if type(i) in (int, bool)) > RT.max_bits + 1:
        raise int_limit(sum(i.bit_length() for i in ints if type(i) in (int, bool)), "math.lcm")
    return _math.lcm(*ints)


def _m_dist(p, q, /):
    return _math.dist(take(p), take(q))


_MATH_PLAIN = (
    "sqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan",
    "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh",
    "floor", "ceil", "trunc", "fabs", "fmod", "hypot", "isclose", "isfinite", "isinf",
    "isnan", "copysign", "degrees", "radians", "erf", "erfc", "gamma", "lgamma", "pow",
    "gcd", "isqrt", "ldexp", "frexp", "modf", "remainder", "nextafter", "ulp", "cbrt",
    "pi", "e", "tau", "inf", "nan",
)


def make_math_module() -> ScriptNamespace:
    """A ``math`` namespace for ``modules["math"]``: the pure functions and constants of
    Python's math module, with the ones that can build huge integers or consume
    iterables (factorial, comb, perm, prod, lcm, fsum, dist) size-checked."""
    attrs = {n: getattr(_math, n) for n in _MATH_PLAIN if hasattr(_math, n)}
    attrs.update(factorial=_m_factorial, comb=_m_comb, perm=_m_perm, prod=_m_prod,
                 fsum=_m_fsum, lcm=_m_lcm, dist=_m_dist)
    return ScriptNamespace("math", attrs)
