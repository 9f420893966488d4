"""The JSON view of a trace (schema_version 1; documented in docs/json.md, validated by
autotrace/schema/trace-v1.json).

Deterministic: keys sorted, nodes named ``n0``, ``n1``, … in creation order, no memory
addresses (``<MulBackward0 object at 0x…>``) or timestamps; NaN and infinities are the
strings "nan", "inf", "-inf". Two runs of the same script print the same bytes.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np

from . import jsontext

SCHEMA_VERSION = 1

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schema"

_ADDRESS = re.compile(r"\bat 0x[0-9a-fA-F]+")


def mask_addresses(text):
    """``<MulBackward0 object at 0x7f…>`` → ``<MulBackward0 object at 0x…>`` (addresses
    change from run to run; JSON output must not)."""
    if not isinstance(text, str):
        return text
    return _ADDRESS.sub("at 0x…", text)


def number(x):
    """A float/int as JSON can hold it (nan/inf as strings)."""
    if isinstance(x, (bool, np.bool_)):
        return bool(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def array(a):
    """A numpy array as nested lists of JSON numbers (a scalar for 0-d)."""
    if a is None:
        return None
    if a.dtype == np.bool_:
        return a.tolist()
    if a.dtype.kind in "iu":
        return a.tolist()
    lst = a.astype(np.float64).tolist()
    if a.ndim == 0:
        return number(lst)
    return _walk(lst)


def _walk(v):
    if isinstance(v, list):
        return [_walk(x) for x in v]
    return number(v)


def node_id(i):
    return None if i is None else f"n{i}"


def variable(v) -> dict:
    if v.kind != "tensor":
        return {"kind": v.kind, "value": number(v.value) if v.kind == "number" else v.value}
    out = {
        "kind": "tensor", "shape": list(v.shape), "dtype": v.dtype, "value": array(v.value),
        "requires_grad": v.requires_grad, "is_leaf": v.is_leaf, "grad_fn": v.grad_fn,
        "grad": array(v.grad), "node": node_id(v.node),
    }
    if v.retains_grad:
        out["retains_grad"] = True
    if v.summary is not None:
        out["summary"] = {k: (number(x) if x is not None else None) for k, x in v.summary.items()}
    return out


def node(n) -> dict:
    out = {
        "id": node_id(n.id), "name": n.name,
        "next_functions": [[node_id(i), nr] for i, nr in n.inputs],
        "line": n.line, "expr": n.text, "var": n.var_name,
        "shape": list(n.shape) if n.shape is not None else None, "dtype": n.dtype,
        "is_leaf": n.is_leaf, "saved": list(n.saved),
    }
    if n.value is not None:
        out["value"] = array(n.value)
    return out


def backward_pass(p) -> dict:
    steps = []
    for s in p.steps:
        step = {"node": node_id(s.node)}
        if any(g is not None for g in s.grad_in):
            step["grad_in"] = [array(g) for g in s.grad_in]
        if any(g is not None for g in s.grads_out):
            step["grads_out"] = [array(g) for g in s.grads_out]
        if s.after is not None:
            step["grad_before"] = array(s.before)
            step["grad_after"] = array(s.after)
        steps.append(step)
    return {
        "index": p.index, "kind": p.kind, "roots": [node_id(r) for r in p.roots],
        "line": p.line, "statement": p.text, "retain_graph": p.retain_graph,
        "create_graph": p.create_graph, "error": mask_addresses(p.error),
        "seed": [array(s) for s in p.seed] if any(s is not None for s in p.seed) else None,
        "steps": steps,
    }


def error(e):
    if e is None:
        return None
    out = {"type": e["type"], "message": mask_addresses(e["message"]),
           "line": e.get("line"), "column": e.get("column"), "phase": e.get("phase") or "run"}
    return out


def document(trace) -> dict:
    """The schema_version 1 document of a trace (``autotrace run --json``)."""
    doc = document_head(trace)
    doc["nodes"] = [node(n) for n in trace.nodes]
    doc["backward_passes"] = [backward_pass(p) for p in trace.passes]
    return doc


# characters JSON may carry raw but a terminal acts on (C1 controls, bidi overrides,
# line separators, zero-width marks): written as \u escapes, the same text once parsed
_TERMINAL_UNSAFE = None


def dumps(doc: dict, level: int = 0) -> str:
    """``json.dumps(doc, sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False)``
    with the characters a terminal acts on escaped; ``level``: as in :func:`jsontext.dumps`."""
    global _TERMINAL_UNSAFE
    text = jsontext.dumps(doc, allow_nan=False, level=level)
    if text.isascii():
        return text
    if _TERMINAL_UNSAFE is None:
        import re
        _TERMINAL_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff"
                                      "\ufff9-\ufffb\ud800-\udfff]")
    return _TERMINAL_UNSAFE.sub(lambda m: "\\u%04x" % ord(m.group()), text)


def render(trace) -> str:
    return dumps(document(trace))


class Lazy:
    """A list in a document whose items are made one at a time while it is written
    (:func:`write`), so a large trace is never held as one document or one string."""

    __slots__ = ("items",)

    def __init__(self, items):
        self.items = items


def lazy_document(trace) -> dict:
    """:func:`document` with ``nodes``, ``backward_passes`` and each pass's ``steps`` as
    :class:`Lazy` lists."""
    doc = document_head(trace)
    doc["nodes"] = Lazy(node(n) for n in trace.nodes)
    doc["backward_passes"] = Lazy(_lazy_pass(p) for p in trace.passes)
    return doc


def document_head(trace) -> dict:
    """Every entry of :func:`document` but ``nodes`` and ``backward_passes``."""
    return {
        "schema_version": SCHEMA_VERSION,
        "script": trace.script,
        "stdout": mask_addresses(trace.stdout),
        "error": error(trace.error),
        "warnings": [{"category": w["category"], "message": mask_addresses(w["message"]), "line": w.get("line")}
                     for w in trace.warnings],
        "variables": {name: variable(v) for name, v in trace.variables.items()},
        "parameters": {name: variable(v) for name, v in getattr(trace, "parameters", {}).items()},
    }


def _lazy_pass(p) -> dict:
    out = backward_pass(_NoSteps(p))
    out["steps"] = Lazy(_step(s) for s in p.steps)
    return out


class _NoSteps:
    """A pass record seen without its steps (they are written one by one)."""

    def __init__(self, p):
        self._p = p
        self.steps = ()

    def __getattr__(self, name):
        return getattr(self._p, name)


def _step(s) -> dict:
    step = {"node": node_id(s.node)}
    if any(g is not None for g in s.grad_in):
        step["grad_in"] = [array(g) for g in s.grad_in]
    if any(g is not None for g in s.grads_out):
        step["grads_out"] = [array(g) for g in s.grads_out]
    if s.after is not None:
        step["grad_before"] = array(s.before)
        step["grad_after"] = array(s.after)
    return step


_END = object()


def write(doc, out, level: int = 0) -> None:
    """Write ``doc`` to the text stream ``out`` with exactly the bytes of :func:`dumps`
    (sorted keys, ``indent=1``), streaming :class:`Lazy` lists item by item. A part
    without Lazy lists is encoded by ``json.dumps`` alone and shifted right: with
    ``indent`` the nesting depth only adds spaces after each newline (and strings never
    hold a raw newline)."""
    w = out.write
    if isinstance(doc, Lazy):
        it = iter(doc.items)
        item = next(it, _END)
        if item is _END:
            w("[]")
            return
        pad = "\n" + " " * (level + 1)
        w("[" + pad)
        write(item, out, level + 1)
        for item in it:
            w("," + pad)
            write(item, out, level + 1)
        w("\n" + " " * level + "]")
    elif isinstance(doc, dict) and any(isinstance(v, (Lazy, dict)) for v in doc.values()) \
            and any(isinstance(v, Lazy) for v in _walk_values(doc)):
        if not doc:
            w("{}")
            return
        pad = "\n" + " " * (level + 1)
        first = True
        for k, v in sorted(doc.items()):
            w(("{" if first else ",") + pad + _encode_key(k) + ": ")
            first = False
            write(v, out, level + 1)
        w("\n" + " " * level + "}")
    else:
        w(dumps(doc, level))


def _walk_values(d):
    for v in d.values():
        yield v
        if isinstance(v, dict):
            yield from _walk_values(v)


def _encode_key(k) -> str:
    return json.encoder.encode_basestring(k)


def write_trace(trace, out) -> None:
    """``render(trace)`` written to ``out`` piece by piece (the same bytes)."""
    write(lazy_document(trace), out)


def load_schema(name: str = "trace") -> dict:
    """The JSON Schema of a document: ``"trace"`` (run --json) or ``"check"`` (check --json)."""
    with open(SCHEMA_DIR / f"{name}-v{SCHEMA_VERSION}.json", encoding="utf-8") as f:
        return json.load(f)


def validator(name: str = "trace"):
    """A ``jsonschema`` validator for a document, with every autotrace schema registered so
    ``urn:autotrace:schema:trace-v1#/$defs/…`` references resolve. Needs ``jsonschema``
    (a test dependency; autotrace itself never validates at run time)."""
    import jsonschema
    from referencing import Registry, Resource

    registry = Registry()
    for path in sorted(SCHEMA_DIR.glob("*.json")):
        with open(path, encoding="utf-8") as f:
            schema = json.load(f)
        registry = registry.with_resource(schema["$id"], Resource.from_contents(schema))
    schema = load_schema(name)
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, registry=registry)
