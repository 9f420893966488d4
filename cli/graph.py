"""``autotrace graph``: the autograd DAG as SVG, PNG, PDF or DOT."""

from __future__ import annotations

import os
import sys
from typing import List, Optional

import typer

from . import common

HELP = (
    "Draw the autograd graph SCRIPT builds: one box per grad_fn (PyTorch's names), leaf "
    "tensors by the script's variable names with shape and dtype, outputs marked, a legend; "
    "a frame per module call, one backward pass of a training loop, loop bodies folded (×N). "
    "The format comes from the suffix of -o (.svg .png .pdf .dot/.gv .mmd) or --format; -o - "
    "writes to standard output (the DOT when that is a terminal). SVG/PNG/PDF are rendered by the bundled Graphviz "
    "of pygraphviz (or Graphviz's `dot` when it is on PATH).\n\n"
    "Examples:\n\n"
    "  autotrace graph scenarios/seed1_mul_sum.py -o graph.svg --values\n\n"
    "  autotrace graph -e 'z = (x*3).sum()' --set 'x=[2.0, 3.0]' -o - --format dot\n\n"
    "  autotrace graph train.py -o train.svg --depth 2\n\n"
    "  autotrace graph scenarios/seed1_mul_sum.py --format mermaid --values > graph.mmd\n\n"
    + common.EXIT_CODES_HELP_NO_CHECK
)


def command(
    script: Optional[str] = common.ScriptArg,
    output: str = typer.Option("-", "--output", "-o", metavar="FILE",
                               help="Where to write the graph; - for standard output."),
    fmt: Optional[str] = typer.Option(None, "--format", "-f", metavar="svg|png|pdf|dot|mermaid",
                                      help="Output format (default: from the suffix of -o; else svg, or DOT "
                                           "when standard output is a terminal). mermaid: a Mermaid "
                                           "flowchart for Markdown documents. A suffix that says another "
                                           "format is a usage error."),
    json_out: bool = typer.Option(False, "--json", help="Print one JSON document (schema_version 1) with "
                                  "the DOT source and the script's error, instead of a picture."),
    expr: Optional[str] = common.ExprOpt,
    set_: Optional[List[str]] = common.SetOpt,
    values: bool = typer.Option(False, "--values", help="Show values and gradients on the nodes and the "
                                "gradient sent along each edge (from the last backward pass, or --pass N)."),
    saved: bool = typer.Option(False, "--saved", help="Show the tensors each node saved for backward."),
    show_none: bool = typer.Option(False, "--show-none", help="Draw the (None, 0) inputs of next_functions."),
    of: Optional[str] = typer.Option(None, "--of", metavar="NAME",
                                     help="Draw only the graph behind tensor NAME (with --values and no "
                                          "backward in the script, backpropagate from NAME)."),
    pass_number: Optional[int] = typer.Option(None, "--pass", metavar="N",
                                              help="Draw the graph backward pass N ran (1 = the first), its "
                                                   "nodes outlined. When each pass built a graph of its own (a "
                                                   "training loop), the last pass is drawn by default."),
    all_passes: bool = typer.Option(False, "--all-passes", help="Draw every pass's graph, even when each "
                                    "backward pass ran over a graph of its own."),
    depth: Optional[int] = typer.Option(None, "--depth", metavar="N",
                                        help="Draw module calls nested N deep (1 = the modules the script "
                                             "calls) as one box each, like torchview's depth."),
    fold: bool = typer.Option(True, "--fold/--no-fold", help="Draw a loop body the script ran many times "
                              "once, as a cluster marked ×N (default: on)."),
    collapse: Optional[bool] = typer.Option(None, "--collapse/--no-collapse",
                                            help="Collapse long chains of repeated single-input nodes "
                                                 "(default: on above 200 nodes)."),
    max_nodes: int = typer.Option(500, "--max-nodes", help="Draw at most this many nodes (those nearest "
                                  "the outputs); a note says what was left out."),
    timeout: float = common.TimeoutOpt,
    max_steps: int = common.MaxStepsOpt,
    limit: Optional[List[str]] = common.LimitOpt,
):
    from autotrace.render import svg

    suffix = os.path.splitext(output)[1].lower() if output != "-" else ""
    if fmt is not None:
        fmt = fmt.lower().lstrip(".")
        if fmt not in svg.FORMATS + ("mermaid",):
            common.fail_usage(f"--format {fmt}: expected one of {', '.join(svg.FORMATS + ('mermaid',))}")
        named = svg.SUFFIXES.get(suffix)
        if named is not None and named != fmt:
            common.fail_usage(f"-o {output} --format {fmt}: the suffix {suffix} says {named.upper()}, "
                              f"--format says {fmt.upper()}; drop one, or name the file "
                              f"{os.path.splitext(output)[0]}{_suffix_for(fmt)}")
    elif output != "-":
        if suffix not in svg.SUFFIXES:
            common.fail_usage(f"-o {output}: cannot tell the format from {suffix or 'a name without a suffix'!r}; "
                              f"use .svg, .png, .pdf, .dot, .gv or .mmd, or --format")
        fmt = svg.SUFFIXES[suffix]
    elif _stdout_is_terminal() and not json_out:
        # a picture's bytes are no use on a terminal: show the DOT, and say how to get a picture
        fmt = "dot"
        from autotrace.messages import text
        sys.stderr.write(text("graph.terminal_note") + "\n")
    else:
        fmt = "svg"
    if output == "-" and fmt in ("png", "pdf") and _stdout_is_terminal() and not json_out:
        common.fail_usage(f"--format {fmt}: refusing to write {fmt.upper()} bytes to a terminal; "
                          f"give -o graph.{fmt}, or pipe the output")
    if max_nodes < 1:
        common.fail_usage("--max-nodes must be at least 1")
    if pass_number is not None and pass_number < 1:
        common.fail_usage("--pass N counts from 1 (the first backward pass)")
    if depth is not None and depth < 1:
        common.fail_usage("--depth N counts from 1 (the modules the script calls)")
    if output != "-":
        _check_target(output, script)
    if fmt not in ("dot", "mermaid") and not json_out and not svg.available():
        sys.stderr.write("error: " + svg.install_hint(fmt) + "\n")
        raise typer.Exit(common.EXIT_SCRIPT)

    lim = common.limits(timeout, max_steps, limit)    # the time limit starts before reading
    src = common.read_source(script, expr)
    trace = common.run_trace(src, set_, lim, keep_values=values, of=of if values else None)
    if trace.error is not None and trace.error.get("phase") == "parse" and not json_out:
        common.report_script_error(trace)
        raise typer.Exit(common.EXIT_SCRIPT)

    from autotrace.render import dot
    common.phase("drawing the graph")
    if fmt == "mermaid" and not json_out:
        from autotrace.render import mermaid
        try:
            text = mermaid.render(trace, values=values, of=of, pass_number=pass_number, all_passes=all_passes,
                                  depth=depth, fold=fold, max_nodes=max_nodes, collapse=collapse)
        except dot.GraphError as e:
            common.fail_usage(str(e))
        _emit(output, text.encode("utf-8"))
        if trace.error is not None:
            common.report_script_error(trace)
            raise typer.Exit(common.EXIT_SCRIPT)
        return
    try:
        source = dot.render(trace, dot.GraphOptions(values=values, saved=saved, show_none=show_none, of=of,
                                                    pass_number=pass_number, collapse=collapse,
                                                    max_nodes=max_nodes, all_passes=all_passes,
                                                    depth=depth, fold=fold))
    except dot.GraphError as e:
        common.fail_usage(str(e))
    if json_out:
        from autotrace.render import json as render_json
        doc = {"schema_version": 1, "script": trace.script, "format": "dot", "dot": source,
               "error": trace.error}
        common.phase("writing the graph")
        common.write_output("-", (render_json.dumps(doc) + "\n").encode("utf-8"))
        if trace.error is not None:
            # the document (with "error") is on stdout; the diagnostic goes to stderr, as run --json's
            common.report_script_error(trace)
            raise typer.Exit(common.EXIT_SCRIPT)
        raise typer.Exit(common.EXIT_OK)
    if fmt in ("png", "pdf") and dot.font_list(trace) == dot.CJK_FONTS and not svg.cjk_font_available():
        from autotrace.messages import text
        sys.stderr.write(text("graph.cjk_hint", fmt=fmt.upper()) + "\n")
    common.phase(f"rendering the graph as {fmt.upper()}")
    try:
        data = svg.render(source, fmt)
    except svg.RenderUnavailable as e:
        sys.stderr.write(f"error: {e}\n")
        raise typer.Exit(common.EXIT_SCRIPT)
    except svg.RenderFailed as e:
        sys.stderr.write(f"error: {e}\n")
        raise typer.Exit(common.EXIT_SCRIPT)

    common.phase("writing the graph")
    _emit(output, data)
    if trace.error is not None:
        common.report_script_error(trace)
        raise typer.Exit(common.EXIT_SCRIPT)


def _emit(output: str, data: bytes) -> None:
    from autotrace.render import svg

    if output == "-":
        common.output_complete()    # the bytes are all there: writing them is not cut short
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
    else:
        try:
            svg.write_atomic(output, data)
        except OSError as e:
            common.fail_usage(f"-o {output}: cannot write: {e.strerror or e}")


def _stdout_is_terminal() -> bool:
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):
        return False


def _suffix_for(fmt: str) -> str:
    return {"mermaid": ".mmd"}.get(fmt, "." + fmt)


def _check_target(output: str, script: Optional[str]) -> None:
    directory = os.path.dirname(output) or "."
    if not os.path.isdir(directory):
        what = "is not a directory" if os.path.exists(directory) else "does not exist"
        common.fail_usage(f"-o {output}: the directory {directory} {what}; create it first")
    if os.path.isdir(output):
        common.fail_usage(f"-o {output}: is a directory; give a file name such as {os.path.join(output, 'graph.svg')}")
    if script and script != "-" and os.path.exists(output) and os.path.exists(script):
        try:
            same = os.path.samefile(output, script)
        except OSError:
            same = False
        if same:
            common.fail_usage(f"-o {output}: that is the script itself; refusing to overwrite it")
