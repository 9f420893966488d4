"""Module-like namespaces scripts import (``torch``, ``torch.nn``, ``math`` ...).

A :class:`Namespace` exposes exactly the names it was given: the interpreter reads its
``_script_attrs`` (the allow-list), so nothing else — no real module, no ``__dict__`` —
is reachable from a script.
"""

from __future__ import annotations


class Lazy:
    """A member whose value is made on first use (``load()``), so a namespace can list a
    name without importing the module behind it at start-up."""

    __slots__ = ("load",)

    def __init__(self, load):
        self.load = load


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
            v = members[attr] = v.load()
        return v

    def _add(self, name, value) -> None:
        self._members[name] = value
        self._script_attrs = frozenset(self._members)

    def __repr__(self) -> str:
        return f"<module '{self._name}'>"
