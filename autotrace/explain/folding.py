"""Folding what repeats: long runs of one pattern of steps inside a pass."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..messages import text


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
    cell: str = ""              # the table's "line: expression" cell: "7: y = torch.tanh(y) * 1.01"


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
        where, cell = None, ""
        if len(lines) == 1:
            line, stmt = next(iter(lines))
            where = text("label.at_line", line=line, statement=stmt) if line else stmt
            cell = f"{line}: {stmt}" if line else (stmt or "")
        out.append(Run(first=hidden[0].number, last=hidden[-1].number, pattern=[s.node_name for s in hidden[:p]],
                       where=where, repeats=len(hidden) // p, upstream_first=hidden[0].upstream,
                       upstream_last=hidden[-1].upstream, cell=cell))
        i = start + (reps - 1) * p
    out.extend(steps[i:])
    return out


# -- training loops ----------------------------------------------------------------------

FOLD_MIN = 3        # consecutive passes of one structure folded into one explanation + a table
# passes that repeat the very same numbers are shown compactly ("same steps and the same
# numbers as pass 1", a few lines each); a run of at least this many is folded too
FOLD_SAME_MIN = 6


@dataclass
class FoldRow:
    pass_number: int
    loss: float | None
    grads: list                 # per leaf: the norm of this pass's .grad increment (a number when one element)
    values: list                # per leaf: the value (norm) when the pass ran


@dataclass
class Fold:
    """Passes with the same graph structure (one per loop iteration), explained once."""
    first: int                  # the pass explained in full
    last: int
    nodes: int                  # graph nodes per pass
    lines: list                 # the script lines the graph was built from
    line: int | None            # the backward() call
    leaves: list                # leaf labels, the table's columns
    rows: list                  # [FoldRow], one per pass
    remark: str = ""


def structure(p) -> tuple:
    """What must be equal for two passes to be folded: the same nodes from the same lines."""
    return (p.line, p.root, tuple((s.node_name, s.line) for s in p.steps))


def folds(passes, trace, g, events) -> list:
    """The runs of at least :data:`FOLD_MIN` consecutive passes with one structure."""
    from ..messages import text

    out, i = [], 0
    values = _param_values(events)
    sigs = [structure(p) for p in passes]
    while i < len(passes):
        j = i + 1
        sig = sigs[i]
        while j < len(passes) and sigs[j] == sig and not passes[j].error:
            j += 1
        same = all(q.same_as is not None for q in passes[i + 1:j])
        if j - i >= (FOLD_SAME_MIN if same else FOLD_MIN) and not passes[i].error:
            group = passes[i:j]
            leaves = [s.output for s in group[0].steps if s.kind == "accumulate"]
            rows = []
            for p in group:
                rec = trace.passes[p.number - 1]
                loss = None
                if rec.roots and g.node(rec.roots[0]) is not None:
                    v = g.value(rec.roots[0])
                    if v is not None and np.size(v) == 1:
                        loss = float(np.asarray(v).reshape(-1)[0])
                inc = {s.output: s.increment for s in p.steps if s.kind == "accumulate"}
                rows.append(FoldRow(pass_number=p.number, loss=loss,
                                    grads=[_size(inc.get(leaf)) for leaf in leaves],
                                    values=[_size(values.get((p.number, leaf))) for leaf in leaves]))
            lines = sorted({s.line for s in group[0].steps if s.line})
            f = Fold(first=group[0].number, last=group[-1].number, nodes=len(group[0].steps), lines=lines,
                     line=group[0].line, leaves=leaves, rows=rows)
            # a new graph each iteration, or one graph walked again and again (retain_graph=True):
            # with the same numbers each time (a stale loss) or not (Jacobian rows, other seeds)
            walked = len({tuple(trace.passes[p.number - 1].roots) for p in group}) == 1
            key = ("fold.retained" if same else "fold.walked") if walked else "fold.dynamic"
            f.remark = text(key, count=len(group), nodes=f.nodes, first=f.first, last=f.last,
                            lines=_ranges(lines), line=f.line or "?")
            out.append(f)
            i = j
        elif passes[i].error:
            i += 1
        else:
            # a run starting later inside passes[i:j] ends at j too, is shorter, and repeats
            # its numbers whenever this one does: none of them folds either
            i = j
    return out


def _size(a):
    """A number for a table cell: the value itself when one element, else the 2-norm."""
    if a is None:
        return None
    a = np.asarray(a, dtype=np.float64)
    if a.size == 1:
        return float(a.reshape(-1)[0])
    with np.errstate(all="ignore"):
        return float(np.sqrt(np.sum(a * a)))


def _param_values(events) -> dict:
    """(pass number, leaf label) → the leaf's value when that pass ran, from the optimizer
    steps that follow it (their "before")."""
    out = {}
    for e in events:
        if e.kind == "optimizer_step":
            for q in e.data.get("params", []):
                out.setdefault((e.pass_number, q["leaf"]), q["before"])
    return out


def _ranges(lines) -> str:
    if not lines:
        return "?"
    if len(lines) == 1:
        return str(lines[0])
    return f"{lines[0]}–{lines[-1]}" if lines[-1] - lines[0] == len(lines) - 1 else ", ".join(map(str, lines))


def branch_remarks(passes, source) -> list:
    """Where consecutive passes from the same backward() line built different graphs
    because the script took another branch of an ``if`` (define-by-run)."""
    import ast

    from ..messages import text

    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    ifs = [n for n in ast.walk(tree) if isinstance(n, ast.If)]

    def span(stmts):
        return {k for s in stmts for k in range(s.lineno, (s.end_lineno or s.lineno) + 1)}
    out = []
    for a, b in zip(passes, passes[1:]):
        if a.line != b.line or a.error or b.error or structure(a) == structure(b):
            continue
        la = {s.line for s in a.steps if s.line}
        lb = {s.line for s in b.steps if s.line}
        new = lb - la
        for node in ifs:
            body, orelse = span(node.body), span(node.orelse)
            if new & orelse:
                out.append(text("fold.branch", number=b.number, branch="else", line=node.lineno))
                break
            if new & body:
                out.append(text("fold.branch", number=b.number, branch="if", line=node.lineno))
                break
    return out
