"""Loop bodies in a recorded graph: stretches of nodes that the same script sites (and
module) created again and again, each repetition wired like the one before (the carried
state feeds the next). The graph and Mermaid views draw one repetition as a cluster
marked ``×30``; ``run``'s grad_fn tree shows one and says how many it folded."""

from __future__ import annotations

from dataclasses import dataclass

MIN_FOLD = 3            # a loop body is folded when it ran at least this many times


@dataclass
class Fold:
    """A loop body the script ran ``count`` times: ``reps[k]`` are the node ids of
    repetition k (creation order, all of one length); the last repetition is drawn."""

    reps: list
    lines: tuple = ()       # the script lines the body's nodes come from (sorted)

    @property
    def count(self) -> int:
        return len(self.reps)

    @property
    def drawn(self) -> list:
        return self.reps[-1]

    @property
    def lo(self) -> int:
        return self.reps[0][0]

    @property
    def hi(self) -> int:
        return self.reps[-1][-1]

    def lines_text(self) -> str:
        if not self.lines:
            return ""
        a, b = self.lines[0], self.lines[-1]
        from ..messages import text
        return text("label.line", line=a) if a == b else text("graph.lines", first=a, last=b)


def innermost_calls(trace) -> list:
    """For each node id, the index of the innermost module call that created it, or None."""
    out = [None] * len(trace.nodes)
    for call in trace.module_calls:          # callers come before the calls they make
        for c in range(call.start, min(call.end, len(out))):
            out[c] = call.index
    return out


def find_folds(trace, order, call_of) -> list:
    """Repeated loop bodies among the non-leaf node ids ``order`` (ascending): a period p
    of node keys (name, script site, module) repeating at least :data:`MIN_FOLD` times,
    where every repetition after the first is wired the same way (inputs inside the same
    repetition at the same offsets, the carried state from the previous one, leaves and
    outside nodes elsewhere)."""
    nodes = trace.nodes
    calls = trace.module_calls
    keys = []
    for c in order:
        n = nodes[c]
        k = call_of[c]
        keys.append((n.name, n.line, n.col, n.text, calls[k].module if k is not None else None))
    nxt = [None] * len(keys)
    last = {}
    for i in range(len(keys) - 1, -1, -1):
        nxt[i] = last.get(keys[i])
        last[keys[i]] = i
    folds = []
    i = 0
    n_keys = len(keys)
    floor = 0                   # the end of the last fold: a new one starts at or after it

    def repeats(st, p):
        body = keys[st:st + p]
        r = 1
        while keys[st + r * p:st + (r + 1) * p] == body:
            r += 1
        return r

    while i < n_keys:
        j = nxt[i]
        if j is None:
            i += 1
            continue
        p = j - i
        r = repeats(i, p)
        if r >= MIN_FOLD:
            # the phase: a repetition should start where an iteration does, never inside a
            # module call that the loop is not itself inside
            best = None
            for st in range(max(floor, i - p + 1), i + p):
                rr = repeats(st, p)
                if rr < MIN_FOLD:
                    continue
                end = st + rr * p
                good = _boundary_ok(trace, order, call_of, st, end)
                # the loop's last iteration ends the stretch: nothing of it is left over
                whole = end >= n_keys or keys[end] != keys[end - p]
                cand = (good, whole, rr, -abs(st - i), -st)
                if best is None or cand > best[0]:
                    best = (cand, st, rr)
            _, st, r = best
            reps = [order[st + k * p:st + (k + 1) * p] for k in range(r)]
            good = _consistent(nodes, reps)
            skip = 0
            if good < MIN_FOLD and len(reps) > MIN_FOLD:
                good = _consistent(nodes, reps[1:])
                skip = 1
            if good >= MIN_FOLD:
                reps = reps[skip:skip + good]
                lines = sorted({nodes[c].line for c in reps[-1] if nodes[c].line})
                folds.append(Fold(reps, tuple(lines)))
                i = floor = st + (skip + good) * p
                continue
        i += 1
    return folds


def _boundary_ok(trace, order, call_of, st, end) -> bool:
    """No module call holds both the node before position ``st`` and the one at it,
    unless that call holds the whole stretch ``[st, end)`` (a loop inside a forward)."""
    if st == 0:
        return True
    calls = trace.module_calls
    before, at = order[st - 1], order[st]
    first, last = order[st], order[end - 1]
    k = call_of[at]
    while k is not None:
        call = calls[k]
        if call.start <= before < call.end and not (call.start <= first and last < call.end):
            return False
        k = call.parent
    return True


def _signature(nodes, rep, prev):
    pos = {c: o for o, c in enumerate(rep)}
    ppos = {c: o for o, c in enumerate(prev)} if prev else {}
    sig = []
    for c in rep:
        s = []
        for i, nr in nodes[c].inputs:
            if i is None:
                s.append(("N",))
            elif i in pos:
                s.append(("i", pos[i], nr))
            elif i in ppos:
                s.append(("p", ppos[i], nr))
            elif nodes[i].is_leaf:
                s.append(("L",))
            else:
                s.append(("e",))
        sig.append(tuple(s))
    return sig


def _consistent(nodes, reps) -> int:
    """How many leading repetitions are wired alike (the first may differ where the later
    ones take the carried state: it starts from an initial value)."""
    if len(reps) < 2:
        return len(reps)
    base = _signature(nodes, reps[1], reps[0])
    first = _signature(nodes, reps[0], None)
    for a, b in zip(first, base):
        if len(a) != len(b) or any(x != y and y[0] != "p" for x, y in zip(a, b)):
            return 1
    k = 2
    while k < len(reps) and _signature(nodes, reps[k], reps[k - 1]) == base:
        k += 1
    return k
