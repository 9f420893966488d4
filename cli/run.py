"""``autotrace run``."""

from __future__ import annotations

import sys
from typing import List, Optional

import typer

from . import common

HELP = (
    "Run SCRIPT and show its output, a table of the tensors it bound (value, shape, dtype, "
    "requires_grad, is_leaf, grad_fn, grad) and each output's grad_fn chain (loop bodies run many "
    "times and long chains of one op shown once, saying what was folded). --json prints "
    "the whole trace as one JSON document (schema_version 1) instead.\n\n" + common.EXIT_CODES_HELP_NO_CHECK
)


def run(
    script: Optional[str] = common.ScriptArg,
    expr: Optional[str] = common.ExprOpt,
    set_: Optional[List[str]] = common.SetOpt,
    json_out: bool = typer.Option(False, "--json", help="Print the trace as JSON (schema_version 1) on stdout."),
    timeout: float = common.TimeoutOpt,
    max_steps: int = common.MaxStepsOpt,
    limit: Optional[List[str]] = common.LimitOpt,
    no_color: bool = common.NoColorOpt,
    width: Optional[int] = common.WidthOpt,
    depth: int = typer.Option(12, "--depth", metavar="N", help="Levels of each grad_fn tree to show (the "
                              "tree also stops where a line would be too narrow for a node name, and "
                              "says how many levels are left)."),
):
    if depth < 1:
        common.fail_usage("--depth must be at least 1")
    lim = common.limits(timeout, max_steps, limit)    # the time limit starts before reading
    src = common.read_source(script, expr)
    trace = common.run_trace(src, set_, lim)
    common.phase("rendering the output")
    if json_out:
        from autotrace.render import json as render_json

        def render(out):
            render_json.write_trace(trace, out)
            out.write("\n")
        # streamed to a temporary file, then copied: a limit reached while rendering
        # leaves no half document on stdout
        common.write_document(render)
    else:
        from autotrace.render import console as render_console
        render_console.run_report(trace, common.console(no_color=no_color, width=width),
                                  common.console(stderr=True, no_color=no_color, width=width), depth=depth)
    sys.stdout.flush()
    if trace.error is not None:
        # the JSON document (with "error") is on stdout; the diagnostic goes to stderr either way
        common.report_script_error(trace, no_color)
        raise typer.Exit(common.EXIT_SCRIPT)
