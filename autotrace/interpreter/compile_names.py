"""Compiling name stores and loads: frame slots, cells, globals and builtins, unpacking
targets and ``del`` of names.

Part of the closure compiler: see :mod:`.compile` for the conventions."""

from __future__ import annotations

import ast

from .. import site as _S
from .builtins import BUILTINS
from .errors import name_error
from .guard import set_attr
from .ops import take
from .values import (UNBOUND,
                     display_name)

from .compile_base import (_bget, _bind_slow, _frame_at, _store_item, _unbound_free,
                           _unbound_local, _unpack)


class NamesMixin:
    """Methods of :class:`.compile.Compiler`."""

    def store_name(self, name: str, hook: bool = True):
        r = self.scope.resolve(name)
        kind = r[0]
        if kind == "class":
            def st(fr, v):
                fr[2][name] = v
            return st
        if kind == "global":
            G = self.G
            if not hook:
                def st(fr, v):
                    G[name] = v
                return st

            def st(fr, v):
                G[name] = v
                h = _bget(type(v), _bind_slow)
                if h is not None:
                    h(v, name)
            return st
        if kind == "local":
            i = r[1]
        else:   # a walrus in a comprehension binding in the enclosing function
            _, depth, i = r

            def st(fr, v):
                f = fr
                for _ in range(depth):
                    f = f[0]
                f[i] = v
                h = _bget(type(v), _bind_slow)
                if h is not None:
                    h(v, name)
            return st
        if not hook:
            def st(fr, v):
                fr[i] = v
            return st

        def st(fr, v):
            fr[i] = v
            h = _bget(type(v), _bind_slow)
            if h is not None:
                h(v, name)
        return st

    def unbind_name(self, name: str):
        r = self.scope.resolve(name)
        if r[0] == "class":
            def u(fr):
                fr[2].pop(name, None)
            return u
        if r[0] == "free":
            _, depth, j = r

            def u(fr):
                _frame_at(fr, depth)[j] = UNBOUND
            return u
        if r[0] == "global":
            G = self.G

            def u(fr):
                G.pop(name, None)
            return u
        i = r[1]

        def u(fr):
            fr[i] = UNBOUND
        return u

    def store(self, target):
        """Compile an assignment target into ``st(fr, value)``."""
        t = type(target)
        if t is ast.Name:
            return self.store_name(target.id)
        if t is ast.Tuple or t is ast.List:
            return self.store_unpack(target)
        _site = self.site(target)
        if t is ast.Subscript:
            oev = self.expr(target.value)
            kev = self.expr(target.slice)

            def st(fr, v):
                o = oev(fr)
                k = kev(fr)
                _S.current = _site
                if type(o) is dict or type(o) is list:
                    _store_item(o, k, v)
                else:
                    o[k] = v
            return st
        if t is ast.Attribute:
            oev = self.expr(target.value)
            name = target.attr

            def st(fr, v):
                o = oev(fr)
                _S.current = _site
                set_attr(o, name, v)
            return st
        raise SyntaxError(f"cannot assign to {t.__name__}")  # pragma: no cover (compile() refuses)

    def store_unpack(self, target):
        elts = target.elts
        _site = self.site(target)
        star = [i for i, e in enumerate(elts) if type(e) is ast.Starred]
        subs = tuple(self.store(e.value if type(e) is ast.Starred else e) for e in elts)
        n = len(elts)
        if not star:
            if n == 2:
                s0, s1 = subs

                def st(fr, v):
                    if 0:
                        _site
                    a, b = _unpack(v, 2)
                    s0(fr, a)
                    s1(fr, b)
                return st

            def st(fr, v):
                if 0:
                    _site
                for s, x in zip(subs, _unpack(v, n)):
                    s(fr, x)
            return st
        k = star[0]
        after = n - k - 1

        def st(fr, v):
            if 0:
                _site
            if type(v) is not list and type(v) is not tuple and not (
                    hasattr(type(v), "__iter__") or hasattr(type(v), "__getitem__")):
                raise TypeError(f"cannot unpack non-iterable {display_name(v)} object")
            items = take(v)
            m = len(items)
            if m < n - 1:
                raise ValueError(f"not enough values to unpack (expected at least {n - 1}, got {m})")
            for i in range(k):
                subs[i](fr, items[i])
            subs[k](fr, list(items[k:m - after]))
            for j in range(after):
                subs[k + 1 + j](fr, items[m - after + j])
        return st

    # -- expressions ---------------------------------------------------------------------

    def e_Name(self, node):
        return self.load_name(node.id, self.lazy_site(node))

    def load_name(self, name: str, mksite):
        scope = self.scope
        r = scope.resolve(name)
        if r[0] == "class":
            outer = self.load_resolved(name, r[1], mksite, scope)

            def ev(fr):
                d = fr[2]
                if name in d:
                    return d[name]
                return outer(fr)
            return ev
        return self.load_resolved(name, r, mksite, scope)

    def load_resolved(self, name: str, r, mksite, scope):
        if r[0] == "global":
            G = self.G
            if name in BUILTINS:
                bv = BUILTINS[name]
                gget = G.get

                def ev(fr):
                    return gget(name, bv)
                return ev

            def ev(fr):
                try:
                    return G[name]
                except KeyError:
                    raise name_error(name, mksite()) from None
            return ev
        if r[0] == "local":
            i = r[1]
            if (name in scope.params or scope.kind == "comprehension") and name not in scope.deleted:
                def ev(fr):
                    return fr[i]
                return ev

            def ev(fr):
                v = fr[i]
                if v is UNBOUND:
                    raise _unbound_local(name, mksite())
                return v
            return ev
        _, depth, i = r
        if depth == 1:
            def ev(fr):
                v = fr[0][i]
                if v is UNBOUND:
                    raise _unbound_free(name, mksite())
                return v
            return ev
        if depth == 2:
            def ev(fr):
                v = fr[0][0][i]
                if v is UNBOUND:
                    raise _unbound_free(name, mksite())
                return v
            return ev

        def ev(fr):
            f = fr
            for _ in range(depth):
                f = f[0]
            v = f[i]
            if v is UNBOUND:
                raise _unbound_free(name, mksite())
            return v
        return ev
