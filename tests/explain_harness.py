"""A stand-in for the script interpreter while it is being finished: runs a script with
Python's exec against autotrace's torch namespace, sets ``site.current`` per line (via
sys.settrace) and binds variable names, then assembles a Trace like runner.run does.

Only for tests of explain; once ``autotrace.interpreter.run_program`` exists the tests
use the real runner instead.
"""

from __future__ import annotations

import ast
import contextlib
import io
import sys


def real_interpreter() -> bool:
    try:
        from autotrace.interpreter import run_program  # noqa: F401
        return True
    except ImportError:
        return False


def exec_trace(source: str, filename: str = "<expr>", sets=(), of=None):
    from autotrace import diagnostics, dtypes, record, site
    from autotrace.runner import _reset_state, parse_set, _implicit_backward
    from autotrace.tensor import Tensor
    from autotrace.torch_api import creation, modules
    from autotrace.trace import Trace, variable_of

    mods = modules()
    lines = source.splitlines()
    _reset_state()
    rec = record.Recorder(keep_values=True)
    record.active = rec
    g: dict = {}
    for s in sets:
        name, value = parse_set(s)
        t = creation.tensor(value, dtype=dtypes.float32, requires_grad=True)
        t._on_bind(name)
        g[name] = t
    tree = ast.parse(source)
    stmt_at = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            stmt_at.setdefault(node.lineno, ast.get_source_segment(source, node) or "")

    def bind_names(frame_globals):
        for k, v in list(frame_globals.items()):
            if isinstance(v, Tensor) and v._name != k:
                v._on_bind(k)

    def tracer(frame, event, arg):
        if frame.f_code.co_filename != filename:
            return tracer
        if event == "line":
            bind_names(frame.f_globals)
            ln = frame.f_lineno
            st = stmt_at.get(ln, lines[ln - 1].strip())
            text = st.split("=", 1)[1].strip() if "=" in st and not st.startswith(("print", "for", "if")) and "==" not in st.split("=", 1)[0] else st
            site.current = site.Site(ln, 0, ln, 0, text, st)
        return tracer

    def _import(name, globals=None, locals=None, fromlist=(), level=0):
        if name in mods:
            if fromlist or "." not in name:
                return mods[name]
        return mods[name.split(".")[0]]

    import builtins
    b = dict(vars(builtins))
    b["__import__"] = _import
    g["__builtins__"] = b
    out = io.StringIO()
    error = None
    code = compile(source, filename, "exec")
    sys.settrace(tracer)
    try:
        with contextlib.redirect_stdout(out):
            exec(code, g)
    except Exception as e:  # noqa: BLE001
        tb = e.__traceback__
        line = None
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == filename:
                line = tb.tb_lineno
            tb = tb.tb_next
        error = {"type": type(e).__name__, "message": str(e), "line": line, "column": 0, "phase": "run"}
    finally:
        sys.settrace(None)
        bind_names(g)
    if of and error is None:
        error = _implicit_backward(g, of, rec)
    record.active = None
    site.current = None
    out_vars = {}
    for name, value in g.items():
        if name.startswith("__") or name in ("torch", "nn", "F", "math"):
            continue
        v = variable_of(name, value)
        if v is not None:
            out_vars[name] = v
    return Trace(script=filename, source=source, stdout=out.getvalue(), error=error,
                 warnings=[dict(w) for w in diagnostics.warnings], variables=out_vars,
                 nodes=rec.nodes, passes=rec.passes, sets={})
