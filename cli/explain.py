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
    "  autotrace explain -e 'z = (x*3).sum()' --set 'x=[2.0, 3.0]'   (no backward(): explains z)\n\n"
    "  autotrace explain script.py --verify --format md > steps.md\n\n"
    "  autotrace explain fan_in.py --expect 'x.grad = 2*x + 1'\n\n"
    "Exit codes: 0 success; 1 the script failed (syntax, unsupported construct, runtime error, failed "
    "assert, limit reached); 2 usage error; 3 an --expect formula does not hold; 70 internal error "
    "(a bug in autotrace)."
)


VERIFYING = "verifying the gradients (--verify)"


def command(
    script: Optional[str] = common.ScriptArg,
    expr: Optional[str] = common.ExprOpt,
    set_: Optional[List[str]] = common.SetOpt,
    of: Optional[str] = typer.Option(None, "--of", metavar="NAME",
                                     help="Backward from this tensor (as NAME.backward()) when the script calls no backward(); without it, explain takes the last single-number tensor with a grad_fn the script binds."),
    wrt: Optional[str] = typer.Option(None, "--wrt", metavar="NAME", help="Only the steps and chain that lead to leaf NAME."),
    pass_: Optional[int] = typer.Option(None, "--pass", metavar="N", help="Only backward pass N (1 = the first call)."),
    verify: bool = typer.Option(False, "--verify", help="Check the gradients by central differences in float64 (re-runs the script)."),
    all_steps: bool = typer.Option(False, "--all-steps", help="Show every step; by default long runs of repeating steps (a loop unrolled into the graph) are summarised in one line."),
    expect: Optional[List[str]] = typer.Option(
        None, "--expect", metavar="'X.grad = FORMULA'",
        help="Check a hand-derived gradient: the right side is a tensor expression over the script's "
             "names (e.g. 'x.grad = 2*x + 1'), run in the same sandbox after the script. When it differs "
             "from the engine's, says where the formula goes wrong (a missing path of a fan-in, a factor, "
             "a missing sum over a broadcast dimension, a transposed matrix). Repeatable. Exit 3 when one "
             "does not hold."),
    fmt: str = typer.Option("text", "--format", metavar="text|md|html",
                            help="text (terminal), md (Markdown to paste) or html (the step-through page of "
                                 "`autotrace html`, on standard output)."),
    json_out: bool = typer.Option(False, "--json", help="Print the explanation as JSON (schema_version 1)."),
    mermaid: bool = typer.Option(False, "--mermaid", help="With --format md: end with the graph as a Mermaid "
                                 "diagram (values and edge gradients), as `graph --format mermaid --values`."),
    timeout: float = common.TimeoutOpt,
    max_steps: int = common.MaxStepsOpt,
    limit: Optional[List[str]] = common.LimitOpt,
    no_color: bool = common.NoColorOpt,
    width: Optional[int] = common.WidthOpt,
):
    if fmt not in ("text", "md", "html"):
        common.fail_usage(f"--format must be text, md or html, not {fmt!r}")
    if pass_ is not None and pass_ < 1:
        common.fail_usage("--pass counts from 1")
    lim = common.limits(timeout, max_steps, limit)    # the time limit starts before reading
    src = common.read_source(script, expr)
    from autotrace import expect as expect_mod
    try:
        expectations = [expect_mod.parse(e) for e in expect or ()]
    except expect_mod.ExpectationError as e:
        common.fail_usage(str(e))
    from autotrace import explain as ex_mod
    from autotrace.interpreter.limits import expired, expire
    from autotrace import runner
    from autotrace.runner import UsageError

    runner.KEEP_FROZEN = True   # the traces live until exit
    try:
        trace = ex_mod.run(src.data, src.name, sets=set_ or (), limits=lim, of=of, expect=expectations)
    except UsageError as e:
        common.fail_usage(str(e))
    import gc

    gc.freeze()     # the trace lives until exit: collector passes over it would find nothing
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
    ex = ex_mod.explain(trace, of=of, wrt=wrt, pass_number=pass_, all_steps=all_steps)
    if verify and (pass_ is None or pass_ <= len(trace.passes)):   # the script failed before pass N
        root = of or trace.implicit_root

        def rerun(perturb):
            try:
                t = ex_mod.run(src.data, src.name, sets=set_ or (), limits=lim, of=root, perturb=perturb)
            except UsageError:
                return None
            if expired(lim.deadline):
                expire(VERIFYING)       # one deadline for the command: the re-runs share it
            return t
        common.phase(VERIFYING)
        ex.verification = ex_mod.verify(trace, rerun, pass_number=pass_, of=root)
    outcomes = [expect_mod.check(trace, ev) for ev in trace.expectations]
    common.phase("rendering the explanation")
    if json_out:
        from autotrace.render import explain_json
        body = explain_json.render(ex)
        if expectations:
            import json
            doc = json.loads(body)
            doc["expectations"] = [expect_mod.to_dict(o) for o in outcomes]
            body = json.dumps(doc, sort_keys=True, ensure_ascii=False, indent=1)
        common.write_output("-", (body + "\n").encode("utf-8"))
    elif fmt == "html":
        from autotrace.render import html as render_html
        common.write_output("-", render_html.render(trace, ex).encode("utf-8"))
    elif fmt == "md":
        from autotrace.render import explain_markdown
        sys.stdout.write(common.visible(explain_markdown.render(ex, all_steps=all_steps)))
        if mermaid:
            from autotrace.render import mermaid as render_mermaid
            sys.stdout.write("\n## Graph\n\n```mermaid\n"
                             + render_mermaid.render(trace, values=True, pass_number=pass_) + "```\n")
    else:
        from autotrace.render import explain_console
        explain_console.render(ex, common.console(no_color=no_color, width=width), all_steps=all_steps)
    if outcomes and not json_out and fmt != "html":
        from autotrace.render import expect as render_expect
        if fmt == "md":
            sys.stdout.write(render_expect.render_markdown(outcomes))
        else:
            render_expect.render_text(outcomes, common.console(no_color=no_color, width=width))
    if trace.error is not None:
        if not json_out and fmt == "text":
            common.report_script_error(trace, no_color, explained=True)
        raise typer.Exit(common.EXIT_SCRIPT)
    if any(not o.ok for o in outcomes):
        raise typer.Exit(common.EXIT_DIFF)
