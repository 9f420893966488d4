"""Module-like namespaces scripts import (``torch``, ``torch.nn``, ``math`` ...).

A :class:`Namespace` exposes exactly the names it was given: the guard reads them through
the class's ``_script_getattr`` (the members dict, nothing else), so no real module, no
``__dict__`` and nothing stored on the instance is reachable from a script.
"""

from __future__ import annotations


class Lazy:
    """A member whose value is made on first use (``load()``), so a namespace can list a
    name without importing the module behind it at start-up."""

    __slots__ = ("load",)

    def __init__(self, load):
        self.load = load


#: called with each lazily loaded member (the torch namespace registers its classes for
#: ``type(x)``); None until the namespaces are built
ON_LOAD = None


def _resolve(members: dict, name: str, lazy: "Lazy"):
    v = members[name] = lazy.load()
    if ON_LOAD is not None:
        ON_LOAD(v)
    return v


class Namespace:
    __slots__ = ("_name", "_members", "_script_attrs")

    def __init__(self, name: str, members: dict):
        self._name = name
        self._members = dict(members)
        self._script_attrs = frozenset(self._members)

    def __getattr__(self, attr):
        members = object.__getattribute__(self, "_members")
        try:
            v = members[attr]
        except KeyError:
            name = object.__getattribute__(self, "_name")
            raise AttributeError(f"module '{name}' has no attribute '{attr}'") from None
        if type(v) is Lazy:
            v = _resolve(members, attr, v)
        return v

    def _script_getattr(self, name):
        from ..interpreter.classes import NOT_FOUND
        members = object.__getattribute__(self, "_members")
        v = members.get(name, NOT_FOUND)
        if type(v) is Lazy:
            v = _resolve(members, name, v)
        return v

    def _add(self, name, value) -> None:
        self._members[name] = value
        self._script_attrs = frozenset(self._members)

    def __repr__(self) -> str:
        return f"<module '{self._name}'>"
