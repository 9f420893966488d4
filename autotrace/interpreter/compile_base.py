"""What the compiled closures share: control-flow signals, unpacking, calls, exception
matching and the other helpers the compiler's statement and expression closures call."""

from __future__ import annotations

import ast
import operator

from .. import site as _S
from .errors import (ScriptNameError,
                     ScriptUnboundLocalError, is_visible, mark_script_raised, with_site)
from .guard import _POLICIES, mro_lookup
from .limits import RT, seq_limit
from .ops import (SAFE_CTORS, deep_check,
                  take)
from .values import CaughtException, ScriptFunction, ScriptGenerator, display_name
from .classes import BoundMethod, ScriptClass, ScriptObject


BREAK = 1
CONTINUE = 2
RETURN = 3

_MISS = object()
#: in-place operators that cannot grow a value when the other operand is a number
#: constant (``x += 1``: a list or str would raise TypeError; ``*`` only for non-ints)
_RAW_INPLACE = {"Add": operator.iadd, "Sub": operator.isub, "Div": operator.itruediv,
                "FloorDiv": operator.ifloordiv, "Mult": operator.imul}
_RAW_CMP = {"Eq": operator.eq, "NotEq": operator.ne, "Lt": operator.lt,
            "LtE": operator.le, "Gt": operator.gt, "GtE": operator.ge}


# ---------------------------------------------------------------------------
# run-time helpers

_NO_BIND = (int, float, bool, str, list, tuple, dict, set, frozenset, complex, range,
            type(None), ScriptFunction, CaughtException, ScriptGenerator, type)
#: type -> its ``_on_bind`` method, None when it has none (reset every run, so that a
#: method patched between runs is seen). A store binding ``v`` calls
#: ``_bget(type(v), _bind_slow)(v, name)`` when that is not None.
_BIND: dict[type, object] = dict.fromkeys(_NO_BIND)
_bget = _BIND.get


def _bind_slow(v, name: str) -> None:
    """The first binding of a value of a type not in :data:`_BIND`: decide, then bind."""
    tp = type(v)
    h = _BIND[tp] = tp._on_bind if mro_lookup(tp, "_on_bind", _MISS) is not _MISS else None
    if h is not None:
        h(v, name)


def reset_caches() -> None:
    """Forget per-type decisions (allow-lists, hooks): called at the start of every run."""
    _BIND.clear()
    _BIND.update(dict.fromkeys(_NO_BIND))
    _CM_OK.clear()
    _POLICIES.clear()


def _unbound_local(name: str, site) -> ScriptUnboundLocalError:
    return with_site(ScriptUnboundLocalError(
        f"cannot access local variable {name!r} where it is not associated with a value"), site)


def _unbound_free(name: str, site) -> ScriptNameError:
    return with_site(ScriptNameError(
        f"cannot access free variable {name!r} where it is not associated with a value in enclosing scope"), site)


def _unpack(v, n: int):
    t = type(v)
    if t is tuple or t is list:
        if len(v) == n:
            return v
        if len(v) > n:
            raise ValueError(f"too many values to unpack (expected {n})")
        raise ValueError(f"not enough values to unpack (expected {n}, got {len(v)})")
    if not (hasattr(t, "__iter__") or hasattr(t, "__getitem__")):
        raise TypeError(f"cannot unpack non-iterable {display_name(v)} object")
    items = []
    for x in v:
        items.append(x)
        if len(items) > n:
            raise ValueError(f"too many values to unpack (expected {n})")
    if len(items) < n:
        raise ValueError(f"not enough values to unpack (expected {n}, got {len(items)})")
    return items


def _store_item(o, k, v):
    t = type(o)
    if t is dict:
        if type(k) is tuple:
            deep_check(k)
        if len(o) >= RT.max_seq and k not in o:
            raise seq_limit(len(o) + 1)
    elif t is list and type(k) is slice:
        v = take(v)
        n = len(o) + len(v)
        if n > RT.max_seq:
            raise seq_limit(n)
    o[k] = v


def _is_exc_class(c) -> bool:
    if type(c) is ScriptClass:
        return c.lib_base is not None and issubclass(c.lib_base, BaseException)
    return isinstance(c, type) and issubclass(c, BaseException)


def _exc_matches(exc, cls) -> bool:
    classes = list(_flatten_classes(cls)) if isinstance(cls, tuple) else [cls]
    for c in classes:
        if not _is_exc_class(c):
            raise TypeError("catching classes that do not inherit from BaseException is not allowed")
    for c in classes:
        if type(c) is ScriptClass:
            if isinstance(exc, ScriptObject) and c in exc._cls.mro:
                return True
        elif isinstance(exc, c):
            return True
    return False


def _flatten_classes(t):
    stack = [t]
    while stack:
        x = stack.pop()
        if isinstance(x, tuple):
            deep_check(x)
            stack.extend(x)
        else:
            yield x


def _make_exc(x):
    if type(x) is CaughtException:
        return x._exc
    if type(x) is ScriptClass:
        if not _is_exc_class(x):
            raise TypeError("exceptions must derive from BaseException")
        x = x()
    if isinstance(x, type) and issubclass(x, BaseException):
        if not issubclass(x, Exception):
            raise TypeError(f"raising {x.__name__} is not allowed in autotrace scripts")
        x = x()
    if isinstance(x, BaseException):
        if not isinstance(x, Exception):
            raise TypeError(f"raising {type(x).__name__} is not allowed in autotrace scripts")
        deep_check(x.args)
        mark_script_raised(x)
        return x
    raise TypeError("exceptions must derive from BaseException")


def _make_cause(c):
    if c is None:
        return None
    if type(c) is CaughtException:
        return c._exc
    if isinstance(c, type) and issubclass(c, BaseException):
        return c()
    if isinstance(c, BaseException):
        return c
    raise TypeError("exception causes must derive from BaseException")


def _merge_kwargs(kw: dict, m) -> None:
    if type(m) is not dict:
        if not hasattr(type(m), "keys"):
            raise TypeError(f"argument after ** must be a mapping, not {display_name(m)}")
        m = dict(m)
    if len(kw) + len(m) > RT.max_seq:
        raise seq_limit(len(kw) + len(m))
    for k, v in m.items():
        if type(k) is not str:
            raise TypeError("keywords must be strings")
        if k in kw:
            raise TypeError(f"got multiple values for keyword argument '{k}'")
        kw[k] = v


def _call(f, args, kwargs):
    """Call ``f`` the way a script call does (script functions run inline)."""
    tf = type(f)
    if tf is ScriptFunction:
        return f._invoke(args, kwargs)
    if tf is BoundMethod and type(f._f) is ScriptFunction:
        return f._f._invoke((f._self,) + tuple(args), kwargs)
    if tf is type:
        f = SAFE_CTORS.get(f, f)
    if kwargs:
        return f(*args, **kwargs)
    return f(*args)


def _named_error(exc: TypeError, *vals) -> TypeError:
    """Python names the mixin class in operator errors; scripts see their class's name."""
    msg = str(exc)
    changed = False
    for v in vals:
        if isinstance(v, ScriptObject):
            pyname = f"'{type(v).__name__}'"
            if pyname in msg:
                msg = msg.replace(pyname, f"'{v._cls.name}'", 1)
                changed = True
    if not changed:
        return exc
    e = TypeError(msg)
    e.__traceback__ = exc.__traceback__
    return e


def _cm_error(cm) -> TypeError:
    if hasattr(type(cm), "__enter__"):
        return TypeError(f"{display_name(cm)!r} objects cannot be used in a 'with' statement in autotrace scripts")
    return TypeError(f"{display_name(cm)!r} object does not support the context manager protocol")


_CM_OK: dict[type, bool] = {}


def _script_with(cm, fr, store, inner, _site):
    """``with`` over an instance of a script class defining ``__enter__``/``__exit__``.
    The script's ``__exit__`` sees only the script's own exceptions (a limit ends the run
    without running script code)."""
    cls = cm._cls
    if not (cls.defines("__enter__") and cls.defines("__exit__")):
        raise TypeError(f"'{cls.name}' object does not support the context manager protocol")
    v = cm.__enter__()
    if store is not None:
        store(fr, v)
    try:
        r = inner(fr)
    except BaseException as exc:
        if not is_visible(exc):
            raise
        _S.current = _site
        from .typeobj import type_of
        if cm.__exit__(type_of(exc), exc, None):
            return None
        raise
    _S.current = _site
    cm.__exit__(None, None, None)
    return r


def _may_signal(s) -> bool:
    t = type(s)
    if t is ast.Return or t is ast.Break or t is ast.Continue:
        return True
    if t is ast.For or t is ast.While:
        return _has_return(s.body) or any(_may_signal(x) for x in s.orelse)
    if t is ast.If:
        return any(_may_signal(x) for x in s.body) or any(_may_signal(x) for x in s.orelse)
    if t is ast.With:
        return any(_may_signal(x) for x in s.body)
    if t is ast.Try:
        return any(_may_signal(x) for x in s.body + s.orelse + s.finalbody) or \
            any(_may_signal(x) for h in s.handlers for x in h.body)
    return False


def _has_return(stmts) -> bool:
    stack = list(stmts)
    while stack:
        s = stack.pop()
        t = type(s)
        if t is ast.Return:
            return True
        if t is ast.FunctionDef:
            continue
        for field in ("body", "orelse", "finalbody"):
            stack.extend(getattr(s, field, ()))
        for h in getattr(s, "handlers", ()):
            stack.extend(h.body)
    return False


def _num_const(node):
    """The value of a numeric constant node (int/float/complex, not bool), else None."""
    if type(node) is ast.Constant and type(node.value) in (int, float, complex):
        return node.value
    return None


def _decorate(obj, ds, decos):
    """Apply evaluated decorators ``ds`` innermost first (Python's order)."""
    for d, (_, dsite) in zip(reversed(ds), reversed(decos)):
        _S.current = dsite
        obj = _call(d, (obj,), None)
    return obj


def _class_base(name: str, b):
    """Check a class statement's base: a script class or an allowed library class."""
    from .typeobj import TypeName, allowed_base, name_of
    if type(b) is ScriptClass:
        return b
    if allowed_base(b):
        return b
    n = name_of(b) if isinstance(b, type) or type(b) is TypeName else None
    if n is not None or isinstance(b, type) or type(b) is TypeName:
        raise TypeError(f"subclassing {n or 'this class'} is not supported yet in autotrace scripts")
    raise TypeError(f"class {name}: the base must be a class, not {display_name(b)!r}")


def _frame_at(fr, depth):
    for _ in range(depth):
        fr = fr[0]
    return fr
