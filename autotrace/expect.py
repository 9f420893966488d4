"""Hand-derived gradients checked: ``autotrace explain SCRIPT --expect 'x.grad = 2*x + 1'``.

An expectation is ``TARGET = FORMULA`` where TARGET ends in ``.grad`` (``x.grad``,
``model.fc.weight.grad``) and FORMULA is a tensor expression over the script's names.
:func:`parse` checks the form; :func:`evaluate` runs both sides after the script, in the
same sandbox (the script language's rules and limits), over the script's final names, with
no graph recorded (as under ``torch.no_grad()``); :func:`check` compares the engine's
gradient with the formula and, when they differ, says where the formula goes wrong in terms
of the chain rule:

* the difference is one path of a fan-in (the path through ``y₂ = x·x`` is missing, or
  counted twice), found from the contributions the engine added at the leaf or at a node
  on the way (:attr:`autotrace.record.StepRecord.fan_in`);
* ``.grad`` also holds earlier passes (accumulation);
* a constant factor, with the node whose local derivative carries it;
* the sign;
* a broadcast leaf whose gradient must be summed over the broadcast dimensions;
* a transposed matrix.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import numpy as np

from .messages import text

RTOL, ATOL = 1e-4, 1e-5


class ExpectationError(ValueError):
    """An ``--expect`` text that is not ``TARGET.grad = FORMULA`` (a usage error)."""


def parse(item: str) -> tuple[str, str]:
    """``"x.grad = 2*x + 1"`` → ``("x.grad", "2*x + 1")``.

    Raises :class:`ExpectationError` when the text is not one assignment whose target is an
    attribute ``.grad`` of a name or of an attribute chain."""
    try:
        tree = ast.parse(item.strip(), mode="exec")
    except SyntaxError as e:
        raise ExpectationError(f"--expect {item!r}: not valid Python ({e.msg})") from None
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Assign) or len(tree.body[0].targets) != 1:
        raise ExpectationError(f"--expect {item!r}: write it as TARGET.grad = FORMULA, e.g. 'x.grad = 2*x + 1'")
    node = tree.body[0]
    target = node.targets[0]
    if not (isinstance(target, ast.Attribute) and target.attr == "grad" and _chain(target.value)):
        raise ExpectationError(f"--expect {item!r}: the left side must be a tensor's .grad (x.grad, model.fc.weight.grad)")
    return ast.unparse(target), ast.unparse(node.value)


def _chain(e) -> bool:
    """A name followed by attributes and subscripts (``model.fc.weight``, ``m[0].bias``)."""
    while isinstance(e, (ast.Attribute, ast.Subscript)):
        e = e.value
    return isinstance(e, ast.Name)


@dataclass
class Evaluated:
    """Both sides of one expectation after the run: arrays (None for a None ``.grad``),
    or ``error`` ("Type: message") when a side could not be evaluated."""

    target: str
    formula: str
    got: np.ndarray | None = None
    want: np.ndarray | None = None
    error: str | None = None


def evaluate(pairs, variables: dict, modules: dict, limits) -> list:
    """Evaluate each ``(target, formula)`` over the script's final ``variables`` in the
    sandbox; the engine's grad mode is off meanwhile and restored after."""
    from . import grad_mode
    from .interpreter import ScriptRejected, parse_script, run_program
    from .tensor import Tensor

    out = []
    previous = grad_mode.enabled
    grad_mode.enabled = False
    try:
        for target, formula in pairs:
            ev = Evaluated(target, formula)
            out.append(ev)
            sides = []
            for code in (target, formula):     # the target first, copied before the formula runs
                try:
                    prog = parse_script(f"_autotrace_value = {code}\n", "<expect>")
                except ScriptRejected as r:
                    ev.error = f"{r.error.type}: {r.error.message}"
                    break
                res = run_program(prog, modules=modules, predefined={**_MODULE_NAMES(modules), **variables},
                                  limits=limits)
                if res.error is not None:
                    ev.error = f"{res.error.type}: {res.error.message}"
                    break
                value = res.globals.get("_autotrace_value")
                sides.append((value, _array(value)))
            if ev.error is not None:
                continue
            (got, ev.got), (want, ev.want) = sides
            if got is not None and ev.got is None:
                ev.error = f"TypeError: {target} is not a tensor"
            elif ev.want is None:
                ev.error = f"TypeError: {formula} is not a tensor or a number"
    finally:
        grad_mode.enabled = previous
    return out


def _MODULE_NAMES(modules: dict) -> dict:
    """``torch``, ``nn``, ``F`` and ``math`` for the formulas, as scripts usually import them
    (the script's own names, bound after these, win)."""
    out = {}
    for name, key in (("torch", "torch"), ("nn", "torch.nn"), ("F", "torch.nn.functional"), ("math", "math")):
        if key in modules:
            out[name] = modules[key]
    return out


def _array(v):
    from .tensor import Tensor

    if isinstance(v, Tensor):
        return np.array(v._data, copy=True)
    if isinstance(v, (bool, int, float)):
        return np.array(v, dtype=np.float64)
    return None


# -- checking --------------------------------------------------------------------------------


@dataclass
class Outcome:
    """The verdict on one expectation: ``ok``, the headline and the reasons (sentences)."""

    target: str
    formula: str
    ok: bool
    headline: str
    reasons: list = field(default_factory=list)


def check(trace, ev: Evaluated) -> Outcome:
    """Compare one evaluated expectation with the engine's gradient (see the module doc)."""
    from .explain import fmt

    if ev.error is not None:
        return Outcome(ev.target, ev.formula, False, f"{ev.target} = {ev.formula}: {ev.error}")
    if ev.got is None:
        return Outcome(ev.target, ev.formula, False, text("expect.none", target=ev.target))
    got, want = ev.got.astype(np.float64), ev.want.astype(np.float64)
    if got.shape == want.shape and _close(got, want):
        return Outcome(ev.target, ev.formula, True,
                       text("expect.ok", target=ev.target, formula=ev.formula, value=fmt(ev.got)))
    head = text("expect.bad", target=ev.target, formula=ev.formula, got=fmt(ev.got), want=fmt(ev.want))
    leaf = ev.target[:-len(".grad")]
    reasons = _reasons(trace, leaf, ev.target, got, want)
    return Outcome(ev.target, ev.formula, False, head, reasons)


def _close(a, b) -> bool:
    with np.errstate(all="ignore"):
        return bool(np.allclose(a, b, rtol=RTOL, atol=ATOL, equal_nan=True))


def _reasons(trace, leaf, target, got, want) -> list:
    from .explain import fmt

    acc, pas, step = _leaf_step(trace, leaf)
    if got.shape != want.shape:
        return _shape_reasons(trace, leaf, target, got, want, acc, pas)
    d = got - want
    out = []
    if step is not None and step.before is not None:
        before = np.asarray(step.before, np.float64)
        earlier = sum(1 for p in trace.passes for s in p.steps if s.node == acc.id) - 1 if acc else 0
        if _close(d, before) or _close(got - before, want):
            return [text("expect.why.accumulated", target=target, count=max(1, earlier), value=fmt(step.before))]
    for expr, line, c in _contributions(trace, pas, acc, step):
        if c.shape == d.shape and _close(d, c):
            out.append(text("expect.why.path", expr=expr, line=line, value=fmt(c.astype(np.float32))))
            return out
        if c.shape == d.shape and _close(-d, c):
            out.append(text("expect.why.extra_path", expr=expr, line=line, value=fmt(c.astype(np.float32))))
            return out
    k = _ratio(got, want)
    if k is not None:
        if abs(k + 1) < 1e-6:
            return [text("expect.why.sign")]
        count = _broadcast_count(trace, pas, acc)
        if count and abs(k - count) < 1e-6:
            return [text("expect.why.broadcast_count", leaf=leaf, count=count)]
        where = _factor_node(trace, pas, k)
        return [text("expect.why.factor", factor=_num(k), where=where)]
    if got.ndim == 2 and got.shape[0] == got.shape[1] and _close(got, want.T):
        return [text("expect.why.transposed", leaf=leaf, shape=_shape(got.shape))]
    with np.errstate(invalid="ignore"):
        ad = np.where(np.isnan(d), np.inf, np.abs(d))        # a nan on one side is the largest difference
    i = np.unravel_index(int(np.argmax(ad)), d.shape) if d.size else ()
    return [text("expect.why.unknown", value=_num(float(np.abs(d)[i]) if d.size else 0.0),
                 index=list(map(int, i)))]


def _shape_reasons(trace, leaf, target, got, want, acc, pas) -> list:
    try:
        b = np.broadcast_shapes(got.shape, want.shape)
    except ValueError:
        b = None
    if b == want.shape and want.ndim >= got.ndim:
        lead = want.ndim - got.ndim
        dims = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(got.shape) if n == 1 and want.shape[lead + i] != 1)
        summed = want.sum(axis=dims).reshape(got.shape) if dims else want
        if _close(summed, got):
            return [text("expect.why.broadcast_sum", leaf=leaf, want_shape=_shape(want.shape),
                         dims=", ".join(map(str, dims)))]
    if got.ndim == 2 and want.shape == got.shape[::-1] and _close(got, want.T):
        return [text("expect.why.transposed", leaf=leaf, shape=_shape(got.shape))]
    return [text("expect.shape", target=target, got_shape=_shape(got.shape), want_shape=_shape(want.shape))]


def _leaf_step(trace, leaf):
    """The leaf's AccumulateGrad record, the last backward pass that reached it, and its
    step there (None, None, None when no pass did)."""
    acc = None
    for n in trace.nodes:
        if n.is_leaf and n.var_name == leaf:
            acc = n
    if acc is None:
        return None, None, None
    for p in reversed(trace.passes):
        for s in p.steps:
            if s.node == acc.id:
                return acc, p, s
    return acc, None, None


def _contributions(trace, pas, acc, step):
    """``(expression, line, effect on the leaf's gradient)`` per path group: the nodes
    that fed the leaf directly, then the branches of fan-ins further up whose way to the
    leaf is elementwise (same shape, a diagonal Jacobian: each branch's share of the
    leaf's increment is its share of the sum at the fan-in)."""
    out = []
    nodes = trace.nodes
    if step is not None and step.fan_in:
        groups = {}
        for src, g in step.fan_in:
            if src is None:
                continue
            groups.setdefault(src, []).append(np.asarray(g, np.float64))
        if len(groups) > 1:
            for src, gs in groups.items():
                n = nodes[src]
                out.append((n.text or n.name, n.line, sum(gs)))
    if pas is None or step is None:
        return out
    inc = np.asarray(step.after, np.float64) - (np.asarray(step.before, np.float64) if step.before is not None else 0)
    for s in pas.steps:
        if s.node == step.node or not s.fan_in:
            continue
        contribs = [(src, np.asarray(g, np.float64)) for src, g in s.fan_in if src is not None]
        if len(contribs) < 2:
            continue
        total = sum(g for _, g in contribs)
        if total.shape != inc.shape:
            continue
        with np.errstate(all="ignore"):
            scale = np.where(total != 0, inc / np.where(total != 0, total, 1), 0.0)
        effects = [(src, g * scale) for src, g in contribs]
        if not _close(sum(e for _, e in effects), inc):
            continue
        groups = {}
        for src, e in effects:
            groups[src] = groups.get(src, 0) + e
        for src, e in groups.items():
            n = nodes[src]
            out.append((n.text or n.name, n.line, e))
    return out


def _ratio(got, want):
    g, w = got.reshape(-1), want.reshape(-1)
    nz = np.abs(w) > 1e-12
    if not nz.any() or not np.all(np.isfinite(g)) or not np.all(np.isfinite(w)):
        return None
    k = g[nz] / w[nz]
    k0 = float(np.median(k))
    if np.allclose(k, k0, rtol=1e-4, atol=1e-6) and np.allclose(g[~nz], 0, atol=ATOL):
        return k0
    return None


def _broadcast_count(trace, pas, acc):
    """How many positions a broadcast leaf was used at (the consumer's elements over the
    leaf's), when its gradient was summed back; else None."""
    if acc is None or pas is None:
        return None
    size = int(np.prod(acc.shape)) if acc.shape else 1
    for n in trace.nodes:
        if any(i == acc.id for i, _ in (n.inputs or ())):
            big = int(np.prod(n.shape)) if n.shape else 1
            if big > size and size and big % size == 0:
                return big // size
    return None


def _factor_node(trace, pas, k) -> str:
    """``: compare the local derivative of PowBackward0 at line 5 (…)`` for the first node
    of the pass whose number (a scalar operand or exponent) is k or 1/k; else ''."""
    if pas is None:
        return ""
    for s in pas.steps:
        n = trace.nodes[s.node]
        values = list((n.scalars or {}).values()) + [v for v in (n.attrs or {}).values() if isinstance(v, (int, float))]
        for v in values:
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v == 0:
                continue
            if abs(v - k) < 1e-6 * max(1, abs(k)) or abs(1 / v - k) < 1e-6 * max(1, abs(k)):
                return text("expect.why.factor_at", node=n.name, line=n.line, expr=n.text or n.name,
                            value=_num(v))
    return ""


def _num(x) -> str:
    from .explain import fmt_num
    return fmt_num(x)


def _shape(s) -> str:
    return "[" + ", ".join(map(str, s)) + "]"


def to_dict(o: Outcome) -> dict:
    return {"target": o.target, "formula": o.formula, "ok": o.ok, "headline": o.headline,
            "reasons": list(o.reasons)}
