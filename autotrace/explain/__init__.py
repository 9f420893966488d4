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
from .folding import Run, branch_remarks, collapse, folds  # noqa: F401
from .graph import _Graph
from .steps import _Explainer
from .events import timeline as timeline_events
from .timeline import _timeline
from .diagnostics import diagnose
from .verify import verify  # noqa: F401

# -- whole trace -------------------------------------------------------------------------


def explain(trace, *, of: str | None = None, wrt: str | None = None, pass_number: int | None = None,
            all_steps: bool = False) -> Explanation:
    """The explanation of ``trace`` (run with keep_values). ``of`` names the tensor an
    implicit backward started from; ``wrt`` keeps only that leaf's steps and chain;
    ``pass_number`` (1-based) keeps one pass. Steps inside a long run of one repeating
    pattern (summarised in the text) keep their numbers but no sentences or formulas
    unless ``all_steps``."""
    import gc

    # the model is a tree of plain records with no reference cycles: the cyclic collector's
    # passes over a large trace find nothing and cost more than the explaining
    enabled = gc.isenabled()
    gc.disable()
    try:
        with np.errstate(all="ignore"):      # inf·0 and the like are part of what is explained
            return _explain(trace, of=of, wrt=wrt, pass_number=pass_number, all_steps=all_steps)
    finally:
        if enabled:
            gc.enable()


def _explain(trace, *, of, wrt, pass_number, all_steps=False) -> Explanation:
    auto = getattr(trace, "implicit_root", None) if not of else None
    of = of or auto
    ex = _Explainer(trace)
    explained = []
    total = len(trace.passes)
    firsts = {}
    # with several passes, each is first explained light (numbers and targets: what
    # comparing, folding, the timeline and the diagnostics read); the passes the
    # explanation shows are then written out in full, so a long training loop folded into
    # a table costs little more than its numbers
    light = total > 1 and wrt is None

    def explain_pass(k, light=False):
        p = trace.passes[k]
        implicit = of if (of and k == 0 and p.line is None) else None
        return ex.explain_pass(p, k + 1, total, implicit_of=implicit, auto=(
            "stopped" if trace.error else "auto") if implicit and auto else None, all_steps=all_steps,
                               light=light)

    for k in range(total):
        ep = explain_pass(k, light)
        sig = _Explainer.signature(ep) if total > 1 else None
        if sig in firsts and pass_number is None:
            ep.same_as = firsts[sig]
        else:
            firsts.setdefault(sig, ep.number)
        explained.append(ep)
    written = [not light] * total

    def in_full(k):
        """Pass k + 1 written out in full (explained again if it was explained light)."""
        if not written[k]:
            ep = explain_pass(k)
            ep.same_as = explained[k].same_as
            explained[k] = ep
            written[k] = True
        return explained[k]

    fold_list = None
    if light:
        if pass_number is not None:
            shown = [pass_number - 1] if 1 <= pass_number <= total else []
        else:
            fold_list = folds(explained, trace, ex.g, timeline_events(trace, explained, ex.g))
            hidden = {n - 1 for f in fold_list for n in range(f.first + 1, f.last + 1)}
            shown = [k for k in range(total) if k not in hidden]
        for k in shown:
            in_full(k)
    all_passes = explained
    passes = list(explained)
    timeline = _timeline(trace, passes)
    finals = {}
    params = getattr(trace, "parameters", {}) or {}
    for name, v in list(trace.variables.items()) + list(params.items()):
        if v.kind == "tensor" and ((v.is_leaf and (v.requires_grad or v.grad is not None)) or v.retains_grad):
            # a loop's ``p`` holding a module's parameter is shown as that parameter
            n = ex.g.node(v.node)
            key = ex.g.label(v.node) if n is not None and n.is_leaf else name
            if key.startswith("‹") or key in finals:     # a label no name reaches: the module's name
                key = name if name not in finals else key
            finals.setdefault(key, v.grad)
    diags = diagnose(trace, passes, timeline, ex.g, wrt=wrt, of=of, in_full=in_full)
    passes = list(explained)        # diagnose may have written out more passes in full
    notes = _opening_notes(trace, auto, ex.g)
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
    events = timeline_events(trace, all_passes, ex.g)
    if pass_number is not None:
        # the events of that iteration: the resets before it, the pass, what ran after it
        events = [e for e in events if e.pass_number == pass_number or
                  (e.kind == "grad_reset" and e.pass_number == pass_number - 1)]
        timeline = {leaf: [e for e in entries if e.pass_number == pass_number]
                    for leaf, entries in timeline.items()}
    elif wrt is None:
        if fold_list is None:
            fold_list = folds(all_passes, trace, ex.g, events)
        passes, events, timeline = _fold(passes, events, timeline, fold_list)
        notes += branch_remarks(all_passes, trace.source)
    return Explanation(script=trace.script, stdout=trace.stdout, passes=passes, timeline=timeline,
                       final_grads=finals, diagnostics=diags, notes=notes, events=events, folds=fold_list or [],
                       total_passes=total)


def _fold(passes, events, timeline, fold_list):
    """Keep the first pass of each fold; its events once, then one line for the rest."""
    if not fold_list:
        return passes, events, timeline
    from .events import TimelineEvent

    hidden = set()
    for f in fold_list:
        hidden.update(range(f.first + 1, f.last + 1))
    passes = [p for p in passes if p.number not in hidden]
    kept = []
    for e in events:
        # iteration k: backward pass k, then what runs before pass k + 1 (step, zero_grad)
        f = next((f for f in fold_list if f.first < (e.pass_number or 0) <= f.last), None)
        if f is None:
            kept.append(e)
        elif not kept or kept[-1].kind != "fold":
            kept.append(TimelineEvent(kind="fold", line=f.line, pass_number=f.first + 1,
                                      title=text("fold.events", first=f.first + 1, last=f.last)))
    timeline = {leaf: [e for e in entries if e.pass_number not in hidden] for leaf, entries in timeline.items()}
    return passes, kept, timeline


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


def run(source, filename, *, sets=(), limits=None, of=None, perturb=None, auto_root=True, expect=()):
    """Run a script for explain: values kept (failed backward calls are recorded by the
    engine), and with ``perturb`` (``{name: (index, delta)}``) that leaf moved by delta in
    float64 when the script first binds it (for :func:`verify`). With ``auto_root`` and no
    ``of``, a script that calls no backward() is explained from its last single-number
    tensor with a grad_fn (``trace.implicit_root``)."""
    from .. import runner

    return runner.run(source, filename, sets=sets, limits=limits,
                      options=runner.Options(keep_values=True, of=of, perturb=perturb or None,
                                             auto_root=auto_root, expect=tuple(expect)))


def _opening_notes(trace, auto, g) -> list:
    """Where and why the script stopped, which root explain picked, or how to pick one."""
    notes = []
    err = trace.error
    from_pass = err is not None and any(p.error and p.line == err.get("line") for p in trace.passes)
    if err is not None and err.get("phase") != "parse" and not from_pass:
        later = _later_backward(trace.source, err.get("line"))
        key = "stopped.with_backward" if later else "stopped"
        msg = (err.get("message") or "").rstrip()
        msg = msg if msg.endswith((".", "!", "?")) else msg + "."
        notes.append(text(key, line=err.get("line") or "?", type=err.get("type"), message=msg, later=later))
    if auto is not None:
        v = trace.variables.get(auto)
        n = g.node(v.node) if v is not None else None
        line = n.line if n is not None else None
        key = "implicit_root_stopped" if err is not None else "implicit_root" if line else "implicit_root_noline"
        notes.append(text(key, root=auto, line=line or "?"))
    elif not trace.passes and (err is None or err.get("phase") != "parse"):
        cands = [k for k, v in trace.variables.items() if v.kind == "tensor" and v.grad_fn]
        if cands:
            notes.append(text("no_pass.nonscalar", names=", ".join(cands[-3:]), name=cands[-1]))
        elif err is None:
            notes.append(text("no_pass"))
    return notes


def _later_backward(source, line):
    """The first line after ``line`` that calls backward() or torch.autograd.grad, or None."""
    import re

    if not line:
        return None
    for k, src in enumerate(source.splitlines()[line:], start=line + 1):
        if re.search(r"\.backward\s*\(|autograd\.grad\s*\(", src.split("#")[0]):
            return k
    return None


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
