"""``autotrace``: trace and explain PyTorch-style autograd from the command line.

Commands are thin: each parses its options, calls one library function and picks a
renderer. Library modules are imported inside the commands, so ``--help`` and a small
``run`` start fast.
"""

from __future__ import annotations

import sys

import typer

from . import common

app = typer.Typer(
    name="autotrace",
    help=(
        "Run a small PyTorch-style script on autotrace's own numpy autograd engine and see what "
        "PyTorch's autograd does: every tensor and its grad_fn chain, each chain-rule step with "
        "the numbers, where gradients accumulate, and why a gradient is None, nan or an error.\n\n"
        "Examples:\n\n"
        "  autotrace run scenarios/seed1_mul_sum.py\n\n"
        "  autotrace explain -e 'z = (x*3).sum()' --set 'x=[2.0, 3.0]'\n\n"
        "  autotrace graph scenarios/seed1_mul_sum.py -o graph.svg\n\n"
        "  autotrace check scenarios/*.py\n\n" + common.EXIT_CODES_HELP
    ),
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
)


def _version(value: bool):
    if value:
        from autotrace import __version__
        print(f"autotrace {__version__}")
        raise typer.Exit(0)


@app.callback()
def _main(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")):
    pass


def _with_lang(fn):
    """``fn`` with a ``--lang`` option added, so every command takes it (it is applied by
    its eager callback before the command's other options are checked)."""
    import functools
    import inspect

    @functools.wraps(fn)
    def command(*args, lang=None, **kwargs):
        return fn(*args, **kwargs)

    sig = inspect.signature(fn)
    lang = inspect.Parameter("lang", inspect.Parameter.KEYWORD_ONLY, default=common.LangOpt, annotation="Optional[str]")
    command.__signature__ = sig.replace(parameters=[*sig.parameters.values(), lang])
    command.__annotations__ = {**getattr(fn, "__annotations__", {}), "lang": "Optional[str]"}
    return command


def _register():
    from . import run as run_cmd
    app.command("run", help=run_cmd.HELP)(_with_lang(run_cmd.run))
    for mod_name in ("explain", "graph", "html", "check", "diff", "ops"):
        try:
            mod = __import__(f"autotrace.cli.{mod_name}", fromlist=["command"])
        except ImportError:
            continue
        app.command(mod_name, help=mod.HELP)(_with_lang(mod.command))


_register()


def main() -> None:
    """Console-script entry point: exit 2 for usage errors (Click's), 70 with a traceback
    for bugs in autotrace."""
    sys.stderr = _SafeStderr(sys.stderr)
    from autotrace.resources import tune_allocator
    tune_allocator()
    try:
        try:
            app(standalone_mode=True)
        except (MemoryError, _limit_exceeded()) as e:
            sys.exit(_report_limit(e))
        finally:
            limits = sys.modules.get("autotrace.interpreter.limits")
            if limits is not None:
                try:
                    limits.stop_command()
                except limits.LimitExceeded:    # the alarm fired as the command ended: it is over
                    limits.stop_command()
    except SystemExit:
        raise
    except KeyboardInterrupt:
        from autotrace.messages import text
        sys.stderr.write(text("main.interrupted") + "\n")
        sys.exit(130)
    except BrokenPipeError:
        _quiet_stdout()
        sys.exit(common.EXIT_SCRIPT)  # as Python's own tools do when the reader goes away
    except OSError as e:
        if not _is_stdout_error(e):
            raise
        _quiet_stdout()
        from autotrace.messages import text
        sys.stderr.write(text("main.cannot_write", error=e.strerror or e) + "\n")
        sys.exit(common.EXIT_SCRIPT)
    except Exception:
        import traceback
        traceback.print_exc()
        from autotrace.messages import text
        sys.stderr.write(text("main.internal") + "\n")
        sys.exit(common.EXIT_INTERNAL)


class _SafeStderr:
    """stderr with the terminal rule applied to everything written: Click's usage errors
    echo arguments (``Got unexpected extra argument(s) (\u202e)``), so control characters
    and bidi overrides are made visible here too; colour sequences (SGR) pass."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        if not text.isprintable():
            from autotrace.interpreter.errors import visible
            text = "".join(part if _SGR.fullmatch(part) else visible(part) for part in _SGR_SPLIT.split(text))
        return self._stream.write(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


import re as _re  # noqa: E402

_SGR = _re.compile(r"\x1b\[[0-9;]*m")
_SGR_SPLIT = _re.compile(r"(\x1b\[[0-9;]*m)")


def _limit_exceeded():
    from autotrace.interpreter.limits import LimitExceeded
    return LimitExceeded


def _report_limit(e) -> int:
    """One line for a limit reached outside the script's run (reading, explaining,
    rendering, writing): ``SCRIPT: error: LimitError: time limit of 10 s reached while
    explaining (use --timeout to raise it)``; exit 1."""
    from autotrace.interpreter.limits import COMMAND, LimitExceeded, command_memory, stop_command
    stop_command()
    import gc
    gc.collect()
    message = e.message if isinstance(e, LimitExceeded) else (
        str(e) if str(e).endswith("to raise it)") else command_memory().message)
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        _quiet_stdout()
    where = COMMAND.script or "autotrace"
    from autotrace import messages
    message = messages.localize(message) or message
    sys.stderr.write(common.visible(f"{where}: error: LimitError: {message}") + "\n")
    return common.EXIT_SCRIPT


def _quiet_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _is_stdout_error(e: OSError) -> bool:
    """Whether ``e`` is a failure to write the output (a full disk, a closed pipe); files
    the commands write themselves report their own errors before this."""
    import errno

    return e.errno in (errno.ENOSPC, errno.EPIPE, errno.EIO, errno.EDQUOT)


if __name__ == "__main__":
    main()
