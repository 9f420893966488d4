"""Compiling simple statements, definitions and imports: expression statements, assignment
(plain, annotated, augmented), ``del``, ``def``, ``class``, ``global``/``nonlocal`` and ``import``.

Part of the closure compiler: see :mod:`.compile` for the conventions."""

from __future__ import annotations

import ast

from .. import site as _S
from .builtins import BUILTINS
from .errors import ScriptImportError, ScriptModuleNotFoundError, name_error
from .guard import get_attr, set_attr
from .limits import RT
from .ops import INPLACE, deep_check
from .values import FuncCode, ScriptFunction, UNBOUND
from .classes import ScriptClass

from .compile_gen import contains_yield
from .compile_base import (BREAK, CONTINUE, RETURN, _RAW_INPLACE, _bget, _bind_slow, _class_base,
                           _decorate, _frame_at, _num_const, _store_item, _unbound_free,
                           _unbound_local)


class StatementsMixin:
    """Methods of :class:`.compile.Compiler`."""

    def s_Expr(self, node, sig):
        e = self.expr(node.value)
        if not sig:
            return e
        _site = self.site(node)

        def ex(fr):
            if 0:
                _site
            e(fr)
        return ex

    def s_Pass(self, node, sig):
        def ex(fr):
            return None
        return ex

    def s_Break(self, node, sig):
        def ex(fr):
            return BREAK
        return ex

    def s_Continue(self, node, sig):
        def ex(fr):
            return CONTINUE
        return ex

    def s_Return(self, node, sig):
        _site = self.site(node)
        if node.value is None:
            def ex(fr):
                fr[1] = None
                return RETURN
            return ex
        e = self.expr(node.value)

        def ex(fr):
            if 0:
                _site
            fr[1] = e(fr)
            return RETURN
        return ex

    def s_Assign(self, node, sig):
        _site = self.site(node)
        vev = self.expr(node.value)
        targets = node.targets
        if len(targets) == 1 and type(targets[0]) is ast.Name:
            name = targets[0].id
            r = self.scope.resolve(name)
            if r[0] == "global":
                G = self.G

                def ex(fr):
                    if 0:
                        _site
                    v = vev(fr)
                    G[name] = v
                    h = _bget(type(v), _bind_slow)
                    if h is not None:
                        h(v, name)
                return ex
            if r[0] == "local":
                i = r[1]

                def ex(fr):
                    if 0:
                        _site
                    v = vev(fr)
                    fr[i] = v
                    h = _bget(type(v), _bind_slow)
                    if h is not None:
                        h(v, name)
                return ex
        stores = [self.store(t) for t in targets]
        if len(stores) == 1:
            s0 = stores[0]

            def ex(fr):
                if 0:
                    _site
                s0(fr, vev(fr))
            return ex

        def ex(fr):
            if 0:
                _site
            v = vev(fr)
            for s in stores:
                s(fr, v)
        return ex

    def s_AnnAssign(self, node, sig):
        if node.value is None:
            return self.s_Pass(node, sig)
        fake = ast.Assign(targets=[node.target], value=node.value)
        ast.copy_location(fake, node)
        return self.s_Assign(fake, sig)

    def s_AugAssign(self, node, sig):
        _site = self.site(node)
        op = INPLACE[type(node.op).__name__]
        vev = self.expr(node.value)
        target = node.target
        t = type(target)
        if t is ast.Name:
            c = _num_const(node.value)
            opname = type(node.op).__name__
            raw = _RAW_INPLACE.get(opname)
            if c is not None and raw is not None and (opname != "Mult" or type(c) is not int) \
                    and self.scope.resolve(target.id)[0] == "global" and target.id not in BUILTINS:
                G = self.G
                name = target.id
                tsite = self.lazy_site(target)

                def ex(fr):
                    try:
                        cur = G[name]
                    except KeyError:
                        raise name_error(name, tsite()) from None
                    _S.current = _site
                    v = raw(cur, c)
                    G[name] = v
                    h = _bget(type(v), _bind_slow)
                    if h is not None:
                        h(v, name)
                return ex
            load = self.load_name(target.id, self.lazy_site(target))
            store = self.store(target)

            def ex(fr):
                cur = load(fr)
                v = vev(fr)
                _S.current = _site
                store(fr, op(cur, v))
            return ex
        if t is ast.Subscript:
            oev = self.expr(target.value)
            kev = self.expr(target.slice)

            def ex(fr):
                o = oev(fr)
                k = kev(fr)
                _S.current = _site
                if type(o) is dict and type(k) is tuple:
                    deep_check(k)
                cur = o[k]
                v = vev(fr)
                _S.current = _site
                r = op(cur, v)
                _S.current = _site
                _store_item(o, k, r)
            return ex
        # Attribute
        oev = self.expr(target.value)
        name = target.attr

        def ex(fr):
            o = oev(fr)
            _S.current = _site
            cur = get_attr(o, name)
            v = vev(fr)
            _S.current = _site
            r = op(cur, v)
            set_attr(o, name, r)
        return ex

    def s_Delete(self, node, sig):
        _site = self.site(node)
        dels = [self.delete(t) for t in node.targets]

        def ex(fr):
            if 0:
                _site
            for d in dels:
                d(fr)
        return ex

    def delete(self, target):
        t = type(target)
        _site = self.site(target)
        if t is ast.Name:
            name = target.id
            r = self.scope.resolve(name)
            if r[0] == "class":
                def d(fr):
                    try:
                        del fr[2][name]
                    except KeyError:
                        raise name_error(name, _site) from None
                return d
            if r[0] == "global":
                G = self.G

                def d(fr):
                    try:
                        del G[name]
                    except KeyError:
                        raise name_error(name, _site) from None
                return d
            if r[0] == "free":
                _, depth, j = r

                def d(fr):
                    f = _frame_at(fr, depth)
                    if f[j] is UNBOUND:
                        raise _unbound_free(name, _site)
                    f[j] = UNBOUND
                return d
            i = r[1]

            def d(fr):
                if fr[i] is UNBOUND:
                    raise _unbound_local(name, _site)
                fr[i] = UNBOUND
            return d
        if t is ast.Subscript:
            oev = self.expr(target.value)
            kev = self.expr(target.slice)

            def d(fr):
                o = oev(fr)
                k = kev(fr)
                _S.current = _site
                if type(k) is tuple and type(o) is dict:
                    deep_check(k)
                del o[k]
            return d
        subs = [self.delete(e) for e in target.elts]   # Tuple / List

        def d(fr):
            for s in subs:
                s(fr)
        return d

    def s_FunctionDef(self, node, sig):
        _site = self.site(node)
        a = node.args
        decos = self.decorators(node)
        defaults = tuple(self.expr(d) for d in a.defaults)
        kwd = tuple((arg.arg, self.expr(d)) for arg, d in zip(a.kwonlyargs, a.kw_defaults) if d is not None)
        code = self.function_code(node, node.name, False)
        store = self.store_name(node.name)

        if not decos:
            def ex(fr):
                if 0:
                    _site
                f = ScriptFunction(code, fr, tuple([d(fr) for d in defaults]),
                                   {k: e(fr) for k, e in kwd})
                store(fr, f)
            return ex

        def ex(fr):
            if 0:
                _site
            ds = [d(fr) for d, _ in decos]
            f = ScriptFunction(code, fr, tuple([d(fr) for d in defaults]),
                               {k: e(fr) for k, e in kwd})
            store(fr, _decorate(f, ds, decos))
        return ex

    def decorators(self, node):
        """(expression, site) per decorator, outermost first."""
        return tuple((self.expr(d), self.site(d)) for d in node.decorator_list)

    def s_ClassDef(self, node, sig):
        _site = self.site(node)
        decos = self.decorators(node)
        bases = tuple(self.expr(b) for b in node.bases)
        scope = self.info.scope_of(node)
        saved_scope, saved_text = self.scope, self.stmt_text
        self.scope = scope
        try:
            body, nb = self.block(node.body, False)
        finally:
            self.scope, self.stmt_text = saved_scope, saved_text
        store = self.store_name(node.name)
        name = node.name
        # the body's annotated names in order: the fields if the base is typing.NamedTuple
        annotated = tuple(s.target.id for s in node.body if type(s) is ast.AnnAssign and type(s.target) is ast.Name)
        annotations = tuple((s.target.id, ast.unparse(s.annotation)) for s in node.body
                            if type(s) is ast.AnnAssign and type(s.target) is ast.Name)
        qualname = self.qualname(name)
        from ..stdlib.collections_ import NAMED_TUPLE, named_tuple_class

        def ex(fr):
            if 0:
                _site
            ds = [d(fr) for d, _ in decos]
            bs = [b(fr) for b in bases]
            if bs and bs[0] is NAMED_TUPLE:
                ns = {}
                body([fr, None, ns])
                cls = named_tuple_class(name, annotated, ns)
                store(fr, _decorate(cls, ds, decos) if ds else cls)
                return
            base = _class_base(name, bs[0]) if bs else None
            ns = {}
            cfr = [fr, None, ns]
            st = RT
            st.steps += nb
            if st.steps > st.check_at:
                st.tick()
            body(cfr)
            cls = ScriptClass(name, base, ns, qualname, annotations)
            cfr[1] = cls
            store(fr, _decorate(cls, ds, decos) if ds else cls)
        return ex

    def s_Global(self, node, sig):
        return self.s_Pass(node, sig)

    def s_Nonlocal(self, node, sig):
        return self.s_Pass(node, sig)

    def function_code(self, node, name: str, is_lambda: bool) -> FuncCode:
        scope = self.info.scope_of(node)
        qualname = self.qualname(name)
        saved_scope, saved_text = self.scope, self.stmt_text
        self.scope = scope
        try:
            if is_lambda:
                body = self.expr(node.body)
                nsteps = 1
            elif contains_yield(node.body):
                body = self.generator_body(node.body, qualname)
                nsteps = 1
            else:
                body, n = self.block(node.body, False)
                nsteps = 1 + n
        finally:
            self.scope, self.stmt_text = saved_scope, saved_text
        a = node.args
        posnames = [x.arg for x in a.posonlyargs] + [x.arg for x in a.args]
        kwonly = [(x.arg, scope.slots[x.arg]) for x in a.kwonlyargs]
        vararg = scope.slots[a.vararg.arg] if a.vararg else None
        kwarg = scope.slots[a.kwarg.arg] if a.kwarg else None
        return FuncCode(name, scope.nslots, body, is_lambda, nsteps, posnames,
                        len(a.posonlyargs), kwonly, vararg, kwarg, qualname)

    def qualname(self, name: str) -> str:
        """Python's ``__qualname__`` of a function defined in the current scope."""
        parts = [name]
        s = self.scope
        while s.kind != "module":
            n = s.node
            if s.kind == "class":
                parts.append(n.name)
            else:
                parts.append("<locals>")
                parts.append(n.name if type(n) is ast.FunctionDef else
                             "<lambda>" if type(n) is ast.Lambda else f"<{type(n).__name__.lower()}>")
            s = s.parent
        return ".".join(reversed(parts))

    def s_Import(self, node, sig):
        _site = self.site(node)
        items = []
        for alias in node.names:
            if alias.asname:
                items.append((alias.name, alias.name, self.store_name(alias.asname)))
            else:
                top = alias.name.split(".")[0]
                items.append((alias.name, top, self.store_name(top)))
        items = tuple(items)

        def ex(fr):
            if 0:
                _site
            mods = RT.modules
            for full, bind, store in items:
                if full not in mods:
                    raise ScriptModuleNotFoundError(f"No module named {full!r}")
                if bind not in mods:
                    raise ScriptModuleNotFoundError(f"No module named {bind!r}")
                store(fr, mods[bind])
        return ex

    def s_ImportFrom(self, node, sig):
        _site = self.site(node)
        module = node.module
        items = tuple((alias.name, self.store_name(alias.asname or alias.name)) for alias in node.names)

        def ex(fr):
            if 0:
                _site
            mods = RT.modules
            m = mods.get(module)
            if m is None:
                raise ScriptModuleNotFoundError(f"No module named {module!r}")
            for name, store in items:
                full = module + "." + name
                if full in mods:
                    v = mods[full]
                else:
                    try:
                        v = get_attr(m, name)
                    except AttributeError:
                        raise ScriptImportError(f"cannot import name {name!r} from {module!r}") from None
                store(fr, v)
        return ex

    # -- assignment targets ------------------------------------------------------------
