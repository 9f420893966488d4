"""Attribute access rules: an allow-list per type, never a block-list.

A script may read ``obj.name`` only when ``name`` is allowed for ``obj``:

* engine/API classes declare ``_script_attrs`` (readable names) and ``_script_setattrs``
  (assignable names) as class attributes: a ``frozenset`` of names, looked up in the
  ``__dict__`` of the classes of ``type(obj).__mro__`` (never through the object's own
  ``__getattr__``);
* namespace objects (``torch``, ``torch.nn``, ...) may instead carry ``_script_attrs``
  as an *instance* attribute (in their ``__dict__`` or a ``__slots__`` slot);
* classes exposed to scripts (``torch.Tensor``) allow the names of their
  ``_script_class_attrs`` (class attribute, MRO lookup), nothing else;
* builtin values (str, list, dict, tuple, set, int, float, range, exceptions' ``args``)
  have fixed tables below; methods that can grow a value (``str.join``, ``list.append``,
  ``str.ljust``, ...) are wrapped with the size limits, and ``str.format`` is the safe
  formatter of :func:`~autotrace.interpreter.ops.format_string`;
* everything else (script functions, builtin functions, modules without an allow-list)
  has no attributes.

Names starting and ending with ``__`` never get here (refused at parse time).
"""

from __future__ import annotations

from .errors import ScriptAttributeError
from .limits import RT, seq_limit
from .ops import (CONTAINERS, deep_check, format_string, hash_check, safe_callable, take)
from .values import BoundBuiltin, CaughtException, display_name

_MISSING = object()
_INTS = (int, bool)


# ---------------------------------------------------------------------------
# methods of builtin values (impl(obj, *args, **kwargs))

def _str_join(s, iterable):
    items = take(iterable)
    if set(map(type, items)) <= {str}:
        total = sum(map(len, items)) + len(s) * max(0, len(items) - 1)
        if total > RT.max_seq:
            raise seq_limit(total)
        RT.charge(total >> 3)
    return s.join(items)


def _str_replace(s, old, new, count=-1):
    if type(s) is str and type(old) is str and type(new) is str and len(new) > len(old):
        n = s.count(old) if old else len(s) + 1
        if type(count) in _INTS and count >= 0:
            n = min(n, count)
        total = len(s) + n * (len(new) - len(old))
        if total > RT.max_seq:
            raise seq_limit(total)
        RT.charge(total >> 3)
    return s.replace(old, new, count)


def _padder(method):
    def pad(s, width, *args):
        if type(width) in _INTS and width > len(s):
            if width > RT.max_seq:
                raise seq_limit(width)
            RT.charge((width - len(s)) >> 3)
        return method(s, width, *args)
    pad.__name__ = method.__name__
    return pad


def _str_expandtabs(s, tabsize=8):
    if type(tabsize) in _INTS and tabsize > 1 and "\t" in s:
        total = len(s) + s.count("\t") * tabsize
        if total > RT.max_seq:
            raise seq_limit(total)
    return s.expandtabs(tabsize)


def _str_format(s, *args, **kwargs):
    return format_string(s, args, kwargs)


def _list_append(lst, x):
    if len(lst) >= RT.max_seq:
        raise seq_limit(len(lst) + 1)
    lst.append(x)


def _list_insert(lst, i, x):
    if len(lst) >= RT.max_seq:
        raise seq_limit(len(lst) + 1)
    lst.insert(i, x)


def _list_extend(lst, iterable):
    items = take(iterable, RT.max_seq - len(lst))
    if len(lst) + len(items) > RT.max_seq:
        raise seq_limit(len(lst) + len(items))
    RT.charge(len(items))
    lst.extend(items)


def _list_sort(lst, *, key=None, reverse=False):
    deep_check(lst)
    RT.charge(len(lst))
    lst.sort(key=safe_callable(key), reverse=reverse)


def _searcher(method):
    def search(seq, x, *args):
        if type(x) in CONTAINERS:
            deep_check(x)
            deep_check(seq)
        return method(seq, x, *args)
    search.__name__ = method.__name__
    return search


def _dict_get(d, k, default=None):
    hash_check(k)
    return d.get(k, default)


def _dict_pop(d, k, *default):
    hash_check(k)
    return d.pop(k, *default)


def _dict_setdefault(d, k, default=None):
    hash_check(k)
    if len(d) >= RT.max_seq and k not in d:
        raise seq_limit(len(d) + 1)
    return d.setdefault(k, default)


def _dict_update(d, other=(), /, **kwargs):
    if type(other) is not dict:
        if hasattr(type(other), "keys"):
            other = dict(other)
        else:
            other = take(other)
            for pair in other:
                if type(pair) in (tuple, list) and len(pair) == 2:
                    hash_check(pair[0])
    total = len(d) + len(other) + len(kwargs)
    if total > RT.max_seq:
        raise seq_limit(total)
    RT.charge(len(other) + len(kwargs))
    d.update(other, **kwargs)


def _set_add(s, x):
    hash_check(x)
    if len(s) >= RT.max_seq:
        raise seq_limit(len(s) + 1)
    s.add(x)


def _set_key(method):
    def f(s, x):
        hash_check(x)
        return method(s, x)
    f.__name__ = method.__name__
    return f


def _set_many(method, grows=False):
    def f(s, *others):
        items = [take(o) for o in others]
        for it in items:
            for k in it:
                if type(k) is tuple:
                    deep_check(k)
        if grows:
            total = len(s) + sum(map(len, items))
            if total > RT.max_seq:
                raise seq_limit(total)
        return method(s, *items)
    f.__name__ = method.__name__
    return f


def _unbound(tp, names):
    return {n: getattr(tp, n) for n in names if hasattr(tp, n)}


_STR_PLAIN = (
    "upper", "lower", "strip", "lstrip", "rstrip", "split", "rsplit", "splitlines",
    "startswith", "endswith", "count", "find", "rfind", "index", "rindex", "title",
    "capitalize", "swapcase", "casefold", "isdigit", "isalpha", "isalnum", "isspace",
    "isupper", "islower", "istitle", "isnumeric", "isdecimal", "isidentifier", "isascii",
    "isprintable", "partition", "rpartition", "removeprefix", "removesuffix",
)

METHODS: dict[type, dict[str, object]] = {
    str: {**_unbound(str, _STR_PLAIN),
          "join": _str_join, "replace": _str_replace, "format": _str_format,
          "ljust": _padder(str.ljust), "rjust": _padder(str.rjust),
          "center": _padder(str.center), "zfill": _padder(str.zfill),
          "expandtabs": _str_expandtabs},
    list: {**_unbound(list, ("pop", "reverse", "copy", "clear")),
           "append": _list_append, "extend": _list_extend, "insert": _list_insert,
           "sort": _list_sort, "index": _searcher(list.index), "count": _searcher(list.count),
           "remove": _searcher(list.remove)},
    tuple: {"index": _searcher(tuple.index), "count": _searcher(tuple.count)},
    dict: {**_unbound(dict, ("keys", "values", "items", "copy", "clear", "popitem")),
           "get": _dict_get, "pop": _dict_pop, "setdefault": _dict_setdefault,
           "update": _dict_update},
    set: {**_unbound(set, ("pop", "copy", "clear")),
          "add": _set_add, "discard": _set_key(set.discard), "remove": _set_key(set.remove),
          "update": _set_many(set.update, True), "union": _set_many(set.union, True),
          "intersection": _set_many(set.intersection), "difference": _set_many(set.difference),
          "symmetric_difference": _set_many(set.symmetric_difference, True),
          "intersection_update": _set_many(set.intersection_update),
          "difference_update": _set_many(set.difference_update),
          "symmetric_difference_update": _set_many(set.symmetric_difference_update, True),
          "issubset": _set_many(set.issubset), "issuperset": _set_many(set.issuperset),
          "isdisjoint": _set_many(set.isdisjoint)},
    frozenset: {"copy": frozenset.copy,
                "union": _set_many(frozenset.union, True),
                "intersection": _set_many(frozenset.intersection),
                "difference": _set_many(frozenset.difference),
                "symmetric_difference": _set_many(frozenset.symmetric_difference, True),
                "issubset": _set_many(frozenset.issubset),
                "issuperset": _set_many(frozenset.issuperset),
                "isdisjoint": _set_many(frozenset.isdisjoint)},
    int: _unbound(int, ("conjugate", "bit_length", "bit_count", "as_integer_ratio", "is_integer")),
    float: _unbound(float, ("is_integer", "conjugate", "as_integer_ratio", "hex")),
    complex: _unbound(complex, ("conjugate",)),
    range: {},   # count/index scan in C for non-int arguments: not offered
    BaseException: {},
}
METHODS[bool] = METHODS[int]


def _getter(name):
    def get(o):
        return getattr(o, name)
    return get


PROPS: dict[type, dict[str, object]] = {
    int: {n: _getter(n) for n in ("real", "imag", "numerator", "denominator")},
    float: {n: _getter(n) for n in ("real", "imag")},
    complex: {n: _getter(n) for n in ("real", "imag")},
    range: {n: _getter(n) for n in ("start", "stop", "step")},
    BaseException: {"args": _getter("args")},
}
PROPS[bool] = PROPS[int]


# ---------------------------------------------------------------------------
# policies

class Policy:
    """What scripts may do with attributes of one type (cached per type)."""

    __slots__ = ("read", "write", "methods", "props", "inst_read", "inst_write", "is_class")

    def __init__(self):
        self.read = frozenset()
        self.write = frozenset()
        self.methods = {}
        self.props = {}
        self.inst_read = None   # None, "dict", or a descriptor to read the instance allow-list
        self.inst_write = None
        self.is_class = False


_POLICIES: dict[type, Policy] = {}


def _mro(tp) -> tuple:
    try:
        return type.__dict__["__mro__"].__get__(tp)
    except (TypeError, KeyError):  # pragma: no cover
        return (tp,)


def mro_lookup(tp, name: str, default=_MISSING):
    """``name`` from the ``__dict__`` of the classes of ``tp``'s MRO (no descriptors run)."""
    for k in _mro(tp):
        d = type.__dict__["__dict__"].__get__(k)
        if name in d:
            return d[name]
    return default


def _names(v) -> frozenset | None:
    if isinstance(v, (frozenset, set, tuple, list)):
        return frozenset(x for x in v if isinstance(x, str))
    return None


def policy(tp) -> Policy:
    """The (cached) attribute policy of type ``tp``."""
    p = _POLICIES.get(tp)
    if p is not None:
        return p
    p = Policy()
    for base in _mro(tp):
        if base in METHODS or base in PROPS:
            p.methods = METHODS.get(base, {})
            p.props = PROPS.get(base, {})
            break
    if isinstance(tp, type) and issubclass(tp, type):
        p.is_class = True
    else:
        for attr, slot in (("_script_attrs", "read"), ("_script_setattrs", "write")):
            v = mro_lookup(tp, attr)
            names = _names(v)
            if names is not None:
                setattr(p, slot, names)
            elif v is not _MISSING and hasattr(type(v), "__get__"):
                setattr(p, "inst_" + slot, v)          # a __slots__ member / property
                continue
            if getattr(tp, "__dictoffset__", 0):
                setattr(p, "inst_" + slot, "dict")     # maybe in the instance __dict__
    _POLICIES[tp] = p
    return p


def _instance_names(o, how, attr: str) -> frozenset:
    if how is None:
        return frozenset()
    try:
        if how == "dict":
            d = object.__getattribute__(o, "__dict__")
            v = d.get(attr)
        else:
            v = how.__get__(o, type(o))
    except Exception:
        return frozenset()
    return _names(v) or frozenset()


def _instance_allow(o, p: Policy) -> tuple[frozenset, frozenset]:
    cache = RT.inst_cache
    hit = cache.get(id(o))
    if hit is not None and hit[0] is o:
        return hit[1], hit[2]
    if p.is_class:
        r = _names(mro_lookup(o, "_script_class_attrs")) or frozenset()
        w = frozenset()
    else:
        r = _instance_names(o, p.inst_read, "_script_attrs")
        w = _instance_names(o, p.inst_write, "_script_setattrs")
    if r or w:
        cache[id(o)] = (o, r, w)
    return r, w


def _exists(o, tp, name: str) -> bool:
    if mro_lookup(tp, name) is not _MISSING:
        return True
    try:
        d = object.__getattribute__(o, "__dict__")
        return name in d
    except Exception:
        return False


def _attr_error(o, name: str) -> ScriptAttributeError:
    disp = display_name(o)
    if type(o) is CaughtException:
        o = o._exc
    tp = type(o)
    modname = RT.module_names.get(id(o))
    exists = _exists(o, tp, name)
    if modname is not None:
        if exists or name.startswith("_"):
            msg = f"attribute {name!r} of module {modname!r} is not available in autotrace scripts"
        elif modname == "torch" or modname.startswith("torch."):
            msg = (f"{modname}.{name} is not supported by autotrace (it implements a subset of "
                   "PyTorch; `autotrace ops` lists the ops)")
        else:
            msg = f"module {modname!r} has no attribute {name!r}"
    elif (not name.startswith("_") and not exists and getattr(tp, "__module__", "").startswith("autotrace.")
          and not tp.__module__.startswith("autotrace.interpreter") and not isinstance(o, type)):
        msg = (f"{disp}.{name} is not supported by autotrace (it implements a subset of PyTorch; "
               "`autotrace ops` lists the ops)")
    elif name.startswith("_") or exists or name in policy(tp).props or name in policy(tp).methods:
        what = f"type object {o.__name__!r}" if isinstance(o, type) else f"{disp!r} objects"
        msg = f"attribute {name!r} of {what} is not available in autotrace scripts"
    elif isinstance(o, type):
        msg = f"type object {o.__name__!r} has no attribute {name!r}"
    else:
        msg = f"{disp!r} object has no attribute {name!r}"
    return ScriptAttributeError(msg)


def get_attr(o, name: str):
    """Script ``o.name``: the value, or ScriptAttributeError when not allowed."""
    tp = type(o)
    p = _POLICIES.get(tp)
    if p is None:
        p = policy(tp)
    if name in p.read:
        return getattr(o, name)
    g = p.props.get(name)
    if g is not None:
        return g(o)
    m = p.methods.get(name)
    if m is not None:
        return BoundBuiltin(o, m, name)
    if p.inst_read is not None or p.is_class:
        if name in _instance_allow(o, p)[0]:
            return getattr(o, name)
    raise _attr_error(o, name)


def set_attr(o, name: str, value) -> None:
    """Script ``o.name = value``: allowed only for names in ``_script_setattrs``."""
    tp = type(o)
    p = _POLICIES.get(tp)
    if p is None:
        p = policy(tp)
    if name in p.write:
        setattr(o, name, value)
        return
    readable = name in p.read or name in p.props
    if p.inst_write is not None or p.inst_read is not None or p.is_class:
        r, w = _instance_allow(o, p)
        if name in w:
            setattr(o, name, value)
            return
        readable = readable or name in r
    if readable:
        disp = display_name(o)
        raise ScriptAttributeError(f"attribute {name!r} of {disp!r} objects is not writable")
    raise _attr_error(o, name)


def del_attr(o, name: str) -> None:  # pragma: no cover - refused at parse time
    raise ScriptAttributeError(f"deleting attribute {name!r} is not supported in autotrace scripts")


def has_attr(o, name) -> bool:
    """``hasattr`` through the guard: True only for allowed attributes that exist."""
    if type(name) is not str:
        raise TypeError("hasattr(): attribute name must be string")
    try:
        get_attr(o, name)
    except AttributeError:
        return False
    return True


def method_impl(o, name: str):
    """For ``o.name(...)`` on a builtin value: the impl(o, *args) to call, else None."""
    p = _POLICIES.get(type(o))
    if p is None:
        p = policy(type(o))
    if name in p.read:
        return None
    return p.methods.get(name)


def context_manager_allowed(tp) -> bool:
    """True when ``with`` may use objects of type ``tp`` (``_script_context_manager``)."""
    return mro_lookup(tp, "_script_context_manager", False) is True
