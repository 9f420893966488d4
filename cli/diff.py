"""``autotrace diff``: where two runs part, and why their gradients differ."""

from __future__ import annotations

import sys
from typing import List, Optional

import typer

from . import common

HELP = (
    "Run scripts A and B and report where they part: a different op or structure of the "
    "graph, a different value in the forward pass, a different gradient in a backward pass, "
    "different printed output or errors. Then the cause in plain words when it is a known one "
    "(gradients accumulated over an extra pass, i.e. a missing zero_grad; a path cut by "
    "detach()/.data/no_grad; an in-place change; another dtype or broadcast shape; other random "
    "numbers; sum vs mean), with the lines in both scripts, and every leaf whose .grad differs "
    "and by how much. A script error is part of the comparison.\n\n"
    "Examples:\n\n"
    "  autotrace diff train_a.py train_b.py\n\n"
    "  autotrace diff a.py b.py --set 'x=[1.0, 2.0]' --format md > why.md\n\n"
    "Exit codes: 0 the runs agree; 1 a script could not be run (syntax, unsupported construct); "
    "2 usage error; 3 the runs differ; 70 internal error (a bug in autotrace)."
)


def command(
    script_a: str = typer.Argument(..., metavar="A", help="The first script (a path, or - for standard input)."),
    script_b: str = typer.Argument(..., metavar="B", help="The second script (a path)."),
    set_: Optional[List[str]] = common.SetOpt,
    set_a: Optional[List[str]] = typer.Option(None, "--set-a", metavar="NAME=VALUE", help="Like --set, for A only."),
    set_b: Optional[List[str]] = typer.Option(None, "--set-b", metavar="NAME=VALUE", help="Like --set, for B only."),
    fmt: str = typer.Option("text", "--format", metavar="text|md", help="text (terminal) or md (Markdown)."),
    json_out: bool = typer.Option(False, "--json", help="Print the comparison as JSON (schema_version 1)."),
    timeout: float = common.TimeoutOpt,
    max_steps: int = common.MaxStepsOpt,
    limit: Optional[List[str]] = common.LimitOpt,
    no_color: bool = common.NoColorOpt,
    width: Optional[int] = common.WidthOpt,
):
    if fmt not in ("text", "md"):
        common.fail_usage(f"--format must be text or md, not {fmt!r}")
    if script_a == "-" and script_b == "-":
        common.fail_usage("only one of A and B can be - (standard input)")
    try:
        src_a = common.load_source(script_a, None)
        src_b = common.load_source(script_b, None)
    except common.SourceError as e:
        common.fail_usage(str(e))
    lim = common.limits(timeout, max_steps, limit)
    from autotrace import diff as diff_mod
    from autotrace.runner import UsageError

    try:
        ta, tb = diff_mod.run_pair(src_a.data, src_a.name, src_b.data, src_b.name,
                                   sets_a=(set_ or []) + (set_a or []), sets_b=(set_ or []) + (set_b or []),
                                   limits=lim)
    except UsageError as e:
        common.fail_usage(str(e))
    refused = [t for t in (ta, tb) if t.error is not None and t.error.get("phase") == "parse"]
    if refused and not json_out:
        common.report_script_error(refused[0], no_color)
        raise typer.Exit(common.EXIT_SCRIPT)
    common.phase("comparing the runs")
    d = diff_mod.compare(ta, tb)
    if json_out:
        import json
        common.phase("writing the comparison")
        common.write_output("-", (json.dumps(diff_mod.to_dict(d), sort_keys=True, indent=1, ensure_ascii=False)
                                  + "\n").encode("utf-8"))
        if refused:
            # the document (parting at the error) is on stdout; the diagnostic goes to stderr
            for t in refused:
                common.report_script_error(t, no_color)
            raise typer.Exit(common.EXIT_SCRIPT)
    elif fmt == "md":
        from autotrace.render import diff as render_diff
        sys.stdout.write(render_diff.render_markdown(d))
    else:
        from autotrace.render import diff as render_diff
        render_diff.render_text(d, common.console(no_color=no_color, width=width))
    raise typer.Exit(common.EXIT_OK if d.same else common.EXIT_DIFF)
