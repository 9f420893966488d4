"""Module-like namespaces scripts import (``torch``, ``torch.nn``, ``math`` ...).

A :class:`Namespace` exposes exactly the names it was given: the guard reads them through
the class's ``_script_getattr`` (the members dict, nothing else), so no real module, no
``__dict__`` and nothing stored on the instance is reachable from a script.
"""

from __future__ import annotations


class Namespace:
    __slots__ = ("_name", "_members", "_script_attrs")

    def __init__(self, name: str, members: dict):
        self._name = name
        self._members = dict(members)
        self._script_attrs = frozenset(self._members)

    def __getattr__(self, attr):
        members = object.__getattribute__(self, "_members")
        try:
            return members[attr]
        except KeyError:
            name = object.__getattribute__(self, "_name")
            raise AttributeError(f"module '{name}' has no attribute '{attr}'") from None

    def _script_getattr(self, name):
        from ..interpreter.classes import NOT_FOUND
        return object.__getattribute__(self, "_members").get(name, NOT_FOUND)

    def _add(self, name, value) -> None:
        self._members[name] = value
        self._script_attrs = frozenset(self._members)

    def __repr__(self) -> str:
        return f"<module '{self._name}'>"
