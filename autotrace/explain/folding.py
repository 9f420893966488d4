"""Folding what repeats: long runs of one pattern of steps inside a pass."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Run:
    """Consecutive steps that repeat one pattern of nodes (a loop unrolled into the graph),
    shown as one line instead of step by step: steps ``first``..``last`` hidden."""
    first: int
    last: int
    pattern: list               # node names of one period: ["TanhBackward0", "MulBackward0"]
    where: str | None           # "line 7: y = torch.tanh(y) * 1.01" when the period has one line
    repeats: int                # how many periods are hidden
    upstream_first: np.ndarray | None
    upstream_last: np.ndarray | None


RUN_MIN_STEPS = 12   # a repeating stretch shorter than this is shown step by step
RUN_KEEP = 2         # periods shown in full before a hidden run (one more after it)


def runs(sig, *, min_steps=RUN_MIN_STEPS, keep=RUN_KEEP, max_period=4):
    """The long runs of a repeating pattern in the signatures ``sig``, as (start, period,
    repeats) — found in one left-to-right scan."""
    found, i, n = [], 0, len(sig)
    while i < n:
        best = None
        for p in range(1, max_period + 1):
            k = i + p
            while k < n and sig[k] == sig[k - p]:
                k += 1
            reps = (k - i) // p
            if reps * p >= min_steps and reps >= keep + 2 and (best is None or reps * p > best[0] * best[1]):
                best = (reps, p)
        if best is None:
            i += 1
            continue
        reps, p = best
        found.append((i, p, reps))
        i += reps * p
    return found


def shown_steps(sig, *, keep=RUN_KEEP) -> set:
    """Indices of the steps :func:`collapse` keeps in view."""
    hidden = set()
    for i, p, reps in runs(sig, keep=keep):
        hidden.update(range(i + keep * p, i + (reps - 1) * p))
    return set(range(len(sig))) - hidden


def collapse(steps, *, min_steps=RUN_MIN_STEPS, keep=RUN_KEEP, max_period=4) -> list:
    """``steps`` with long runs of a repeating pattern (same node names and source lines,
    period 1 to ``max_period``) replaced by a :class:`Run`: the first ``keep`` periods and
    the last one stay."""
    sig = [(s.node_name, s.line, s.statement, s.kind, bool(s.fan_in)) for s in steps]
    out, i = [], 0
    for start, p, reps in runs(sig, min_steps=min_steps, keep=keep, max_period=max_period):
        out.extend(steps[i:start + keep * p])
        hidden = steps[start + keep * p:start + (reps - 1) * p]
        lines = {(s.line, s.statement) for s in hidden}
        where = None
        if len(lines) == 1:
            line, stmt = next(iter(lines))
            where = f"line {line}: {stmt}" if line else stmt
        out.append(Run(first=hidden[0].number, last=hidden[-1].number, pattern=[s.node_name for s in hidden[:p]],
                       where=where, repeats=len(hidden) // p, upstream_first=hidden[0].upstream,
                       upstream_last=hidden[-1].upstream))
        i = start + (reps - 1) * p
    out.extend(steps[i:])
    return out
