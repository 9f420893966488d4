"""``autotrace html``: a self-contained page that steps through every backward pass."""

from __future__ import annotations

from typing import List, Optional

import typer

from . import common

HELP = (
    "Write one self-contained HTML file (no network needed to view it) with the script's source, "
    "the graph, and a step-through of every backward pass: ←/→ move one step, the current node "
    "and the edges it sends gradients along are highlighted, the panel shows the step as explain "
    "does (rule, numbers, upstream, what each input gets), and every leaf's .grad fills and "
    "accumulates across passes. Click a node for its record.\n\n"
    "Examples:\n\n"
    "  autotrace html scenarios/seed2_grad_accumulation.py -o page.html\n\n"
    "  autotrace html -e 'z = (x*3).sum()' --set 'x=[2.0, 3.0]' -o - > page.html\n\n"
    + common.EXIT_CODES_HELP_NO_CHECK
)


def command(
    script: Optional[str] = common.ScriptArg,
    output: str = typer.Option(..., "--output", "-o", metavar="FILE.html",
                               help="Where to write the page; - for standard output."),
    expr: Optional[str] = common.ExprOpt,
    set_: Optional[List[str]] = common.SetOpt,
    of: Optional[str] = typer.Option(None, "--of", metavar="NAME",
                                     help="Backward from this tensor when the script calls no backward()."),
    timeout: float = common.TimeoutOpt,
    max_steps: int = common.MaxStepsOpt,
    limit: Optional[List[str]] = common.LimitOpt,
):
    src = common.read_source(script, expr)
    lim = common.limits(timeout, max_steps, limit)
    from autotrace import api

    try:
        result = api.run_source(src.data, src.name, sets=set_ or (), limits=lim, of=of)
    except api.UsageError as e:
        common.fail_usage(str(e))
    page = result.html().data.encode("utf-8")
    common.write_output(output, page, script)
    if result.trace.error is not None:
        common.report_script_error(result.trace)
        raise typer.Exit(common.EXIT_SCRIPT)
