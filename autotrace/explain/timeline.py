"""Each leaf's .grad over the run."""

from __future__ import annotations

import numpy as np

from ..messages import text
from .model import TimelineEntry
from .numbers import fmt

def _timeline(trace, passes):
    tl: dict = {}
    hows: dict = {}         # (node, leaf) -> _reset_how(...): it reads the whole run's events
    for p, rec in zip(passes, trace.passes):
        if rec.kind != "backward":
            continue
        for s in p.steps:
            if s.kind != "accumulate" or s.after is None:
                continue
            entries = tl.setdefault(s.output, [])
            reset = None
            if entries:
                prev = entries[-1]
                if not _same(prev.after, s.before):
                    key = (int(s.node[1:]), s.output)
                    how = hows.get(key)
                    if how is None:
                        how = hows[key] = _reset_how(trace, *key)
                    reset = text("timeline.reset", before_pass=prev.pass_number, after_pass=p.number,
                                 leaf=s.output, old=fmt(prev.after), new=fmt(s.before), how=how)
            entries.append(TimelineEntry(p.number, s.before, s.increment, s.after, reset))
    return tl


_RESET_KIND = {"zero": "timeline.how.zero", "none": "timeline.how.none"}


def _reset_how(trace, node, leaf) -> str:
    """How the script reset ``leaf``'s .grad, from the recorded grad events: "by
    x.grad.zero_() at line 14" (every distinct kind and line), or a generic phrase."""
    seen = []
    for ev in getattr(trace, "grad_events", ()):
        if ev.node == node or (ev.node is None and ev.name == leaf):
            key = (ev.kind, ev.line)
            if key not in seen:
                seen.append(key)
    if not seen:
        return text("timeline.how.unknown")
    return text("timeline.how.list", list=" / ".join(text(_RESET_KIND.get(k, "timeline.how.none"), leaf=leaf, line=ln)
                                                      for k, ln in seen))


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=True))


