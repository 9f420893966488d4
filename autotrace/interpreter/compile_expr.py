"""Compiling expressions: constants, operators, comparisons, attribute and subscript
access, literals, f-strings and ``lambda``.

Part of the closure compiler: see :mod:`.compile` for the conventions."""

from __future__ import annotations

import ast

from .. import site as _S
from .builtins import BUILTINS
from .errors import name_error
from .guard import _POLICIES, get_attr
from .limits import RT, seq_limit
from .ops import (BINOPS, COMPARE, RAW_BINOPS, UNARY, deep_check,
                  hash_check, safe_ascii, safe_format, safe_repr, safe_str, take)
from .values import ScriptFunction, display_name

from .compile_base import _RAW_CMP, _named_error, _num_const


class ExpressionsMixin:
    """Methods of :class:`.compile.Compiler`."""

    def expr(self, node):
        return getattr(self, "e_" + type(node).__name__)(node)

    def e_Constant(self, node):
        v = node.value

        def ev(fr):
            return v
        return ev

    def e_NamedExpr(self, node):
        vev = self.expr(node.value)
        store = self.store_name(node.target.id)

        def ev(fr):
            v = vev(fr)
            store(fr, v)
            return v
        return ev

    def e_BinOp(self, node):
        _site = self.site(node)
        opname = type(node.op).__name__
        f = BINOPS[opname]
        raw = RAW_BINOPS.get(opname)
        L, R = node.left, node.right
        lc, rc = _num_const(L), _num_const(R)
        lev = self.expr(L)
        rev = self.expr(R)
        if raw is not None and rc is not None and (opname != "Mult" or type(rc) is not int):
            c = rc
            if type(L) is ast.Name and self.scope.resolve(L.id)[0] == "global" and L.id not in BUILTINS:
                G = self.G
                lname = L.id
                lsite = self.lazy_site(L)

                def ev(fr):
                    try:
                        a = G[lname]
                    except KeyError:
                        raise name_error(lname, lsite()) from None
                    _S.current = _site
                    try:
                        return raw(a, c)
                    except TypeError as e:
                        raise _named_error(e, a, c) from None
                return ev

            def ev(fr):
                a = lev(fr)
                _S.current = _site
                try:
                    return raw(a, c)
                except TypeError as e:
                    raise _named_error(e, a, c) from None
            return ev
        if raw is not None and lc is not None and (opname != "Mult" or type(lc) is not int):
            c = lc

            def ev(fr):
                b = rev(fr)
                _S.current = _site
                try:
                    return raw(c, b)
                except TypeError as e:
                    raise _named_error(e, c, b) from None
            return ev

        def ev(fr):
            a = lev(fr)
            b = rev(fr)
            _S.current = _site
            try:
                return f(a, b)
            except TypeError as e:
                raise _named_error(e, a, b) from None
        return ev

    def e_UnaryOp(self, node):
        _site = self.site(node)
        opname = type(node.op).__name__
        c = _num_const(node.operand)
        if c is not None and opname in ("USub", "UAdd"):
            v = -c if opname == "USub" else +c

            def ev(fr):
                return v
            return ev
        oev = self.expr(node.operand)
        if opname == "Not":
            def ev(fr):
                v = oev(fr)
                _S.current = _site
                return not v
            return ev
        f = UNARY[opname]

        def ev(fr):
            v = oev(fr)
            _S.current = _site
            return f(v)
        return ev

    def e_BoolOp(self, node):
        evs = tuple(self.expr(v) for v in node.values)
        if type(node.op) is ast.And:
            if len(evs) == 2:
                a, b = evs

                def ev(fr):
                    v = a(fr)
                    if not v:
                        return v
                    return b(fr)
                return ev

            def ev(fr):
                v = None
                for e in evs:
                    v = e(fr)
                    if not v:
                        return v
                return v
            return ev
        if len(evs) == 2:
            a, b = evs

            def ev(fr):
                v = a(fr)
                if v:
                    return v
                return b(fr)
            return ev

        def ev(fr):
            v = None
            for e in evs:
                v = e(fr)
                if v:
                    return v
            return v
        return ev

    def e_Compare(self, node):
        _site = self.site(node)
        raw = _RAW_CMP
        if len(node.ops) == 1:
            opname = type(node.ops[0]).__name__
            f = COMPARE[opname]
            L, R = node.left, node.comparators[0]
            if opname in raw and (_num_const(R) is not None or _num_const(L) is not None):
                f = raw[opname]
            lev = self.expr(L)
            rc = _num_const(R)
            if rc is not None and opname in raw and type(L) is ast.Name \
                    and self.scope.resolve(L.id)[0] == "global" and L.id not in BUILTINS:
                G = self.G
                lname = L.id
                lsite = self.lazy_site(L)

                def ev(fr):
                    try:
                        a = G[lname]
                    except KeyError:
                        raise name_error(lname, lsite()) from None
                    _S.current = _site
                    try:
                        return f(a, rc)
                    except TypeError as e:
                        raise _named_error(e, a) from None
                return ev
            if rc is not None and opname in raw:
                def ev(fr):
                    a = lev(fr)
                    _S.current = _site
                    try:
                        return f(a, rc)
                    except TypeError as e:
                        raise _named_error(e, a) from None
                return ev
            rev = self.expr(R)

            def ev(fr):
                a = lev(fr)
                b = rev(fr)
                _S.current = _site
                try:
                    return f(a, b)
                except TypeError as e:
                    raise _named_error(e, a, b) from None
            return ev
        first = self.expr(node.left)
        pairs = tuple((COMPARE[type(op).__name__], self.expr(c)) for op, c in zip(node.ops, node.comparators))

        def ev(fr):
            a = first(fr)
            r = True
            for f, rev in pairs:
                b = rev(fr)
                _S.current = _site
                try:
                    r = f(a, b)
                except TypeError as e:
                    raise _named_error(e, a, b) from None
                if not r:
                    return r
                a = b
            return r
        return ev

    def e_IfExp(self, node):
        test = self.test(node.test)
        body = self.expr(node.body)
        orelse = self.expr(node.orelse)

        def ev(fr):
            return body(fr) if test(fr) else orelse(fr)
        return ev

    def e_Attribute(self, node):
        _site = self.site(node)
        oev = self.expr(node.value)
        name = node.attr

        def ev(fr):
            o = oev(fr)
            _S.current = _site
            p = _POLICIES.get(type(o))
            if p is not None and name in p.read:
                return getattr(o, name)
            return get_attr(o, name)
        return ev

    def e_Subscript(self, node):
        _site = self.site(node)
        oev = self.expr(node.value)
        kev = self.expr(node.slice)

        def ev(fr):
            o = oev(fr)
            k = kev(fr)
            _S.current = _site
            if type(k) is tuple and type(o) is dict:
                deep_check(k)
            elif type(o) is type:
                raise TypeError(f"type {o.__name__!r} is not subscriptable in autotrace scripts")
            return o[k]
        return ev

    def e_Slice(self, node):
        lo = self.expr(node.lower) if node.lower is not None else None
        hi = self.expr(node.upper) if node.upper is not None else None
        step = self.expr(node.step) if node.step is not None else None

        def ev(fr):
            return slice(lo(fr) if lo is not None else None,
                         hi(fr) if hi is not None else None,
                         step(fr) if step is not None else None)
        return ev

    def e_Starred(self, node):  # pragma: no cover - only inside literals/calls
        raise SyntaxError("can't use starred expression here")

    # -- calls -----------------------------------------------------------------------------

    def elements(self, elts):
        """builder(fr) -> list for list/tuple/set displays (handles *starred)."""
        if not any(type(e) is ast.Starred for e in elts):
            evs = tuple(self.expr(e) for e in elts)
            if len(evs) == 1:
                e0, = evs

                def build(fr):
                    return [e0(fr)]
                return build
            if len(evs) == 2:
                e0, e1 = evs

                def build(fr):
                    return [e0(fr), e1(fr)]
                return build

            def build(fr):
                return [e(fr) for e in evs]
            return build
        parts = tuple((type(e) is ast.Starred, self.expr(e.value if type(e) is ast.Starred else e)) for e in elts)

        def build(fr):
            out = []
            for starred, e in parts:
                if starred:
                    out.extend(take(e(fr), RT.max_seq - len(out)))
                else:
                    out.append(e(fr))
            return out
        return build

    def e_List(self, node):
        if not node.elts:
            def ev(fr):
                return []
            return ev
        return self.elements(node.elts)

    def e_Tuple(self, node):
        if not node.elts:
            def ev(fr):
                return ()
            return ev
        if all(type(e) is ast.Constant for e in node.elts):
            t = tuple(e.value for e in node.elts)

            def ev(fr):
                return t
            return ev
        if len(node.elts) == 2 and not any(type(e) is ast.Starred for e in node.elts):
            e0, e1 = self.expr(node.elts[0]), self.expr(node.elts[1])

            def ev(fr):
                return (e0(fr), e1(fr))
            return ev
        build = self.elements(node.elts)

        def ev(fr):
            return tuple(build(fr))
        return ev

    def e_Set(self, node):
        build = self.elements(node.elts)

        def ev(fr):
            items = build(fr)
            for k in items:
                if type(k) is tuple:
                    deep_check(k)
            return set(items)
        return ev

    def e_Dict(self, node):
        pairs = tuple((self.expr(k) if k is not None else None, self.expr(v))
                      for k, v in zip(node.keys, node.values))
        if all(type(k) is ast.Constant and type(k.value) is str for k in node.keys):
            named = tuple((k.value, v) for k, (_, v) in zip(node.keys, pairs))

            def ev(fr):
                return {k: v(fr) for k, v in named}
            return ev

        def ev(fr):
            d = {}
            for k, v in pairs:
                if k is None:
                    m = v(fr)
                    if type(m) is not dict:
                        if not hasattr(type(m), "keys"):
                            raise TypeError(f"{display_name(m)!r} object is not a mapping")
                        m = dict(m)
                    if len(d) + len(m) > RT.max_seq:
                        raise seq_limit(len(d) + len(m))
                    d.update(m)
                else:
                    kk = k(fr)
                    hash_check(kk)
                    d[kk] = v(fr)
            return d
        return ev

    def e_JoinedStr(self, node):
        pieces = []
        for v in node.values:
            if type(v) is ast.Constant:
                pieces.append(v.value)
            else:
                pieces.append(self.formatted(v))
        pieces = tuple(pieces)

        def ev(fr):
            out = []
            used = 0
            for p in pieces:
                s = p if type(p) is str else p(fr, used)
                used += len(s)
                out.append(s)
            if used > RT.max_seq:
                raise seq_limit(used, "the f-string")
            return "".join(out)
        return ev

    def formatted(self, node):
        _site = self.site(node)
        vev = self.expr(node.value)
        conv = {-1: None, 115: safe_str, 114: safe_repr, 97: safe_ascii}[node.conversion]
        spec = self.expr(node.format_spec) if node.format_spec is not None else None

        def piece(fr, used):
            v = vev(fr)
            if conv is not None:
                v = conv(v)
            s = spec(fr) if spec is not None else ""
            _S.current = _site
            return safe_format(v, s, used)
        return piece

    # -- functions and comprehensions ---------------------------------------------------

    def e_Lambda(self, node):
        _site = self.site(node)
        a = node.args
        defaults = tuple(self.expr(d) for d in a.defaults)
        kwd = tuple((arg.arg, self.expr(d)) for arg, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None)
        code = self.function_code(node, "<lambda>", True)
        if not defaults and not kwd:
            def ev(fr):
                return ScriptFunction(code, fr, (), {})
            return ev

        def ev(fr):
            return ScriptFunction(code, fr, tuple([d(fr) for d in defaults]), {k: e(fr) for k, e in kwd})
        return ev
