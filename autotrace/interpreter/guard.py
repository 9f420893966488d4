"""Attribute access rules: an allow-list per type, never a block-list.

A script may read ``obj.name`` only when ``name`` is allowed for ``obj``:

* engine/API classes declare ``_script_attrs`` (readable names) and ``_script_setattrs``
  (assignable names) as class attributes: a ``frozenset`` of names, looked up in the
  ``__dict__`` of the classes of ``type(obj).__mro__`` (never through the object's own
  ``__getattr__``);
* types whose script-visible attributes are data (namespaces, Modules, script
  instances) define ``_script_getattr``/``_script_setattr`` functions on the type; the
  guard never reads an allow-list from an instance, so nothing a script stores (a
  crafted ``nn.Sequential({...})`` key, an attribute named ``_script_attrs``) can widen
  what it may touch;
* classes exposed to scripts (``torch.Tensor``) allow the names of their
  ``_script_class_attrs`` (class attribute, MRO lookup), nothing else;
* builtin values (str, list, dict, tuple, set, int, float, range, exceptions' ``args``)
  have fixed tables below; methods that can grow a value (``str.join``, ``list.append``,
  ``str.ljust``, ...) are wrapped with the size limits, and ``str.format`` is the safe
  formatter of :func:`~autotrace.interpreter.ops.format_string`;
* everything else (script functions, builtin functions, modules without an allow-list)
  has no attributes.

Dunder names: see :func:`dunder_attr` (the parse-time check lets only a fixed set through).
"""

from __future__ import annotations

from .errors import ScriptAttributeError
from .limits import RT, seq_limit
from .ops import (CONTAINERS, as_index, deep_check, format_string, hash_check, safe_callable, take)
from .classes import (NOT_FOUND, SPECIAL_METHODS, _LIB_SPECIAL, ScriptClass, ScriptObject, Super,
                      class_getattr, class_setattr, library_attr, script_getattr, script_setattr,
                      super_getattr)
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
    count = as_index(count)
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
        width = as_index(width)
        if type(width) in _INTS and width > len(s):
            if width > RT.max_seq:
                raise seq_limit(width)
            RT.charge((width - len(s)) >> 3)
        return method(s, width, *args)
    pad.__name__ = method.__name__
    return pad


def _str_expandtabs(s, tabsize=8):
    tabsize = as_index(tabsize)
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
    slice: {"indices": slice.indices},
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
    slice: {n: _getter(n) for n in ("start", "stop", "step")},
    BaseException: {"args": _getter("args")},
}
PROPS[bool] = PROPS[int]


# ---------------------------------------------------------------------------
# policies

class Policy:
    """What scripts may do with attributes of one type (cached per type).

    ``hook_get``/``hook_set`` are the type's own ``_script_getattr(obj, name)`` /
    ``_script_setattr(obj, name, value)`` functions (class attributes): types whose
    script-visible attributes are data (a namespace's members, a Module's parameters and
    submodules, a script instance's attributes) answer through them. They are looked up on
    the type, never on the instance, so nothing a script stores can widen an allow-list.
    """

    __slots__ = ("read", "write", "methods", "props", "is_class", "hook_get", "hook_set",
                 "lib_read")

    def __init__(self):
        self.lib_read = frozenset()   # read, consulted after the hook (types with hooks)
        self.read = frozenset()
        self.write = frozenset()
        self.methods = {}
        self.props = {}
        self.is_class = False
        self.hook_get = None
        self.hook_set = None


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
        return frozenset(x for x in v if isinstance(x, str) and not _is_dunder(x))
    return None


def _is_dunder(name: str) -> bool:
    return name[:2] == "__" and name[-2:] == "__" and len(name) > 2


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
        p.read = _names(mro_lookup(tp, "_script_attrs")) or frozenset()
        p.write = _names(mro_lookup(tp, "_script_setattrs")) or frozenset()
        if issubclass(tp, ScriptObject):
            p.hook_get = script_getattr
            p.hook_set = script_setattr
        else:
            h = mro_lookup(tp, "_script_getattr", None)
            p.hook_get = h if callable(h) else None
            h = mro_lookup(tp, "_script_setattr", None)
            p.hook_set = h if callable(h) else None
        if p.hook_get is not None:
            p.lib_read, p.read = p.read, frozenset()
        if p.hook_set is not None:
            p.write = frozenset()
    _POLICIES[tp] = p
    return p


def _class_names(o) -> frozenset:
    return _names(mro_lookup(o, "_script_class_attrs")) or frozenset()


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
        if exists or name.startswith("_") or _python_has(modname, name):
            msg = f"attribute {name!r} of module {modname!r} is not available in autotrace scripts"
        elif modname.split(".")[0] in ("torch", "numpy"):
            msg = f"{modname}.{name} is not supported by autotrace yet"
        else:
            msg = f"module {modname!r} has no attribute {name!r}"
    elif (not name.startswith("_") and not exists and getattr(tp, "__module__", "").startswith("autotrace.")
          and not tp.__module__.startswith("autotrace.interpreter") and not isinstance(o, type)):
        msg = f"{disp}.{name} is not supported by autotrace yet"
    elif name.startswith("_") or exists or name in policy(tp).props or name in policy(tp).methods:
        what = f"type object {o.__name__!r}" if isinstance(o, type) else f"{disp!r} objects"
        msg = f"attribute {name!r} of {what} is not available in autotrace scripts"
    elif isinstance(o, type):
        msg = f"type object {o.__name__!r} has no attribute {name!r}"
    else:
        msg = f"{disp!r} object has no attribute {name!r}"
    return ScriptAttributeError(msg)


def _python_has(modname: str, name: str) -> bool:
    """Whether Python's own standard-library module ``modname`` (when loaded) has ``name``:
    a script reaching for ``random.Random`` is told it is not available, not that it does
    not exist."""
    import sys
    from .validate import STDLIB_MODULES
    m = sys.modules.get(modname) if modname in STDLIB_MODULES else None
    try:
        return m is not None and name in vars(m)
    except TypeError:  # pragma: no cover
        return False


def get_attr(o, name: str):
    """Script ``o.name``: the value, or ScriptAttributeError when not allowed.

    Order: dunder names go to :func:`dunder_attr` (a fixed, small set); script classes
    and ``super()`` objects answer themselves; then the type's ``_script_getattr`` hook
    (data attributes: namespace members, Module registries, script instance attributes),
    then the type's allow-lists (``_script_attrs``, builtin methods and properties, a
    class's ``_script_class_attrs``).
    """
    tp = type(o)
    p = _POLICIES.get(tp)
    if p is None:
        p = policy(tp)
    if name in p.read:
        return getattr(o, name)
    if name[:2] == "__" and name[-2:] == "__":
        return dunder_attr(o, name)
    if tp is ScriptClass:
        return class_getattr(o, name)
    if tp is Super:
        return super_getattr(o, name)
    if p.hook_get is not None:
        v = p.hook_get(o, name)
        if v is not NOT_FOUND:
            return v
        if name in p.lib_read:
            return getattr(o, name)
    g = p.props.get(name)
    if g is not None:
        return g(o)
    m = p.methods.get(name)
    if m is not None:
        return BoundBuiltin(o, m, name)
    if p.is_class and name in _class_names(o):
        return getattr(o, name)
    raise _attr_error(o, name)


def dunder_attr(o, name: str):
    """The dunder attributes scripts may read, and why each is safe:

    * ``__class__``: :func:`~autotrace.interpreter.typeobj.type_of` — a script class, a
      class the script can already name (``torch.Tensor``, ``int``), or an opaque
      :class:`~autotrace.interpreter.typeobj.TypeName` with only a name;
    * ``__name__``/``__qualname__``: a string (function, class, type names);
    * ``object.__setattr__``: sets an attribute of a script instance past a frozen
      dataclass's check, else as ``obj.name = value`` does;
    * a special method (``__add__``, ``__init__``, ...) of a script instance or class,
      or reached through ``super()``: only what the script defined itself, bound as a
      script method, or a library base's initialiser/special methods (the same callables
      calling the object does); ``nn.Module.__init__`` on an allowed library base.

    Everything else (``__dict__``, ``__globals__``, ``__code__``, ``__subclasses__``,
    ``__closure__``, ...) raises AttributeError.
    """
    from .typeobj import name_of, type_of, lib_init
    if name == "__class__":
        return type_of(o)
    if name == "__version__" and RT.module_names.get(id(o)) == "torch":
        return "2.13.0+cpu"     # what torch 2.13's CPU wheel prints
    if name == "__setattr__" and o is object:
        from .classes import OBJECT_SETATTR
        return OBJECT_SETATTR
    if name == "__qualname__" and type(o) is ScriptClass:
        return o.qualname
    if name == "__name__" or name == "__qualname__":
        n = name_of(o)
        if n is not None:
            return n
    elif name in SPECIAL_METHODS:
        tp = type(o)
        if tp is ScriptClass:
            return class_getattr(o, name)
        if tp is Super:
            return super_getattr(o, name)
        if isinstance(o, ScriptObject):
            v = script_getattr(o, name)
            if v is not NOT_FOUND:
                return v
            lib = o._cls.lib_base
            if lib is not None and name in _LIB_SPECIAL:
                return library_attr(o, lib, name)
        elif name == "__init__" and isinstance(o, type):
            f = lib_init(o)
            if f is not None:
                return f
    raise ScriptAttributeError(f"attribute {name!r} of {_what(o)} is not available in autotrace scripts")


def _what(o) -> str:
    if type(o) is ScriptClass:
        return f"type object {o.name!r}"
    if isinstance(o, type):
        return f"type object {o.__name__!r}"
    return f"{display_name(o)!r} objects"


def set_attr(o, name: str, value) -> None:
    """Script ``o.name = value``: the type's ``_script_setattr`` hook, else names in
    ``_script_setattrs``. Dunder names are never assignable."""
    if name[:2] == "__" and name[-2:] == "__":
        raise ScriptAttributeError(f"assigning attribute {name!r} is not supported in autotrace scripts")
    tp = type(o)
    p = _POLICIES.get(tp)
    if p is None:
        p = policy(tp)
    if name in p.write:
        setattr(o, name, value)
        return
    if tp is ScriptClass:
        class_setattr(o, name, value)
        return
    if p.hook_set is not None:
        p.hook_set(o, name, value)
        return
    readable = name in p.read or name in p.lib_read or name in p.props or (p.is_class and name in _class_names(o)) \
        or (p.hook_get is not None and p.hook_get(o, name) is not NOT_FOUND)
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
    if name in p.read or p.hook_get is not None:
        return None
    return p.methods.get(name)


def context_manager_allowed(tp) -> bool:
    """True when ``with`` may use objects of type ``tp`` (``_script_context_manager``)."""
    return mro_lookup(tp, "_script_context_manager", False) is True
