"""Compiling generator functions: a ``def`` whose body contains ``yield``/``yield from``.

Such a body is compiled in *generator mode*: a statement that contains a yield becomes
a Python generator function ``g(fr)`` whose Python ``yield``s are the script's and
whose return value is the statement's signal (``sig = yield from g(fr)``); statements
without a yield keep their ordinary ``ex(fr)`` closure. The validator allows a yield
only as a whole expression statement, the right side of an assignment or the value of
``return``, so an expression never has to be suspended half evaluated.

The function's body closure stores a :class:`~.generators.GeneratorObject` in the
frame's return slot instead of running anything: the statements run when the consumer
asks for the first value.

Part of the closure compiler: see :mod:`.compile` for the conventions."""

from __future__ import annotations

import ast

from .. import site as _S
from .errors import is_visible
from .generators import CloseSignal, GeneratorObject, finally_ok, yield_from
from .guard import context_manager_allowed
from .limits import RT, limit_error
from .values import CaughtException
from .classes import ScriptObject

from .compile_base import BREAK, CONTINUE, RETURN, _CM_OK, _cm_error, _exc_matches

_NESTED = (ast.FunctionDef, ast.Lambda, ast.ClassDef, ast.AsyncFunctionDef)
_YIELDS = (ast.Yield, ast.YieldFrom)


def contains_yield(nodes) -> bool:
    """True when ``nodes`` (a node or a list) contain a yield outside nested functions,
    lambdas and classes."""
    stack = [n for n in (nodes if type(nodes) is list else [nodes]) if not isinstance(n, _NESTED)]
    while stack:
        n = stack.pop()
        if isinstance(n, _YIELDS):
            return True
        for c in ast.iter_child_nodes(n):
            if not isinstance(c, _NESTED):
                stack.append(c)
    return False


def yield_nesting(stmts) -> int:
    """How many compound statements enclose the most deeply nested yield of ``stmts``
    (each is one more Python generator resumed in C when the body resumes there)."""
    best = 0
    stack = [(s, 0) for s in stmts]
    while stack:
        s, d = stack.pop()
        if not contains_yield(s):
            continue
        best = max(best, d)
        for field in ("body", "orelse", "finalbody"):
            stack.extend((c, d + 1) for c in getattr(s, field, ()) or ())
        for h in getattr(s, "handlers", ()) or ():
            stack.extend((c, d + 1) for c in h.body)
    return best


def _tick(st):
    if st.steps > st.check_at:
        st.tick()


def _exits_quietly(exc) -> bool:
    """Does ``exc`` pass a ``finally`` block without running it? (limits, engine errors,
    Python's GeneratorExit, and a close when no script code may run)"""
    if type(exc) is CloseSignal:
        return not finally_ok()
    return not is_visible(exc)


class GeneratorsMixin:
    """Methods of :class:`.compile.Compiler`."""

    def generator_body(self, body: list, qualname: str):
        """The body closure of a generator function: ``ex(fr)`` leaving a new
        GeneratorObject in ``fr[1]`` (the call counts one step; the body's statements
        are counted when the first value is asked for, as a call's would be)."""
        run, n = self.gen_block(body)
        # C stack frames a resumption takes, at most: the body's generator, one or two
        # per enclosing compound statement, the yield's own and a delegation's
        weight = 6 + 3 * yield_nesting(body)

        def pg(fr):
            fr[1] = None
            st = RT
            st.steps += n
            _tick(st)
            yield from run(fr)
            return fr[1]

        def ex(fr):
            fr[1] = GeneratorObject(pg(fr), qualname, weight)
        return ex

    def gen_block(self, stmts: list):
        """A statement list in generator mode: (Python generator function, count)."""
        items = []
        for s in stmts:
            if contains_yield(s):
                saved = self.stmt_text
                self.stmt_text = self.header_text(s)
                try:
                    items.append((True, getattr(self, "g_" + type(s).__name__)(s)))
                finally:
                    self.stmt_text = saved
            else:
                items.append((False, self.stmt(s, True)))
        fs = tuple(items)

        def run(fr):
            for is_gen, f in fs:
                if is_gen:
                    r = yield from f(fr)
                else:
                    r = f(fr)
                if r is not None:
                    return r
            return None
        return run, len(fs)

    def yield_value(self, node):
        """``yield v`` / ``yield from it`` as a generator function returning the value
        the paused yield evaluates to."""
        _site = self.site(node)
        if type(node) is ast.Yield:
            if node.value is None:
                def yv(fr):
                    if 0:
                        _site
                    return (yield None)
                return yv
            e = self.expr(node.value)

            def yv(fr):
                if 0:
                    _site
                return (yield e(fr))
            return yv
        e = self.expr(node.value)

        def yv(fr):
            if 0:
                _site
            return (yield from yield_from(e(fr)))
        return yv

    # -- statements that contain a yield ---------------------------------------------

    def g_Expr(self, node):
        yv = self.yield_value(node.value)

        def g(fr):
            yield from yv(fr)
            return None
        return g

    def g_Assign(self, node):
        yv = self.yield_value(node.value)
        stores = tuple(self.store(t) for t in node.targets)

        def g(fr):
            v = yield from yv(fr)
            for s in stores:
                s(fr, v)
            return None
        return g

    def g_AnnAssign(self, node):
        fake = ast.Assign(targets=[node.target], value=node.value)
        ast.copy_location(fake, node)
        return self.g_Assign(fake)

    def g_Return(self, node):
        yv = self.yield_value(node.value)

        def g(fr):
            fr[1] = yield from yv(fr)
            return RETURN
        return g

    def g_If(self, node):
        _site = self.site(node)
        test = self.test(node.test)
        body, nb = self.gen_block(node.body)
        orelse, no = self.gen_block(node.orelse)

        def g(fr):
            if 0:
                _site
            st = RT
            if test(fr):
                st.steps += nb
                _tick(st)
                return (yield from body(fr))
            st.steps += no
            _tick(st)
            return (yield from orelse(fr))
        return g

    def _gen_loop_else(self, node):
        return self.gen_counted(*self.gen_block(node.orelse))

    def gen_counted(self, run, n):
        """:meth:`counted` for a generator-mode block: ``n`` steps, then ``run``."""
        def c(fr):
            st = RT
            st.steps += n
            _tick(st)
            return (yield from run(fr))
        return c

    def g_While(self, node):
        _site = self.site(node)
        body, nb = self.gen_block(node.body)
        finish = self._gen_loop_else(node)
        k = 1 + nb
        test = self.test(node.test)

        def g(fr):
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
                _tick(st)
                r = yield from body(fr)
                if r is not None:
                    if r is BREAK:
                        return None
                    if r is CONTINUE:
                        continue
                    return r
            return (yield from finish(fr))
        return g

    def g_For(self, node):
        _site = self.site(node)
        itev = self.expr(node.iter)
        body, nb = self.gen_block(node.body)
        finish = self._gen_loop_else(node)
        k = 1 + nb
        store = self.store(node.target)

        def g(fr):
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
                _tick(st)
                store(fr, v)
                r = yield from body(fr)
                if r is not None:
                    if r is BREAK:
                        return None
                    if r is CONTINUE:
                        continue
                    return r
            return (yield from finish(fr))
        return g

    def g_With(self, node):
        run = self.gen_counted(*self.gen_block(node.body))
        for item in reversed(node.items):
            run = self.gen_with_item(item, run)
        return run

    def gen_with_item(self, item, inner):
        _site = self.site(item.context_expr)
        cev = self.expr(item.context_expr)
        store = self.store(item.optional_vars) if item.optional_vars is not None else None

        def g(fr):
            cm = cev(fr)
            tp = type(cm)
            if isinstance(cm, ScriptObject) and not context_manager_allowed(tp):
                return (yield from _gen_script_with(cm, fr, store, inner, _site))
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
                r = yield from inner(fr)
            except BaseException as exc:
                _S.current = _site
                if tp.__exit__(cm, type(exc), exc, exc.__traceback__) and is_visible(exc):
                    return None
                raise
            _S.current = _site
            tp.__exit__(cm, None, None, None)
            return r
        return g

    def g_Try(self, node):
        _site = self.site(node)
        body, nb = self.gen_block(node.body)
        handlers = []
        for h in node.handlers:
            match = self.expr(h.type) if h.type is not None else None
            if h.name:
                bind = self.store_name(h.name, hook=False)
                unbind = self.unbind_name(h.name)
            else:
                bind = unbind = None
            hb, hn = self.gen_block(h.body)
            handlers.append((match, bind, unbind, hb, hn))
        handlers = tuple(handlers)
        orelse, no = self.gen_block(node.orelse) if node.orelse else (None, 0)

        def inner(fr):
            if 0:
                _site
            st = RT
            try:
                st.steps += nb
                _tick(st)
                r = yield from body(fr)
            except BaseException as exc:
                if not is_visible(exc):
                    raise
                for match, bind, unbind, hb, hn in handlers:
                    if match is not None and not _exc_matches(exc, match(fr)):
                        continue
                    st.steps += hn
                    _tick(st)
                    if bind is None:
                        return (yield from hb(fr))
                    bind(fr, exc if isinstance(exc, ScriptObject) else CaughtException(exc))
                    try:
                        return (yield from hb(fr))
                    finally:
                        unbind(fr)
                raise
            if orelse is not None:
                st.steps += no
                _tick(st)
                return (yield from orelse(fr))
            return r
        if not node.finalbody:
            return inner
        fin, nf = self.gen_block(node.finalbody)

        def g(fr):
            if 0:
                _site
            try:
                r = yield from inner(fr)
            except BaseException as exc:
                if _exits_quietly(exc):
                    raise
                st = RT
                st.steps += nf
                _tick(st)
                f = yield from fin(fr)
                if f is not None:
                    return f
                raise
            st = RT
            st.steps += nf
            _tick(st)
            f = yield from fin(fr)
            if f is not None:
                return f
            return r
        return g


def _gen_script_with(cm, fr, store, inner, _site):
    """:func:`.compile_base._script_with` for a body that yields: the script's
    ``__exit__`` also sees the GeneratorExit of an explicit close."""
    cls = cm._cls
    if not (cls.defines("__enter__") and cls.defines("__exit__")):
        raise TypeError(f"'{cls.name}' object does not support the context manager protocol")
    v = cm.__enter__()
    if store is not None:
        store(fr, v)
    try:
        r = yield from inner(fr)
    except BaseException as exc:
        if _exits_quietly(exc):
            raise
        _S.current = _site
        from .typeobj import type_of
        closing = type(exc) is CloseSignal
        if cm.__exit__(GeneratorExit if closing else type_of(exc), None if closing else exc, None) \
                and is_visible(exc):
            return None
        raise
    _S.current = _site
    cm.__exit__(None, None, None)
    return r
