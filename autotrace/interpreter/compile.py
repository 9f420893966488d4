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
import operator

from .. import site as _S
from .builtins import BUILTINS
from .errors import (ScriptImportError, ScriptModuleNotFoundError, ScriptNameError,
                     ScriptUnboundLocalError, is_visible, mark_script_raised, name_error,
                     with_site)
from .guard import _POLICIES, context_manager_allowed, get_attr, mro_lookup, policy, set_attr
from .limits import RT, limit_error, seq_limit
from .ops import (BINOPS, COMPARE, INPLACE, RAW_BINOPS, SAFE_CTORS, UNARY, deep_check,
                  hash_check, safe_ascii, safe_format, safe_repr, safe_str, take)
from .scope import ScopeInfo
from .source import SourceMap
from .values import (CaughtException, FuncCode, ScriptFunction, ScriptGenerator, UNBOUND,
                     display_name)
from .classes import BoundMethod, ScriptClass, ScriptObject, make_super

BREAK = 1
CONTINUE = 2
RETURN = 3

_MISS = object()
#: in-place operators that cannot grow a value when the other operand is a number
#: constant (``x += 1``: a list or str would raise TypeError; ``*`` only for non-ints)
_RAW_INPLACE = {"Add": operator.iadd, "Sub": operator.isub, "Div": operator.itruediv,
                "FloorDiv": operator.ifloordiv, "Mult": operator.imul}
_RAW_CMP = {"Eq": operator.eq, "NotEq": operator.ne, "Lt": operator.lt,
            "LtE": operator.le, "Gt": operator.gt, "GtE": operator.ge}


# ---------------------------------------------------------------------------
# run-time helpers

_NO_BIND = (int, float, bool, str, list, tuple, dict, set, frozenset, complex, range,
            type(None), ScriptFunction, CaughtException, ScriptGenerator, type)
#: type -> True when it has an ``_on_bind`` method, None when not (reset every run, so
#: that a method patched between runs is seen)
_BIND: dict[type, object] = dict.fromkeys(_NO_BIND)
_bget = _BIND.get


def _bind_slow(v, name: str) -> None:
    tp = type(v)
    h = _BIND.get(tp, _MISS)
    if h is _MISS:
        h = True if mro_lookup(tp, "_on_bind", _MISS) is not _MISS else None
        _BIND[tp] = h
    if h is not None:
        tp._on_bind(v, name)


def reset_caches() -> None:
    """Forget per-type decisions (allow-lists, hooks): called at the start of every run."""
    _BIND.clear()
    _BIND.update(dict.fromkeys(_NO_BIND))
    _CM_OK.clear()
    _POLICIES.clear()


def _unbound_local(name: str, site) -> ScriptUnboundLocalError:
    return with_site(ScriptUnboundLocalError(
        f"cannot access local variable {name!r} where it is not associated with a value"), site)


def _unbound_free(name: str, site) -> ScriptNameError:
    return with_site(ScriptNameError(
        f"cannot access free variable {name!r} where it is not associated with a value in enclosing scope"), site)


def _unpack(v, n: int):
    t = type(v)
    if t is tuple or t is list:
        if len(v) == n:
            return v
        if len(v) > n:
            raise ValueError(f"too many values to unpack (expected {n})")
        raise ValueError(f"not enough values to unpack (expected {n}, got {len(v)})")
    if not (hasattr(t, "__iter__") or hasattr(t, "__getitem__")):
        raise TypeError(f"cannot unpack non-iterable {display_name(v)} object")
    items = []
    for x in v:
        items.append(x)
        if len(items) > n:
            raise ValueError(f"too many values to unpack (expected {n})")
    if len(items) < n:
        raise ValueError(f"not enough values to unpack (expected {n}, got {len(items)})")
    return items


def _store_item(o, k, v):
    t = type(o)
    if t is dict:
        if type(k) is tuple:
            deep_check(k)
        if len(o) >= RT.max_seq and k not in o:
            raise seq_limit(len(o) + 1)
    elif t is list and type(k) is slice:
        v = take(v)
        n = len(o) + len(v)
        if n > RT.max_seq:
            raise seq_limit(n)
    o[k] = v


def _is_exc_class(c) -> bool:
    if type(c) is ScriptClass:
        return c.lib_base is not None and issubclass(c.lib_base, BaseException)
    return isinstance(c, type) and issubclass(c, BaseException)


def _exc_matches(exc, cls) -> bool:
    classes = list(_flatten_classes(cls)) if isinstance(cls, tuple) else [cls]
    for c in classes:
        if not _is_exc_class(c):
            raise TypeError("catching classes that do not inherit from BaseException is not allowed")
    for c in classes:
        if type(c) is ScriptClass:
            if isinstance(exc, ScriptObject) and c in exc._cls.mro:
                return True
        elif isinstance(exc, c):
            return True
    return False


def _flatten_classes(t):
    stack = [t]
    while stack:
        x = stack.pop()
        if isinstance(x, tuple):
            deep_check(x)
            stack.extend(x)
        else:
            yield x


def _make_exc(x):
    if type(x) is CaughtException:
        return x._exc
    if type(x) is ScriptClass:
        if not _is_exc_class(x):
            raise TypeError("exceptions must derive from BaseException")
        x = x()
    if isinstance(x, type) and issubclass(x, BaseException):
        if not issubclass(x, Exception):
            raise TypeError(f"raising {x.__name__} is not allowed in autotrace scripts")
        x = x()
    if isinstance(x, BaseException):
        if not isinstance(x, Exception):
            raise TypeError(f"raising {type(x).__name__} is not allowed in autotrace scripts")
        deep_check(x.args)
        mark_script_raised(x)
        return x
    raise TypeError("exceptions must derive from BaseException")


def _make_cause(c):
    if c is None:
        return None
    if type(c) is CaughtException:
        return c._exc
    if isinstance(c, type) and issubclass(c, BaseException):
        return c()
    if isinstance(c, BaseException):
        return c
    raise TypeError("exception causes must derive from BaseException")


def _merge_kwargs(kw: dict, m) -> None:
    if type(m) is not dict:
        if not hasattr(type(m), "keys"):
            raise TypeError(f"argument after ** must be a mapping, not {display_name(m)}")
        m = dict(m)
    if len(kw) + len(m) > RT.max_seq:
        raise seq_limit(len(kw) + len(m))
    for k, v in m.items():
        if type(k) is not str:
            raise TypeError("keywords must be strings")
        if k in kw:
            raise TypeError(f"got multiple values for keyword argument '{k}'")
        kw[k] = v


def _call(f, args, kwargs):
    """Call ``f`` the way a script call does (script functions run inline)."""
    tf = type(f)
    if tf is ScriptFunction:
        return f._invoke(args, kwargs)
    if tf is BoundMethod and type(f._f) is ScriptFunction:
        return f._f._invoke((f._self,) + tuple(args), kwargs)
    if tf is type:
        f = SAFE_CTORS.get(f, f)
    if kwargs:
        return f(*args, **kwargs)
    return f(*args)


def _named_error(exc: TypeError, *vals) -> TypeError:
    """Python names the mixin class in operator errors; scripts see their class's name."""
    msg = str(exc)
    changed = False
    for v in vals:
        if isinstance(v, ScriptObject):
            pyname = f"'{type(v).__name__}'"
            if pyname in msg:
                msg = msg.replace(pyname, f"'{v._cls.name}'", 1)
                changed = True
    if not changed:
        return exc
    e = TypeError(msg)
    e.__traceback__ = exc.__traceback__
    return e


def _cm_error(cm) -> TypeError:
    if hasattr(type(cm), "__enter__"):
        return TypeError(f"{display_name(cm)!r} objects cannot be used in a 'with' statement in autotrace scripts")
    return TypeError(f"{display_name(cm)!r} object does not support the context manager protocol")


_CM_OK: dict[type, bool] = {}


def _script_with(cm, fr, store, inner, _site):
    """``with`` over an instance of a script class defining ``__enter__``/``__exit__``.
    The script's ``__exit__`` sees only the script's own exceptions (a limit ends the run
    without running script code)."""
    cls = cm._cls
    if not (cls.defines("__enter__") and cls.defines("__exit__")):
        raise TypeError(f"'{cls.name}' object does not support the context manager protocol")
    v = cm.__enter__()
    if store is not None:
        store(fr, v)
    try:
        r = inner(fr)
    except BaseException as exc:
        if not is_visible(exc):
            raise
        _S.current = _site
        from .typeobj import type_of
        if cm.__exit__(type_of(exc), exc, None):
            return None
        raise
    _S.current = _site
    cm.__exit__(None, None, None)
    return r


def _may_signal(s) -> bool:
    t = type(s)
    if t is ast.Return or t is ast.Break or t is ast.Continue:
        return True
    if t is ast.For or t is ast.While:
        return _has_return(s.body) or any(_may_signal(x) for x in s.orelse)
    if t is ast.If:
        return any(_may_signal(x) for x in s.body) or any(_may_signal(x) for x in s.orelse)
    if t is ast.With:
        return any(_may_signal(x) for x in s.body)
    if t is ast.Try:
        return any(_may_signal(x) for x in s.body + s.orelse + s.finalbody) or \
            any(_may_signal(x) for h in s.handlers for x in h.body)
    return False


def _has_return(stmts) -> bool:
    stack = list(stmts)
    while stack:
        s = stack.pop()
        t = type(s)
        if t is ast.Return:
            return True
        if t is ast.FunctionDef:
            continue
        for field in ("body", "orelse", "finalbody"):
            stack.extend(getattr(s, field, ()))
        for h in getattr(s, "handlers", ()):
            stack.extend(h.body)
    return False


def _num_const(node):
    """The value of a numeric constant node (int/float/complex, not bool), else None."""
    if type(node) is ast.Constant and type(node.value) in (int, float, complex):
        return node.value
    return None


def _decorate(obj, ds, decos):
    """Apply evaluated decorators ``ds`` innermost first (Python's order)."""
    for d, (_, dsite) in zip(reversed(ds), reversed(decos)):
        _S.current = dsite
        obj = _call(d, (obj,), None)
    return obj


def _class_base(name: str, b):
    """Check a class statement's base: a script class or an allowed library class."""
    from .typeobj import TypeName, allowed_base, name_of
    if type(b) is ScriptClass:
        return b
    if allowed_base(b):
        return b
    n = name_of(b) if isinstance(b, type) or type(b) is TypeName else None
    if n is not None or isinstance(b, type) or type(b) is TypeName:
        raise TypeError(f"subclassing {n or 'this class'} is not supported yet in autotrace scripts")
    raise TypeError(f"class {name}: the base must be a class, not {display_name(b)!r}")


def _frame_at(fr, depth):
    for _ in range(depth):
        fr = fr[0]
    return fr


# ---------------------------------------------------------------------------
# the compiler

class Compiler:
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
                    if _bget(type(v), 1) is not None:
                        _bind_slow(v, name)
                return ex
            if r[0] == "local":
                i = r[1]

                def ex(fr):
                    if 0:
                        _site
                    v = vev(fr)
                    fr[i] = v
                    if _bget(type(v), 1) is not None:
                        _bind_slow(v, name)
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
                    if _bget(type(v), 1) is not None:
                        _bind_slow(v, name)
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
                    if _bget(type(v), 1) is not None:
                        _bind_slow(v, name)
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

        def ex(fr):
            if 0:
                _site
            ds = [d(fr) for d, _ in decos]
            bs = [b(fr) for b in bases]
            base = _class_base(name, bs[0]) if bs else None
            ns = {}
            cfr = [fr, None, ns]
            st = RT
            st.steps += nb
            if st.steps > st.check_at:
                st.tick()
            body(cfr)
            cls = ScriptClass(name, base, ns)
            cfr[1] = cls
            store(fr, _decorate(cls, ds, decos) if ds else cls)
        return ex

    def s_Global(self, node, sig):
        return self.s_Pass(node, sig)

    def s_Nonlocal(self, node, sig):
        return self.s_Pass(node, sig)

    def function_code(self, node, name: str, is_lambda: bool) -> FuncCode:
        scope = self.info.scope_of(node)
        saved_scope, saved_text = self.scope, self.stmt_text
        self.scope = scope
        try:
            if is_lambda:
                body = self.expr(node.body)
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
                        len(a.posonlyargs), kwonly, vararg, kwarg, self.qualname(name))

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
                if _bget(type(v), 1) is not None:
                    _bind_slow(v, name)
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
                if _bget(type(v), 1) is not None:
                    _bind_slow(v, name)
            return st
        if not hook:
            def st(fr, v):
                fr[i] = v
            return st

        def st(fr, v):
            fr[i] = v
            if _bget(type(v), 1) is not None:
                _bind_slow(v, name)
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

    def expr(self, node):
        return getattr(self, "e_" + type(node).__name__)(node)

    def e_Constant(self, node):
        v = node.value

        def ev(fr):
            return v
        return ev

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

    def e_ListComp(self, node):
        return self.comprehension(node, "list")

    def e_SetComp(self, node):
        return self.comprehension(node, "set")

    def e_DictComp(self, node):
        return self.comprehension(node, "dict")

    def e_GeneratorExp(self, node):
        build = self.comprehension(node, "list")

        def ev(fr):
            return ScriptGenerator(build(fr))
        return ev

    def comprehension(self, node, kind: str):
        _site = self.site(node)
        scope = self.info.scope_of(node)
        gens = node.generators
        first_iter = self.expr(gens[0].iter)
        saved = self.scope
        self.scope = scope
        try:
            levels = []
            for i, g in enumerate(gens):
                it = self.expr(g.iter) if i else None
                store = self.store_comp_target(g.target)
                conds = tuple(self.test(c) for c in g.ifs)
                levels.append((it, store, conds))
            if kind == "dict":
                kev = self.expr(node.key)
                vev = self.expr(node.value)
            else:
                eev = self.expr(node.elt)
        finally:
            self.scope = saved
        tmpl = [None, None] + [UNBOUND] * scope.nslots

        # fast path: [elt for name in iterable]
        if kind == "list" and len(gens) == 1 and not gens[0].ifs and type(gens[0].target) is ast.Name:
            slot = scope.slots[gens[0].target.id]

            def ev(fr):
                if 0:
                    _site
                cf = tmpl.copy()
                cf[0] = fr
                out = []
                ap = out.append
                st = RT
                ml = st.max_loop
                ms = st.max_seq
                n = 0
                for v in first_iter(fr):
                    n += 1
                    if n > ml:
                        raise limit_error("max_loop_iterations")
                    st.steps += 1
                    if st.steps > st.check_at:
                        st.tick()
                    cf[slot] = v
                    ap(eev(cf))
                    if n > ms:
                        raise seq_limit(n)
                return out
            return ev

        if kind == "list":
            def leaf(cf, out):
                out.append(eev(cf))
                if len(out) > RT.max_seq:
                    raise seq_limit(len(out))
        elif kind == "set":
            def leaf(cf, out):
                x = eev(cf)
                hash_check(x)
                out.add(x)
                if len(out) > RT.max_seq:
                    raise seq_limit(len(out))
        else:
            def leaf(cf, out):
                k = kev(cf)
                hash_check(k)
                out[k] = vev(cf)
                if len(out) > RT.max_seq:
                    raise seq_limit(len(out))

        def make_level(i, inner):
            it_ev, store, conds = levels[i]
            nxt = levels[i + 1][0] if i + 1 < len(levels) else None

            def level(cf, out, iterable):
                st = RT
                ml = st.max_loop
                n = 0
                for v in iterable:
                    n += 1
                    if n > ml:
                        raise limit_error("max_loop_iterations")
                    st.steps += 1
                    if st.steps > st.check_at:
                        st.tick()
                    store(cf, v)
                    ok = True
                    for c in conds:
                        if not c(cf):
                            ok = False
                            break
                    if ok:
                        if nxt is None:
                            inner(cf, out)
                        else:
                            inner(cf, out, nxt(cf))
            return level

        run = leaf
        for i in range(len(levels) - 1, -1, -1):
            run = make_level(i, run)
        top = run
        factory = {"list": list, "set": set, "dict": dict}[kind]

        def ev(fr):
            if 0:
                _site
            cf = tmpl.copy()
            cf[0] = fr
            out = factory()
            top(cf, out, first_iter(fr))
            return out
        return ev

    def store_comp_target(self, target):
        if type(target) is ast.Name:
            i = self.scope.slots[target.id]

            def st(cf, v):
                cf[i] = v
            return st
        return self.store(target)
