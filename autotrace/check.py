"""Compare a run with a golden file: the library behind ``autotrace check``.

A golden file is a schema_version 1 document (``autotrace run --json``) or the pinned
subset of one that ``check --update`` writes (``golden``): ``stdout``, ``error``,
``warnings`` and ``variables``. :func:`compare` checks, for each of those fields the
golden *has* (so goldens written before a field existed keep passing):

* ``stdout``: equal once object addresses (``0x…``) are masked;
* ``error``: ``null`` or the same ``type`` and ``message`` (``line``, ``column`` and
  ``phase`` are informational: editing a comment above the failing line must not break
  a golden);
* ``warnings``: the same list of ``category`` and ``message``, in order;
* ``variables``: every variable the golden lists is bound, and every field the golden
  records for it
  (``kind``, ``shape``, ``dtype``, ``requires_grad``, ``is_leaf``, ``grad_fn``,
  ``retains_grad``, …) equal, and ``value``, ``grad`` and ``summary`` equal within
  ``|got - expected| <= atol + rtol * |expected|`` (numpy's ``isclose``), with
  ``"nan"`` equal only to ``"nan"`` and infinities equal only to themselves. The ``node``
  id is structural, not behaviour, and is not compared. Variables the run binds but the
  golden does not list are ignored, so a hand-written golden can pin just one gradient:
  ``{"schema_version": 1, "variables": {"x": {"grad": [3.0, 3.0]}}}``.

Each difference is a :class:`Difference` whose ``message`` says which variable and field,
expected vs got.
"""

from __future__ import annotations

import difflib
import json
import math
import os
import re
from dataclasses import dataclass

from . import messages

RTOL = 1e-4
ATOL = 1e-5

PINNED = ("stdout", "error", "warnings", "variables")     # top-level fields check compares
UNCOMPARED_VARIABLE_FIELDS = frozenset({"node"})
TOLERANT_FIELDS = frozenset({"value", "grad", "summary"})

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+|0x\u2026|0x\.\.\.")


@dataclass
class Difference:
    path: str          # "stdout", "error.message", "warnings[0]", "variables.x.grad", …
    expected: object   # JSON value in the golden (None when absent)
    got: object        # JSON value of the run (None when absent)
    message: str       # one readable line

    def to_json(self) -> dict:
        return {"path": self.path, "expected": self.expected, "got": self.got, "message": self.message}

    def __str__(self) -> str:
        return self.message


class GoldenError(Exception):
    """A golden file that cannot be used (missing, not JSON, wrong schema_version)."""


def mask_addresses(text: str) -> str:
    """Object addresses (``0x7f3a…``) as ``0x…`` so output of two processes compares."""
    return _ADDRESS.sub("0x\u2026", text)


def default_golden_path(script: str) -> str:
    """``dir/name.py`` → ``dir/name.expected.json`` (other names get ``.expected.json`` appended)."""
    base = script[:-3] if script.endswith(".py") else script
    return base + ".expected.json"


def document_of(run) -> dict:
    """A run as a JSON document: a :class:`~autotrace.trace.Trace` is rendered; a dict is
    taken as a document already. Documents go through a JSON round trip so both sides
    hold the same plain types."""
    if isinstance(run, dict):
        return run
    from .render import json as render_json
    return json.loads(render_json.render(run))


def golden_of(run, script_name: str | None = None) -> dict:
    """The pinned subset of a run, as ``check --update`` writes it."""
    doc = document_of(run)
    out = {"schema_version": doc.get("schema_version", 1)}
    out["script"] = script_name if script_name is not None else doc.get("script", "")
    for key in PINNED:
        if key in doc:
            out[key] = doc[key]
    if doc.get("parameters"):
        out["parameters"] = doc["parameters"]
    for key in ("variables", "parameters"):
        if out.get(key):
            out[key] = {name: {k: v for k, v in var.items() if k not in UNCOMPARED_VARIABLE_FIELDS}
                        for name, var in out[key].items()}
    return out


def dumps_golden(golden: dict) -> str:
    return json.dumps(golden, sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False) + "\n"


#: largest golden file read
MAX_GOLDEN_BYTES = 256 * 1024 * 1024


def load_golden(path: str) -> dict:
    """The golden document at ``path``: a regular file (a FIFO or device is refused
    without waiting on it), JSON, at most :data:`MAX_GOLDEN_DEPTH` levels deep, with
    schema_version 1. Raises :class:`GoldenError`."""
    from .files import UnsafeTarget, read_regular
    try:
        raw = read_regular(path, MAX_GOLDEN_BYTES)
    except FileNotFoundError:
        raise GoldenError(messages.text("check.golden.missing", path=path)) from None
    except IsADirectoryError:
        raise GoldenError(messages.text("check.golden.directory", path=path)) from None
    except UnsafeTarget:
        raise GoldenError(f"{path}: is not a regular file; a golden file must be one") from None
    except ValueError as e:
        raise GoldenError(f"{path}: {e}") from None
    except OSError as e:
        raise GoldenError(f"{path}: {e.strerror}") from None
    try:
        doc = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise GoldenError(messages.text("check.golden.not_json", path=path, error=e)) from None
    except RecursionError:
        raise GoldenError(f"{path}: nested too deeply to be a golden file") from None
    if not isinstance(doc, dict):
        raise GoldenError(messages.text("check.golden.not_object", path=path))
    if _depth(doc) > MAX_GOLDEN_DEPTH:
        raise GoldenError(f"{path}: nested too deeply to be a golden file (more than {MAX_GOLDEN_DEPTH} levels)")
    version = doc.get("schema_version")
    if version != 1:
        raise GoldenError(messages.text("check.golden.version", path=path, version=repr(version)))
    return doc


#: how deeply a golden's arrays and objects may nest (a tensor of 64 dimensions is torch's limit)
MAX_GOLDEN_DEPTH = 100


def _depth(doc) -> int:
    deepest, stack = 0, [(doc, 1)]
    while stack:
        v, d = stack.pop()
        if d > deepest:
            deepest = d
            if d > MAX_GOLDEN_DEPTH:
                break
        if isinstance(v, dict):
            stack.extend((x, d + 1) for x in v.values())
        elif isinstance(v, list):
            stack.extend((x, d + 1) for x in v)
    return deepest


def write_golden(path: str, golden: dict, *, script: str | None = None, derived: bool = True) -> None:
    """Write ``golden`` to ``path`` whole or not at all (temporary file in the same
    directory, then rename). Refuses to replace the script itself. A ``derived`` path
    (named after the script, not by the user) is never written through a symbolic link
    nor over anything but a regular file (:mod:`autotrace.files`); GoldenError then."""
    if script is not None and os.path.exists(path) and os.path.exists(script):
        if os.path.samefile(path, script):
            raise GoldenError(messages.text("check.golden.is_script", path=path))
    text = dumps_golden(golden)
    from .files import UnsafeTarget, write_atomic

    try:
        write_atomic(path, text.encode("utf-8"), follow_symlinks=not derived)
    except UnsafeTarget as e:
        raise GoldenError(f"{path}: {e.strerror}; not written") from None


# ---------------------------------------------------------------- comparison


def compare(golden: dict, run, rtol: float = RTOL, atol: float = ATOL) -> list[Difference]:
    """The differences between ``golden`` and a run (a Trace or a document); empty when
    the run matches."""
    doc = document_of(run)
    diffs: list[Difference] = []
    if "stdout" in golden:
        _compare_stdout(golden["stdout"], doc.get("stdout", ""), diffs)
    if "error" in golden:
        _compare_error(golden["error"], doc.get("error"), diffs)
    if "warnings" in golden:
        _compare_warnings(golden["warnings"] or [], doc.get("warnings") or [], diffs)
    if "variables" in golden:
        _compare_variables(golden["variables"] or {}, doc.get("variables") or {}, rtol, atol, diffs)
    if "parameters" in golden:
        _compare_variables(golden["parameters"] or {}, doc.get("parameters") or {}, rtol, atol, diffs,
                           section="parameters")
    return diffs


def _short(v, limit: int = 120) -> str:
    text = json.dumps(v, ensure_ascii=False, sort_keys=True, separators=(", ", ": "))
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _compare_stdout(expected, got, diffs):
    if not isinstance(expected, str):
        return
    e, g = mask_addresses(expected), mask_addresses(got or "")
    if e == g:
        return
    lines = list(difflib.unified_diff(e.splitlines(), g.splitlines(), "expected", "got", lineterm="", n=1))
    body = lines[2:] if len(lines) > 2 else lines
    if len(body) > 20:
        body = body[:20] + [messages.text("check.stdout.more", count=len(lines) - 22)]
    if not body:   # differ only in a trailing newline
        body = [messages.text("check.stdout.end", expected=repr(e[-20:]), got=repr(g[-20:]))]
    diffs.append(Difference("stdout", expected, got, messages.text("check.stdout") + "\n  " + "\n  ".join(body)))


def _compare_error(expected, got, diffs):
    if expected is None and got is None:
        return
    if expected is None:
        diffs.append(Difference("error", None, got,
                                messages.text("check.error.unexpected", type=got.get("type"), message=got.get("message"))
                                + (messages.text("check.at_line", line=got["line"]) if got.get("line") else "")))
        return
    if got is None:
        diffs.append(Difference("error", expected, None,
                                messages.text("check.error.missing", type=expected.get("type"), message=expected.get("message"))))
        return
    for key in ("type", "message"):
        if key in expected and mask_addresses(str(expected[key])) != mask_addresses(str(got.get(key))):
            diffs.append(Difference(f"error.{key}", expected[key], got.get(key),
                                    messages.text("check.error.field", key=key, expected=repr(expected[key]), got=repr(got.get(key)))))


def _compare_warnings(expected, got, diffs):
    def key(w):
        return (w.get("category"), mask_addresses(str(w.get("message"))))
    for i in range(max(len(expected), len(got))):
        e = expected[i] if i < len(expected) else None
        g = got[i] if i < len(got) else None
        if e is not None and g is not None and key(e) == key(g):
            continue
        if e is None:
            msg = messages.text("check.warning.unexpected", index=i, category=g.get("category"), message=_clip(g.get("message")))
        elif g is None:
            msg = messages.text("check.warning.missing", index=i, category=e.get("category"), message=_clip(e.get("message")))
        else:
            msg = messages.text("check.warning.differs", index=i, category=e.get("category"), message=_clip(e.get("message")),
                       got_category=g.get("category"), got_message=_clip(g.get("message")))
        strip = (lambda w: None if w is None else {"category": w.get("category"), "message": w.get("message")})
        diffs.append(Difference(f"warnings[{i}]", strip(e), strip(g), msg))


def _clip(text, limit=80):
    text = str(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _compare_variables(expected, got, rtol, atol, diffs, section="variables"):
    for name in sorted(expected):
        path = f"{section}.{name}"
        if name not in got:
            diffs.append(Difference(path, expected[name], None,
                                    messages.text("check.variable.gone", name=name, expected=_describe(expected[name]))))
            continue
        if name not in expected:
            continue
        e, g = expected[name], got[name]
        if not isinstance(e, dict):
            continue
        if "kind" in e and e.get("kind") != g.get("kind"):
            diffs.append(Difference(f"{path}.kind", e.get("kind"), g.get("kind"),
                                    messages.text("check.variable.kind", name=name, expected=e.get("kind"), got=g.get("kind"))))
            continue
        # the fields that say what the tensor is come first: a shape change explains a value change
        order = ["kind", "shape", "dtype", "requires_grad", "is_leaf", "grad_fn", "retains_grad", "value", "grad", "summary"]
        fields = sorted(e, key=lambda k: (order.index(k) if k in order else len(order), k))
        for field in fields:
            if field in UNCOMPARED_VARIABLE_FIELDS:
                continue
            ev, gv = e[field], g.get(field, _ABSENT)
            if field == "retains_grad" and gv is _ABSENT:
                gv = False
            fpath = f"{path}.{field}"
            label = f"{name}.{field}"
            if gv is _ABSENT:
                diffs.append(Difference(fpath, ev, None, messages.text("check.field.missing", label=label, expected=_short(ev))))
                continue
            if field in TOLERANT_FIELDS:
                problem = _close(ev, gv, rtol, atol)
                if problem is not None:
                    hint = _factor_hint(name, ev, gv) if field == "grad" else ""
                    diffs.append(Difference(fpath, ev, gv,
                                            messages.text("check.field.differs", label=label, expected=_short(ev), got=_short(gv)) + problem + hint))
            elif ev != gv or type(ev) is not type(gv) and not _same_number(ev, gv):
                diffs.append(Difference(fpath, ev, gv, messages.text("check.field.differs", label=label, expected=_short(ev), got=_short(gv))))


_ABSENT = object()


def _factor_hint(name, expected, got) -> str:
    """When the run's gradient is a constant multiple k of the golden's, what that
    usually means (the reasoning of ``autotrace diff``): an integer k is k backward passes
    accumulated where one was pinned, 1/n a mean where a sum was pinned."""
    import numpy as np

    from .diff import _factor
    from .messages import text

    def arr(v):
        if isinstance(v, list):
            return [arr(x) for x in v]
        f = _as_float(v)
        if f is None:
            raise ValueError(v)
        return f

    try:
        a = np.asarray(arr(expected), dtype=np.float64)
        b = np.asarray(arr(got), dtype=np.float64)
    except (TypeError, ValueError):
        return ""
    k = _factor(a, b)
    if k is None:
        return ""
    if k > 1.5 and abs(k - round(k)) < 1e-4:
        return text("check.hint.accumulated", name=name, k=int(round(k)))
    if 0 < k < 0.75 and abs(1 / k - round(1 / k)) < 1e-3:
        return text("check.hint.mean", name=name, n=int(round(1 / k)))
    return text("check.hint.factor", name=name, k=f"{k:g}")


def _same_number(a, b) -> bool:
    return (isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool)
            and not isinstance(b, bool) and a == b)


def _describe(v) -> str:
    if not isinstance(v, dict):
        return _short(v)
    if v.get("kind") == "tensor":
        fn = f", grad_fn={v['grad_fn']}" if v.get("grad_fn") else ""
        return messages.text("check.describe.tensor", dtype=v.get("dtype"), shape=v.get("shape"), grad_fn=fn)
    return f"{v.get('kind')} {_short(v.get('value'))}"


def _as_float(x):
    if isinstance(x, str):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}.get(x)
    if isinstance(x, bool):
        return None
    if isinstance(x, (int, float)):
        return float(x)
    return None


def _close(expected, got, rtol, atol) -> str | None:
    """None when ``got`` matches ``expected`` within tolerance, else a short reason
    (starting with a separator) naming the first differing element."""
    return _close_at(expected, got, rtol, atol, [])


def _close_at(e, g, rtol, atol, where) -> str | None:
    at = "".join(f"[{i}]" for i in where)
    if isinstance(e, dict) or isinstance(g, dict):
        if not (isinstance(e, dict) and isinstance(g, dict)):
            return ""
        for k in sorted(e):
            if k not in g:
                return messages.text("check.close.no_key", key=k)
            r = _close_at(e[k], g[k], rtol, atol, [])
            if r is not None:
                return messages.text("check.close.key", key=k, detail=": " + r.strip(" ()（）") if r.strip() else "")
        return None
    if isinstance(e, list) or isinstance(g, list):
        if not (isinstance(e, list) and isinstance(g, list)):
            return messages.text("check.close.shape")
        if len(e) != len(g):
            return messages.text("check.close.length_at", got=len(g), expected=len(e), dim=len(where)) if where else \
                messages.text("check.close.length", got=len(g), expected=len(e))
        for i, (a, b) in enumerate(zip(e, g)):
            r = _close_at(a, b, rtol, atol, where + [i])
            if r is not None:
                return r
        return None
    if e is None or g is None:
        return None if e is None and g is None else ""
    if isinstance(e, bool) or isinstance(g, bool):
        return None if e is g else (messages.text("check.close.element", at=at, expected=e, got=g) if at else "")
    a, b = _as_float(e), _as_float(g)
    if a is None or b is None:
        return None if e == g else ""
    if math.isnan(a) or math.isnan(b):
        ok = math.isnan(a) and math.isnan(b)
    elif math.isinf(a) or math.isinf(b):
        ok = a == b
    else:
        ok = abs(b - a) <= atol + rtol * abs(a)
    if ok:
        return None
    if not at:
        return ""
    return messages.text("check.close.element", at=at, expected=_short(e), got=_short(g))



# ---------------------------------------------------------------- one script, as a library call


@dataclass
class Outcome:
    """What checking one script against its golden found: ``status`` is ``pass``,
    ``fail`` (``differences`` lists them) or ``error`` (``reason`` says why: the script
    failed in a way its golden does not record, or hit a limit)."""

    script: str
    golden: str
    status: str
    differences: list
    reason: str | None = None


def check_file(script: str, golden_path: str | None = None, *, rtol: float = RTOL, atol: float = ATOL,
               limits=None) -> Outcome:
    """Run ``script`` (a path) and compare it with its golden (default
    :func:`default_golden_path`), as ``autotrace check SCRIPT`` does. Raises
    :class:`GoldenError` for a missing or unreadable golden and OSError for an unreadable
    script."""
    from .runner import run

    golden_path = golden_path or default_golden_path(script)
    golden = load_golden(golden_path)
    with open(script, "rb") as f:
        source = f.read()
    trace = run(source, script, limits=limits)
    doc = document_of(trace)
    diffs = compare(golden, doc, rtol=rtol, atol=atol)
    err = doc["error"]
    if err is not None and (golden.get("error") is None or err.get("phase") == "limit"):
        where = f"{script}:{err.get('line')}: " if err.get("line") else ""
        return Outcome(script, golden_path, "error", diffs,
                       f"the script failed; its golden records no error: {where}{err['type']}: {err['message']}")
    return Outcome(script, golden_path, "fail" if diffs else "pass", diffs)
