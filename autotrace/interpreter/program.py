"""Parsing, compiling and running a script: the public entry points."""

from __future__ import annotations

import ast
import gc
import os
import sys
import warnings
from dataclasses import dataclass, field

from .. import site as _site_mod
from ..site import Site
from .errors import SITE_ATTR, ScriptError, ScriptRejected, from_engine, is_visible
from .limits import ALARM, RT, LimitExceeded, Limits, python_recursion_limit_for
from .source import SourceMap, decode_source
from .validate import BUILTIN_NAMES, MAX_DEPTH, REFUSED_NAMES, Refusal, validate

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))

#: functions called before every run (per-run state of library modules: ``random``'s
#: generator, whether the script plotted)
RUN_HOOKS: list = []
_MAX_MESSAGE = 100_000


@dataclass
class ScriptResult:
    """Outcome of :func:`run_program`.

    ``stdout`` is everything the script printed; ``error`` the ScriptError that ended
    it (None on success); ``globals`` the top-level names bound at the end (or at the
    error), in binding order, without the imported modules.
    """

    stdout: str
    error: ScriptError | None
    globals: dict[str, object] = field(default_factory=dict)


class Program:
    """A parsed and compiled script, ready for :func:`run_program` (any number of
    times, one run at a time)."""

    def __init__(self, filename: str, source: str, run, nsteps: int, G: dict,
                 free: list[str], bound: list[str], value_reads: dict | None = None):
        self.filename = filename
        self.source = source
        self._run = run
        self._nsteps = nsteps
        self._G = G
        self.free = free
        self.bound = bound
        #: free name -> its reads in top-level code as a value, in source order:
        #: ``(line, column, attribute)``, the attribute looked up on it or None (see
        #: :func:`needed_names`)
        self.value_reads = value_reads or {}

    def __repr__(self):
        return f"<autotrace Program {self.filename!r}>"


def _reject(type_: str, message: str, line=None, column=None, end_column=None):
    raise ScriptRejected(ScriptError(type_, message, line, column, "parse", end_column))


def _stack_depth() -> int:
    f = sys._getframe()
    n = 0
    while f is not None:
        n += 1
        f = f.f_back
    return n


def parse_script(source: str | bytes, filename: str, check=None) -> Program:
    """Parse, check and compile a script (see :func:`_parse_script`). ``check(tree)``,
    when given, may refuse the validated AST: it returns ``(node, error type, message)``
    or None (the torch namespace's check that every API the script names exists).

    Python's cyclic garbage collector is paused meanwhile: compiling creates many
    small objects and no garbage cycles, and full collections over a large AST would
    make compile time grow quadratically with the script's size.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _parse_script(source, filename, check)
    finally:
        if enabled:
            gc.enable()


def _parse_script(source: str | bytes, filename: str, check=None) -> Program:
    """Parse, check and compile a script.

    ``source`` is the script text (bytes must be UTF-8). Returns a :class:`Program`.
    Raises :class:`ScriptRejected` (whose ``error`` has phase ``"parse"``) for: NUL
    bytes or invalid UTF-8, a script over the size limit, an empty script ("empty
    script"), syntax errors (Python's own message), expressions nested too deeply,
    constructs outside the script language, imports other than torch and the
    standard-library modules of :data:`~.validate.STDLIB_MODULES`, dunder names, and
    reads of Python builtins that scripts do not get (``eval``, ``open``, ...) when the
    script does not bind them itself.
    """
    text, problem = decode_source(source)
    if problem is not None:
        _reject(*problem)
    if not text.strip():
        _reject("SyntaxError", "empty script")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")     # SyntaxWarning/DeprecationWarning: not the run's business
            tree = ast.parse(text, filename=filename, mode="exec")
    except SyntaxError as e:
        end = e.end_offset if (e.end_lineno in (None, e.lineno) and e.end_offset and e.offset
                               and e.end_offset > e.offset) else None
        _reject(type(e).__name__, e.msg or "invalid syntax", e.lineno, e.offset, end)
    except (RecursionError, MemoryError):
        _reject("SyntaxError", f"expression nested too deeply (more than {MAX_DEPTH} levels) or too complex")
    except (ValueError, OverflowError, UnicodeError) as e:
        _reject("SyntaxError", str(e))
    if not tree.body:
        _reject("SyntaxError", "empty script")
    smap = SourceMap(text)
    try:
        validate(tree)
    except Refusal as r:
        line, col, end_line, end_col = smap.span(r.node)
        _reject(r.type, r.message, line, col + 1, end_col + 1 if end_line == line and end_col > col else None)
    if check is not None:
        problem = check(tree)
        if problem is not None:
            node, type_, message = problem
            line, col, end_line, end_col = smap.span(node)
            _reject(type_, message, line, col + 1, end_col + 1 if end_line == line and end_col > col else None)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(tree, filename, "exec", dont_inherit=True)
    except SyntaxError as e:
        end = e.end_offset if (e.end_lineno in (None, e.lineno) and e.end_offset and e.offset
                               and e.end_offset > e.offset) else None
        _reject(type(e).__name__, e.msg or "invalid syntax", e.lineno, e.offset, end)
    except (RecursionError, MemoryError):
        _reject("SyntaxError", "script too complex to compile")
    except (ValueError, OverflowError) as e:
        _reject("SyntaxError", str(e))

    from .scope import analyse
    from .compile import Compiler

    old = sys.getrecursionlimit()
    need = _stack_depth() + 8 * MAX_DEPTH + 500
    if need > old:
        sys.setrecursionlimit(need)
    try:
        info = analyse(tree)
        module_bound = info.module.bound
        for name, node, _scope in info.global_reads:
            if name in REFUSED_NAMES and name not in module_bound:
                line, col, end_line, end_col = smap.span(node)
                _reject("NameError", f"name {name!r} is not available in autotrace scripts",
                        line, col + 1, end_col + 1 if end_line == line else None)
        free: list[str] = []
        seen = set()
        for name, _node, _scope in info.global_reads:
            if name not in module_bound and name not in BUILTIN_NAMES and name not in seen:
                seen.add(name)
                free.append(name)
        value_reads = _value_reads(tree, info, seen, smap) if free else {}
        G: dict = {}
        run, nsteps = Compiler(smap, info, G).module(tree.body)
    finally:
        if need > old:
            sys.setrecursionlimit(old)
    return Program(filename, text, run, nsteps, G, free, list(module_bound), value_reads)


def _value_reads(tree, info, free: set, smap: SourceMap) -> dict:
    """The reads of the ``free`` names that run when the module's own code runs (not in
    a function or lambda body: those run only if called) and use the name as a value:
    not called (``helpr(loss)``), nor a decorator, a class base or an ``except`` clause's
    type, which a tensor cannot be. A read that looks up an attribute (``x.sum()``,
    ``nn.Linear``) records the attribute. See :func:`needed_names`."""
    not_values: set[int] = set()
    attribute: dict[int, str] = {}
    for node in ast.walk(tree):
        t = type(node)
        if t is ast.Call:
            not_values.add(id(node.func))
        elif t is ast.Attribute:
            attribute[id(node.value)] = node.attr
        elif t is ast.FunctionDef or t is ast.ClassDef:
            not_values.update(id(d) for d in node.decorator_list)
            if t is ast.ClassDef:
                not_values.update(id(b) for b in node.bases)
        elif t is ast.ExceptHandler and node.type is not None:
            not_values.add(id(node.type))
            if type(node.type) is ast.Tuple:
                not_values.update(id(e) for e in node.type.elts)
    out: dict[str, list] = {}
    for name, node, scope in info.global_reads:
        if name not in free or id(node) in not_values:
            continue
        s = scope
        while s is not None and s.kind != "function":
            s = s.parent
        if s is not None:
            continue
        line, col, _end_line, _end_col = smap.span(node)
        out.setdefault(name, []).append((line, col + 1, attribute.get(id(node))))
    return out


def free_names(program: Program) -> list[str]:
    """Names the script reads (at top level or inside functions) that it never binds
    at top level and that are not builtins: the CLI may bind these from ``--set``.
    In order of first appearance."""
    return list(program.free)


def needed_names(program: Program, has_attribute=None) -> list[tuple[str, int, int]]:
    """The free names a run needs a value for, as ``(name, line, column)`` of the first
    read that needs it, in that order: those the module's own code reads as a value
    (``z = (x*3).sum()``). A name read only inside a function (``def report(loss): return
    helpr(loss)``), only called (``critrion(out, y)``) or only as the root of an attribute
    for which ``has_attribute(attr)`` is false (``nn.Linear`` without the import, when
    values are tensors) is left unbound: the run raises Python's NameError where it is
    reached, if it is."""
    out = []
    for name, reads in program.value_reads.items():
        for line, col, attr in reads:
            if attr is None or has_attribute is None or has_attribute(attr):
                out.append((name, line, col))
                break
    out.sort(key=lambda r: (r[1], r[2]))
    return out


def _site_from_traceback(tb) -> Site | None:
    site = None
    while tb is not None:
        code = tb.tb_frame.f_code
        if "_site" in code.co_freevars and code.co_filename.startswith(_PKG_DIR):
            s = tb.tb_frame.f_locals.get("_site")
            if isinstance(s, Site):
                site = s
        tb = tb.tb_next
    return site


def _message(exc: BaseException) -> str:
    from .ops import deep_check
    try:
        deep_check(exc.args)
        msg = str(exc)
    except LimitExceeded:
        msg = "<the exception's message is too large to show>"
    if len(msg) > _MAX_MESSAGE:
        msg = msg[:_MAX_MESSAGE] + "..."
    return msg


def _to_script_error(exc: BaseException) -> ScriptError | None:
    """The ScriptError for an exception that ended a run; None for internal errors."""
    if isinstance(exc, LimitExceeded):
        type_, msg, phase = "LimitError", exc.message, "limit"
    elif isinstance(exc, RecursionError):
        type_, phase = "LimitError", "limit"
        msg = "Python's recursion limit was reached (the script nests calls or data too deeply)"
    elif isinstance(exc, MemoryError):
        type_, phase = "LimitError", "limit"
        from ..resources import memory_error
        msg = str(memory_error(exc))
    elif is_visible(exc):
        from .values import display_name
        type_, msg, phase = display_name(exc), _message(exc), "run"
    else:
        new = from_engine(exc)
        if new is None:
            return None
        new.__traceback__ = exc.__traceback__
        exc = new
        type_, msg, phase = type(exc).__name__, _message(exc), "run"
    site = None
    try:
        site = exc.__dict__.get(SITE_ATTR)
    except AttributeError:  # pragma: no cover
        pass
    if site is None:
        site = _site_from_traceback(exc.__traceback__)
    if site is None:
        return ScriptError(type_, msg, None, None, phase)
    end = site.end_col + 1 if site.end_line == site.line and site.end_col > site.col else None
    return ScriptError(type_, msg, site.line, site.col + 1, phase, end)


def _execute(program: Program) -> ScriptError | None:
    try:
        if program._nsteps:
            RT.charge(program._nsteps)
        program._run(None)
    except BaseException as exc:
        ALARM.armed = False
        err = _to_script_error(exc)
        if err is None:
            raise
        _finish_generators(err.phase == "limit")
        return err
    exc = _finish_generators(False)
    if exc is not None:
        ALARM.armed = False
        return _to_script_error(exc)
    return None


def _finish_generators(limit_reached: bool):
    """Close the script generators left suspended (their ``finally`` blocks run as at
    Python's exit, unless a limit ended the run); a limit reached meanwhile is returned."""
    from .generators import close_all
    exc = close_all(limit_reached)
    if exc is None and not limit_reached:
        exc = RT.dead       # a limit reached in a collected generator's finally block
    return exc


def run_program(program: Program, *, modules: dict[str, object],
                predefined: dict[str, object] | None = None,
                limits: Limits = Limits()) -> ScriptResult:
    """Run a parsed script and return its :class:`ScriptResult`.

    ``modules`` maps importable dotted names ("torch", "torch.nn", "math", ...) to the
    objects scripts get; ``predefined`` binds top-level names before the run (the
    CLI's ``--set``). Script errors, limits, RecursionError and MemoryError end the run
    with ``result.error`` set (phase "run" or "limit"); stdout and globals are kept.
    Any other exception (an internal error of the engine) propagates unchanged.
    Raises RuntimeError when called while another run is active (not reentrant).
    ``autotrace.site.current`` is None again when this returns.
    """
    st = RT
    if st.active:
        raise RuntimeError("run_program() is already running a script (it is not reentrant)")
    from .compile import reset_caches
    from .generators import start_run
    reset_caches()
    start_run()
    st.reset(limits)
    for hook in RUN_HOOKS:
        hook()
    st.modules = dict(modules)
    st.module_names = {id(v): k for k, v in modules.items()}
    G = program._G
    G.clear()
    if predefined:
        G.update(predefined)
    old_limit = sys.getrecursionlimit()
    new_limit = max(python_recursion_limit_for(limits.max_recursion), _stack_depth() + 1000)
    changed = new_limit > old_limit
    if changed:
        sys.setrecursionlimit(new_limit)
    error = None
    st.active = True
    try:
        ALARM.start(st.timeout)
        try:
            error = _execute(program)
        except LimitExceeded as exc:   # the alarm fired while an error was being converted
            error = _to_script_error(exc)
    finally:
        st.active = False
        ALARM.stop()
        _site_mod.current = None
        if changed:
            sys.setrecursionlimit(old_limit)
        st.inst_cache = {}
    stdout = "".join(st.out)
    st.out = []
    module_ids = {id(v) for v in modules.values()}
    result_globals = {k: v for k, v in G.items() if id(v) not in module_ids}
    return ScriptResult(stdout, error, result_globals)
