"""Compile a validated AST into Python closures ("closure compilation").

Every AST node is compiled once into a small Python function; running the script is
calling those functions, with no re-dispatch on node types. Conventions:

* an *expression* closure is ``ev(fr) -> value``;
* a *statement* closure is ``ex(fr) -> signal``: ``None`` normally, or
  :data:`BREAK`/:data:`CONTINUE`/:data:`RETURN` (the return value is in ``fr[1]``).
  Blocks that cannot produce a signal ignore their statements' results (and then an
  expression statement is its expression closure itself);
* ``fr`` is the frame of the running function: a list ``[enclosing frame, return
  value, slots...]`` (``None`` at module level, where names live in the globals dict);
* every closure that can be the innermost one when an exception is raised has a free
  variable ``_site`` (a :class:`~autotrace.site.Site`): the error location is found by
  walking the traceback, at no cost while nothing fails;
* before each call, operator, subscript and comparison the closure stores its Site in
  ``autotrace.site.current`` for the engine.

Steps are counted in bulk (see :mod:`.limits`): a loop adds ``1 + len(body)`` per
iteration, an ``if`` adds the length of the branch it takes, a function call adds
``1 + len(body)``.
"""

from __future__ import annotations

import ast

from .limits import RT
from .scope import ScopeInfo
from .source import SourceMap

from .compile_base import _may_signal, reset_caches  # noqa: F401  (reset_caches: the program resets them per run)
from .compile_calls import CallsMixin
from .compile_comp import ComprehensionsMixin
from .compile_expr import ExpressionsMixin
from .compile_flow import FlowMixin
from .compile_gen import GeneratorsMixin
from .compile_names import NamesMixin
from .compile_stmts import StatementsMixin


# ---------------------------------------------------------------------------
# the compiler

class Compiler(StatementsMixin, FlowMixin, NamesMixin, ExpressionsMixin, CallsMixin,
               ComprehensionsMixin, GeneratorsMixin):
    """Compiles one module. ``G`` is the globals dict the program's closures use."""

    def __init__(self, smap: SourceMap, info: ScopeInfo, G: dict):
        self.smap = smap
        self.info = info
        self.G = G
        self.scope = info.module
        self.stmt_text = ""

    # -- helpers -----------------------------------------------------------------

    def site(self, node):
        return self.smap.site(node, self.stmt_text)

    def lazy_site(self, node):
        """A function building the Site of ``node`` when an error needs it (name loads
        are many, their sites are rarely used)."""
        smap, text = self.smap, self.stmt_text

        def make():
            return smap.site(node, text)
        return make

    def header_text(self, node) -> str:
        sm = self.smap
        t = type(node)
        end = None
        if t is ast.If or t is ast.While:
            end = node.test
        elif t is ast.For:
            end = node.iter
        elif t is ast.With:
            last = node.items[-1]
            end = last.optional_vars or last.context_expr
        elif t is ast.FunctionDef or t is ast.Try:
            line, col, _, _ = sm.span(node)
            return sm.line(line)[col:].rstrip()
        if end is None:
            end = node
        line, col, _, _ = sm.span(node)
        _, _, eline, ecol = sm.span(end)
        return sm.segment(line, col, eline, ecol)

    def module(self, body: list) -> tuple:
        run, n = self.block(body, False)
        return run, n

    def block(self, stmts: list, need_result: bool):
        """Compile a statement list; returns (runner, number of statements)."""
        sig = any(_may_signal(s) for s in stmts)
        fns = [self.stmt(s, sig) for s in stmts]
        n = len(fns)
        if sig:
            if n == 1:
                run = fns[0]
            elif n == 2:
                f0, f1 = fns

                def run(fr):
                    r = f0(fr)
                    if r is not None:
                        return r
                    return f1(fr)
            else:
                fs = tuple(fns)

                def run(fr):
                    for f in fs:
                        r = f(fr)
                        if r is not None:
                            return r
                    return None
        else:
            if n == 1:
                run = fns[0]
                if need_result and type(stmts[0]) is ast.Expr:
                    f0 = run

                    def run(fr):
                        f0(fr)
            elif n == 2:
                f0, f1 = fns

                def run(fr):
                    f0(fr)
                    f1(fr)
            elif n == 3:
                f0, f1, f2 = fns

                def run(fr):
                    f0(fr)
                    f1(fr)
                    f2(fr)
            else:
                fs = tuple(fns)

                def run(fr):
                    for f in fs:
                        f(fr)
        return run, n

    def counted(self, run, n):
        def c(fr):
            st = RT
            st.steps += n
            if st.steps > st.check_at:
                st.tick()
            return run(fr)
        return c

    # -- statements --------------------------------------------------------------

    def stmt(self, node, sig: bool):
        saved = self.stmt_text
        self.stmt_text = self.header_text(node)
        try:
            return getattr(self, "s_" + type(node).__name__)(node, sig)
        finally:
            self.stmt_text = saved
