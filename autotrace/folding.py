"""Lossless folding of the records of a long training loop.

A loop like ``for step in range(10_000): loss = f(params); loss.backward()`` builds the
same graph at every step. Kept as separate records, its node and step records grow by
about 0.2 MiB a step, while PyTorch (whose graphs are freed) stays flat. When a
recorder does not keep values (``run``, ``run --json``, ``check``, ``graph`` without
``--values``), a step's records carry no numbers, so a range of node records that
repeats an earlier range exactly, up to a shift of the ids, can be stored as a reference
to that earlier range, and a pass whose steps repeat an earlier pass's the same way as a
reference to that pass. Reading a folded record builds it again, equal to the original
field for field; the public shape stays: ``trace.nodes[i]`` is a :class:`NodeRecord`
with ``id == i``, ``len``/iteration/slicing work, ``pass.steps`` is a sequence of
:class:`StepRecord`.

What is folded, when: at the end of backward pass ``k`` (so after its graph is normally
gone), the nodes created between the ends of passes ``k - 2`` and ``k - 1`` and the steps
of pass ``k - 1``, when they match the first range/pass of their run of identical
ranges field for field (ids inside the range shifted, ids outside it the same). Anything
that differs (a Python number that changes with the loop counter, a different branch)
stays a plain record. Folded records are rebuilt objects: a record changed after it was
folded (a variable bound to a tensor of an old step) keeps the earlier field value.
"""

from __future__ import annotations

from bisect import bisect_right
from operator import attrgetter

from .record import BareSteps, NodeRecord, StepRecord

_INPUTS = attrgetter("inputs")


class NodeList:
    """``Recorder.nodes``: a list of :class:`NodeRecord` in which repeated ranges are
    stored as references (see the module docstring)."""

    __slots__ = ("_items", "_starts", "_segments")

    def __init__(self):
        self._items: list = []       # NodeRecord, or None where folded
        self._starts: list = []      # start of each folded segment, ascending
        self._segments: list = []    # (start, stop, template start, template stop)

    def append(self, rec) -> None:
        self._items.append(rec)

    def __len__(self) -> int:
        return len(self._items)

    def __bool__(self) -> bool:
        return bool(self._items)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self._items)))]
        r = self._items[i]
        if r is None:
            i, (start, stop, t0, t1) = self._segment(i)
            r = _shifted_node(self._items[t0 + i - start], start - t0, t0, t1)
        return r

    def _segment(self, i):
        """``(i, (start, stop, t0, t1))`` for folded record ``i`` (made non-negative) and
        the folded segment holding it."""
        if i < 0:
            i += len(self._items)
        return i, self._segments[bisect_right(self._starts, i) - 1]

    def __iter__(self):
        items = self._items
        for i, r in enumerate(items):
            yield r if r is not None else self[i]

    def template(self, i):
        """The stored record that record ``i`` is or repeats: every field but ``id`` and
        ``inputs`` is record ``i``'s own (do not change it)."""
        r = self._items[i]
        if r is None:
            i, (start, _, t0, _) = self._segment(i)
            r = self._items[t0 + i - start]
        return r

    def inputs_of(self, i) -> tuple:
        """``self[i].inputs``, without building a folded record."""
        r = self._items[i]
        if r is not None:
            return r.inputs
        i, (start, _, t0, t1) = self._segment(i)
        d = start - t0
        return tuple([(j + d if j is not None and t0 <= j < t1 else j, nr)
                      for j, nr in self._items[t0 + i - start].inputs])

    def inputs_between(self, a, b) -> list:
        """``[self.inputs_of(i) for i in range(a, b)]``, the stored records' read in one
        C-level pass per stretch."""
        out = []
        items = self._items
        for start, stop, t0 in self.stretches():
            lo, hi = max(a, start), min(b, stop)
            if lo < hi:
                out.extend(map(_INPUTS, items[lo:hi]) if t0 == start else map(self.inputs_of, range(lo, hi)))
        return out

    def iter_inputs(self):
        """``self[i].inputs`` for every record in id order, in one pass (no bisection per
        folded record)."""
        items = self._items
        i, n = 0, len(items)
        for start, stop, t0, t1 in self._segments:
            while i < start:
                yield items[i].inputs
                i += 1
            d = start - t0
            for r in items[t0:t0 + (stop - start)]:
                yield tuple([(j + d if j is not None and t0 <= j < t1 else j, nr) for j, nr in r.inputs])
            i = stop
        while i < n:
            yield items[i].inputs
            i += 1

    def templates(self) -> list:
        """``[self.template(i) for i in range(len(self))]``, built a stretch at a time."""
        out = list(self._items)
        items = self._items
        for start, stop, t0, t1 in self._segments:
            out[start:stop] = items[t0:t1]
        return out

    def segment_of(self, i):
        """``(start, stop, t0)`` of the folded stretch holding id ``i`` (records ``start ..
        stop - 1`` repeat records ``t0 ..`` shifted by ``start - t0``), or None when record
        ``i`` is stored as it is."""
        if self._items[i] is not None:
            return None
        return self._segment(i)[1][:3]

    def stretches(self) -> list:
        """``(start, stop, t0)`` for consecutive stretches covering every id: records
        ``start .. stop - 1`` repeat records ``t0 ..`` with ids inside that range shifted by
        ``start - t0`` (``t0 == start``: stored as they are)."""
        out = []
        i = 0
        for start, stop, t0, _ in self._segments:
            if i < start:
                out.append((i, start, i))
            out.append((start, stop, t0))
            i = stop
        if i < len(self._items):
            out.append((i, len(self._items), i))
        return out

    def stored(self) -> list:
        """The stored records by id, None where folded (the list itself: do not change it)."""
        return self._items

    def real(self, i):
        """The stored record at ``i`` (None where folded); a list of them for a slice."""
        return self._items[i]

    def fold(self, start: int, stop: int, t0: int) -> None:
        self._items[start:stop] = [None] * (stop - start)
        self._starts.append(start)
        self._segments.append((start, stop, t0, t0 + (stop - start)))


class FoldedSteps:
    """``PassRecord.steps`` of a folded pass: the template pass's steps, node ids shifted."""

    __slots__ = ("_template", "_delta", "_lo", "_hi")

    def __init__(self, template, delta, lo, hi):
        self._template, self._delta, self._lo, self._hi = template, delta, lo, hi

    def __len__(self) -> int:
        return len(self._template)

    def __bool__(self) -> bool:
        return bool(self._template)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self._template)))]
        return _shifted_step(self._template[i], self._delta, self._lo, self._hi)

    def __iter__(self):
        d, lo, hi = self._delta, self._lo, self._hi
        for s in self._template:
            yield _shifted_step(s, d, lo, hi)

    def append(self, step):  # pragma: no cover - a folded pass is finished
        raise RuntimeError("a folded pass record takes no new steps")


def _shift(j, delta, lo, hi):
    return j + delta if j is not None and lo <= j < hi else j


def _shifted_node(t: NodeRecord, delta, lo, hi) -> NodeRecord:
    r = _new_node(NodeRecord)
    r.id = t.id + delta
    r.inputs = tuple([(j + delta if j is not None and lo <= j < hi else j, nr) for j, nr in t.inputs])
    r.name, r.site = t.name, t.site
    r.shape, r.dtype, r.var_name, r.saved, r.is_leaf, r.op = t.shape, t.dtype, t.var_name, t.saved, t.is_leaf, t.op
    r.leaf_value, r.leaf_grad, r.value, r.attrs, r.scalars = t.leaf_value, t.leaf_grad, t.value, t.attrs, t.scalars
    return r


_new_node = NodeRecord.__new__


def _shifted_step(t: StepRecord, delta, lo, hi) -> StepRecord:
    return StepRecord(_shift(t.node, delta, lo, hi), list(t.grad_in), list(t.grads_out))


def _same_value(a, b) -> bool:
    if a is b:
        return True
    if a.__class__ is not b.__class__:
        return False
    if isinstance(a, float):
        return repr(a) == repr(b)  # -0.0 and 0.0 differ; nan never folds
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b))
    return a == b


def _same_mapping(a, b) -> bool:
    if a is b:
        return True
    if len(a) != len(b):
        return False
    for k, v in a.items():
        if k not in b or not _same_value(v, b[k]):
            return False
    return True


def _nodes_match(rs: list, ts: list, delta, lo, hi) -> bool:
    """Whether each record ``rs[k]`` repeats ``ts[k]`` (lists of one length): neither keeps
    a number, every field but ``id`` is the same, input ids in ``[lo, hi)`` shifted by
    ``delta``. One loop without a call per record or input (this runs after every pass)."""
    for r, t in zip(rs, ts):
        if r.value is not None or r.leaf_value is not None or r.leaf_grad is not None \
                or t.value is not None or t.leaf_value is not None or t.leaf_grad is not None:
            return False
        # the fields (not ``name``: it is ``op.node``; a Site compares line, col, text and
        # statement) hold strings, bools, None, tuples of ints or strings, the op and the
        # site, never floats (where 0.0 == -0.0); each read inline (3.11's slot reads are
        # quicker than attrgetter's)
        if r.op is not t.op or r.shape != t.shape or r.dtype != t.dtype or r.var_name != t.var_name \
                or r.saved != t.saved or r.is_leaf is not t.is_leaf:
            return False
        a, b = r.site, t.site
        if a is not b and a != b:
            return False
        a, b = r.attrs, t.attrs
        if a is not b and not _same_mapping(a, b):
            return False
        a, b = r.scalars, t.scalars
        if a is not b and not _same_mapping(a, b):
            return False
        # (id, output index) pairs of ints (or None for the id): equal as tuples; one and two
        # inputs (nearly every record) without building a list
        ri, ti = r.inputs, t.inputs
        n = len(ti)
        if n == 2:
            (j, nj), (k, nk) = ti
            if j is not None and lo <= j < hi:
                j += delta
            if k is not None and lo <= k < hi:
                k += delta
            if ri != ((j, nj), (k, nk)):
                return False
        elif n == 1:
            (j, nj), = ti
            if j is not None and lo <= j < hi:
                j += delta
            if ri != ((j, nj),):
                return False
        elif ri != tuple([(j + delta if j is not None and lo <= j < hi else j, nr) for j, nr in ti]):
            return False
    return True


def _steps_match(ss, ts, delta, lo, hi) -> bool:
    """Whether each step ``ss[k]`` repeats ``ts[k]`` (sequences of one length): the node
    id shifted as in :func:`_nodes_match`, no gradient, ``.grad`` or fan-in kept, the same
    number of edges."""
    if ss.__class__ is BareSteps and ts.__class__ is BareSteps:
        return ss.outs == ts.outs and ss.edges == ts.edges and ss.nodes == [
            j + delta if j is not None and lo <= j < hi else j for j in ts.nodes]
    for s, t in zip(ss, ts):
        j = t.node
        if j is not None and lo <= j < hi:
            j += delta
        if s.node != j:
            return False
        if s.before is not None or s.after is not None or s.fan_in is not None \
                or t.before is not None or t.after is not None or t.fan_in is not None:
            return False
        a, b, c, d = s.grad_in, t.grad_in, s.grads_out, t.grads_out
        if len(a) != len(b) or len(c) != len(d):
            return False
        for g in a:
            if g is not None:
                return False
        for g in b:
            if g is not None:
                return False
        for g in c:
            if g is not None:
                return False
        for g in d:
            if g is not None:
                return False
    return True


class Folder:
    """Decides what to fold after each backward pass (see the module docstring)."""

    __slots__ = ("marks", "template")

    def __init__(self):
        self.marks = [(-1, 0)]  # (pass index, len(nodes)) at the end of each pass
        self.template = None    # (node start, node stop, pass record) of the current run

    def pass_done(self, rec) -> None:
        """Called by the engine when a backward pass ends (also when it raised)."""
        self.marks.append((len(rec.passes) - 1, len(rec.nodes)))
        if len(self.marks) < 3:
            return
        (k0, start), (k, stop) = self.marks[-3], self.marks[-2]
        p = rec.passes[k] if 0 <= k < len(rec.passes) else None
        if p is None or k != k0 + 1 or not self._fold(rec, start, stop, p):
            self.template = (start, stop, p) if p is not None and p.error is None else None

    def _fold(self, rec, start, stop, p) -> bool:
        t = self.template
        if t is None or p.error is not None or not isinstance(p.steps, (list, BareSteps)):
            return False
        t0, t1, tp = t
        if stop - start != t1 - t0 or stop == start or len(p.steps) != len(tp.steps) or tp.error is not None:
            return False
        delta = start - t0
        nodes = rec.nodes
        rs, ts = nodes.real(slice(start, stop)), nodes.real(slice(t0, t1))
        if None in rs or None in ts or not _nodes_match(rs, ts, delta, t0, t1):
            return False
        if not _steps_match(p.steps, tp.steps, delta, t0, t1):
            return False
        if [_shift(r, delta, t0, t1) for r in tp.roots] != list(p.roots) \
                or [_shift(r, delta, t0, t1) for r in tp.inputs] != list(p.inputs):
            return False
        nodes.fold(start, stop, t0)
        p.steps = FoldedSteps(tp.steps, delta, t0, t1)
        return True
