"""``autotrace explain``."""

from __future__ import annotations

import sys
from typing import List, Optional

import typer

from . import common

HELP = (
    "Explain the backward pass of SCRIPT step by step: for every backward() call, the seed "
    "gradient, then for each graph node the line of your script that made it, PyTorch's node "
    "name (MulBackward0 ...), the local derivative in symbols and with numbers, the gradient "
    "arriving from above and the gradient passed to each input; where gradients add up "
    "(fan-in, .grad accumulating over passes); the whole chain for each leaf; and diagnostics "
    "with their why and fix (.grad None, nan/inf, accumulation without zeroing, PyTorch errors).\n\n"
    "Examples:\n\n"
    "  autotrace explain scenarios/seed2_power_rule.py\n\n"
    "  autotrace explain -e 'z = (x*3).sum()' --set 'x=[2.0, 3.0]' --of z\n\n"
    "  autotrace explain script.py --verify --format md > steps.md\n\n" + common.EXIT_CODES_HELP_NO_CHECK
)


def command(
    script: Optional[str] = common.ScriptArg,
    expr: Optional[str] = common.ExprOpt,
    set_: Optional[List[str]] = common.SetOpt,
    of: Optional[str] = typer.Option(None, "--of", metavar="NAME",
                                     help="Backward from this tensor (as NAME.backward()) when the script calls no backward()."),
    wrt: Optional[str] = typer.Option(None, "--wrt", metavar="NAME", help="Only the steps and chain that lead to leaf NAME."),
    pass_: Optional[int] = typer.Option(None, "--pass", metavar="N", help="Only backward pass N (1 = the first call)."),
    verify: bool = typer.Option(False, "--verify", help="Check the gradients by central differences in float64 (re-runs the script)."),
    all_steps: bool = typer.Option(False, "--all-steps", help="Show every step; by default long runs of repeating steps (a loop unrolled into the graph) are summarised in one line."),
    fmt: str = typer.Option("text", "--format", metavar="text|md", help="text (terminal) or md (Markdown to paste)."),
    json_out: bool = typer.Option(False, "--json", help="Print the explanation as JSON (schema_version 1)."),
    timeout: float = common.TimeoutOpt,
    max_steps: int = common.MaxStepsOpt,
    limit: Optional[List[str]] = common.LimitOpt,
    no_color: bool = common.NoColorOpt,
    width: Optional[int] = common.WidthOpt,
):
    if fmt not in ("text", "md"):
        common.fail_usage(f"--format must be text or md, not {fmt!r}")
    if pass_ is not None and pass_ < 1:
        common.fail_usage("--pass counts from 1")
    lim = common.limits(timeout, max_steps, limit)    # the time limit starts before reading
    src = common.read_source(script, expr)
    from autotrace import explain as ex_mod
    from autotrace.runner import UsageError

    try:
        trace = ex_mod.run(src.data, src.name, sets=set_ or (), limits=lim, of=of)
    except UsageError as e:
        common.fail_usage(str(e))
    if pass_ is not None and trace.error is None and pass_ > len(trace.passes):
        common.fail_usage(f"--pass {pass_}: the script ran {len(trace.passes)} backward "
                          f"pass{'es' if len(trace.passes) != 1 else ''}")
    if wrt is not None:
        names = {n.var_name for n in trace.nodes if n.is_leaf and n.var_name}
        if wrt not in names:
            known = ", ".join(sorted(names)) or "none"
            common.fail_usage(f"--wrt {wrt}: no leaf tensor of the graph is named {wrt!r} (leaves: {known})")
    if of is not None and trace.passes and all(p.line is not None for p in trace.passes):
        sys.stderr.write(f"note: --of {of} is ignored: the script runs its own backward passes\n")
    common.phase("explaining")
    ex = ex_mod.explain(trace, of=of, wrt=wrt, pass_number=pass_)
    if verify and (pass_ is None or pass_ <= len(trace.passes)):   # the script failed before pass N
        def rerun(perturb):
            try:
                return ex_mod.run(src.data, src.name, sets=set_ or (), limits=lim, of=of, perturb=perturb)
            except UsageError:
                return None
        common.phase("verifying the gradients (--verify)")
        ex.verification = ex_mod.verify(trace, rerun, pass_number=pass_, of=of)
    common.phase("rendering the explanation")
    if json_out:
        from autotrace.render import explain_json
        sys.stdout.write(explain_json.render(ex) + "\n")
    elif fmt == "md":
        from autotrace.render import explain_markdown
        sys.stdout.write(common.visible(explain_markdown.render(ex, all_steps=all_steps)))
    else:
        from autotrace.render import explain_console
        explain_console.render(ex, common.console(no_color=no_color, width=width), all_steps=all_steps)
    if trace.error is not None:
        if not json_out and fmt == "text":
            common.report_script_error(trace, no_color)
        raise typer.Exit(common.EXIT_SCRIPT)
