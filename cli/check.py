"""``autotrace check``: compare runs with golden files; ``--update`` writes them."""

from __future__ import annotations

import os
import sys
from typing import List, Optional

import typer

from . import common

HELP = (
    "Run each SCRIPT and compare it with its golden file: stdout (object addresses masked), "
    "the error (type and message), warnings, and every variable's shape, dtype, requires_grad, "
    "is_leaf, grad_fn, value and grad (floats within --rtol/--atol: "
    "|got - expected| <= atol + rtol*|expected|; defaults rtol 1e-4, atol 1e-5). "
    "With one SCRIPT (a path, - for stdin, or -e CODE) the golden is --expect FILE.json; "
    "otherwise each SCRIPT's golden is SCRIPT with .py replaced by .expected.json. "
    "--update writes or rewrites the golden files (atomically) instead of comparing. "
    "Several scripts end with a summary line 'N passed, M failed'. --json prints one JSON "
    "document (schema_version 1) on stdout.\n\n"
    "Exit codes: 0 every run matches (or --update wrote every golden); 1 a script failed "
    "in a way its golden does not record (or hit a limit); 2 usage error (bad option, missing "
    "or unreadable golden file); 3 check found a difference; 70 internal error (a bug in "
    "autotrace)."
)


class _Usage(Exception):
    pass


def command(
    scripts: Optional[List[str]] = typer.Argument(None, metavar="SCRIPT...",
                                                  help="Scripts to check: paths, or - for standard input.",
                                                  show_default=False),
    expr: Optional[str] = common.ExprOpt,
    expect: Optional[str] = typer.Option(None, "--expect", metavar="FILE.json",
                                         help="The golden file (one script only). Default: SCRIPT with .py "
                                              "replaced by .expected.json."),
    update: bool = typer.Option(False, "--update", help="Write or rewrite the golden files from this run."),
    rtol: float = typer.Option(1e-4, "--rtol", help="Relative tolerance for values and grads."),
    atol: float = typer.Option(1e-5, "--atol", help="Absolute tolerance for values and grads."),
    set_: Optional[List[str]] = common.SetOpt,
    json_out: bool = typer.Option(False, "--json", help="Print the outcome as JSON (schema_version 1) on stdout."),
    timeout: float = common.TimeoutOpt,
    max_steps: int = common.MaxStepsOpt,
    limit: Optional[List[str]] = common.LimitOpt,
    no_color: bool = common.NoColorOpt,
    width: Optional[int] = common.WidthOpt,
):
    scripts = list(scripts or [])
    if rtol < 0 or atol < 0 or rtol != rtol or atol != atol:
        common.fail_usage("--rtol and --atol must be non-negative numbers")
    if expr is not None and scripts:
        common.fail_usage("give either SCRIPT or --expr, not both")
    if expr is None and not scripts:
        common.fail_usage("missing SCRIPT (paths, or - for standard input) or --expr CODE")
    if expect is not None and (len(scripts) > 1):
        common.fail_usage("--expect names the golden of one script; with several scripts each golden is "
                          "SCRIPT.expected.json (SCRIPT with .py replaced)")
    if scripts.count("-") > 1:
        common.fail_usage("- (standard input) can be given once")
    if expect is None and (expr is not None or scripts == ["-"] or "-" in scripts):
        common.fail_usage("a script from standard input or --expr has no path to name its golden after; give --expect FILE.json")
    if expect is not None and expect == "-":
        common.fail_usage("--expect needs a file path")
    lim = common.limits(timeout, max_steps, limit)

    from autotrace import check as lib

    out = common.console(no_color=no_color, width=width)
    entries = [(None, expect)] if expr is not None else [(s, expect or lib.default_golden_path(s)) for s in scripts]
    results = []
    worst = common.EXIT_OK
    from autotrace.interpreter.limits import LimitExceeded
    for i, (script, golden_path) in enumerate(entries):
        if i:   # each script has the whole time limit for reading, running, comparing, writing
            lim = common.limits(timeout, max_steps, limit)
        try:
            result, code = _check_one(lib, script, expr, golden_path, update, rtol, atol, set_, lim, no_color,
                                      derived=expect is None)
        except (LimitExceeded, MemoryError) as e:
            from autotrace.interpreter.limits import command_memory, stop_command
            stop_command()
            reason = e.message if isinstance(e, LimitExceeded) else command_memory().message
            from autotrace import messages
            shown = messages.localize(reason) or reason      # the JSON keeps the English
            sys.stderr.write(common.visible(f"{script or '<expr>'}: error: LimitError: {shown}") + "\n")
            result = {"script": script or "<expr>", "golden": golden_path, "status": "error", "differences": [],
                      "error": None, "reason": reason}
            code = common.EXIT_SCRIPT
        results.append(result)
        worst = _worse(worst, code)
        if not json_out:
            _print_result(out, result)

    summary = {
        "total": len(results),
        "passed": sum(r["status"] == "pass" for r in results),
        "failed": sum(r["status"] == "fail" for r in results),
        "errors": sum(r["status"] == "error" for r in results),
        "updated": sum(r["status"] == "updated" for r in results),
    }
    if json_out:
        from autotrace.render import json as render_json
        doc = {"schema_version": 1, "command": "check", "rtol": rtol, "atol": atol, "update": update,
               "results": results, "summary": summary}
        common.write_output("-", (render_json.dumps(doc) + "\n").encode("utf-8"))
    elif len(results) > 1:
        from autotrace.messages import text
        line = text("check.summary", passed=summary["passed"], failed=summary["failed"] + summary["errors"])
        if summary["updated"]:
            line = text("check.summary.updated", updated=summary["updated"]) + (
                text("check.summary.also_failed", failed=summary["errors"]) if summary["errors"] else "")
        out.print(line, highlight=False, markup=False)
    sys.stdout.flush()
    raise typer.Exit(worst)


_RANK = {common.EXIT_OK: 0, common.EXIT_DIFF: 1, common.EXIT_SCRIPT: 2, common.EXIT_USAGE: 3}


def _worse(a: int, b: int) -> int:
    return a if _RANK.get(a, 9) >= _RANK.get(b, 9) else b


def _check_one(lib, script, expr, golden_path, update, rtol, atol, sets, lim, no_color, derived=True):
    """(result dict, exit code) for one script; ``derived`` when the golden's path was
    made from the script's (then it is never written through a symbolic link)."""
    from autotrace.messages import text
    from autotrace.runner import UsageError, run

    shown = "<expr>" if script is None else "<stdin>" if script == "-" else script
    result = {"script": shown, "golden": golden_path, "status": "error", "differences": [], "error": None}

    def usage(reason):
        from autotrace import messages
        reason = messages.localize(reason, "usage.") or reason
        result["reason"] = reason
        sys.stderr.write(f"error: {common.visible(reason)}\n")
        return result, common.EXIT_USAGE

    # the golden: read it first (a missing golden is a usage mistake), never the script itself
    if script not in (None, "-") and golden_path is not None and os.path.exists(golden_path) \
            and os.path.exists(script) and os.path.samefile(script, golden_path):
        return usage(text("check.golden.is_script", path=golden_path))
    golden = None
    common.phase("reading the golden file")
    if not update:
        try:
            golden = lib.load_golden(golden_path)
        except lib.GoldenError as e:
            return usage(str(e))

    try:
        src = _read(script, expr)
    except _Usage as e:
        return usage(str(e))
    try:
        trace = run(src.data, src.name, sets=sets or (), limits=lim)
    except UsageError as e:
        return usage(str(e))
    common.phase("rendering the run as JSON")
    doc = lib.document_of(trace)
    result["error"] = doc["error"]

    if update:
        if doc["error"] is not None and doc["error"].get("phase") == "limit":
            common.report_script_error(trace, no_color)
            result["reason"] = text("check.reason.limit")
            return result, common.EXIT_SCRIPT
        name = os.path.basename(script) if script not in (None, "-") else src.name
        common.phase("writing the golden file")
        try:
            lib.write_golden(golden_path, lib.golden_of(doc, name), script=script if script != "-" else None,
                             derived=derived)
        except lib.GoldenError as e:
            return usage(str(e))
        except OSError as e:
            return usage(text("check.golden.cannot_write", path=golden_path, error=e.strerror))
        result["status"] = "updated"
        return result, common.EXIT_OK

    common.phase("comparing with the golden file")
    diffs = lib.compare(golden, doc, rtol=rtol, atol=atol)
    result["differences"] = [d.to_json() for d in diffs]
    if doc["error"] is not None and (golden.get("error") is None or doc["error"].get("phase") == "limit"):
        # the script failed in a way the golden does not record: a script failure, not a diff
        common.report_script_error(trace, no_color)
        result["status"] = "error"
        result["reason"] = text("check.reason.failed")
        return result, common.EXIT_SCRIPT
    if diffs:
        result["status"] = "fail"
        return result, common.EXIT_DIFF
    result["status"] = "pass"
    return result, common.EXIT_OK


def _read(script, expr):
    """The script's source; a usage mistake in one of several scripts is reported and
    the others still run."""
    try:
        return common.load_source(script, expr)
    except common.SourceError as e:
        raise _Usage(str(e)) from None


def _print_result(out, result):
    from rich.text import Text

    status = result["status"]
    style = {"pass": "green", "fail": "red", "error": "red", "updated": "cyan"}[status]
    label = {"pass": "PASS", "fail": "FAIL", "error": "ERROR", "updated": "UPDATED"}[status]
    line = Text()
    line.append(label, style=f"bold {style}")
    line.append(f" {result['script']}")
    if status == "updated":
        line.append(f" -> {result['golden']}")
    elif status == "error" and result.get("reason"):
        line.append(f": {result['reason']}")
    out.print(line, highlight=False, soft_wrap=True)
    for d in result["differences"]:
        out.print(Text("  " + d["message"].replace("\n", "\n  ")), highlight=False, soft_wrap=True)
