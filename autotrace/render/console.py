"""Console view of a run: the script's own output, a rule, the tables of its tensors and
a tree of each output's grad_fn chain (rich; plain text when piped or --no-color, laid
out the same way).

The layout does not change with the width: the tables wrap inside their cells (never
inside a ``grad_fn`` name), and the tree never breaks a line — a label too long for its
line loses the end of its source expression (``…``), never part of the node's name;
where the tree stops deepening it says how many levels are left (``… 12 more levels
(use --depth / explain)``). Loop bodies the script ran many times, and long chains of
one op, are shown once and say what was folded.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from itertools import chain
from operator import attrgetter, itemgetter

from ..messages import text as _t
from ..trace import Trace
from .notation import WHOLE, array_text, non_finite, shape_text, summary_text

DEPTH = 12          # levels of the grad_fn tree shown by default
MAX_LINES = 400     # lines of one grad_fn tree
NOTE_ROOM = 44      # columns the deepest tree line keeps for its "… N more levels" note
CHAIN = 4           # a chain of at least this many nodes of one op is folded


def short_array(a, dtype: str | None = None, limit: int = WHOLE) -> str:
    """A compact one-line rendering: PyTorch's numbers for small arrays, shape and a
    summary for large ones (the notation of :mod:`autotrace.render.notation`)."""
    return array_text(a, dtype, whole=limit)


def run_report(trace: Trace, console, err_console=None, depth: int | None = None) -> None:
    """The report on ``console``; warnings (diagnostics) on ``err_console`` when given.
    ``depth``: levels of each grad_fn tree (default :data:`DEPTH`)."""
    from rich.rule import Rule
    from rich.text import Text

    if trace.stdout:
        from ..interpreter.errors import visible
        console.out(visible(trace.stdout), end="" if trace.stdout.endswith("\n") else "\n",
                    highlight=False)  # rich would drop BEL and CR silently
    if trace.warnings:
        for w in trace.warnings:
            where = _t("run.warning_line", line=w["line"]) if w.get("line") else ""
            (err_console or console).print(Text(_t("run.warning", where=where, category=w["category"],
                                                   message=w["message"]), style="yellow"))

    tensors = [v for v in trace.variables.values() if v.kind == "tensor"]
    tensors += list(getattr(trace, "parameters", {}).values())   # model.fc1.weight, ...
    roots = _output_roots(trace)
    if trace.stdout and (tensors or roots):
        console.print(Rule("autotrace", style="dim", characters="\u2500", align="left"))
    if tensors:
        console.print(_tensor_table(tensors))
        console.print(_value_table(tensors))

    if roots:
        console.print(Text(_t("run.chains"), style="bold"))
        tree = _Tree(trace, console.width, depth if depth is not None else DEPTH, [c for _, c in roots])
        for name, node_id in roots:
            for text, style in tree.lines(name, node_id):
                console.print(Text(text, style=style or ""), no_wrap=True, overflow="crop", crop=True)


def _table(title):
    from rich import box
    from rich.cells import cell_len
    from rich.table import Table

    return Table(title=title, title_justify="left", title_style="bold", box=box.SIMPLE_HEAD,
                 padding=(0, 1), pad_edge=False, collapse_padding=True, show_edge=False,
                 min_width=cell_len(title))


def _tensor_table(tensors):
    table = _table(_t("run.tensors"))
    for col in ("name", "shape", "dtype", "requires_grad", "is_leaf", "grad_fn"):
        # a grad_fn name is never broken; long variable names wrap inside their cell
        table.add_column(_t("run.col." + col), overflow="fold", no_wrap=col in ("grad_fn", "dtype"))
    for v in tensors:
        table.add_row(v.name, shape_text(v.shape), v.dtype, str(v.requires_grad), str(v.is_leaf),
                      v.grad_fn or "None")
    return table


def _value_table(tensors):
    from rich.text import Text

    table = _table(_t("run.values"))
    table.add_column(_t("run.col.name"), overflow="fold")
    table.add_column(_t("run.col.value"), overflow="fold")
    table.add_column(_t("run.col.grad"), overflow="fold")
    for v in tensors:
        if v.value is not None:
            value = short_array(v.value, v.dtype)
            bad = non_finite(v.value)
        else:
            value = summary_text(v.shape, v.summary)
            bad = non_finite(v.summary)
        grad = short_array(v.grad, v.dtype) if v.grad is not None else "None"
        # nan and inf never look like a good result
        table.add_row(v.name, Text(value, style="bold red" if bad else ""),
                      Text(grad, style="bold red" if non_finite(v.grad) else ""))
    return table


def _output_roots(trace: Trace):
    """Variables whose grad_fn no other recorded node points at: the graph's outputs."""
    nodes = trace.nodes
    named = [(v.name, v.node) for v in trace.variables.values()
             if v.kind == "tensor" and v.grad_fn is not None and v.node is not None]
    unconsumed = {c for _, c in named}
    if not unconsumed:
        return []
    # an input is made before the node that takes it: only nodes after the first of these
    # can consume one
    after = min(unconsumed) + 1
    stretches = getattr(nodes, "stretches", None)
    if stretches is None:
        unconsumed.difference_update(map(_first, chain.from_iterable(map(_inputs, nodes[after:]))))
    else:
        # a repeated stretch consumes what the stretch it repeats does, shifted: one set of
        # input ids per stored stretch, not a rebuilt record per node (a stretch stored as
        # it is, or the one a repeated stretch repeats, is read as stored)
        real = nodes.real
        used = {}
        for start, stop, t0 in stretches():
            if stop <= after:
                continue
            if t0 == start:
                unconsumed.difference_update(map(_first, chain.from_iterable(
                    map(_inputs, real(slice(max(start, after), stop))))))
                continue
            t1 = t0 + (stop - start)
            ids = used.get((t0, t1))
            if ids is None:
                ids = used[(t0, t1)] = set(map(_first, chain.from_iterable(map(_inputs, real(slice(t0, t1))))))
            d = start - t0
            for u in [u for u in unconsumed if (u in ids and not t0 <= u < t1) or (t0 <= u - d < t1 and u - d in ids)]:
                unconsumed.discard(u)
    return [(name, c) for name, c in named if c in unconsumed]


def _consecutive(ids) -> bool:
    """Whether ``ids`` (ascending) are consecutive."""
    return len(ids) > 0 and ids[-1] - ids[0] == len(ids) - 1


def _id_set(ids):
    """``ids`` (ascending) for ``in``: a range when they are consecutive."""
    return range(ids[0], ids[-1] + 1) if _consecutive(ids) else set(ids)


def _inputs_in(nodes, ids):
    """The inputs of each node of ``ids`` (ascending), read a stretch at a time when the ids
    are consecutive."""
    if _consecutive(ids):
        between = getattr(nodes, "inputs_between", None)
        if between is not None:
            return between(ids[0], ids[-1] + 1)
        return list(map(_inputs, nodes[ids[0]:ids[-1] + 1]))
    from .folds import inputs_reader
    return list(map(inputs_reader(nodes), ids))


_first, _inputs = itemgetter(0), attrgetter("inputs")


def _reachable(nodes, roots) -> array:
    """The ids of the non-leaf nodes reachable from the node ids ``roots`` through their
    inputs, ascending (an int64 array)."""
    from .folds import inputs_reader

    inputs_of = inputs_reader(nodes)
    stored = getattr(nodes, "stored", None)
    # the stored records (None where folded) read directly: most are stored as they are
    items = stored() if stored is not None else nodes
    seen = set(roots)
    stack = list(seen)
    pop, push, add = stack.pop, stack.append, seen.add
    while stack:
        c = pop()
        r = items[c]
        for i, _ in (r.inputs if r is not None else inputs_of(c)):
            if i is not None and i not in seen:
                add(i)
                push(i)
    record = getattr(nodes, "template", nodes.__getitem__)    # a folded list's stored record
    return array("q", sorted([c for c in seen if not (items[c] or record(c)).is_leaf]))


class _Tree:
    """The grad_fn tree below an output, as lines of text with guides (``├── ``)."""

    def __init__(self, trace, width, depth, roots):
        from .folds import find_folds, innermost_calls

        self.trace = trace
        self.width = max(int(width or 80), 40)
        # deep levels eat the line: keep room for a node name
        self.depth = max(1, min(depth, (self.width - NOTE_ROOM) // 4))
        self.asked_depth = depth
        self._heights = {}      # longest path of inputs below a node, worked out when shown
        # loop bodies are looked for among the nodes the trees can show: a training loop's
        # last graph, not the graphs of every step before it (freed in PyTorch)
        order = _reachable(trace.nodes, roots)
        self.folds = find_folds(trace, order, innermost_calls(trace))
        self.fold_of = _FoldIndex(order, self.folds)

    def height(self, c):
        """The longest path of inputs below node ``c`` (0 for a node without inputs),
        following inputs made before their node."""
        memo = self._heights
        got = memo.get(c)
        if got is not None:
            return got
        from .folds import inputs_reader
        inputs_of = inputs_reader(self.trace.nodes)
        stack = [c]
        while stack:
            x = stack[-1]
            if x in memo:
                stack.pop()
                continue
            below = [i for i, _ in inputs_of(x) if i is not None and i < x]
            todo = [i for i in below if i not in memo]
            if todo:
                stack.extend(todo)
                continue
            memo[x] = max([memo[i] + 1 for i in below], default=0)
            stack.pop()
        return memo[c]

    def _label(self, c, room):
        """The node's label cut to ``room`` columns: the name part whole, the source
        expression shortened."""
        n = self.trace.nodes[c]
        if n.is_leaf:
            head = f"AccumulateGrad \u2192 {n.var_name or _t('run.tree.leaf')} {shape_text(n.shape)}"
            tail = ""
        else:
            head = n.name + (f" \u2192 {n.var_name}" if n.var_name else "")
            tail = ""
            if n.text:
                tail = "   " + _t("run.tree.where", expr=" ".join(str(n.text).split()), line=n.line)
            elif n.line:
                tail = "   " + _t("run.tree.line", line=n.line)
        return _fit(head, tail, room)

    def lines(self, name, root):
        """(text, style) lines of the tree of output ``name`` (node ``root``)."""
        nodes = self.trace.nodes
        out = [(name, None)]
        seen = set()
        noted_folds = set()
        left_out = 0
        # (kind, payload, prefix, level, branch, continuation)
        stack = [("node", root, "", 1, "\u2514\u2500\u2500 ", "    ")]
        while stack:
            kind, c, pre, level, branch, cont = stack.pop()
            room = self.width - len(pre) - len(branch)
            if len(out) >= MAX_LINES:
                left_out += 1
                continue
            if kind == "fold":
                fold, earlier = c
                where = fold.lines_text()
                out.append((pre + branch + _fit(
                    _t("run.tree.fold", count=earlier),
                    _t("run.tree.fold_body_at", count=fold.count, where=where) if where
                    else _t("run.tree.fold_body", count=fold.count), room), "dim"))
                # what fed those iterations from outside the loop body (and not the one shown)
                inside = _id_set(fold.reps.ids(fold.count))
                shown = {i for x in fold.reps[earlier] for i, _ in nodes[x].inputs}
                fed = dict.fromkeys(map(_first, chain.from_iterable(_inputs_in(nodes, fold.reps.ids(earlier)))))
                ext = [i for i in fed if i is not None and i not in inside and i not in shown and i not in seen]
                for k in range(len(ext) - 1, -1, -1):
                    last = k == len(ext) - 1
                    b, cn = ("\u2514\u2500\u2500 ", "    ") if last else ("\u251c\u2500\u2500 ", "\u2502   ")
                    stack.append(("node", ext[k], pre + cont, level + 1, b, cn))
                continue
            if c is None:
                out.append((pre + branch + _t("run.tree.none"), "dim"))
                continue
            if c in seen:
                out.append((pre + branch + _fit(self._short_name(c), _t("run.tree.shown_above"), room), "dim"))
                continue
            seen.add(c)
            n = nodes[c]
            run = self._chain(c)
            if len(run) >= CHAIN:
                # a chain of one op: one line that says how long it is
                seen.update(run)
                ls = sorted({nodes[x].line for x in run if nodes[x].line})
                where = (_t("label.line", line=ls[0]) if len(ls) == 1
                         else _t("graph.lines", first=ls[0], last=ls[-1])) if ls else ""
                out.append((pre + branch + _fit(f"{n.name} \u00d7{len(run)}",
                                                "   " + (_t("run.tree.chain_at", where=where) if where
                                                         else _t("run.tree.chain")), room), None))
                c = run[-1]
                n = nodes[c]
            else:
                out.append((pre + branch + self._label(c, room), None))
            child_pre = pre + cont
            kids = [i for i, _ in n.inputs]
            if level >= self.depth and kids:
                more = self.height(c)
                out.append((child_pre + "\u2514\u2500\u2500 " + _t("run.tree.levels", count=more), "dim"))
                continue
            entries = []
            here = self.fold_of.get(c)
            for i in kids:
                f = self.fold_of.get(i) if i is not None else None
                if here is not None and f is not None and f[0] == here[0] and f[1] != here[1]:
                    # into an earlier iteration of the loop body: the rest of the loop is folded
                    if here[0] not in noted_folds:
                        noted_folds.add(here[0])
                        fold = self.folds[here[0]]
                        seen.update(fold.reps.ids(here[1]))
                        entries.append(("fold", (fold, here[1])))
                    continue
                entries.append(("node", i))
            for k in range(len(entries) - 1, -1, -1):
                last = k == len(entries) - 1
                b, cn = ("\u2514\u2500\u2500 ", "    ") if last else ("\u251c\u2500\u2500 ", "\u2502   ")
                stack.append((entries[k][0], entries[k][1], child_pre, level + 1, b, cn))
        if left_out:
            out.append((_t("run.tree.left_out", count=left_out), "dim"))
        return out

    def _short_name(self, c):
        n = self.trace.nodes[c]
        if n.is_leaf:
            return f"AccumulateGrad \u2192 {n.var_name or _t('run.tree.leaf')}"
        return n.name + (f" \u2192 {n.var_name}" if n.var_name else "")

    def _chain(self, c):
        """``c`` and the nodes below it while each has one input, of the same op as ``c``,
        consumed by nothing else, and not part of a folded loop body."""
        nodes = self.trace.nodes
        if c in self.fold_of or nodes[c].is_leaf:
            return [c]
        run = [c]
        name = nodes[c].name
        while True:
            ins = [i for i, _ in nodes[run[-1]].inputs if i is not None]
            if len(ins) != 1:
                break
            i = ins[0]
            if nodes[i].name != name or i in self.fold_of or nodes[i].var_name:
                break
            run.append(i)
        return run


class _FoldIndex:
    """``get(c)``: (index of the fold, repetition) of node ``c``, or None when ``c`` is in
    no folded loop body; ``c in index``. Looked up in ``order``, the ascending ids the
    folds were found among, instead of a table entry per node."""

    def __init__(self, order, folds):
        self.order = order
        self.starts = [f.reps.start for f in folds]
        self.folds = folds

    def get(self, c):
        order = self.order
        pos = bisect_left(order, c)
        if pos == len(order) or order[pos] != c:
            return None
        fi = bisect_right(self.starts, pos) - 1
        if fi < 0:
            return None
        reps = self.folds[fi].reps
        k = (pos - reps.start) // reps.period
        return (fi, k) if k < reps.count else None

    def __contains__(self, c):
        return self.get(c) is not None


def _fit(head: str, tail: str, room: int) -> str:
    """``head + tail`` in ``room`` columns: the tail shortened with ``…`` first; the head
    is never cut (a line that is too narrow for it is cropped by the console)."""
    from rich.cells import cell_len
    if cell_len(head) + cell_len(tail) <= room:
        return head + tail
    keep = room - cell_len(head) - 1
    if keep >= 8:
        cut, used = [], 0
        for ch in tail:       # by columns: a CJK character takes two
            used += cell_len(ch)
            if used > keep:
                break
            cut.append(ch)
        return head + "".join(cut) + "\u2026"
    return head
