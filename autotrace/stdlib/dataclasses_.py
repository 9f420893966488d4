"""``dataclasses`` for scripts: ``@dataclass`` over script classes, as CPython 3.11 builds them.

``@dataclass`` (with or without arguments) reads the class body's annotated names in order
(the class statement records them with their annotation's source text, never evaluated),
makes each a :class:`Field` (a ``field(...)`` value or a plain default), and puts autotrace
callables in the class namespace where CPython generates source and ``exec``\\ s it:

* ``__init__`` binds its arguments with the interpreter's own binder, so errors read as
  CPython's (``Config.__init__() missing 1 required positional argument: 'lr'``), calls
  ``default_factory`` for omitted fields, then ``__post_init__`` with the ``InitVar``
  values;
* ``__repr__`` (``Config(lr=0.1, name='x')``, ``...`` for a value that contains itself),
  ``__eq__`` and with ``order=True`` ``__lt__``/``__le__``/``__gt__``/``__ge__`` compare the
  tuples of the ``compare`` fields of two instances of the same class;
* ``__hash__`` follows CPython's table over ``unsafe_hash``, ``eq``, ``frozen`` and an
  explicit ``__hash__`` (``eq=True`` alone makes instances unhashable);
* ``frozen=True``: assigning any attribute of an instance raises
  :class:`FrozenInstanceError` (an AttributeError) ``cannot assign to field 'lr'``.

``fields``, ``asdict``, ``astuple``, ``replace``, ``is_dataclass``, ``MISSING``,
``KW_ONLY``, ``InitVar`` and ``FrozenInstanceError`` are CPython's, with its errors. A
field's ``type`` is the builtin type its annotation names (``int``, ``float``, ...), else
the annotation's source text (as under ``from __future__ import annotations``). Fields
are read-only for scripts (``fields(C)[0].name = 'x'`` raises AttributeError: the class's
description cannot be altered from outside). Refused, with a TypeError: ``@dataclass`` on
a class derived from a library class (``nn.Module``, an exception) and ``slots=True``.
"""

from __future__ import annotations

from ..interpreter.builtins import ScriptNamespace
from ..interpreter.classes import NOT_FOUND, ScriptClass, ScriptObject, call_method, script_setattr
from ..interpreter.errors import ScriptAttributeError
from ..interpreter.limits import RT
from ..interpreter.ops import deep_check, hash_check, safe_callable, safe_repr, take
from ..interpreter.values import FuncCode, UNBOUND, _bind_args

class _MissingType:
    """``dataclasses.MISSING``: no default given."""

    __slots__ = ()
    _script_attrs = frozenset()
    _script_type_name = "dataclasses._MISSING_TYPE"

    def __repr__(self):
        return f"<dataclasses._MISSING_TYPE object at 0x{id(self):x}>"


MISSING = _MissingType()


class _HasDefaultFactory:
    __slots__ = ()

    def __repr__(self):
        return "<factory>"


_HAS_DEFAULT_FACTORY = _HasDefaultFactory()


class _KwOnlyType:
    """``dataclasses.KW_ONLY``: the fields annotated after ``_: KW_ONLY`` are keyword-only."""

    __slots__ = ()
    _script_attrs = frozenset()
    _script_type_name = "dataclasses.KW_ONLY"

    def __repr__(self):
        return "<class 'dataclasses.KW_ONLY'>"


KW_ONLY = _KwOnlyType()


class InitVar:
    """``InitVar[int]``: an ``__init__`` argument passed to ``__post_init__``, not a field."""

    __slots__ = ("type",)
    _script_attrs = frozenset({"type"})
    _script_type_name = "dataclasses.InitVar"

    def __init__(self, type_):
        self.type = type_

    def __repr__(self):
        t = self.type
        name = t.__name__ if isinstance(t, type) else safe_repr(t)
        return f"dataclasses.InitVar[{name}]"


class _InitVarForm:
    """What scripts get as ``dataclasses.InitVar``: ``InitVar[int]`` makes an :class:`InitVar`
    (a class is not subscriptable in scripts; this object stands for it)."""

    __slots__ = ()
    _script_attrs = frozenset()
    _script_type_name = "type"

    def __getitem__(self, type_):
        return InitVar(type_)

    def __call__(self, type_):
        return InitVar(type_)

    def __repr__(self):
        return "<class 'dataclasses.InitVar'>"


class FrozenInstanceError(ScriptAttributeError):
    """Assigning an attribute of a frozen dataclass instance (CPython's class name)."""

    _script_type_name = "dataclasses.FrozenInstanceError"


FrozenInstanceError.__name__ = FrozenInstanceError.__qualname__ = "FrozenInstanceError"

_FIELD, _FIELD_CLASSVAR, _FIELD_INITVAR = "_FIELD", "_FIELD_CLASSVAR", "_FIELD_INITVAR"


class Field:
    """One field of a dataclass (what ``field(...)`` returns and ``fields()`` lists)."""

    __slots__ = ("name", "type", "default", "default_factory", "init", "repr", "hash", "compare",
                 "_metadata", "kw_only", "_field_type")
    _script_attrs = frozenset({"name", "type", "default", "default_factory", "init", "repr", "hash",
                               "compare", "metadata", "kw_only"})
    _script_type_name = "dataclasses.Field"

    def __init__(self, default, default_factory, init, repr, hash, compare, metadata, kw_only):
        self.name = None
        self.type = None
        self.default = default
        self.default_factory = default_factory
        self.init = init
        self.repr = repr
        self.hash = hash
        self.compare = compare
        self._metadata = {} if metadata is None else dict(_mapping_items(metadata))
        self.kw_only = kw_only
        self._field_type = None

    @property
    def metadata(self):
        return MappingProxy(self._metadata)

    def __repr__(self):
        ftype = self.type if isinstance(self.type, type) or self.type is None else self.type
        return ("Field(" f"name={safe_repr(self.name)},type={safe_repr(ftype)},"
                f"default={safe_repr(self.default)},default_factory={safe_repr(self.default_factory)},"
                f"init={self.init!r},repr={self.repr!r},hash={safe_repr(self.hash)},"
                f"compare={self.compare!r},metadata=mappingproxy({safe_repr(self._metadata)}),"
                f"kw_only={safe_repr(self.kw_only)},_field_type={self._field_type or 'None'})")


class MappingProxy:
    """A read-only view of a field's ``metadata`` (CPython's ``mappingproxy``)."""

    __slots__ = ("_d",)
    _script_attrs = frozenset({"get", "keys", "values", "items", "copy"})
    _script_type_name = "mappingproxy"

    def __init__(self, d: dict):
        self._d = d

    def get(self, key, default=None):
        hash_check(key)
        return self._d.get(key, default)

    def keys(self):
        return self._d.keys()

    def values(self):
        return self._d.values()

    def items(self):
        return self._d.items()

    def copy(self):
        return dict(self._d)

    def __getitem__(self, key):
        hash_check(key)
        return self._d[key]

    def __setitem__(self, key, value):
        raise TypeError("'mappingproxy' object does not support item assignment")

    def __contains__(self, key):
        hash_check(key)
        return key in self._d

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)

    def __eq__(self, other):
        return self._d == (other._d if type(other) is MappingProxy else other)

    __hash__ = None

    def __repr__(self):
        return f"mappingproxy({safe_repr(self._d)})"


def _mapping_items(m):
    if not isinstance(m, dict):
        from ..interpreter.values import display_name
        raise TypeError(f"mappingproxy() argument must be a mapping, not {display_name(m)}")
    return list(take(list(m.items())))


def field(*, default=MISSING, default_factory=MISSING, init=True, repr=True, hash=None, compare=True,
          metadata=None, kw_only=MISSING):
    """``dataclasses.field``: CPython's arguments and its ValueError for both defaults."""
    if default is not MISSING and default_factory is not MISSING:
        raise ValueError("cannot specify both default and default_factory")
    return Field(default, default_factory, init, repr, hash, compare, metadata, kw_only)


class Params:
    """What ``@dataclass(...)`` was given, and the class's fields (name -> Field, in order)."""

    __slots__ = ("init", "repr", "eq", "order", "unsafe_hash", "frozen", "fields")

    def __init__(self, init, repr_, eq, order, unsafe_hash, frozen, fields):
        self.init, self.repr, self.eq, self.order = init, repr_, eq, order
        self.unsafe_hash, self.frozen, self.fields = unsafe_hash, frozen, fields


_BUILTIN_ANNOTATIONS = {"int": int, "float": float, "str": str, "bool": bool, "list": list, "dict": dict,
                        "tuple": tuple, "set": set, "frozenset": frozenset, "complex": complex, "object": object}


def _annotation_kind(text: str) -> str:
    head = text.split("[", 1)[0].strip()
    for prefix in ("typing.", "dataclasses."):
        if head.startswith(prefix):
            head = head[len(prefix):]
    if head == "ClassVar":
        return _FIELD_CLASSVAR
    if head == "InitVar":
        return _FIELD_INITVAR
    if head == "KW_ONLY" and "[" not in text:
        return "KW_ONLY"
    return _FIELD


def _get_field(cls: ScriptClass, name: str, text: str, kw_only: bool) -> Field:
    default = cls.ns.get(name, MISSING)
    if type(default) is Field:
        f = default
    else:
        f = field(default=default)
    f.name = name
    f.type = _BUILTIN_ANNOTATIONS.get(text, text)
    f._field_type = _annotation_kind(text)
    if f._field_type in (_FIELD_CLASSVAR, _FIELD_INITVAR) and f.default_factory is not MISSING:
        raise TypeError(f"field {name} cannot have a default factory")
    if f._field_type in (_FIELD, _FIELD_INITVAR):
        if f.kw_only is MISSING:
            f.kw_only = kw_only
    else:
        f.kw_only = False
    if f._field_type is _FIELD and f.default is not MISSING and _unhashable(f.default):
        raise ValueError(f"mutable default {_class_repr(f.default)} for field {name} is not allowed: "
                         "use default_factory")
    return f


def _unhashable(v) -> bool:
    if isinstance(v, ScriptObject):
        h = v._cls.lookup("__hash__")
        return h is None or (h is NOT_FOUND and v._cls.defines("__eq__"))
    return getattr(type(v), "__hash__", None) is None


def _class_repr(v) -> str:
    from ..interpreter.typeobj import type_of
    return safe_repr(type_of(v))


def dataclass(cls=None, /, *, init=True, repr=True, eq=True, order=False, unsafe_hash=False, frozen=False,
              match_args=True, kw_only=False, slots=False, weakref_slot=False):
    """``@dataclass`` / ``@dataclass(...)`` on a script class (see the module docstring)."""
    if slots or weakref_slot:
        raise TypeError("dataclass(slots=True) is not supported yet in autotrace scripts")

    def wrap(c):
        return _process_class(c, init, repr, eq, order, unsafe_hash, frozen, kw_only)

    if cls is None:
        return wrap
    return wrap(cls)


def _process_class(cls, init, repr_, eq, order, unsafe_hash, frozen, kw_only):
    if type(cls) is not ScriptClass:
        raise TypeError("@dataclass applies to classes defined by the script in autotrace scripts")
    if cls.lib_base is not None:
        raise TypeError(f"@dataclass on a subclass of {cls.lib_base.__name__} is not supported yet "
                        "in autotrace scripts")
    fields: dict = {}
    any_frozen_base = has_dataclass_bases = False
    for b in reversed(cls.mro[1:]):
        if b.dataclass is not None:
            has_dataclass_bases = True
            for f in b.dataclass.fields.values():
                fields[f.name] = f
            if b.dataclass.frozen:
                any_frozen_base = True
    own = []
    kw = kw_only
    seen_kw_only = False
    for name, text in dict(cls.annotations).items():
        if _annotation_kind(text) == "KW_ONLY":
            if seen_kw_only:
                raise TypeError(f"{name!r} is KW_ONLY, but KW_ONLY has already been specified")
            seen_kw_only = True
            kw = True
            continue
        own.append(_get_field(cls, name, text, kw))
    ns = cls.ns
    for f in own:
        fields[f.name] = f
        if type(ns.get(f.name)) is Field:
            if f.default is MISSING:
                del ns[f.name]
            else:
                ns[f.name] = f.default
    annotated = {n for n, _ in cls.annotations}
    for name, value in ns.items():
        if type(value) is Field and name not in annotated:
            raise TypeError(f"{name!r} is a field but has no type annotation")
    if has_dataclass_bases:
        if any_frozen_base and not frozen:
            raise TypeError("cannot inherit non-frozen dataclass from a frozen one")
        if not any_frozen_base and frozen:
            raise TypeError("cannot inherit frozen dataclass from a non-frozen one")
    cls.dataclass = Params(init, repr_, eq, order, unsafe_hash, frozen, fields)
    has_explicit_hash = "__hash__" in ns and not (ns["__hash__"] is None and "__eq__" in ns)
    if order and not eq:
        raise ValueError("eq must be true if order is true")
    all_init = [f for f in fields.values() if f._field_type in (_FIELD, _FIELD_INITVAR)]
    std = [f for f in all_init if f.init and not f.kw_only]
    seen_default = False
    for f in std:
        if f.default is MISSING and f.default_factory is MISSING:
            if seen_default:
                raise TypeError(f"non-default argument {f.name!r} follows default argument")
        else:
            seen_default = True
    if init and "__init__" not in ns:
        ns["__init__"] = _Init(cls, all_init, frozen)
    plain = [f for f in fields.values() if f._field_type is _FIELD]
    if repr_ and "__repr__" not in ns:
        ns["__repr__"] = _Repr(cls, [f.name for f in plain if f.repr])
    compared = tuple(f.name for f in plain if f.compare)
    if eq and "__eq__" not in ns:
        ns["__eq__"] = _Compare(cls, "__eq__", compared)
    if order:
        for name in ("__lt__", "__le__", "__gt__", "__ge__"):
            if name in ns:
                raise TypeError(f"Cannot overwrite attribute {name} in class {cls.name}. "
                                "Consider using functools.total_ordering")
            ns[name] = _Compare(cls, name, compared)
    if frozen:
        ns["__setattr__"] = _FrozenSetattr(cls, frozenset(f.name for f in fields.values()))
    hashed = tuple(f.name for f in plain if (f.compare if f.hash is None else f.hash))
    action = _HASH_ACTIONS[(bool(unsafe_hash), bool(eq), bool(frozen), has_explicit_hash)]
    if action == "raise":
        raise TypeError(f"Cannot overwrite attribute __hash__ in class {cls.name}")
    if action == "none":
        ns["__hash__"] = None
    elif action == "add":
        ns["__hash__"] = _Hash(cls, hashed)
    return cls


def _hash_action(unsafe_hash, eq, frozen, explicit):
    """CPython 3.11's ``_hash_action`` table: "none" sets ``__hash__ = None``, "add" adds one."""
    if unsafe_hash:
        return "raise" if explicit else "add"
    if eq and not explicit:
        return "add" if frozen else "none"
    return ""


_HASH_ACTIONS = {(u, e, f, x): _hash_action(u, e, f, x) for u in (False, True) for e in (False, True)
                 for f in (False, True) for x in (False, True)}


class _Generated:
    """A method ``@dataclass`` put in the class (called with the instance first)."""

    __slots__ = ("cls", "name")
    _script_binds = True

    def __repr__(self):
        return f"<function {self.cls.qualname}.{self.name} at 0x{id(self):x}>"


class _Init(_Generated):
    __slots__ = ("fields", "frozen", "_code", "_defaults", "_kwdefaults")

    def __init__(self, cls, fields, frozen):
        self.cls, self.name, self.fields, self.frozen = cls, "__init__", [f for f in fields], frozen
        params = [f for f in fields if f.init]
        pos = [f for f in params if not f.kw_only]
        kwonly = [f for f in params if f.kw_only]
        # slots: 2 = self, then the positional fields, then the keyword-only ones
        self._code = FuncCode("__init__", 1 + len(params), None, False, 1, ["self"] + [f.name for f in pos], 0,
                             [(f.name, 3 + len(pos) + i) for i, f in enumerate(kwonly)], None, None,
                             f"{cls.qualname}.__init__")
        self._defaults = tuple(_default_of(f) for f in pos if _default_of(f) is not UNBOUND)
        self._kwdefaults = {f.name: _default_of(f) for f in kwonly if _default_of(f) is not UNBOUND}

    def __call__(self, obj, *args, **kwargs):
        RT.tick()
        code = self._code
        fr = code.template.copy()
        _bind_args(self, fr, (obj,) + args, kwargs)
        values = dict(zip(code.posnames, fr[2:]))
        values.update((n, fr[s]) for n, s in code.kwonly)
        initvars = []
        for f in self.fields:
            if f.init:
                v = values[f.name]
                if v is _HAS_DEFAULT_FACTORY:
                    v = safe_callable(f.default_factory)()
            elif f.default_factory is not MISSING:
                v = safe_callable(f.default_factory)()
            else:
                continue
            if f._field_type is _FIELD_INITVAR:
                initvars.append(v)
            elif self.frozen:
                obj._sdict[f.name] = v
            else:
                script_setattr(obj, f.name, v)
        post = obj._cls.lookup("__post_init__")
        if post is not NOT_FOUND:
            call_method(post, obj, tuple(initvars))
        return None


def _default_of(f: Field):
    if f.default_factory is not MISSING:
        return _HAS_DEFAULT_FACTORY
    if f.default is not MISSING:
        return f.default
    return UNBOUND


def _get(obj, name):
    from ..interpreter.guard import get_attr
    return get_attr(obj, name)


_REPR_RUNNING: set = set()


class _Repr(_Generated):
    __slots__ = ("names",)

    def __init__(self, cls, names):
        self.cls, self.name, self.names = cls, "__repr__", names

    def __call__(self, obj):
        key = id(obj)
        if key in _REPR_RUNNING:
            return "..."
        _REPR_RUNNING.add(key)
        try:
            parts = []
            total = 0
            for n in self.names:
                parts.append(f"{n}={safe_repr(_get(obj, n))}")
                total += len(parts[-1])
                if total > RT.max_seq:
                    from ..interpreter.limits import seq_limit
                    raise seq_limit(total)
            return f"{obj._cls.qualname}({', '.join(parts)})"
        finally:
            _REPR_RUNNING.discard(key)


_OPS = {"__eq__": lambda a, b: a == b, "__lt__": lambda a, b: a < b, "__le__": lambda a, b: a <= b,
        "__gt__": lambda a, b: a > b, "__ge__": lambda a, b: a >= b}


class _Compare(_Generated):
    __slots__ = ("names", "op")

    def __init__(self, cls, name, names):
        self.cls, self.name, self.names, self.op = cls, name, names, _OPS[name]

    def __call__(self, obj, other):
        if not (isinstance(other, ScriptObject) and other._cls is obj._cls):
            return NotImplemented
        a = tuple(_get(obj, n) for n in self.names)
        b = tuple(_get(other, n) for n in self.names)
        deep_check(a)
        deep_check(b)
        return self.op(a, b)


class _Hash(_Generated):
    __slots__ = ("names",)

    def __init__(self, cls, names):
        self.cls, self.name, self.names = cls, "__hash__", names

    def __call__(self, obj):
        t = tuple(_get(obj, n) for n in self.names)
        hash_check(t)
        return hash(t)


class _FrozenSetattr(_Generated):
    """Checked before any attribute of an instance is set (see ``classes.script_setattr``)."""

    __slots__ = ("names",)
    _script_frozen = True

    def __init__(self, cls, names):
        self.cls, self.name, self.names = cls, "__setattr__", names

    def __call__(self, obj, name, value=None):
        if obj._cls is self.cls or name in self.names:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")


# ---------------------------------------------------------------------------
# module functions

def _params_of(x):
    if type(x) is ScriptClass:
        return x.dataclass
    if isinstance(x, ScriptObject):
        return x._cls.dataclass
    return None


def fields(class_or_instance, /):
    """The fields (not ClassVar or InitVar pseudo-fields) of a dataclass or instance, in order."""
    p = _params_of(class_or_instance)
    if p is None:
        raise TypeError("must be called with a dataclass type or instance")
    return tuple(f for f in p.fields.values() if f._field_type is _FIELD)


def is_dataclass(obj, /):
    return _params_of(obj) is not None


def asdict(obj, /, *, dict_factory=dict):
    if not (isinstance(obj, ScriptObject) and obj._cls.dataclass is not None):
        raise TypeError("asdict() should be called on dataclass instances")
    return _as_inner(obj, safe_callable(dict_factory), True)


def astuple(obj, /, *, tuple_factory=tuple):
    if not (isinstance(obj, ScriptObject) and obj._cls.dataclass is not None):
        raise TypeError("astuple() should be called on dataclass instances")
    return _as_inner(obj, safe_callable(tuple_factory), False)


def _as_inner(obj, factory, as_dict):
    """CPython's ``_asdict_inner``/``_astuple_inner``: dataclasses, namedtuples, lists,
    tuples and dicts are rebuilt recursively, anything else deep-copied."""
    RT.tick()
    if isinstance(obj, ScriptObject) and obj._cls.dataclass is not None:
        vals = [(f.name, _as_inner(_get(obj, f.name), factory, as_dict)) for f in fields(obj)]
        RT.charge(len(vals))
        return factory(vals) if as_dict else factory([v for _, v in vals])
    t = type(obj)
    if isinstance(obj, tuple) and hasattr(t, "_fields"):
        return t(*[_as_inner(v, factory, as_dict) for v in take(obj)])
    if t in (list, tuple) or (isinstance(obj, (list, tuple)) and t.__module__ == "builtins"):
        return t(_as_inner(v, factory, as_dict) for v in take(obj))
    if isinstance(obj, dict):
        from collections import defaultdict
        items = [(_as_inner(k, factory, as_dict), _as_inner(v, factory, as_dict)) for k, v in take(obj.items())]
        if t is defaultdict:
            d = defaultdict(obj.default_factory)
            d.update(items)
            return d
        return t(items)
    from .copying import deepcopy
    return deepcopy(obj)


def replace(obj, /, **changes):
    """``dataclasses.replace``: a new instance with ``changes`` (CPython 3.11's checks)."""
    p = _params_of(obj)
    if p is None or not isinstance(obj, ScriptObject):
        raise TypeError("replace() should be called on dataclass instances")
    for f in p.fields.values():
        if f._field_type is _FIELD_CLASSVAR:
            continue
        if not f.init:
            if f.name in changes:
                raise ValueError(f"field {f.name} is declared with init=False, it cannot be specified with replace()")
            continue
        if f.name not in changes:
            if f._field_type is _FIELD_INITVAR and f.default is MISSING:
                raise ValueError(f"InitVar {f.name!r} must be specified with replace()")
            changes[f.name] = _get(obj, f.name)
    return obj._cls(**changes)


def make_module() -> ScriptNamespace:
    from ..interpreter import typeobj
    from ..interpreter.values import DISPLAY_NAMES
    DISPLAY_NAMES.update({c: "function" for c in (_Init, _Repr, _Compare, _Hash, _FrozenSetattr)})
    typeobj.EXPOSED.update({Field, InitVar, FrozenInstanceError})
    return ScriptNamespace("dataclasses", {
        "dataclass": dataclass, "field": field, "fields": fields, "asdict": asdict, "astuple": astuple,
        "replace": replace, "is_dataclass": is_dataclass, "MISSING": MISSING, "KW_ONLY": KW_ONLY,
        "InitVar": _InitVarForm(), "FrozenInstanceError": FrozenInstanceError, "Field": Field})
