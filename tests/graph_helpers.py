"""Traces for the graph tests: through autotrace's own runner when the interpreter is
there, else through a stand-in that executes simple top-level statements (assignments,
expressions, ``for`` loops) with Python on autotrace's torch namespace."""

from __future__ import annotations

import ast


def have_interpreter() -> bool:
    try:
        from autotrace.interpreter import run_program  # noqa: F401
    except ImportError:
        return False
    return True


def trace_of(source: str, filename: str = "<expr>", sets=(), keep_values: bool = True, of=None):
    if have_interpreter():
        from autotrace.runner import Options, run
        return run(source, filename, sets=sets, options=Options(keep_values=keep_values, of=of))
    return _stand_in(source, filename, sets, keep_values)


def _stand_in(source, filename, sets, keep_values):
    from autotrace import record, site
    from autotrace.runner import _reset_state, parse_set
    from autotrace.torch_api import creation, modules
    from autotrace import dtypes
    from autotrace.tensor import Tensor
    from autotrace.trace import Trace, variable_of

    _reset_state()
    rec = record.Recorder(keep_values=keep_values)
    record.active = rec
    mods = modules()
    ns = {"torch": mods["torch"]}
    try:
        for s in sets:
            name, value = parse_set(s)
            t = creation.tensor(value, dtype=dtypes.float32, requires_grad=True)
            t._on_bind(name)
            ns[name] = t
        tree = ast.parse(source)
        for stmt in tree.body:
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                continue
            seg = ast.get_source_segment(source, stmt)
            value = getattr(stmt, "value", None)
            text = ast.get_source_segment(source, value) if value is not None else seg
            site.current = site.Site(stmt.lineno, stmt.col_offset, stmt.end_lineno, stmt.end_col_offset, text, seg)
            exec(compile(ast.Module([stmt], []), filename, "exec"), ns)
            for node in ast.walk(stmt):
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    v = ns.get(node.id)
                    if isinstance(v, Tensor):
                        v._on_bind(node.id)
    finally:
        record.active = None
        site.current = None
    variables = {}
    for k, v in ns.items():
        if k == "torch":
            continue
        var = variable_of(k, v)
        if var is not None:
            variables[k] = var
    return Trace(script=filename, source=source, stdout="", error=None, variables=variables,
                 nodes=rec.nodes, passes=rec.passes)
