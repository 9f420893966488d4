"""Values the interpreter creates for scripts: functions, generator results, caught
exceptions and bound builtin methods. None of them exposes Python internals: the guard
gives scripts no attribute of a function, and the wrappers hold the real objects in
slots that the attribute allow-list never names.
"""

from __future__ import annotations

from .. import site as _site_mod
from .limits import RT, limit_error
from .ops import deep_check


class _Unbound:
    __slots__ = ()

    def __repr__(self):
        return "<unbound>"


#: marker of a local variable slot that holds no value
UNBOUND = _Unbound()


class FuncCode:
    """The compiled, shared part of a ``def``/``lambda`` (one per source definition).

    A frame is a list: ``[enclosing frame, return value, slot 2, slot 3, ...]``;
    parameters occupy the first slots (positional, keyword-only, ``*args``,
    ``**kwargs``), then the other locals.
    """

    __slots__ = ("name", "template", "body", "is_lambda", "nsteps", "npos", "posnames",
                 "nposonly", "kwonly", "vararg", "kwarg", "param_slot", "simple", "qualname")

    def __init__(self, name, nslots, body, is_lambda, nsteps, posnames, nposonly, kwonly,
                 vararg, kwarg, qualname=None):
        self.name = name
        self.qualname = qualname or name
        self.template = [None, None] + [UNBOUND] * nslots
        self.body = body
        self.is_lambda = is_lambda
        self.nsteps = nsteps
        self.posnames = tuple(posnames)
        self.npos = len(posnames)
        self.nposonly = nposonly
        self.kwonly = tuple(kwonly)  # ((name, slot), ...)
        self.vararg = vararg          # slot or None
        self.kwarg = kwarg            # slot or None
        slots = {n: 2 + i for i, n in enumerate(posnames) if i >= nposonly}
        slots.update(dict(kwonly))
        self.param_slot = slots
        self.simple = vararg is None and kwarg is None and not kwonly


class ScriptFunction:
    """A function defined by the script (``def`` or ``lambda``).

    It is a plain Python callable: engine code may call it (hooks, ``jacobian(f, x)``);
    the body then runs in the interpreter under the active run's limits and step
    counter, and exceptions propagate with their original class. Calling it when no run
    is active raises RuntimeError. Scripts see no attributes on it.
    """

    __slots__ = ("_code", "_env", "_defaults", "_kwdefaults", "__weakref__")

    def __init__(self, code: FuncCode, env, defaults: tuple, kwdefaults: dict):
        self._code = code
        self._env = env
        self._defaults = defaults
        self._kwdefaults = kwdefaults

    def __repr__(self):
        return f"<function {self._code.qualname} at 0x{id(self):x}>"

    def __call__(self, *args, **kwargs):
        if not RT.active:
            raise RuntimeError(f"script function {self._code.name}() called outside of a script run")
        saved = _site_mod.current
        try:
            return self._invoke(args, kwargs)
        finally:
            _site_mod.current = saved

    def _invoke(self, args, kwargs):
        code = self._code
        st = RT
        d = st.depth + 1
        if d > st.max_depth:
            raise limit_error("max_recursion")
        st.steps += code.nsteps
        if st.steps > st.check_at:
            st.tick()
        fr = code.template.copy()
        fr[0] = self._env
        if not kwargs and code.simple and len(args) == code.npos:
            fr[2:2 + code.npos] = args
        else:
            _bind_args(self, fr, args, kwargs)
        st.depth = d
        try:
            if code.is_lambda:
                return code.body(fr)
            code.body(fr)
            return fr[1]
        finally:
            st.depth = d - 1


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _names(names: list[str]) -> str:
    q = [f"'{n}'" for n in names]
    if len(q) == 1:
        return q[0]
    if len(q) == 2:
        return f"{q[0]} and {q[1]}"
    return ", ".join(q[:-1]) + f", and {q[-1]}"


def _bind_args(fn: ScriptFunction, fr: list, args, kwargs) -> None:
    """Bind a call's arguments into frame ``fr`` in CPython 3.11's order (keywords are
    matched before too many positional arguments are reported), with its messages."""
    code = fn._code
    name = code.qualname
    npos = code.npos
    nargs = len(args)
    if nargs > npos:
        fr[2:2 + npos] = args[:npos]
        if code.vararg is not None:
            fr[code.vararg] = tuple(args[npos:])
    else:
        fr[2:2 + nargs] = args
        if code.vararg is not None:
            fr[code.vararg] = ()
    extra = None
    if code.kwarg is not None:
        extra = {}
        fr[code.kwarg] = extra
    if kwargs:
        pslot = code.param_slot
        for k, v in kwargs.items():
            i = pslot.get(k)
            if i is None:
                if extra is not None:
                    extra[k] = v
                    continue
                if k in code.posnames[:code.nposonly]:
                    raise TypeError(f"{name}() got some positional-only arguments passed as keyword arguments: '{k}'")
                raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
            if fr[i] is not UNBOUND:
                raise TypeError(f"{name}() got multiple values for argument '{k}'")
            fr[i] = v
    if nargs > npos and code.vararg is None:
        nd = len(fn._defaults)
        if nd:
            takes = f"from {npos - nd} to {npos} positional arguments"
        else:
            takes = _plural(npos, "positional argument")
        kw_given = sum(1 for _, slot in code.kwonly if fr[slot] is not UNBOUND)
        if kw_given:
            given = (f"{nargs} positional argument{'s' if nargs != 1 else ''} "
                     f"(and {_plural(kw_given, 'keyword-only argument')})")
        else:
            given = str(nargs)
        was = "was" if nargs == 1 and not kw_given else "were"
        raise TypeError(f"{name}() takes {takes} but {given} {was} given")
    if nargs < npos:
        defaults = fn._defaults
        first_default = npos - len(defaults)
        missing = []
        for j in range(nargs, npos):
            if fr[2 + j] is UNBOUND:
                if j >= first_default:
                    fr[2 + j] = defaults[j - first_default]
                else:
                    missing.append(code.posnames[j])
        if missing:
            raise TypeError(f"{name}() missing {_plural(len(missing), 'required positional argument')}: {_names(missing)}")
    if code.kwonly:
        kwd = fn._kwdefaults
        missing = []
        for pname, slot in code.kwonly:
            if fr[slot] is UNBOUND:
                if pname in kwd:
                    fr[slot] = kwd[pname]
                else:
                    missing.append(pname)
        if missing:
            raise TypeError(f"{name}() missing {_plural(len(missing), 'required keyword-only argument')}: {_names(missing)}")


class ScriptGenerator:
    """Result of a generator expression (evaluated eagerly): a one-pass iterator."""

    __slots__ = ("_it", "_n")

    def __init__(self, items: list):
        self._it = iter(items)
        self._n = len(items)

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._it)

    def __length_hint__(self):
        return self._it.__length_hint__()

    def __repr__(self):
        return f"<generator object <genexpr> at 0x{id(self):x}>"


class CaughtException:
    """What ``except E as e`` binds: ``args``, ``str(e)`` and ``repr(e)`` like Python's
    (``RuntimeError('msg')``), nothing else. ``raise e`` re-raises the original and
    ``isinstance(e, E)`` tests it."""

    __slots__ = ("_exc",)
    _script_attrs = frozenset({"args"})

    def __init__(self, exc: BaseException):
        self._exc = exc

    @property
    def args(self):
        return self._exc.args

    def __str__(self):
        deep_check(self._exc.args)
        return str(self._exc)

    def __repr__(self):
        a = self._exc.args
        deep_check(a)
        name = display_name(self._exc)
        if len(a) == 1:
            return f"{name}({a[0]!r})"
        return f"{name}{a!r}" if a else f"{name}()"

    def __format__(self, spec):
        return format(str(self), spec)


class BoundBuiltin:
    """A method of a builtin value taken as a value (``f = lst.append``)."""

    __slots__ = ("_obj", "_impl", "_name")

    def __init__(self, obj, impl, name: str):
        self._obj = obj
        self._impl = impl
        self._name = name

    def __call__(self, *args, **kwargs):
        return self._impl(self._obj, *args, **kwargs)

    def __repr__(self):
        return f"<built-in method {self._name} of {type(self._obj).__name__} object at 0x{id(self._obj):x}>"


#: names scripts see for the interpreter's own value types in error messages
DISPLAY_NAMES = {
    # (the classes module adds its own: method, staticmethod, super, type, ...)
    ScriptFunction: "function",
    ScriptGenerator: "generator",
    BoundBuiltin: "builtin_function_or_method",
}


def display_name(o) -> str:
    """Type name of ``o`` as a script sees it (for messages)."""
    t = type(o)
    if t is CaughtException:
        return type(o._exc).__name__
    c = getattr(o, "_cls", None) if not isinstance(o, type) else None
    if c is not None and type(c).__name__ == "ScriptClass":
        return c.name
    n = DISPLAY_NAMES.get(t)
    return n if n is not None else t.__name__
