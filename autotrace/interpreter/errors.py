"""Error objects of the interpreter and their ``FILE:LINE:COL`` rendering.

Three kinds of exceptions matter while a script runs:

* *script-visible* exceptions: the ones a script may raise, catch with ``try/except``
  and that end a run as a ``ScriptError`` with phase ``"run"`` (RuntimeError,
  ValueError, TypeError, LookupError, ArithmeticError, AssertionError, StopIteration,
  warnings raised as errors, ... and the interpreter's own NameError/AttributeError/
  ImportError subclasses defined below);
* :class:`~autotrace.interpreter.limits.LimitExceeded` (a BaseException: scripts and
  engine code cannot swallow it), plus Python's RecursionError/MemoryError, which end a
  run with phase ``"limit"``;
* everything else (an AttributeError raised by a bug in the engine, say): internal
  errors. Scripts cannot catch them and ``run_program`` lets them propagate unchanged.

The interpreter raises its own subclasses for the script's mistakes (an unbound name,
a refused attribute, an unknown module) so they can be told apart from engine bugs.
They carry the builtin class name, so ``type(e).__name__`` and ``repr(e)`` read
``NameError`` like Python's.
"""

from __future__ import annotations

import builtins as _py
import os as _os
from dataclasses import dataclass


@dataclass
class ScriptError:
    """An error of a script: refused before running, raised while running, or a limit.

    ``type`` is the Python/PyTorch exception class name ("RuntimeError", "NameError",
    "SyntaxError", "LimitError", ...); ``line`` and ``column`` are 1-based (the column
    counts characters, not the UTF-8 bytes of ``ast``'s ``col_offset``);
    ``end_column`` (1-based, exclusive) ends the underlined span when it is on the
    same line; ``phase`` is "parse", "run" or "limit".
    """

    type: str
    message: str
    line: int | None
    column: int | None
    phase: str
    end_column: int | None = None


class ScriptRejected(Exception):
    """Raised by ``parse_script`` when a script is refused before it runs.

    ``error`` is the :class:`ScriptError` (phase ``"parse"``) describing why.
    """

    def __init__(self, error: ScriptError):
        super().__init__(f"{error.type}: {error.message}")
        self.error = error


def _named(cls: type, name: str) -> type:
    cls.__name__ = name
    cls.__qualname__ = name
    return cls


class ScriptNameError(_py.NameError):
    """A name the script reads is not bound (raised by the interpreter, not the engine)."""


class ScriptUnboundLocalError(_py.UnboundLocalError):
    """A local variable of a script function is read before it is assigned."""


class ScriptAttributeError(_py.AttributeError):
    """The script asked for an attribute that does not exist or is not allow-listed."""


class ScriptImportError(_py.ImportError):
    """A from-import names something the module does not export to scripts."""


class ScriptModuleNotFoundError(_py.ModuleNotFoundError):
    """An allowed-looking module (``torch.foo``) is not provided by the caller."""


for _cls, _name in ((ScriptNameError, "NameError"), (ScriptUnboundLocalError, "UnboundLocalError"),
                    (ScriptAttributeError, "AttributeError"), (ScriptImportError, "ImportError"),
                    (ScriptModuleNotFoundError, "ModuleNotFoundError")):
    _named(_cls, _name)

#: Exceptions that are the script's business: catchable by ``except`` and reported as
#: phase "run". RecursionError (a RuntimeError) is excluded explicitly: it is a limit.
VISIBLE_EXCEPTIONS: tuple[type, ...] = (
    _py.RuntimeError, _py.ValueError, _py.TypeError, _py.LookupError, _py.ArithmeticError,
    _py.AssertionError, _py.StopIteration, _py.Warning,
    ScriptNameError, ScriptUnboundLocalError, ScriptAttributeError, ScriptImportError,
    ScriptModuleNotFoundError,
)

#: attribute set on exception instances raised by the script itself (``raise X``,
#: ``assert``): whatever their class, they are the script's business.
SCRIPT_RAISED = "_autotrace_script_raised"
#: attribute naming an explicit Site for an exception (overrides the traceback walk).
SITE_ATTR = "_autotrace_site"


_PKG_DIR = _os.path.dirname(_os.path.abspath(__file__))
_ROOT_DIR = _os.path.dirname(_PKG_DIR)
_MINE = (ScriptNameError, ScriptUnboundLocalError, ScriptAttributeError, ScriptImportError,
         ScriptModuleNotFoundError)
#: builtin classes that engine bugs typically raise: visible only when raised directly by
#: an operation of the interpreter on script values (``d['missing']``), not when they
#: come out of engine code
_ORIGIN_CHECKED = (_py.KeyError, _py.AttributeError, _py.NameError)


def _raised_by_interpreter(exc: BaseException) -> bool:
    tb = exc.__traceback__
    if tb is None:
        return True
    while tb.tb_next is not None:
        tb = tb.tb_next
    return tb.tb_frame.f_code.co_filename.startswith(_PKG_DIR)


def is_visible(exc: BaseException) -> bool:
    """True when ``exc`` belongs to the script (catchable, reported as a script error).

    Script-visible: the exceptions of :data:`VISIBLE_EXCEPTIONS` (RecursionError
    excepted), exceptions the script raised itself, and exceptions marked with
    :func:`script_visible`. A plain KeyError/AttributeError/NameError counts only when
    an interpreter operation raised it directly; out of engine code it is an engine bug.
    """
    try:
        if exc.__dict__.get(SCRIPT_RAISED):
            return True
    except AttributeError:  # pragma: no cover
        pass
    if isinstance(exc, _ORIGIN_CHECKED) and not isinstance(exc, _MINE):
        return _raised_by_interpreter(exc)
    if isinstance(exc, VISIBLE_EXCEPTIONS):
        return not isinstance(exc, _py.RecursionError)
    return False


def from_engine(exc: BaseException) -> BaseException | None:
    """The script's error for an engine-raised AttributeError caused by a value the script
    passed (``x.to(dtype=5)`` reads ``5.np``): the rule that script input never ends as an
    internal error. An attribute missing on a value of the script's own kind (a number, a
    string, a list, a function) is a wrong-type argument: a TypeError naming the ``dtype``
    argument when that is what it was, else ``'int' object has no attribute 'grad'`` with
    the public name (``_grad`` → ``grad``), as PyTorch's Python code would say. Missing
    attributes of autotrace's own objects stay internal errors (bugs). None when the rule
    does not apply."""
    if not isinstance(exc, _py.AttributeError) or isinstance(exc, _MINE):
        return None
    obj, name = getattr(exc, "obj", None), getattr(exc, "name", None)
    if not isinstance(name, str) or obj is None and "obj" not in dir(exc):
        return None
    module = getattr(type(obj), "__module__", "") or ""
    if module == "autotrace" or module.startswith("autotrace."):
        return None
    from .values import display_name
    tname = display_name(obj)
    frame, fn = _engine_entry(exc.__traceback__)
    if frame is not None and frame.f_locals.get("dtype") is obj and obj is not None:
        new = _py.TypeError(f"{fn}(): argument 'dtype' must be torch.dtype, not {tname}")
    else:
        public = name.lstrip("_") if not name.startswith("__") else name
        new = ScriptAttributeError(f"'{tname}' object has no attribute '{public or name}'")
    mark_script_raised(new)
    return new


def _engine_entry(tb):
    """(frame, function name) of the outermost engine frame the interpreter called."""
    while tb is not None:
        f = tb.tb_frame
        file = f.f_code.co_filename
        if file.startswith(_ROOT_DIR) and not file.startswith(_PKG_DIR):
            return f, f.f_code.co_name
        tb = tb.tb_next
    return None, None


def script_visible(exc: BaseException) -> BaseException:
    """Mark an exception raised by engine code as the script's business (for a KeyError
    or AttributeError that mirrors PyTorch's, which would otherwise count as an engine
    bug). Returns ``exc``: ``raise script_visible(KeyError(k))``."""
    mark_script_raised(exc)
    return exc


def mark_script_raised(exc: BaseException) -> None:
    try:
        exc.__dict__[SCRIPT_RAISED] = True
    except AttributeError:  # pragma: no cover - exceptions without a __dict__
        pass


def with_site(exc: BaseException, site) -> BaseException:
    """Attach an explicit source location to ``exc`` and return it."""
    try:
        exc.__dict__[SITE_ATTR] = site
    except AttributeError:  # pragma: no cover
        pass
    return exc


def name_error(name: str, site=None) -> ScriptNameError:
    return with_site(ScriptNameError(f"name {name!r} is not defined"), site)


def format_error(filename: str, source: str, error: ScriptError) -> str:
    """Render ``error`` the way compilers do, for the terminal.

    Returns ``"FILE:LINE:COL: error: TYPE: MESSAGE"`` followed by the offending source
    line indented by four spaces and a caret line (``^`` under the column, ``~`` along
    the rest of the span when ``end_column`` is known). Errors without a line render as
    ``"FILE: error: TYPE: MESSAGE"``; with a line but no column, as ``"FILE:LINE: ..."``
    plus the source line. Never raises for out-of-range positions; very long lines are
    shown as a window around the column. No trailing newline.
    """
    head = f"{error.type}: {error.message}" if error.message else error.type
    head = _printable(head, 0, 0)[0]
    filename = _printable(filename, 0, 0)[0]
    if error.line is None:
        return f"{filename}: error: {head}"
    if error.column is None:
        loc = f"{filename}:{error.line}"
    else:
        loc = f"{filename}:{error.line}:{error.column}"
    out = f"{loc}: error: {head}"
    text = _source_line(source, error.line)
    if text is None:
        return out
    if error.column is None:
        return out + "\n    " + _clip(_printable(text, 0, 0)[0], 0)[0]
    col = max(error.column - 1, 0)
    width = 1
    if error.end_column is not None and error.end_column > error.column:
        width = error.end_column - error.column
    col = min(col, len(text))
    text, col, width = _printable(text, col, width)
    shown, col = _clip(text, col)
    width = max(1, min(width, len(shown) - col)) if col < len(shown) else 1
    pad = "".join(c if c == "\t" else " " for c in shown[:col])
    return out + "\n    " + shown + "\n    " + pad + "^" + "~" * (width - 1)


_MAX_SHOWN = 160


def visible(text: str) -> str:
    """``text`` safe for a terminal: every character Python does not call printable —
    control characters (ESC starts the sequences that set a window title, write the
    clipboard or clear the screen), bidi overrides (``\u202e``), zero-width and other
    format characters, lone surrogates — shown as its escape (``\x1b``, ``\u202e``),
    the rule error messages use; newlines and tabs are kept."""
    if text.isprintable():
        return text
    # no-break spaces are only spacing (explain's tables keep "4×1 ‖1.14‖" in one cell with them)
    return "".join(c if c.isprintable() or c in _KEPT else ascii(c)[1:-1] for c in text)


_KEPT = frozenset("\n\t\u00a0\u202f")


def _printable(text: str, col: int, width: int) -> tuple[str, int, int]:
    """Show control characters and other unprintable ones as escapes (``\\x00``) so a
    binary file's bytes never reach the terminal raw; move the caret span along."""
    if text.isprintable():
        return text, col, width
    out = []
    new_col = new_end = None
    for i, c in enumerate(text):
        if i == col:
            new_col = sum(len(p) for p in out)
        if i == col + width:
            new_end = sum(len(p) for p in out)
        out.append(c if c.isprintable() or c == "\t" else ascii(c)[1:-1])
    shown = "".join(out)
    if new_col is None:
        new_col = len(shown)
    if new_end is None:
        new_end = len(shown)
    return shown, new_col, max(1, new_end - new_col)


def _clip(text: str, col: int) -> tuple[str, int]:
    """Cut a long line to a window around ``col``; return (shown text, new col)."""
    if len(text) <= _MAX_SHOWN:
        return text, col
    start = max(0, col - 60)
    end = min(len(text), start + _MAX_SHOWN)
    shown = text[start:end]
    new_col = col - start
    if start > 0:
        shown = "..." + shown
        new_col += 3
    if end < len(text):
        shown = shown + "..."
    return shown, new_col


def _source_line(source: str, line: int) -> str | None:
    if not source or line < 1:
        return None
    lines = source.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if line > len(lines):
        return None
    return lines[line - 1].rstrip("\n")
