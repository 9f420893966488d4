"""Compiling calls: argument building (``*args``/``**kwargs``), method calls with their
fast paths, and zero-argument ``super()``.

Part of the closure compiler: see :mod:`.compile` for the conventions."""

from __future__ import annotations

import ast

from .. import site as _S
from .guard import _POLICIES, get_attr, policy
from .limits import RT
from .ops import SAFE_CTORS, take
from .values import ScriptFunction, UNBOUND
from .classes import make_super

from .compile_base import _call, _frame_at, _merge_kwargs


class CallsMixin:
    """Methods of :class:`.compile.Compiler`."""

    def args_builder(self, args, keywords):
        """(positional evs or None, builder(fr) -> (args, kwargs)) for a call's arguments."""
        simple = all(type(a) is not ast.Starred for a in args) and not keywords
        if simple:
            return tuple(self.expr(a) for a in args), None
        parts = tuple((type(a) is ast.Starred, self.expr(a.value if type(a) is ast.Starred else a)) for a in args)
        kws = tuple((k.arg, self.expr(k.value)) for k in keywords)
        plain_kw = all(name is not None for name, _ in kws)

        def build(fr):
            out = []
            for starred, e in parts:
                if starred:
                    v = e(fr)
                    out.extend(take(v, RT.max_seq - len(out)))
                else:
                    out.append(e(fr))
            if plain_kw:
                kw = {name: e(fr) for name, e in kws}
            else:
                kw = {}
                for name, e in kws:
                    if name is None:
                        _merge_kwargs(kw, e(fr))
                    elif name in kw:
                        raise TypeError(f"got multiple values for keyword argument '{name}'")
                    else:
                        kw[name] = e(fr)
            return out, kw
        return None, build

    def e_Call(self, node):
        _site = self.site(node)
        func = node.func
        if (type(func) is ast.Name and func.id == "super" and not node.args and not node.keywords
                and self.scope.resolve("super")[0] == "global" and "super" not in self.info.module.bound):
            return self.zero_arg_super(_site)
        pos, build = self.args_builder(node.args, node.keywords)
        if type(func) is ast.Attribute:
            return self.method_call(node, func, pos, build, _site)
        fev = self.expr(func)
        if pos is not None:
            n = len(pos)
            if n == 0:
                def ev(fr):
                    f = fev(fr)
                    _S.current = _site
                    if type(f) is ScriptFunction:
                        return f._invoke((), None)
                    if type(f) is type:
                        f = SAFE_CTORS.get(f, f)
                    return f()
                return ev
            if n == 1:
                a0, = pos

                def ev(fr):
                    f = fev(fr)
                    x = a0(fr)
                    _S.current = _site
                    if type(f) is ScriptFunction:
                        return f._invoke((x,), None)
                    if type(f) is type:
                        f = SAFE_CTORS.get(f, f)
                    return f(x)
                return ev
            if n == 2:
                a0, a1 = pos

                def ev(fr):
                    f = fev(fr)
                    x = a0(fr)
                    y = a1(fr)
                    _S.current = _site
                    if type(f) is ScriptFunction:
                        return f._invoke((x, y), None)
                    if type(f) is type:
                        f = SAFE_CTORS.get(f, f)
                    return f(x, y)
                return ev

            def ev(fr):
                f = fev(fr)
                args = tuple([a(fr) for a in pos])
                _S.current = _site
                return _call(f, args, None)
            return ev

        def ev(fr):
            f = fev(fr)
            args, kw = build(fr)
            _S.current = _site
            return _call(f, args, kw)
        return ev

    def zero_arg_super(self, _site):
        """``super()`` in a method: the class the method was defined in and its first
        argument (Python's ``__class__`` cell), found through the frames."""
        s = self.scope
        if s.kind == "module":
            def ev(fr):
                if 0:
                    _site
                raise RuntimeError("super(): no arguments")
            return ev
        depth = 0
        while s.kind != "module" and not (s.kind == "function" and s.parent.kind == "class"):
            s = s.parent
            depth += 1
        cur = self.scope
        has_arg = cur.kind == "function" and (cur.node.args.posonlyargs or cur.node.args.args)
        if s.kind == "module":
            def ev(fr):
                if 0:
                    _site
                raise RuntimeError("super(): __class__ cell not found")
            return ev
        if not has_arg:
            def ev(fr):
                if 0:
                    _site
                raise RuntimeError("super(): no arguments")
            return ev
        up = depth + 1

        def ev(fr):
            if 0:
                _site
            cls = _frame_at(fr, up)[1]
            obj = fr[2]
            if obj is UNBOUND:
                raise RuntimeError("super(): arg[0] deleted")
            _S.current = _site
            return make_super(cls, obj)
        return ev

    def method_call(self, node, func, pos, build, _site):
        oev = self.expr(func.value)
        name = func.attr

        def lookup(o):
            # -> (impl, bound): impl(o, *args) for builtin values, else bound callable
            p = _POLICIES.get(type(o))
            if p is None:
                p = policy(type(o))
            if name in p.read:
                return None, getattr(o, name)
            impl = p.methods.get(name)
            if impl is not None:
                return impl, None
            return None, get_attr(o, name)

        if pos is not None and len(pos) <= 2:
            n = len(pos)
            if n == 0:
                def ev(fr):
                    o = oev(fr)
                    _S.current = _site
                    p = _POLICIES.get(type(o))
                    if p is not None and name in p.read:
                        return getattr(o, name)()
                    impl, m = lookup(o)
                    _S.current = _site
                    if impl is not None:
                        return impl(o)
                    return _call(m, (), None)
                return ev
            if n == 1:
                a0, = pos

                def ev(fr):
                    o = oev(fr)
                    _S.current = _site
                    p = _POLICIES.get(type(o))
                    if p is not None and name in p.read:
                        m = getattr(o, name)
                        x = a0(fr)
                        _S.current = _site
                        if type(m) is ScriptFunction:
                            return m._invoke((x,), None)
                        return m(x)
                    impl, m = lookup(o)
                    x = a0(fr)
                    _S.current = _site
                    if impl is not None:
                        return impl(o, x)
                    return _call(m, (x,), None)
                return ev
            a0, a1 = pos

            def ev(fr):
                o = oev(fr)
                _S.current = _site
                impl, m = lookup(o)
                x = a0(fr)
                y = a1(fr)
                _S.current = _site
                if impl is not None:
                    return impl(o, x, y)
                return _call(m, (x, y), None)
            return ev

        if pos is not None:
            def ev(fr):
                o = oev(fr)
                _S.current = _site
                impl, m = lookup(o)
                args = tuple([a(fr) for a in pos])
                _S.current = _site
                if impl is not None:
                    return impl(o, *args)
                return _call(m, args, None)
            return ev

        def ev(fr):
            o = oev(fr)
            _S.current = _site
            impl, m = lookup(o)
            args, kw = build(fr)
            _S.current = _site
            if impl is not None:
                return impl(o, *args, **kw)
            return _call(m, args, kw)
        return ev

    # -- displays --------------------------------------------------------------------------
