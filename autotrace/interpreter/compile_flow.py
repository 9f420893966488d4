"""Compiling control flow: ``if``, ``while``, ``for``, ``with``, ``try``, ``raise`` and
``assert``, with the step counting of loops and branches.

Part of the closure compiler: see :mod:`.compile` for the conventions."""

from __future__ import annotations

import ast

from .. import site as _S
from .errors import is_visible, mark_script_raised
from .guard import context_manager_allowed
from .limits import RT, limit_error
from .ops import deep_check
from .values import CaughtException
from .classes import ScriptObject

from .compile_base import (BREAK, CONTINUE, _CM_OK, _bget, _bind_slow, _cm_error, _exc_matches,
                           _make_cause, _make_exc, _may_signal, _script_with)


class FlowMixin:
    """Methods of :class:`.compile.Compiler`."""

    def s_If(self, node, sig):
        _site = self.site(node)
        test = self.test(node.test)
        body, nb = self.block(node.body, sig)
        if not node.orelse:
            def ex(fr):
                if 0:
                    _site
                if test(fr):
                    st = RT
                    st.steps += nb
                    if st.steps > st.check_at:
                        st.tick()
                    return body(fr)
                return None
            return ex
        orelse, no = self.block(node.orelse, sig)

        def ex(fr):
            if 0:
                _site
            st = RT
            if test(fr):
                st.steps += nb
                if st.steps > st.check_at:
                    st.tick()
                return body(fr)
            st.steps += no
            if st.steps > st.check_at:
                st.tick()
            return orelse(fr)
        return ex

    def test(self, node):
        """Compile an expression used only for its truth value."""
        if type(node) is ast.Constant:
            v = bool(node.value)

            def ev(fr):
                return v
            return ev
        return self.expr(node)

    def s_While(self, node, sig):
        _site = self.site(node)
        bsig = any(_may_signal(s) for s in node.body)
        body, nb = self.block(node.body, bsig)
        orelse, no = self.block(node.orelse, sig) if node.orelse else (None, 0)
        k = 1 + nb
        forever = type(node.test) is ast.Constant and bool(node.test.value)
        test = self.test(node.test)

        def finish(fr):
            if orelse is None:
                return None
            st = RT
            st.steps += no
            if st.steps > st.check_at:
                st.tick()
            return orelse(fr)

        if forever and not bsig:
            def ex(fr):
                if 0:
                    _site
                st = RT
                ml = st.max_loop
                n = 0
                while 1:
                    n += 1
                    if n > ml:
                        raise limit_error("max_loop_iterations")
                    st.steps += k
                    if st.steps > st.check_at:
                        st.tick()
                    body(fr)
            return ex
        if not bsig:
            def ex(fr):
                if 0:
                    _site
                st = RT
                ml = st.max_loop
                n = 0
                while test(fr):
                    n += 1
                    if n > ml:
                        raise limit_error("max_loop_iterations")
                    st.steps += k
                    if st.steps > st.check_at:
                        st.tick()
                    body(fr)
                return finish(fr)
            return ex

        def ex(fr):
            if 0:
                _site
            st = RT
            ml = st.max_loop
            n = 0
            while test(fr):
                n += 1
                if n > ml:
                    raise limit_error("max_loop_iterations")
                st.steps += k
                if st.steps > st.check_at:
                    st.tick()
                r = body(fr)
                if r is not None:
                    if r is BREAK:
                        return None
                    if r is CONTINUE:
                        continue
                    return r
            return finish(fr)
        return ex

    def s_For(self, node, sig):
        _site = self.site(node)
        itev = self.expr(node.iter)
        bsig = any(_may_signal(s) for s in node.body)
        body, nb = self.block(node.body, bsig)
        orelse, no = self.block(node.orelse, sig) if node.orelse else (None, 0)
        k = 1 + nb
        target = node.target
        G = self.G

        def finish(fr):
            if orelse is None:
                return None
            st = RT
            st.steps += no
            if st.steps > st.check_at:
                st.tick()
            return orelse(fr)

        if type(target) is ast.Name and self.scope.resolve(target.id)[0] == "global" and not bsig:
            name = target.id

            def ex(fr):
                if 0:
                    _site
                st = RT
                ml = st.max_loop
                n = 0
                for v in itev(fr):
                    n += 1
                    if n > ml:
                        raise limit_error("max_loop_iterations")
                    st.steps += k
                    if st.steps > st.check_at:
                        st.tick()
                    G[name] = v
                    h = _bget(type(v), _bind_slow)
                    if h is not None:
                        h(v, name)
                    body(fr)
                return finish(fr)
            return ex
        store = self.store(target)
        if not bsig:
            def ex(fr):
                if 0:
                    _site
                st = RT
                ml = st.max_loop
                n = 0
                for v in itev(fr):
                    n += 1
                    if n > ml:
                        raise limit_error("max_loop_iterations")
                    st.steps += k
                    if st.steps > st.check_at:
                        st.tick()
                    store(fr, v)
                    body(fr)
                return finish(fr)
            return ex

        def ex(fr):
            if 0:
                _site
            st = RT
            ml = st.max_loop
            n = 0
            for v in itev(fr):
                n += 1
                if n > ml:
                    raise limit_error("max_loop_iterations")
                st.steps += k
                if st.steps > st.check_at:
                    st.tick()
                store(fr, v)
                r = body(fr)
                if r is not None:
                    if r is BREAK:
                        return None
                    if r is CONTINUE:
                        continue
                    return r
            return finish(fr)
        return ex

    def s_With(self, node, sig):
        body, nb = self.block(node.body, sig)
        run = self.counted(body, nb)
        for item in reversed(node.items):
            run = self.with_item(item, run)
        return run

    def with_item(self, item, inner):
        _site = self.site(item.context_expr)
        cev = self.expr(item.context_expr)
        store = self.store(item.optional_vars) if item.optional_vars is not None else None

        def ex(fr):
            cm = cev(fr)
            tp = type(cm)
            if isinstance(cm, ScriptObject) and not context_manager_allowed(tp):
                return _script_with(cm, fr, store, inner, _site)
            ok = _CM_OK.get(tp)
            if ok is None:
                ok = _CM_OK[tp] = context_manager_allowed(tp)
            if not ok:
                raise _cm_error(cm)
            _S.current = _site
            v = tp.__enter__(cm)
            if store is not None:
                store(fr, v)
            try:
                r = inner(fr)
            except BaseException as exc:
                _S.current = _site
                if tp.__exit__(cm, type(exc), exc, exc.__traceback__) and is_visible(exc):
                    return None
                raise
            _S.current = _site
            tp.__exit__(cm, None, None, None)
            return r
        return ex

    def s_Try(self, node, sig):
        _site = self.site(node)
        body, nb = self.block(node.body, sig)
        handlers = []
        for h in node.handlers:
            match = self.expr(h.type) if h.type is not None else None
            if h.name:
                bind = self.store_name(h.name, hook=False)
                unbind = self.unbind_name(h.name)
            else:
                bind = unbind = None
            hb, hn = self.block(h.body, sig)
            handlers.append((match, bind, unbind, hb, hn))
        handlers = tuple(handlers)
        orelse, no = self.block(node.orelse, sig) if node.orelse else (None, 0)

        if handlers:
            def inner(fr):
                if 0:
                    _site
                st = RT
                try:
                    st.steps += nb
                    if st.steps > st.check_at:
                        st.tick()
                    r = body(fr)
                except BaseException as exc:
                    if not is_visible(exc):
                        raise
                    for match, bind, unbind, hb, hn in handlers:
                        if match is not None and not _exc_matches(exc, match(fr)):
                            continue
                        st.steps += hn
                        if st.steps > st.check_at:
                            st.tick()
                        if bind is None:
                            return hb(fr)
                        bind(fr, exc if isinstance(exc, ScriptObject) else CaughtException(exc))
                        try:
                            return hb(fr)
                        finally:
                            unbind(fr)
                    raise
                if orelse is not None:
                    st.steps += no
                    if st.steps > st.check_at:
                        st.tick()
                    return orelse(fr)
                return r
        else:
            inner = self.counted(body, nb)
        if not node.finalbody:
            return inner
        fin, nf = self.block(node.finalbody, True)

        def ex(fr):
            if 0:
                _site
            try:
                r = inner(fr)
            except BaseException as exc:
                if not is_visible(exc):
                    raise
                st = RT
                st.steps += nf
                if st.steps > st.check_at:
                    st.tick()
                f = fin(fr)
                if f is not None:
                    return f
                raise
            st = RT
            st.steps += nf
            if st.steps > st.check_at:
                st.tick()
            f = fin(fr)
            if f is not None:
                return f
            return r
        return ex

    def s_Raise(self, node, sig):
        _site = self.site(node)
        if node.exc is None:
            def ex(fr):
                if 0:
                    _site
                raise
            return ex
        eev = self.expr(node.exc)
        if node.cause is None:
            def ex(fr):
                if 0:
                    _site
                raise _make_exc(eev(fr))
            return ex
        cev = self.expr(node.cause)

        def ex(fr):
            if 0:
                _site
            e = _make_exc(eev(fr))
            raise e from _make_cause(cev(fr))
        return ex

    def s_Assert(self, node, sig):
        _site = self.site(node)
        test = self.test(node.test)
        mev = self.expr(node.msg) if node.msg is not None else None

        def ex(fr):
            if 0:
                _site
            if not test(fr):
                e = AssertionError(mev(fr)) if mev is not None else AssertionError()
                deep_check(e.args)
                mark_script_raised(e)
                raise e
        return ex
