"""What every command shares: reading SCRIPT / ``-e``, the common options, exit codes,
and turning errors users cause into a message and an exit code (never a traceback)."""

from __future__ import annotations

import os
import sys
from typing import List, Optional

import typer

EXIT_OK, EXIT_SCRIPT, EXIT_USAGE, EXIT_DIFF, EXIT_INTERNAL = 0, 1, 2, 3, 70

EXIT_CODES_HELP = (
    "Exit codes: 0 success; 1 the script failed (syntax, unsupported construct, runtime "
    "error, failed assert, limit reached); 2 usage error; 3 check found a difference, diff "
    "found the runs differ, or an explain --expect formula does not hold; 70 internal error "
    "(a bug in autotrace)."
)

# the commands other than check never exit 3
EXIT_CODES_HELP_NO_CHECK = (
    "Exit codes: 0 success; 1 the script failed (syntax, unsupported construct, runtime "
    "error, failed assert, limit reached); 2 usage error; 70 internal error (a bug in autotrace)."
)

ScriptArg = typer.Argument(None, metavar="SCRIPT", help="The script: a path, or - for standard input.", show_default=False)
ExprOpt = typer.Option(None, "--expr", "-e", help="Run this code instead of a file (statements separated by ; or newlines).")
SetOpt = typer.Option(None, "--set", metavar="NAME=VALUE",
                      help='Bind a name the script reads but never assigns to a float32 leaf tensor with '
                           'requires_grad=True, e.g. --set "x=[2.0, 3.0]". Repeatable. Names its top-level code '
                           'reads as values must be given; others (a typo in a function) raise NameError when '
                           'reached, as under Python.')
TimeoutOpt = typer.Option(10.0, "--timeout", help="Wall-clock limit for the script, in seconds.")
MaxStepsOpt = typer.Option(50_000_000, "--max-steps", help="Limit on interpreter steps.")
NoColorOpt = typer.Option(False, "--no-color", help="Plain text, no colour (also when NO_COLOR is set or output is piped).")
WidthOpt = typer.Option(None, "--width", help="Wrap console output at this many columns.")


def _set_language(value: Optional[str]) -> Optional[str]:
    """--lang, else AUTOTRACE_LANG, else the locale (LANGUAGE, LC_ALL, LC_MESSAGES, LANG),
    else English; an unknown language is a usage error."""
    from autotrace import messages
    try:
        messages.set_language(value if value else messages.from_environment())
    except ValueError as e:
        fail_usage(f"--lang {value}: autotrace speaks en and zh" if value else str(e))
    return value


LangOpt = typer.Option(None, "--lang", metavar="en|zh", callback=_set_language, is_eager=True,
                       help="Language of autotrace's own words (zh: 中文). Default: AUTOTRACE_LANG, "
                            "else the locale (LANGUAGE, LC_ALL, LC_MESSAGES, LANG), else en.")


class ScriptSource:
    def __init__(self, data, name: str):
        self.data = data
        self.name = name


def fail_usage(message: str) -> "typer.Exit":
    from autotrace import messages
    message = messages.localize(message, "usage.") or message
    err = console(stderr=True)
    if not message.isprintable():
        message = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in message)
    err.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
    raise typer.Exit(EXIT_USAGE)


def escape(text: str) -> str:
    from rich.markup import escape as _escape
    return _escape(text)


class SourceError(Exception):
    """SCRIPT / --expr cannot be read (a usage mistake: exit 2)."""


def read_source(script: Optional[str], expr: Optional[str]) -> ScriptSource:
    """The script's bytes and the name it is reported under: the path, ``<stdin>`` or ``<expr>``."""
    try:
        return load_source(script, expr)
    except SourceError as e:
        fail_usage(str(e))


def load_source(script: Optional[str], expr: Optional[str]) -> ScriptSource:
    """Like :func:`read_source`, but raises :class:`SourceError` instead of exiting (for
    commands that read several scripts)."""
    if expr is not None and script is not None:
        raise SourceError("give either SCRIPT or --expr, not both")
    from autotrace.interpreter.limits import COMMAND
    if expr is not None:
        COMMAND.script = "<expr>"
        return ScriptSource(_expr_text(expr), "<expr>")
    if script is None:
        raise SourceError("missing SCRIPT (a path, or - for standard input) or --expr CODE")
    # opening and reading run under the command's time limit: a FIFO nobody writes to
    # ends at the deadline (the alarm interrupts the blocking open or read), while
    # `run <(...)` (a pipe with a writer) reads as usual
    COMMAND.script = "<stdin>" if script == "-" else script
    COMMAND.phase = "reading the script"
    if script == "-":
        return ScriptSource(sys.stdin.buffer.read(64 * 1024 * 1024 + 1), "<stdin>")
    try:
        with open(script, "rb") as f:
            data = f.read(64 * 1024 * 1024 + 1)
    except FileNotFoundError:
        raise SourceError(f"{script}: no such file") from None
    except IsADirectoryError:
        raise SourceError(f"{script}: is a directory") from None
    except OSError as e:
        raise SourceError(f"{script}: {e.strerror}") from None
    if len(data) > 64 * 1024 * 1024:
        raise SourceError(f"{script}: larger than 64 MiB; scripts are small programs")
    return ScriptSource(data, script)


def _expr_text(expr: str) -> str:
    """``-e`` code. Statements are separated by ``;`` or newlines; a literal backslash-n
    typed in a shell (``-e 'x = 1\\ny = 2'``) also separates them, but only when the code
    does not parse as written, so ``print("a\\nb")`` keeps its escape."""
    if "\\n" not in expr:
        return expr
    import ast
    try:
        ast.parse(expr)
        return expr
    except (SyntaxError, ValueError):
        pass
    except (RecursionError, MemoryError):
        return expr
    return expr.replace("\\n", "\n")


LIMIT_NAMES = {
    "loop-iterations": "max_loop_iterations", "recursion": "max_recursion", "output": "max_output",
    "sequence": "max_sequence", "int-bits": "max_int_bits", "elements": "max_elements",
    "memory": "max_memory", "flops": "max_flops",
}
LimitOpt = typer.Option(
    None, "--limit", metavar="NAME=N",
    help="Change a limit (repeatable): loop-iterations (per loop, default 10000000), recursion "
         "(script function depth, 200), output (printed characters, 1000000), sequence (length of "
         "a list/str the script builds, 10000000), int-bits (4096), elements (per tensor, "
         "100000000), flops (work of one matmul or sort, in float operations; integer matmuls count "
         "25 each, 50000000000), memory (MiB for the whole command, 8192).")


def limits(timeout: float, max_steps: int, extra: Optional[List[str]] = None):
    """The run's limits from --timeout, --max-steps and --limit NAME=N."""
    from autotrace.interpreter import Limits
    import math
    if not (timeout > 0) or math.isnan(timeout):
        fail_usage("--timeout must be a positive number of seconds")
    if max_steps <= 0:
        fail_usage("--max-steps must be positive")
    values = {}
    for item in extra or ():
        name, _, value = item.partition("=")
        field = LIMIT_NAMES.get(name.strip())
        if field is None:
            fail_usage(f"--limit {item!r}: unknown limit {name.strip()!r}; "
                       f"known: {', '.join(LIMIT_NAMES)}")
        try:
            n = int(value.strip())
        except ValueError:
            fail_usage(f"--limit {item!r}: {value.strip()!r} is not a whole number")
        if n <= 0:
            fail_usage(f"--limit {item!r}: the value must be positive")
        values[field] = n
    from autotrace.interpreter.limits import start_command
    memory = values.get("max_memory", Limits.max_memory)
    deadline = start_command(timeout, memory)
    return Limits(timeout=timeout, max_steps=max_steps, deadline=deadline, **values)


def phase(name: str) -> None:
    """Name what the command does now (``explaining``, ``rendering``) for a limit's message,
    and check the whole-command time limit."""
    from autotrace.interpreter.limits import phase as _phase
    _phase(name)


def color_off(no_color: bool) -> bool:
    return no_color or bool(os.environ.get("NO_COLOR"))


MIN_WIDTH = 40


def console(stderr: bool = False, no_color: bool = False, width: Optional[int] = None):
    """A rich console; ``width`` below :data:`MIN_WIDTH` columns is a usage error."""
    from rich.console import Console
    if width is not None and width < MIN_WIDTH:
        fail_usage(f"--width must be at least {MIN_WIDTH} columns")
    off = color_off(no_color)
    # rich's no_color drops colours but keeps bold/underline escapes; plain means no escapes at all
    return _safe_console_class()(stderr=stderr, no_color=off, width=width, highlight=False, soft_wrap=False,
                                 **({"color_system": None} if off else {}))


_SAFE_CONSOLE = None


def _safe_console_class():
    """A rich Console whose text — the script's printed output, source excerpts, names,
    values and string literals alike — has control characters and bidi overrides made
    visible (:func:`autotrace.interpreter.errors.visible`) before rich adds its own
    styling escapes. Only text segments are escaped; rich's control segments stay."""
    global _SAFE_CONSOLE
    if _SAFE_CONSOLE is None:
        from rich.console import Console
        from rich.segment import Segment

        from autotrace.interpreter.errors import visible

        class SafeConsole(Console):
            def _render_buffer(self, buffer):
                return super()._render_buffer(
                    [seg if seg.control or seg.text.isprintable() else Segment(visible(seg.text), seg.style, seg.control)
                     for seg in buffer])

        _SAFE_CONSOLE = SafeConsole
    return _SAFE_CONSOLE


def visible(text: str) -> str:
    """``text`` with control characters and bidi overrides escaped (for stderr lines)."""
    from autotrace.interpreter.errors import visible as _visible
    return _visible(text)


def run_trace(src: ScriptSource, sets: Optional[List[str]], lim, keep_values=False, of=None):
    """Run the script; a usage mistake exits 2."""
    from autotrace import runner
    from autotrace.runner import Options, UsageError, run
    runner.KEEP_FROZEN = True   # the trace lives until exit
    phase("running the script")
    try:
        trace = run(src.data, src.name, sets=sets or (), limits=lim,
                    options=Options(keep_values=keep_values, of=of))
    except UsageError as e:
        fail_usage(str(e))
    if trace.plotted:     # said once, on stderr: the run's warnings stay PyTorch's
        from autotrace.messages import text
        sys.stderr.write(text("note.plot", path=escape(src.name)) + "\n")
    return trace


def report_script_error(trace, no_color: bool = False, explained: bool = False) -> None:
    """``FILE:LINE:COL: error: …`` with the line and a caret, on stderr; in a language
    other than English, a note beside PyTorch's verbatim message unless ``explained``
    (explain has already said why in that language)."""
    from autotrace import messages
    from autotrace.interpreter import ScriptError, format_error
    e = trace.error
    own = messages.localize(e["message"])      # autotrace's own words in the user's language
    err = ScriptError(type=e["type"], message=own or e["message"], line=e["line"], column=e["column"], phase=e["phase"],
                      end_column=e.get("end_column"))
    text = format_error(trace.script, trace.source, err)
    if own is None and messages.language != "en" and e["phase"] == "run" and not explained:
        text = text.rstrip("\n") + "\n" + messages.text("note.script_error")
    sys.stderr.write(text if text.endswith("\n") else text + "\n")


def output_complete() -> None:
    """The output for standard output is made (in memory or a temporary file): check the
    whole-command time limit a last time, then stop its clock, so writing it is never
    cut short — a reader gets all of it or nothing. (``-o`` files need not: they are
    written to a temporary file and renamed, and a FIFO nobody reads must still end at
    the time limit.)"""
    from autotrace.interpreter.limits import checkpoint, release_for_output
    checkpoint()
    release_for_output()


def write_document(render) -> None:
    """Standard output gets what ``render(out)`` writes to the text stream ``out``, whole
    or not at all: it is written to a temporary file under the command's limits (so a
    huge document is never held in memory) and copied to standard output once complete.
    A limit reached while rendering leaves standard output untouched."""
    import io
    import shutil
    import tempfile
    with tempfile.TemporaryFile("w+b") as tmp:
        out = io.TextIOWrapper(tmp, encoding="utf-8", newline="\n")
        render(out)
        out.flush()
        out.detach()
        output_complete()
        tmp.seek(0)
        sys.stdout.flush()
        shutil.copyfileobj(tmp, sys.stdout.buffer, 1 << 20)
        sys.stdout.buffer.flush()


def write_output(output: str, data: bytes, script: Optional[str] = None) -> None:
    """Write ``data`` to ``-o output`` (``-`` is standard output) whole or not at all; a
    missing directory or an unwritable file is a usage error (exit 2) with one line."""
    if output == "-":
        output_complete()
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    directory = os.path.dirname(output) or "."
    if not os.path.isdir(directory):
        what = "is not a directory" if os.path.exists(directory) else "does not exist"
        fail_usage(f"-o {output}: the directory {directory} {what}; create it first")
    if os.path.isdir(output):
        fail_usage(f"-o {output}: is a directory; give a file name")
    if script and script != "-" and os.path.exists(output) and os.path.exists(script):
        try:
            if os.path.samefile(output, script):
                fail_usage(f"-o {output}: that is the script itself; refusing to overwrite it")
        except OSError:
            pass
    from autotrace.files import write_atomic
    try:
        write_atomic(output, data)
    except OSError as e:
        fail_usage(f"-o {output}: cannot write: {e.strerror or e}")
