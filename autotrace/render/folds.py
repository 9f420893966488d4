"""Loop bodies in a recorded graph: stretches of nodes that the same script sites (and
module) created again and again, each repetition wired like the one before (the carried
state feeds the next). The graph and Mermaid views draw one repetition as a cluster
marked ``×30``; ``run``'s grad_fn tree shows one and says how many it folded."""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain, count
from operator import attrgetter

import numpy as np

MIN_FOLD = 3            # a loop body is folded when it ran at least this many times


class Reps(Sequence):
    """The repetitions of a loop body, ``count`` runs of ``period`` node ids back to back
    from position ``start`` of ``order``; ``reps[k]`` is a list, built when asked for."""

    __slots__ = ("order", "start", "period", "count")

    def __init__(self, order, start: int, period: int, count: int):
        self.order, self.start, self.period, self.count = order, start, period, count

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[j] for j in range(*k.indices(self.count))]
        if k < 0:
            k += self.count
        if not 0 <= k < self.count:
            raise IndexError(k)
        a = self.start + k * self.period
        return list(self.order[a:a + self.period])

    def ids(self, stop: int):
        """The node ids of repetitions ``0 .. stop - 1``, in one flat sequence."""
        return self.order[self.start:self.start + max(0, min(stop, self.count)) * self.period]

    def __eq__(self, other):
        return list(self) == list(other) if isinstance(other, Sequence) else NotImplemented

    def __repr__(self):
        return repr(list(self))


@dataclass
class Fold:
    """A loop body the script ran ``count`` times: ``reps[k]`` are the node ids of
    repetition k (creation order, all of one length); the last repetition is drawn."""

    reps: Sequence
    lines: tuple = ()       # the script lines the body's nodes come from (sorted)

    @property
    def count(self) -> int:
        return len(self.reps)

    @cached_property
    def drawn(self) -> list:
        return self.reps[-1]

    @property
    def lo(self) -> int:
        return self.reps[0][0]

    @property
    def hi(self) -> int:
        return self.drawn[-1]

    def lines_text(self) -> str:
        if not self.lines:
            return ""
        a, b = self.lines[0], self.lines[-1]
        from ..messages import text
        return text("label.line", line=a) if a == b else text("graph.lines", first=a, last=b)


def innermost_calls(trace):
    """For each node id, the index of the innermost module call that created it, or None
    (a list; without module calls a sequence that holds None everywhere)."""
    if not trace.module_calls:
        return _NoCalls(len(trace.nodes))
    out = [None] * len(trace.nodes)
    for call in trace.module_calls:          # callers come before the calls they make
        for c in range(call.start, min(call.end, len(out))):
            out[c] = call.index
    return out


class _NoCalls:
    """:func:`innermost_calls` of a trace without module calls: None at every id."""

    __slots__ = ("_n",)

    def __init__(self, n):
        self._n = n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [None] * len(range(*i.indices(self._n)))
        if not -self._n <= i < self._n:
            raise IndexError("node id out of range")
        return None


def find_folds(trace, order, call_of) -> list:
    """Repeated loop bodies among the non-leaf node ids ``order`` (ascending): a period p
    of node keys (name, script site, module) repeating at least :data:`MIN_FOLD` times,
    where every repetition after the first is wired the same way (inputs inside the same
    repetition at the same offsets, the carried state from the previous one, leaves and
    outside nodes elsewhere)."""
    nodes = trace.nodes
    calls = trace.module_calls
    recs = stored_records(nodes, order)
    inputs_of = inputs_reader(nodes)
    segment_of = getattr(nodes, "segment_of", None)
    sigs = {}                   # _consistent's shared signatures, and its verdicts on pairs of them
    stretches = getattr(nodes, "stretches", None)
    folded = [(start, stop) for start, stop, t0 in stretches() if start != t0] if stretches else []
    keys = _keys(recs, order, call_of, calls, bool(folded))
    ka = np.asarray(keys, dtype=np.int64)      # the same numbers, for comparisons by arrays
    nxt = _next_same(ka)        # the next position of the same key, or -1

    def plain(a, b):
        """No id in a .. b is a folded copy (whose signatures _consistent shares instead)."""
        k = bisect_right(folded, (b, _INF)) - 1
        return k < 0 or folded[k][1] <= a

    folds = []
    i = 0
    n_keys = len(keys)
    floor = 0                   # the end of the last fold: a new one starts at or after it
    runs = {}                   # p -> (a, b): keys[q] == keys[q + p] for a <= q < b, not at b

    def repeats(st, p):
        """How many times keys[st:st + p] occurs back to back from st."""
        got = runs.get(p)
        if got is not None and got[0] <= st <= got[1]:
            end = got[1]
        else:
            # up to the run found before with this period, which it then joins
            joins = got is not None and st < got[0]
            end = _run_end(keys, ka, st, p, got[0] if joins else n_keys - p)
            if joins and end == got[0]:
                end = got[1]
            runs[p] = (st, end)
        return 1 + (end - st) // p

    while i < n_keys:
        j = nxt[i]
        if j < 0:
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
            skip = 0
            good = _consistent(recs, inputs_of, order, st, p, r, segment_of, sigs, plain)
            if good < MIN_FOLD and r > MIN_FOLD:
                skip = 1
                good = _consistent(recs, inputs_of, order, st + p, p, r - 1, segment_of, sigs, plain)
            if good >= MIN_FOLD:
                reps = Reps(order, st + skip * p, p, good)
                lines = sorted({recs[c].line for c in reps[-1] if recs[c].line})
                folds.append(Fold(reps, tuple(lines)))
                i = floor = st + (skip + good) * p
                continue
        i += 1
    return folds


def _keys(recs, order, call_of, calls, shared):
    """Per position of ``order``, a number standing for the node's key: equal numbers for
    equal (name, line, col, text, module). ``shared``: ``recs`` repeats record objects
    (a folded node list's templates)."""
    if not calls:               # no module calls: each column read in one C-level pass
        at = recs.__getitem__
        # the number of a key: the position where it first came (setdefault hashes it once)
        number = {}
        if shared:  # repeated steps share their template's records: a key per record object
            by_id = dict(zip(map(id, map(at, order)), map(at, order)))
            of_id = dict(zip(by_id, map(number.setdefault, map(_KEY_FIELDS, by_id.values()), count())))
            return array("q", map(of_id.__getitem__, map(id, map(at, order))))
        return array("q", map(number.setdefault, map(_KEY_FIELDS, map(at, order)), count()))
    ids = {}
    keys = array("q")
    # outside module calls a record's key id is looked up by the record (a loop's repeated
    # steps share their template's records); the record is kept with it, so its id stays its own
    of_rec = {}
    for c in order:
        n = recs[c]
        k = call_of[c]
        if k is None:
            got = of_rec.get(id(n))
            if got is None:
                got = of_rec[id(n)] = (ids.setdefault((n.name, n.line, n.col, n.text, None), len(ids)), n)
            keys.append(got[0])
            continue
        key = (n.name, n.line, n.col, n.text, calls[k].module)
        keys.append(ids.setdefault(key, len(ids)))
    return keys


_KEY_FIELDS = attrgetter("name", "line", "col", "text")
_inputs = attrgetter("inputs")


def _run_end(keys, ka, q, p, stop) -> int:
    """The first position in ``q .. stop - 1`` where the key differs from the one ``p``
    later, or ``stop``: a few positions one by one, then runs of positions that double
    in length as arrays (``ka`` holds ``keys``)."""
    first = min(stop, q + 16)
    while q < first:
        if keys[q] != keys[q + p]:
            return q
        q += 1
    step = 64
    while q < stop:
        hi = min(stop, q + step)
        d = np.flatnonzero(ka[q:hi] != ka[q + p:hi + p])
        if len(d):
            return q + int(d[0])
        q, step = hi, step * 2
    return stop


def _next_same(keys):
    """Per position, the next position holding the same number in ``keys`` (an int64
    array), or -1, as a memoryview of int64."""
    out = np.full(len(keys), -1, dtype=np.int64)
    distinct = np.unique(keys)
    if len(distinct) <= 64:     # a few keys (a loop's sites): the positions of each in turn
        for v in distinct:
            at = np.flatnonzero(keys == v)
            out[at[:-1]] = at[1:]
    else:
        at = np.argsort(keys, kind="stable")    # positions grouped by key, ascending in each
        same = keys[at[1:]] == keys[at[:-1]]
        out[at[:-1][same]] = at[1:][same]
    return memoryview(out)


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


_NONE_SIG, _LEAF_SIG, _EXT_SIG = ("N",), ("L",), ("e",)


def inputs_reader(nodes):
    """``inputs_of(id)``: node ``id``'s inputs, without building a folded record
    (``NodeList.inputs_of``) when ``nodes`` is a folded node list."""
    return getattr(nodes, "inputs_of", None) or (lambda c: nodes[c].inputs)


def stored_records(nodes, ids=None):
    """Per node id, a record with every field of ``nodes[id]`` but ``id`` and ``inputs``:
    a repeated record of a folded node list (autotrace/folding.py) is read from the one
    it repeats, without rebuilding it. ``ids``: the ids that will be read, when they are
    few (a training loop's last graph among all its steps' records): the records are
    then looked up one by one instead of listed for every node."""
    each = getattr(nodes, "templates", None)
    if each is None:
        return nodes
    if ids is not None and len(ids) * 8 < len(nodes):
        return _Stored(nodes.template, len(nodes))
    return each()


class _Stored:
    """:func:`stored_records` as a lookup: ``[i]`` and ``[a:b]`` read ``template(i)``."""

    __slots__ = ("_template", "_n")

    def __init__(self, template, n):
        self._template, self._n = template, n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i):
        if isinstance(i, slice):
            return list(map(self._template, range(*i.indices(self._n))))
        return self._template(i)


def _consistent(recs, inputs_of, order, st, p, count, segment_of=None, sigs=None, plain=None) -> int:
    """How many leading repetitions of the ``count`` ones of length ``p`` from position
    ``st`` of ``order`` are wired alike (the first may differ where the later ones take
    the carried state: it starts from an initial value). ``order`` is ascending;
    ``recs``: :func:`stored_records`; ``inputs_of(id)``: the node's inputs.

    ``segment_of(id)`` (``NodeList.segment_of``) and the dict ``sigs`` let signatures be
    shared: a signature over consecutive ids that lie inside one folded stretch is a
    function of the ids it repeats (ids inside the stretch's template shift with it, those
    before it stay and are outside both repetitions), so it is kept under those ids and
    computed once for all the copies of a training loop's step. ``plain(a, b)``: no id in
    ``a .. b`` is a folded copy; past :data:`_MANY` repetitions over such consecutive ids
    they are compared as arrays (:func:`_alike_many`)."""
    if count < 2:
        return count

    def sig(k):
        """_signature of repetition k against repetition k - 1 (none for k == 0): the
        positions of inputs inside either, found by subtraction where those positions
        hold consecutive ids (the usual case), else by bisection."""
        lo = st + k * p
        hi = lo + p
        plo = lo - p if k else hi
        first = plo if k else lo
        consecutive = order[hi - 1] - order[first] == hi - 1 - first
        base = order[lo]
        back = -p if k else 0
        key = None
        if consecutive and segment_of is not None:
            seg = segment_of(order[first])
            if seg is not None:
                last = order[hi - 1]
                if last < seg[1]:
                    key = (base - (seg[0] - seg[2]), p, back)
                elif (nxt := segment_of(seg[1])) is not None and nxt[0] == seg[1] \
                        and nxt[2] == seg[2] and last < nxt[1]:
                    # across the boundary of two copies of one step: the same argument, the
                    # pair of copies standing for the template followed by its next copy
                    key = (base - (seg[0] - seg[2]), p, back, True)
                if key is not None:
                    got = sigs.get(key)
                    if got is not None:
                        return got
        out = []
        for q in range(lo, hi):
            s = []
            for i, nr in inputs_of(order[q]):
                if i is None:
                    s.append(_NONE_SIG)
                    continue
                if consecutive:
                    off = i - base
                    if 0 <= off < p:
                        s.append(("i", off, nr))
                        continue
                    if back <= off < 0:
                        s.append(("p", off + p, nr))
                        continue
                else:
                    j = bisect_left(order, i, lo, hi)
                    if j < hi and order[j] == i:
                        s.append(("i", j - lo, nr))
                        continue
                    j = bisect_left(order, i, plo, lo)
                    if j < lo and order[j] == i:
                        s.append(("p", j - plo, nr))
                        continue
                s.append(_LEAF_SIG if recs[i].is_leaf else _EXT_SIG)
            out.append(tuple(s))
        if key is not None:
            sigs[key] = out
            sigs[id(out)] = True    # a shared signature: kept alive here, so its id is its own
        return out

    base = sig(1)
    first = sig(0)
    # whether the first repetition is wired like the next (but for the carried state):
    # a function of the two signatures, kept with them when both are shared
    pair = (id(first), id(base)) if sigs is not None and id(first) in sigs and id(base) in sigs else None
    alike = sigs.get(pair) if pair is not None else None
    if alike is None:
        alike = all(len(a) == len(b) and all(x == y or y[0] == "p" for x, y in zip(a, b))
                    for a, b in zip(first, base))
        if pair is not None:
            sigs[pair] = alike
    if not alike:
        return 1
    end = st + count * p
    if count - 2 >= _MANY and order[end - 1] - order[st] == end - 1 - st \
            and (plain is None or plain(order[st], order[end - 1])):
        got = _alike_many(recs, order, st, p, count, base)
        if got is not None:
            return got
    k = 2
    while k < count:
        if sig(k) != base:
            break
        k += 1
    return k


_MANY = 64      # repetitions past which _consistent compares them all at once
_CODES = {"N": 0, "i": 1, "p": 2, "L": 3, "e": 4}
_INF = float("inf")
_NAN_IF_NONE = {None: float("nan")}     # _NAN_IF_NONE.get(x, x): x, or nan for None


def _alike_many(recs, order, st, p, count, base):
    """For repetitions over consecutive ids, none a folded copy: the first repetition
    k >= 2 whose signature is not ``base`` (or ``count``; None when ``base`` has no inputs
    to compare). :func:`_consistent`'s per-repetition ``sig(k) != base`` as array
    comparisons, on runs of repetitions that double in length (a mismatch found early
    costs little)."""
    arity = np.array([len(s) for s in base], dtype=np.int64)
    want = [(_CODES[e[0]], e[1], e[2]) if len(e) == 3 else (_CODES[e[0]], 0, 0) for s in base for e in s]
    if not want:        # nothing to compare by arrays (repetitions of nodes without inputs)
        return None
    row = np.array(want, dtype=np.float64).T        # code, value, output index
    k, step = 2, 8
    while k < count:
        stop = min(count, k + step)
        got = _alike_run(recs, order, st, p, k, stop, arity, row)
        if got < stop:
            return got
        k, step = stop, step * 2
    return count


def _alike_run(recs, order, st, p, k0, k1, arity, row) -> int:
    """:func:`_alike_many` on repetitions ``k0 .. k1 - 1``. An input is coded as in the
    signature: none (0), inside the repetition (1, offset, output index), in the one
    before it (2, offset, output index), a leaf (3) or another node (4)."""
    width = row.shape[1]
    a = order[st + k0 * p]      # consecutive ids, none a folded copy: the records as stored
    ins = list(map(_inputs, recs[a:a + (k1 - k0) * p]))
    counts = np.fromiter(map(len, ins), dtype=np.int64, count=len(ins)).reshape(k1 - k0, p)
    bad = np.flatnonzero((counts != arity).any(axis=1))
    m = int(bad[0]) if len(bad) else k1 - k0        # these repetitions have base's arity
    # the (id, output index) pairs as one stream of numbers, None as nan
    flat = list(chain.from_iterable(chain.from_iterable(ins[:m * p])))
    pairs = np.fromiter(map(_NAN_IF_NONE.get, flat, flat), np.float64, len(flat)).reshape(-1, 2)
    ids, nrs = pairs[:, 0], pairs[:, 1]
    off = ids - np.repeat(order[st] + (np.arange(k0, k0 + m, dtype=np.float64)) * p, width)
    code = np.full(len(ids), 4.0)
    inside = (off >= 0) & (off < p)
    before = (off >= -p) & (off < 0)
    none = np.isnan(ids)
    code[inside] = 1
    code[before] = 2
    code[none] = 0
    other = ~(inside | before | none)
    if other.any():
        outside = np.unique(ids[other]).astype(np.int64)
        leaf = np.array([bool(recs[int(i)].is_leaf) for i in outside])
        code[other] = np.where(leaf[np.searchsorted(outside, ids[other].astype(np.int64))], 3, 4)
    val = np.where(inside, off, np.where(before, off + p, 0.0))
    nrs[~(inside | before)] = 0
    differ = ((code.reshape(m, width) != row[0]) | (val.reshape(m, width) != row[1])
              | (nrs.reshape(m, width) != row[2])).any(axis=1)
    first = np.flatnonzero(differ)
    return k0 + (int(first[0]) if len(first) else m)
