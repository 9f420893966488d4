"""The method objects of script classes: ``@staticmethod``, ``@classmethod``, ``@property``
and a function bound to an instance (re-exported by :mod:`.classes`)."""

from __future__ import annotations


class StaticMethod:
    """``@staticmethod``: the function, called without the instance."""

    __slots__ = ("f",)

    def __init__(self, f):
        self.f = f

    def __call__(self, *args, **kwargs):
        return self.f(*args, **kwargs)

    def __repr__(self):
        return f"<staticmethod({self.f!r})>"


class ClassMethod:
    """``@classmethod``: the function, called with the class first."""

    __slots__ = ("f",)

    def __init__(self, f):
        self.f = f

    def __repr__(self):
        return f"<classmethod({self.f!r})>"


class Property:
    """``@property`` (with ``.setter``): getter/setter script functions."""

    __slots__ = ("fget", "fset")
    _script_attrs = frozenset({"setter", "getter", "fget", "fset"})

    def __init__(self, fget=None, fset=None, fdel=None, doc=None):
        self.fget = fget
        self.fset = fset

    def setter(self, f):
        return Property(self.fget, f)

    def getter(self, f):
        return Property(f, self.fset)

    def __repr__(self):
        return f"<property object at 0x{id(self):x}>"


class BoundMethod:
    """A script function bound to an instance (``m = obj.method``)."""

    __slots__ = ("_f", "_self")

    def __init__(self, f, obj):
        self._f = f
        self._self = obj

    def __call__(self, *args, **kwargs):
        return self._f(self._self, *args, **kwargs)

    def __repr__(self):
        return f"<bound method {_qualname(self._f)} of {_short(self._self)}>"

    def __eq__(self, other):
        return type(other) is BoundMethod and other._f is self._f and other._self is self._self

    def __hash__(self):
        return hash((id(self._f), id(self._self)))


def _qualname(f) -> str:
    code = getattr(f, "_code", None)
    return code.name if code is not None else getattr(f, "__name__", "?")


def _short(o) -> str:
    from .classes import ScriptClass, ScriptObject
    if isinstance(o, ScriptObject):
        return f"<__main__.{o._cls.name} object at 0x{id(o):x}>"
    if type(o) is ScriptClass:
        return repr(o)
    return object.__repr__(o)
