"""Script classes: autotrace's own class objects, never Python classes built from script code.

A ``class`` statement makes a :class:`ScriptClass` (name, one base, a namespace dict of
the values its body bound). Calling it makes an instance:

* a :class:`ScriptInstance` (two slots: its class and its attribute dict) for a plain
  class (no base, ``object``, or another plain script class);
* for a class whose root base is an allowed library class (``nn.Module`` and its
  layers, ``torch.autograd.Function``, the exception classes), an object of
  :func:`scripted_type` (``base``): a fixed Python subclass of the library class with
  the :class:`ScriptObject` mixin, so engine code (optimizers, ``Sequential``,
  ``raise``) handles it as the library object it is.

Special methods a script class defines (:data:`SPECIAL_METHODS`) are dispatched by the
mixin's Python special methods, so operators, ``len``, ``repr``, iteration and ``with``
behave as in Python both in the interpreter and in engine code; a missing one falls back
to the library base's, else to Python's behaviour with the script class's name in the
message. Outside a run (rendering after the script ended) script code is never called.

What scripts can read on these objects (the guard calls :func:`script_getattr`): the
instance's own attributes, the class's attributes (functions bound to the instance,
``staticmethod``/``classmethod``/``property`` objects resolved), then the library base's
allow-list. Dunder reads are limited to :data:`READABLE_DUNDERS` (see :func:`dunder_attr`).
"""

from __future__ import annotations

from .limits import RT
from .values import ScriptFunction

_MISSING = object()
#: what ``_script_getattr`` hooks return for a name they do not hold
NOT_FOUND = _MISSING

from .validate import _BINARY, READABLE_DUNDERS, SPECIAL_METHODS  # noqa: E402
from .methods import BoundMethod, ClassMethod, Property, StaticMethod  # noqa: E402,F401


class ScriptClass:
    """A class defined by the script. ``mro`` lists the script classes from this one to
    the root; ``lib_base`` is the library class at the root (None for plain classes)."""

    __slots__ = ("name", "base", "ns", "mro", "lib_base", "op", "qualname", "annotations", "dataclass",
                 "__weakref__")

    def __init__(self, name: str, base, ns: dict, qualname: str | None = None, annotations: tuple = ()):
        self.name = name
        self.ns = ns
        self.op = None
        self.qualname = qualname or name
        #: the class body's annotated names in order, as ``(name, annotation source)``
        self.annotations = annotations
        #: the dataclass description (:class:`autotrace.stdlib.dataclasses_.Params`) or None
        self.dataclass = None
        if type(base) is ScriptClass:
            self.base = base
            self.mro = (self,) + base.mro
            self.lib_base = base.lib_base
        else:
            self.base = base if base is not object else None
            self.mro = (self,)
            self.lib_base = self.base

    def lookup(self, name: str):
        for c in self.mro:
            v = c.ns.get(name, _MISSING)
            if v is not _MISSING:
                return v
        return _MISSING

    def defines(self, name: str) -> bool:
        return self.lookup(name) is not _MISSING

    def is_subclass(self, other) -> bool:
        if type(other) is ScriptClass:
            return other in self.mro
        if isinstance(other, type):
            if other is object:
                return True
            return self.lib_base is not None and issubclass(self.lib_base, other)
        return False

    def __call__(self, *args, **kwargs):
        return instantiate(self, args, kwargs)

    def __repr__(self):
        return f"<class '__main__.{self.name}'>"


class ScriptObject:
    """Mixin of every script instance: Python's special methods dispatch to the script
    class's (``_cls``), else to the library base's, else behave as Python's do."""

    __slots__ = ()

    def __repr__(self):
        m = self._cls.lookup("__repr__")
        if m is _MISSING or not RT.active:
            if isinstance(self, BaseException):
                from .values import CaughtException
                return CaughtException(self).__repr__()
            sup = _library(self, "__repr__")
            if sup is not None:
                return sup()
            return f"<__main__.{self._cls.name} object at 0x{id(self):x}>"
        r = call_method(m, self, ())
        if type(r) is not str:
            raise TypeError(f"__repr__ returned non-string (type {_tname(r)})")
        return r

    def __str__(self):
        m = self._cls.lookup("__str__")
        if m is _MISSING or not RT.active:
            if self._cls.defines("__repr__") or _library(self, "__str__") is None:
                return self.__repr__()
            return _library(self, "__str__")()
        r = call_method(m, self, ())
        if type(r) is not str:
            raise TypeError(f"__str__ returned non-string (type {_tname(r)})")
        return r

    def __format__(self, spec):
        m = self._cls.lookup("__format__")
        if m is _MISSING:
            if spec:
                raise TypeError(f"unsupported format string passed to {self._cls.name}.__format__")
            return self.__str__()
        r = call_method(m, self, (spec,))
        if type(r) is not str:
            raise TypeError(f"__format__ must return a str, not {_tname(r)}")
        return r

    def __len__(self):
        m = self._cls.lookup("__len__")
        if m is _MISSING:
            sup = _library(self, "__len__")
            if sup is not None:
                return sup()
            raise TypeError(f"object of type '{self._cls.name}' has no len()")
        r = call_method(m, self, ())
        if type(r) is not int and type(r) is not bool:
            raise TypeError(f"'{_tname(r)}' object cannot be interpreted as an integer")
        if r < 0:
            raise ValueError("__len__() should return >= 0")
        return int(r)

    def __bool__(self):
        m = self._cls.lookup("__bool__")
        if m is not _MISSING:
            r = call_method(m, self, ())
            if type(r) is not bool:
                raise TypeError(f"__bool__ should return bool, returned {_tname(r)}")
            return r
        if self._cls.defines("__len__"):
            return self.__len__() != 0
        sup = _library(self, "__bool__") or _library(self, "__len__")
        if sup is not None:
            return bool(sup())
        return True

    def __getitem__(self, key):
        m = self._cls.lookup("__getitem__")
        if m is _MISSING:
            sup = _library(self, "__getitem__")
            if sup is not None:
                return sup(key)
            raise TypeError(f"'{self._cls.name}' object is not subscriptable")
        return call_method(m, self, (key,))

    def __setitem__(self, key, value):
        m = self._cls.lookup("__setitem__")
        if m is _MISSING:
            sup = _library(self, "__setitem__")
            if sup is not None:
                return sup(key, value)
            raise TypeError(f"'{self._cls.name}' object does not support item assignment")
        call_method(m, self, (key, value))

    def __delitem__(self, key):
        m = self._cls.lookup("__delitem__")
        if m is _MISSING:
            raise TypeError(f"'{self._cls.name}' object doesn't support item deletion")
        call_method(m, self, (key,))

    def __contains__(self, item):
        m = self._cls.lookup("__contains__")
        if m is _MISSING:
            sup = _library(self, "__contains__")
            if sup is not None:
                return sup(item)
            for x in self.__iter__():
                if x is item or x == item:
                    return True
            return False
        return bool(call_method(m, self, (item,)))

    def __iter__(self):
        m = self._cls.lookup("__iter__")
        if m is _MISSING:
            sup = _library(self, "__iter__")
            if sup is not None:
                return sup()
            if self._cls.defines("__getitem__"):
                return _seq_iter(self)
            raise TypeError(f"'{self._cls.name}' object is not iterable")
        r = call_method(m, self, ())
        if not hasattr(type(r), "__next__"):
            raise TypeError(f"iter() returned non-iterator of type '{_tname(r)}'")
        return r

    def __next__(self):
        m = self._cls.lookup("__next__")
        if m is _MISSING:
            raise TypeError(f"'{self._cls.name}' object is not an iterator")
        return call_method(m, self, ())

    def __call__(self, *args, **kwargs):
        m = self._cls.lookup("__call__")
        if m is _MISSING:
            sup = _library(self, "__call__")
            if sup is not None:
                return sup(*args, **kwargs)
            raise TypeError(f"'{self._cls.name}' object is not callable")
        return call_method(m, self, args, kwargs)

    def __hash__(self):
        m = self._cls.lookup("__hash__")
        if m is None:
            raise TypeError(f"unhashable type: '{self._cls.name}'")
        if m is _MISSING:
            if self._cls.defines("__eq__"):
                raise TypeError(f"unhashable type: '{self._cls.name}'")
            return object.__hash__(self)
        r = call_method(m, self, ())
        if type(r) is not int and type(r) is not bool:
            raise TypeError("__hash__ method should return an integer")
        # CPython keeps a result that fits in Py_hash_t and hashes a larger one
        return int(r) if -2**63 <= r < 2**63 else hash(r)

    def __enter__(self):
        m = self._cls.lookup("__enter__")
        if m is _MISSING:
            raise TypeError(f"'{self._cls.name}' object does not support the context manager protocol")
        return call_method(m, self, ())

    def __exit__(self, et, ev, tb):
        m = self._cls.lookup("__exit__")
        if m is _MISSING:
            raise TypeError(f"'{self._cls.name}' object does not support the context manager protocol")
        from .values import CaughtException
        return call_method(m, self, (et, CaughtException(ev) if ev is not None else None, None))

    def __int__(self):
        return _number(self, "__int__", int)

    def __float__(self):
        return _number(self, "__float__", float)

    def __round__(self, *nd):
        m = self._cls.lookup("__round__")
        if m is _MISSING:
            raise TypeError(f"type {self._cls.name} doesn't define __round__ method")
        return call_method(m, self, nd)


def _number(o, name, want):
    m = o._cls.lookup(name)
    if m is _MISSING:
        sup = _library(o, name)
        if sup is not None:
            return sup()
        what = "int()" if want is int else "float()"
        raise TypeError(f"{what} argument must be a string or a real number, not '{o._cls.name}'")
    r = call_method(m, o, ())
    if type(r) is not want and not (want is int and type(r) is bool):
        raise TypeError(f"{name} returned non-{want.__name__} (type {_tname(r)})")
    return r


def _seq_iter(o):
    i = 0
    while True:
        try:
            v = o.__getitem__(i)
        except (IndexError, StopIteration):
            return
        yield v
        i += 1


def _cmp(name):
    def f(self, other):
        return _raw_cmp(self, name, other)
    f.__name__ = name
    return f


def _raw_cmp(self, name, other):
    m = self._cls.lookup(name)
    if m is _MISSING:
        sup = _library(self, name)
        if sup is not None:
            return sup(other)
        return NotImplemented
    return call_method(m, self, (other,))


_REFLECTED = {"__lt__": ("__gt__", "<"), "__gt__": ("__lt__", ">"), "__le__": ("__ge__", "<="),
              "__ge__": ("__le__", ">=")}


def _order(name):
    """An ordering method: when neither of two script objects answers, Python's TypeError
    with the script classes' names (Python would name the mixin class, e.g. in ``sorted``)."""
    reflected, sym = _REFLECTED[name]

    def f(self, other):
        r = _raw_cmp(self, name, other)
        if r is not NotImplemented:
            return r
        if not isinstance(other, ScriptObject):
            return r        # Python tries other's reflected method, then names both types
        r = _raw_cmp(other, reflected, self)
        if r is NotImplemented:
            raise TypeError(f"'{sym}' not supported between instances of '{_tname(self)}' and '{_tname(other)}'")
        return r
    f.__name__ = name
    return f


def _unary(name, sym):
    def f(self):
        m = self._cls.lookup(name)
        if m is _MISSING:
            sup = _library(self, name)
            if sup is not None:
                return sup()
            raise TypeError(f"bad operand type for unary {sym}: '{self._cls.name}'")
        return call_method(m, self, ())
    f.__name__ = name
    return f


def _inplace(name, plain):
    def f(self, other):
        m = self._cls.lookup(name)
        if m is _MISSING:
            return NotImplemented
        return call_method(m, self, (other,))
    f.__name__ = name
    return f


for _n in ("eq", "ne", "lt", "le", "gt", "ge") + _BINARY:
    setattr(ScriptObject, f"__{_n}__", _cmp(f"__{_n}__"))
for _n in ("lt", "le", "gt", "ge"):
    setattr(ScriptObject, f"__{_n}__", _order(f"__{_n}__"))


def _ne(self, other):
    """``!=``: the script's ``__ne__``, else the inverse of its ``__eq__`` (``object.__ne__``)."""
    if self._cls.defines("__ne__") or not self._cls.defines("__eq__"):
        return _raw_cmp(self, "__ne__", other)
    r = _raw_cmp(self, "__eq__", other)
    return r if r is NotImplemented else not r


ScriptObject.__ne__ = _ne
for _n in _BINARY:
    setattr(ScriptObject, f"__r{_n}__", _cmp(f"__r{_n}__"))
    setattr(ScriptObject, f"__i{_n}__", _inplace(f"__i{_n}__", f"__{_n}__"))
for _n, _s in (("neg", "-"), ("pos", "+"), ("abs", "abs()"), ("invert", "~")):
    setattr(ScriptObject, f"__{_n}__", _unary(f"__{_n}__", _s))
ScriptObject.__abs__ = _unary("__abs__", "abs()")


def _library(o, name):
    """The library base's bound special method ``name``, or None."""
    lib = o._cls.lib_base
    if lib is None:
        return None
    for k in lib.__mro__:
        if k is object:
            return None
        f = k.__dict__.get(name)
        if f is not None:
            return f.__get__(o, type(o)) if hasattr(f, "__get__") else None
    return None


def _tname(v) -> str:
    from .values import display_name
    return display_name(v)


def _register_display_names():
    from .values import DISPLAY_NAMES
    DISPLAY_NAMES.update({BoundMethod: "method", StaticMethod: "staticmethod", ClassMethod: "classmethod",
                          Property: "property", Super: "super", ScriptClass: "type"})


class ScriptInstance(ScriptObject):
    """An instance of a plain script class: its class and its attributes, nothing else."""

    __slots__ = ("_cls", "_sdict", "__weakref__")

    def __init__(self, cls: ScriptClass):
        self._cls = cls
        self._sdict = {}


_SCRIPTED: dict[type, type] = {}


def scripted_type(base: type) -> type:
    """The fixed Python subclass of library class ``base`` that script instances with that
    root base are made of (one per library class, cached; its body is autotrace's)."""
    t = _SCRIPTED.get(base)
    if t is None:
        t = type(f"Scripted{base.__name__}", (ScriptObject, base), {"__module__": __name__})
        _SCRIPTED[base] = t
    return t


def call_method(m, obj, args: tuple, kwargs=None):
    """Call a class attribute ``m`` found for ``obj`` as Python would bind it."""
    tm = type(m)
    if tm is ScriptFunction:
        if not RT.active:
            raise RuntimeError("script method called outside of a script run")
        return m._invoke((obj,) + tuple(args), kwargs)
    if tm is StaticMethod:
        return m.f(*args, **(kwargs or {}))
    if tm is ClassMethod:
        return m.f(obj._cls if isinstance(obj, ScriptObject) else obj, *args, **(kwargs or {}))
    if getattr(tm, "_script_binds", False):
        return m(obj, *args, **(kwargs or {}))
    return m(*args, **(kwargs or {}))


def bind(v, obj, cls):
    """A class attribute ``v`` as ``obj.name`` gives it (functions bound; so are library
    function wrappers that declare ``_script_binds``, e.g. a ``@torch.no_grad()`` method)."""
    tv = type(v)
    if tv is ScriptFunction or getattr(tv, "_script_binds", False):
        return BoundMethod(v, obj)
    if tv is StaticMethod:
        return v.f
    if tv is ClassMethod:
        return BoundMethod(v.f, cls)
    return v


def instantiate(cls: ScriptClass, args: tuple, kwargs):
    """``Cls(*args)``: make the instance, run ``__init__`` (the script's, else the library
    base's)."""
    lib = cls.lib_base
    if lib is None:
        o = ScriptInstance(cls)
    else:
        t = scripted_type(lib)
        o = t.__new__(t) if not issubclass(lib, BaseException) else t.__new__(t, *args)
        object.__setattr__(o, "_cls", cls)
        object.__setattr__(o, "_sdict", {})
        pre = getattr(lib, "_script_prepare", None)
        if pre is not None:
            pre(o)
    init = cls.lookup("__init__")
    if init is _MISSING:
        if lib is not None:
            lib.__init__(o, *args, **(kwargs or {}))
        elif args or kwargs:
            raise TypeError(f"{cls.name}() takes no arguments")
        return o
    r = call_method(init, o, args, kwargs)
    if r is not None:
        raise TypeError(f"__init__() should return None, not '{_tname(r)}'")
    return o


class Super:
    """``super()`` / ``super(Cls, obj)``: attribute lookup starting after ``cls``."""

    __slots__ = ("cls", "obj")

    def __init__(self, cls, obj):
        self.cls = cls
        self.obj = obj

    def __repr__(self):
        return f"<super: <class '{self.cls.name}'>, <{self.cls.name} object>>"


def make_super(cls, obj):
    if type(cls) is not ScriptClass:
        raise TypeError("super() argument 1 must be a class defined by the script in autotrace scripts")
    if isinstance(obj, ScriptObject):
        ocls = obj._cls
    elif type(obj) is ScriptClass:
        ocls = obj
    else:
        raise TypeError("super(type, obj): obj must be an instance or subtype of type")
    if cls not in ocls.mro:
        raise TypeError("super(type, obj): obj must be an instance or subtype of type")
    return Super(cls, obj)


def super_getattr(s: Super, name: str):
    obj = s.obj
    ocls = obj._cls if isinstance(obj, ScriptObject) else obj
    mro = ocls.mro
    i = mro.index(s.cls)
    for c in mro[i + 1:]:
        v = c.ns.get(name, _MISSING)
        if v is not _MISSING:
            if type(v) is Property:
                return call_method(v.fget, obj, ())
            return bind(v, obj, ocls) if isinstance(obj, ScriptObject) else v
    lib = ocls.lib_base
    if lib is not None and isinstance(obj, ScriptObject):
        return library_attr(obj, lib, name)
    if name == "__init__":
        return _object_init
    raise _no_attr("super", name)


def _object_init(*args, **kwargs):
    return None


class ObjectSetattr:
    """``object.__setattr__(obj, name, value)``: a frozen dataclass's ``__post_init__`` sets
    its own fields with it; otherwise the same rules as ``obj.name = value``."""

    __slots__ = ()

    def __call__(self, obj, name, value, /):
        if type(name) is not str:
            raise TypeError(f"attribute name must be string, not '{_tname(name)}'")
        if type(obj) is ScriptInstance and not (name[:2] == "__" and name[-2:] == "__"):
            script_setattr(obj, name, value, frozen_check=False)
            return
        from .guard import set_attr
        set_attr(obj, name, value)

    def __repr__(self):
        return "<slot wrapper '__setattr__' of 'object' objects>"


OBJECT_SETATTR = ObjectSetattr()


def library_attr(obj, lib, name):
    """``super().name`` reaching the library base: its allow-listed methods bound to obj."""
    from .guard import policy
    p = policy(lib)
    if name == "__init__" or name in p.read or name in p.lib_read or name in _LIB_SPECIAL:
        for k in lib.__mro__:
            f = k.__dict__.get(name)
            if f is not None:
                if k is object:
                    return _object_init if name == "__init__" else _no(name)
                return f.__get__(obj, type(obj)) if hasattr(f, "__get__") else f
    raise _no_attr("super", name)


_LIB_SPECIAL = frozenset({"__repr__", "__str__", "__call__", "__getitem__", "__len__", "__iter__"})


def _no(name):
    raise _no_attr("super", name)


def _no_attr(what, name):
    from .errors import ScriptAttributeError
    return ScriptAttributeError(f"'{what}' object has no attribute '{name}'")


# ---------------------------------------------------------------------------
# attribute access on script objects (called by the guard)

def script_getattr(o, name: str):
    """``o.name`` for a script instance: property, own attribute, library registry
    (Module parameters/buffers/submodules), class attribute; else _MISSING (the guard
    then tries the library base's allow-list)."""
    cls = o._cls
    v = cls.lookup(name)
    if type(v) is Property:
        if v.fget is None:
            raise _no_attr_obj(cls, name, "property has no getter")
        return call_method(v.fget, o, ())
    hook = _LIB_GET.get(cls.lib_base, _MISSING)
    if hook is _MISSING:
        hook = _lib_hook(cls.lib_base, "_script_getattr")
        _LIB_GET[cls.lib_base] = hook
    if hook is not None:
        r = hook(o, name)
        if r is not _MISSING:
            return r
    else:
        d = o._sdict
        if name in d:
            return d[name]
    if v is not _MISSING:
        return bind(v, o, cls)
    return _MISSING


def script_setattr(o, name: str, value, frozen_check: bool = True) -> None:
    cls = o._cls
    frozen = cls.lookup("__setattr__") if frozen_check else _MISSING
    if frozen is not _MISSING and getattr(type(frozen), "_script_frozen", False):
        frozen(o, name)     # a frozen dataclass's: raises FrozenInstanceError
    v = cls.lookup(name)
    if type(v) is Property:
        if v.fset is None:
            from .errors import ScriptAttributeError
            raise ScriptAttributeError(f"property '{name}' of '{cls.name}' object has no setter")
        call_method(v.fset, o, (value,))
        return
    hook = _lib_hook(cls.lib_base, "_script_setattr")
    if hook is not None:
        hook(o, name, value)
        return
    o._sdict[name] = value


def _no_attr_obj(cls, name, why=""):
    from .errors import ScriptAttributeError
    return ScriptAttributeError(f"'{cls.name}' object has no attribute '{name}'")


_LIB_GET: dict = {}


def _lib_hook(lib, name):
    if lib is None:
        return None
    for k in lib.__mro__:
        f = k.__dict__.get(name)
        if f is not None:
            return f
    return None


def class_getattr(c: ScriptClass, name: str):
    """``Cls.name``: class attributes (functions unbound, classmethods bound to the class),
    then what the library base offers classes (``Function.apply``)."""
    v = c.lookup(name)
    if v is not _MISSING:
        tv = type(v)
        if tv is StaticMethod:
            return v.f
        if tv is ClassMethod:
            return BoundMethod(v.f, c)
        return v
    lib = c.lib_base
    if lib is not None:
        f = getattr(lib, "_script_class_getattr", None)
        if f is not None:
            r = f(c, name)
            if r is not _MISSING:
                return r
        if name == "__init__":
            return _LibInit(lib)
    from .errors import ScriptAttributeError
    raise ScriptAttributeError(f"type object '{c.name}' has no attribute '{name}'")


class _LibInit:
    """``nn.Module.__init__`` read from a class: calls the library initialiser on a
    script instance of that library base."""

    __slots__ = ("lib",)

    def __init__(self, lib):
        self.lib = lib

    def __call__(self, obj, *args, **kwargs):
        if not isinstance(obj, self.lib):
            raise TypeError(f"descriptor '__init__' requires a '{self.lib.__name__}' object")
        self.lib.__init__(obj, *args, **kwargs)

    def __repr__(self):
        return f"<slot wrapper '__init__' of '{self.lib.__name__}' objects>"


def class_setattr(c: ScriptClass, name: str, value) -> None:
    c.ns[name] = value


_register_display_names()
