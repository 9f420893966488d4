"""Explain a trace: the backward passes step by step, as plain data.

:func:`explain` turns a :class:`~autotrace.trace.Trace` (run with ``keep_values``) into an
:class:`Explanation`: per backward pass the seed, per executed node the forward
expression, PyTorch's node name, the local rule in symbols and with numbers, the upstream
gradient and what each input receives; fan-in sums; ``AccumulateGrad`` before → increment
→ after; each leaf's whole chain; a timeline of every leaf's ``.grad``; diagnostics with
their why and fix; and optionally a central-difference check (:func:`verify`).

Nothing here prints or imports rich: renderers (``render/explain_*``) turn the model into
text, Markdown or JSON. Every sentence comes from :mod:`autotrace.messages`; formulas are
built here.
"""

from __future__ import annotations

import numpy as np

from ..messages import text

from .model import Chain, Diagnostic, Edge, Explanation, Pass, Step, TimelineEntry, Verification, VerifyRow  # noqa: F401
from .numbers import SCHEMA_VERSION, SMALL, _json_numbers, as_tensor_value, fmt, fmt_num, sum_to, uniform  # noqa: F401
from .folding import Run, collapse  # noqa: F401
from .graph import _Graph
from .steps import _Explainer
from .timeline import _timeline
from .diagnostics import diagnose
from .verify import verify  # noqa: F401

# -- whole trace -------------------------------------------------------------------------


def explain(trace, *, of: str | None = None, wrt: str | None = None, pass_number: int | None = None) -> Explanation:
    """The explanation of ``trace`` (run with keep_values). ``of`` names the tensor an
    implicit backward started from; ``wrt`` keeps only that leaf's steps and chain;
    ``pass_number`` (1-based) keeps one pass."""
    with np.errstate(all="ignore"):      # inf·0 and the like are part of what is explained
        return _explain(trace, of=of, wrt=wrt, pass_number=pass_number)


def _explain(trace, *, of, wrt, pass_number) -> Explanation:
    ex = _Explainer(trace)
    passes = []
    total = len(trace.passes)
    firsts = {}
    for k, p in enumerate(trace.passes):
        implicit = of if (of and k == 0 and p.line is None) else None
        ep = ex.explain_pass(p, k + 1, total, implicit_of=implicit)
        sig = _Explainer.signature(ep)
        if sig in firsts and pass_number is None:
            ep.same_as = firsts[sig]
        else:
            firsts.setdefault(sig, ep.number)
        passes.append(ep)
    timeline = _timeline(trace, passes)
    finals = {}
    for name, v in trace.variables.items():
        if v.kind == "tensor" and v.is_leaf and (v.requires_grad or v.grad is not None):
            # a loop's ``p`` holding a module's parameter is shown as that parameter
            n = ex.g.node(v.node)
            key = ex.g.label(v.node) if n is not None and n.is_leaf else name
            finals.setdefault(key, v.grad)
    diags = diagnose(trace, passes, timeline, ex.g, wrt=wrt, of=of)
    notes = []
    if not trace.passes:
        notes.append(text("no_pass"))
    if pass_number is not None:
        if not 1 <= pass_number <= total:
            notes.append(text("selection.no_pass", number=pass_number, total=total))
            passes = []
        else:
            passes = [passes[pass_number - 1]]
    if wrt is not None:
        passes = [_only_leaf(p, wrt, ex.g) for p in passes]
        timeline = {k: v for k, v in timeline.items() if k == wrt}
        finals = {k: v for k, v in finals.items() if k == wrt}
        if not any(c.leaf == wrt for p in passes for c in p.chains):
            notes.append(text("selection.no_leaf", name=wrt))
    return Explanation(script=trace.script, stdout=trace.stdout, passes=passes, timeline=timeline,
                       final_grads=finals, diagnostics=diags, notes=notes)


def _only_leaf(p: Pass, leaf: str, g: _Graph) -> Pass:
    """Keep the steps on a path to ``leaf`` (and its chain)."""
    leaf_steps = [s for s in p.steps if s.kind == "accumulate" and s.output == leaf]
    if not leaf_steps:
        p.steps, p.chains = [], []
        return p
    keep = {leaf_steps[0].node}
    changed = True
    while changed:
        changed = False
        for s in p.steps:
            if s.node not in keep and any(e.target_node in keep for e in s.edges):
                keep.add(s.node)
                changed = True
    p.steps = [s for s in p.steps if s.node in keep]
    p.chains = [c for c in p.chains if c.leaf == leaf]
    return p


# -- running a script for explain ------------------------------------------------------


def run(source, filename, *, sets=(), limits=None, of=None, perturb=None):
    """Run a script for explain: values kept (failed backward calls are recorded by the
    engine), and with ``perturb`` (``{name: (index, delta)}``) that leaf moved by delta in
    float64 when the script first binds it (for :func:`verify`)."""
    from .. import runner

    return runner.run(source, filename, sets=sets, limits=limits,
                      options=runner.Options(keep_values=True, of=of, perturb=perturb or None))


# -- as data -----------------------------------------------------------------------------


def to_dict(ex: Explanation) -> dict:
    """The explanation as JSON-ready data (arrays as lists, nan/inf as strings)."""
    def conv(o):
        if isinstance(o, np.ndarray) or isinstance(o, (np.floating,)):
            return as_tensor_value(o)
        if isinstance(o, (np.integer,)):
            return int(o)
        if isinstance(o, (np.bool_,)):
            return bool(o)
        if isinstance(o, float):
            return _json_numbers(o)
        if isinstance(o, dict):
            return {str(k): conv(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [conv(v) for v in o]
        if hasattr(o, "__dataclass_fields__"):
            return {k: conv(getattr(o, k)) for k in o.__dataclass_fields__}
        return o
    d = conv(ex)
    d["schema_version"] = SCHEMA_VERSION
    for p in d["passes"]:
        for s in p["steps"]:
            s["fan_in"] = [{"from": f, "value": v} for f, v in s["fan_in"]]
    return d
