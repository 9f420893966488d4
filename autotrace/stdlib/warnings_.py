"""``warnings`` for scripts: ``warn``, ``filterwarnings``, ``simplefilter``,
``resetwarnings`` and ``catch_warnings``, with CPython 3.11's filter semantics.

Scripts often begin with ``warnings.filterwarnings("ignore")`` or silence one category
(``warnings.simplefilter("ignore", UserWarning)``); then neither their own warnings nor
PyTorch's are shown, and the run records none. The filter list is the run's own: it
starts as CPython's list does while a caller records everything
(``catch_warnings(record=True)`` + ``simplefilter("always")``): one ``always`` filter,
so a script's filter put in front of it decides, and one appended after it never does.
The first filter that matches a warning decides its action:

* ``ignore``: not recorded; ``always``: recorded at every emission;
* ``default``: recorded once per text, category and line; ``once`` and ``module``: once
  per text and category;
* ``error``: the warning is raised as an exception of its category.

A filter's ``message`` is a regular expression matched case-insensitively at the start of
the text, as CPython does; to keep matching bounded, autotrace accepts patterns without
groups or alternation (literal text, ``.``, classes, ``*``/``+``/``?``, at most 8
repetitions) and refuses others with a clear error. ``module`` is matched against
``__main__``, the module every warning of a script is attributed to.
"""

from __future__ import annotations

import builtins as _py
import re

from ..interpreter.builtins import ScriptNamespace

ACTIONS = ("default", "error", "ignore", "always", "module", "once")
_ALWAYS = ("always", None, Warning, None, 0)

#: (action, compiled message pattern or None, category, compiled module pattern or None, lineno)
_filters: list = [_ALWAYS]
_shown: set = set()
#: the record lists of the open ``catch_warnings(record=True)`` blocks, innermost last
_captures: list = []

_SAFE_PATTERN = re.compile(r"(?:[^()|\\]|\\.)*")
_MAX_PATTERN = 200
_MAX_REPEATS = 8


def reset() -> None:
    """A fresh filter list for each run (a run hook)."""
    _filters[:] = [_ALWAYS]
    _shown.clear()
    _captures.clear()


def _pattern(text, what: str):
    if not isinstance(text, str):
        raise AssertionError(f"{what} must be a string")
    if not text:
        return None
    if len(text) > _MAX_PATTERN or not _SAFE_PATTERN.fullmatch(text) \
            or len(re.findall(r"(?<!\\)[*+?{]", text)) > _MAX_REPEATS:
        raise ValueError(f"warnings filter pattern {text[:40]!r} is not supported in autotrace scripts "
                         f"(only patterns without groups or '|', at most {_MAX_PATTERN} characters)")
    try:
        return re.compile(text, re.I)
    except re.error as e:
        raise re.error(str(e)) from None


def _category(category):
    if not isinstance(category, type):
        raise AssertionError("category must be a class")
    if not issubclass(category, Warning):
        raise AssertionError("category must be a Warning subclass")
    return category


def _lineno(lineno):
    if not (isinstance(lineno, int) and lineno >= 0):
        raise AssertionError("lineno must be an int >= 0")
    return lineno


def _add(entry, append: bool) -> None:
    """CPython's ``_add_filter``: a new filter goes first (a duplicate moves there); an
    appended one goes last unless it is already in the list."""
    if append:
        if entry not in _filters:
            _filters.append(entry)
    else:
        if entry in _filters:
            _filters.remove(entry)
        _filters.insert(0, entry)


def filterwarnings(action, message="", category=Warning, module="", lineno=0, append=False):
    """CPython's ``warnings.filterwarnings``, with its AssertionErrors for bad arguments."""
    if action not in ACTIONS:
        raise AssertionError(f"invalid action: {action!r}")
    if not isinstance(message, str):
        raise AssertionError("message must be a string")
    _category(category)
    if not isinstance(module, str):
        raise AssertionError("module must be a string")
    _lineno(lineno)
    _add((action, _pattern(message, "message"), category, _pattern(module, "module"), lineno), bool(append))


def simplefilter(action, category=Warning, lineno=0, append=False):
    """CPython's ``warnings.simplefilter``: every message of ``category`` (which, as in
    CPython, is not checked here)."""
    if action not in ACTIONS:
        raise AssertionError(f"invalid action: {action!r}")
    _add((action, None, category, None, _lineno(lineno)), bool(append))


def resetwarnings():
    """CPython's ``warnings.resetwarnings``: no filters at all, so nothing is shown
    twice from one line (the ``default`` action)."""
    _filters[:] = []


def category_class(name: str) -> type:
    c = getattr(_py, name, None)
    return c if isinstance(c, type) and issubclass(c, Warning) else UserWarning


def decide(category: str, message: str, line) -> bool:
    """Whether a warning is recorded; raises it for an ``error`` filter."""
    cls = category_class(category)
    action = "default"                     # CPython's fallback when no filter matches
    for act, msg, cat, mod, lineno in _filters:
        if (isinstance(cat, type) and issubclass(cls, cat) and (msg is None or msg.match(message))
                and (mod is None or mod.match("__main__")) and (not lineno or lineno == line)):
            action = act
            break
    if action == "ignore":
        return False
    if action == "error":
        raise cls(message)
    if action == "always":
        return True
    key = (message, cls) if action in ("once", "module") else (message, cls, line)
    if key in _shown:
        return False
    _shown.add(key)
    return True


def capture(category: str, message: str, line) -> bool:
    """Put a shown warning into the innermost ``catch_warnings(record=True)`` list;
    True when it was captured (then the run does not record it)."""
    if not _captures:
        return False
    cls = category_class(category)
    _captures[-1].append(WarningMessage(cls(message), cls, line))
    return True


def warn(message, category=None, stacklevel=1, source=None):
    """CPython's ``warnings.warn`` from the script: a Warning instance or a text, with
    ``category`` (UserWarning by default)."""
    from .. import diagnostics
    if isinstance(message, Warning):
        category = type(message)
        text = str(message)
    else:
        if category is None:
            category = UserWarning
        if not (isinstance(category, type) and issubclass(category, Warning)):
            raise TypeError(f"category must be a Warning subclass, not '{type(category).__name__}'")
        text = str(message)
    diagnostics.warn(text, category.__name__)


class WarningMessage:
    """One warning caught by ``catch_warnings(record=True)``: ``message`` (the Warning),
    ``category``, ``lineno``."""

    __slots__ = ("message", "category", "lineno")
    _script_attrs = frozenset({"message", "category", "lineno"})
    _script_type_name = "warnings.WarningMessage"

    def __init__(self, message, category, lineno):
        self.message, self.category, self.lineno = message, category, lineno

    def __repr__(self):
        return (f"{{message : {self.message!r}, category : {self.category.__name__!r}, "
                f"filename : '<script>', lineno : {self.lineno}, line : None}}")


class catch_warnings:
    """CPython's ``warnings.catch_warnings``: the filters are restored on exit; with
    ``record=True`` the block's warnings go to the list ``with`` binds, not to the run."""

    _script_attrs = frozenset()
    _script_context_manager = True
    _script_type_name = "warnings.catch_warnings"

    def __init__(self, *, record=False, action=None, category=Warning, lineno=0, append=False):
        self._record = bool(record)
        self._action = (action, category, lineno, append)
        self._saved = None

    def __enter__(self):
        if self._saved is not None:
            raise RuntimeError(f"Cannot enter {self!r} twice")
        self._saved = (list(_filters), set(_shown))
        action, category, lineno, append = self._action
        if action is not None:
            simplefilter(action, category, lineno, append)
        if self._record:
            log: list = []
            _captures.append(log)
            return log
        return None

    def __exit__(self, *exc):
        if self._saved is None:
            raise RuntimeError(f"Cannot exit {self!r} without entering first")
        _filters[:], saved_shown = self._saved
        _shown.clear()
        _shown.update(saved_shown)
        if self._record and _captures:
            _captures.pop()
        return False

    def __repr__(self):
        return "catch_warnings(record=True)" if self._record else "catch_warnings()"


def make_module() -> ScriptNamespace:
    from ..interpreter import typeobj
    from ..interpreter.program import RUN_HOOKS
    typeobj.EXPOSED.update((catch_warnings, WarningMessage))
    if reset not in RUN_HOOKS:
        RUN_HOOKS.append(reset)
    return ScriptNamespace("warnings", {
        "warn": warn, "filterwarnings": filterwarnings, "simplefilter": simplefilter,
        "resetwarnings": resetwarnings, "catch_warnings": catch_warnings,
        "Warning": Warning, "UserWarning": UserWarning, "DeprecationWarning": DeprecationWarning,
        "FutureWarning": FutureWarning, "RuntimeWarning": RuntimeWarning,
        "PendingDeprecationWarning": PendingDeprecationWarning})
