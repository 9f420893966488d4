"""What a picture of the graph shows, before any drawing: the shared half of the DOT and
Mermaid views (and of ``run``'s folded grad_fn tree).

From a :class:`~autotrace.trace.Trace` it decides

* **which nodes**: everything, the graph behind ``--of NAME``, or one backward pass's
  graph. When the script built a graph of its own for each of several backward passes
  (a training loop), one pass is drawn by default — the last — and :attr:`Layout.notes`
  says which and how to pick another (``--pass N``) or all (``--all-passes``);
* **loop bodies**: a stretch of nodes that the same script sites (and module) created
  again and again, each repetition wired like the one before (the carried state feeds
  the next), is drawn once as a cluster marked ``×30`` (:mod:`autotrace.render.folds`);
* **module clusters**: the nodes each ``nn.Module`` call created, grouped under the
  module's name and class (``model.0 · Linear``); ``--depth N`` draws calls nested N deep
  as one box each, like torchview's ``depth``;
* chains of identical single-input nodes outside loops, collapsed into one box; and
  ``max_nodes``, the units nearest the outputs.

Everything is keyed by node ids (creation order), so the result is deterministic.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

from ..messages import text as _t
from .folds import Fold, find_folds, innermost_calls  # noqa: F401  (Fold is part of the layout's API)

MAX_PERIOD = 4          # collapse repeating patterns of up to this many node names
MIN_COLLAPSE = 6        # ... covering at least this many nodes
MIN_REPEATS = 3
COLLAPSE_ABOVE = 200    # chain collapsing is on by default for graphs bigger than this


class GraphError(ValueError):
    """The options do not fit the trace (``--of`` names no tensor, ``--pass`` out of range)."""


# -- which nodes -------------------------------------------------------------------------

def reachable(nodes, roots) -> set:
    seen = set()
    stack = [r for r in roots if r is not None]
    while stack:
        c = stack.pop()
        if c in seen:
            continue
        seen.add(c)
        for i, _ in nodes[c].inputs:
            if i is not None and i not in seen:
                stack.append(i)
    return seen


def separate_passes(trace) -> list | None:
    """The node sets of the backward passes when each ran over a graph of its own (no
    non-leaf node shared between two passes; at least two passes), else None."""
    passes = [p for p in trace.passes if p.roots and any(r is not None for r in p.roots)]
    if len(passes) < 2:
        return None
    nodes = trace.nodes
    owner = {}
    sets = []
    for p in passes:
        s = reachable(nodes, p.roots)
        for c in s:
            if nodes[c].is_leaf:
                continue
            if c in owner:
                return None
            owner[c] = p.index
        sets.append((p, s))
    return sets


def _structure(nodes, s) -> tuple:
    return tuple(nodes[c].name for c in sorted(s) if not nodes[c].is_leaf)


# -- the layout ------------------------------------------------------------------------------

@dataclass
class Edge:
    """One drawn edge: from unit ``src`` to unit ``dst``, first made by input ``k`` (node
    ``i``, output ``nr``) of node ``c``; ``own``: ``c`` is drawn itself (its numbers may
    label the edge); ``carry``: the value a loop body hands its next iteration; ``gather``:
    from a folded body to a node outside it, ``count`` times."""

    src: str
    dst: str
    c: int
    k: int
    i: int
    nr: int
    own: bool
    carry: bool = False
    gather: bool = False
    count: int = 1


@dataclass
class Group:
    """A cluster: one module call, or one folded loop body."""

    id: str
    kind: str                 # "module" | "fold"
    lo: int
    hi: int
    call: object = None       # autotrace.record.ModuleCall
    fold: Fold | None = None
    parent: str | None = None
    units: list = field(default_factory=list)
    children: list = field(default_factory=list)

    @property
    def width(self) -> int:
        return self.hi - self.lo


class Layout:
    """Which recorded nodes are drawn, as which box (``unit``), inside which cluster, and
    what was left out (see the module docstring)."""

    def __init__(self, trace, of=None, pass_number=None, all_passes=False, collapse=None,
                 max_nodes=500, depth=None, fold=True):
        self.trace = trace
        nodes = trace.nodes
        self.notes: list[str] = []
        self.names_of: dict[int, list[str]] = {}
        # a module's parameter by its path (model.bias, as explain and run's tree name it)
        # before a script variable that happens to be bound to it (the loop variable of
        # ``for name, p in model.named_parameters()``)
        named = list(getattr(trace, "parameters", {}).values()) + list(trace.variables.values())
        for v in named:
            if v.kind == "tensor" and v.node is not None and 0 <= v.node < len(nodes):
                names = self.names_of.setdefault(v.node, [])
                if v.name not in names:
                    names.append(v.name)

        if pass_number is not None and not 1 <= pass_number <= len(trace.passes):
            raise GraphError(_t("graph.no_pass", number=pass_number, count=len(trace.passes)) if trace.passes
                             else _t("graph.no_pass_at_all", number=pass_number))

        # what to draw: what --of depends on, one pass's graph, or everything recorded
        self.chosen_pass = None          # the pass whose graph (and numbers) are drawn
        if of is not None:
            v = trace.variables.get(of)
            if v is None or v.kind != "tensor":
                raise GraphError(_t("usage.of", name=of, quoted=repr(of)))
            if v.node is None:
                raise GraphError(_t("graph.of_no_graph", name=of))
            included = reachable(nodes, [v.node])
        else:
            included = None
            separate = None if all_passes else separate_passes(trace)
            if separate is not None:
                total = len(trace.passes)
                if pass_number is not None:
                    p = trace.passes[pass_number - 1]
                    match = [s for q, s in separate if q is p]
                    if match:
                        included = match[0]
                        self.chosen_pass = p
                else:
                    p, included = separate[-1]
                    self.chosen_pass = p
                if included is not None:
                    same = sum(1 for _, s in separate if _structure(nodes, s) == _structure(nodes, included))
                    alike = (_t("graph.alike.all") if same == len(separate)
                             else _t("graph.alike.some", count=same))
                    where = _t("graph.drawn.where", line=self.chosen_pass.line) if self.chosen_pass.line else ""
                    self.notes.append(_t("graph.drawn", number=self.chosen_pass.index + 1, total=total,
                                         where=where, alike=alike))
                    rest = len(nodes) - len(included)
                    if rest:
                        self.notes.append(_t("graph.rest", count=rest))
            elif pass_number is not None:
                p = trace.passes[pass_number - 1]
                if not all_passes and p.roots and any(r is not None for r in p.roots):
                    included = reachable(nodes, p.roots)
                self.chosen_pass = p
            if included is None:
                included = set(range(len(nodes)))
        self.included = included

        self.consumers: dict[int, list[int]] = {}
        for c in sorted(included):
            for i, _ in nodes[c].inputs:
                if i is not None and i in included:
                    self.consumers.setdefault(i, []).append(c)

        # outputs: named non-leaf tensors whose node nothing consumes (and the --of root)
        outputs: dict[int, list[str]] = {}
        for v in trace.variables.values():
            if (v.kind == "tensor" and v.node is not None and v.node in included
                    and not nodes[v.node].is_leaf
                    and (v.node not in self.consumers or v.name == of)):
                outputs.setdefault(v.node, []).append(v.name)
        self.outputs = outputs

        # loop bodies, then module boxes (--depth), then chains
        self.call_of = innermost_calls(trace)
        order = sorted(c for c in included if not nodes[c].is_leaf)
        self.folds = find_folds(trace, order, self.call_of) if fold else []
        self.rep_of: dict[int, int] = {}      # folded node -> the drawn node at its offset
        self.fold_of: dict[int, int] = {}     # folded node -> index into self.folds
        self.iteration: dict[int, int] = {}   # folded node -> its repetition (0-based)
        for fi, f in enumerate(self.folds):
            for k, rep in enumerate(f.reps):
                for o, c in enumerate(rep):
                    self.rep_of[c] = f.drawn[o]
                    self.fold_of[c] = fi
                    self.iteration[c] = k

        self.depth = depth
        self.unit_of: dict[int, str] = {}
        self.members: dict[str, list[int]] = {}   # units standing for more than one node
        self.box_call: dict[str, object] = {}      # "m<i>" units: the module call drawn as one box
        self.runs: dict[str, list[int]] = {}       # chains collapsed into one box
        param_home = self._param_homes()
        for c in sorted(included):
            base = self.rep_of.get(c, c)
            unit = f"n{base}"
            if nodes[c].is_leaf:
                home = param_home.get(c)
                box = self._box_of(base, home) if home is not None else None
            else:
                box = self._box_of(base)
            if box is not None:
                unit = f"m{box.index}"
                self.box_call[unit] = box
            self.unit_of[c] = unit
            if unit != f"n{c}" or c in self.rep_of:
                self.members.setdefault(unit, []).append(c)

        self.collapse = collapse if collapse is not None else len(included) > COLLAPSE_ABOVE
        if self.collapse:
            self._collapse()

        # --max-nodes: keep the units nearest the outputs
        units = sorted(set(self.unit_of.values()), key=self._unit_key)
        self.omitted_nodes = 0
        self.kept = set(units)
        if len(units) > max_nodes:
            self.kept = self._nearest(max_nodes)
            self.omitted_nodes = sum(1 for c in included if self.unit_of[c] not in self.kept)
        self.units = [u for u in units if u in self.kept]
        self.omitted_units = len(units) - len(self.units)

        self._groups(param_home)
        if self.folds:
            described = ", ".join(_t("graph.folded.item", count=f.count, where=f.lines_text()) if f.lines
                                  else f"\u00d7{f.count}"
                                  for f in self.folds)
            self.notes.append(_t("graph.folded", described=described))

    # -- units ---------------------------------------------------------------------------

    def _param_homes(self) -> dict:
        """Leaf node -> the module call whose module owns it as a parameter (by name:
        ``model.0.weight`` belongs to ``model.0``): the first call that made drawn nodes
        (in a folded loop, the call in the repetition drawn)."""
        nodes = self.trace.nodes
        drawn = sorted(c for c in self.included if not nodes[c].is_leaf and self.rep_of.get(c, c) == c)
        first_call = {}
        for call in self.trace.module_calls:
            if call.path is not None and call.path not in first_call:
                lo = bisect.bisect_left(drawn, call.start)
                if lo < len(drawn) and drawn[lo] < call.end:
                    first_call[call.path] = call
        out = {}
        for c in self.included:
            n = nodes[c]
            name = (self.names_of.get(c) or [n.var_name])[0] if n.is_leaf else None
            if not name or "." not in name:
                continue
            path = name.rsplit(".", 1)[0]
            if path in first_call:
                out[c] = first_call[path]
        return out

    def _box_of(self, c, home=None):
        """The module call drawn as one box that node ``c`` disappears into (--depth)."""
        if self.depth is None:
            return None
        calls = self.trace.module_calls
        k = self.call_of[c] if home is None else home.index
        box = None
        while k is not None:
            call = calls[k]
            if call.depth >= self.depth:
                box = call
            k = call.parent
        return box

    def _unit_key(self, unit: str):
        m = self.members.get(unit) or self.runs.get(unit)
        if m:
            inner = [c for c in m if not self.trace.nodes[c].is_leaf]
            return (min(inner or m), unit)
        return (int(unit[1:]), unit)

    def nodes_of(self, unit: str) -> list:
        return self.runs.get(unit) or self.members.get(unit) or [int(unit[1:])]

    def _link(self, c):
        """The one input ``c`` continues a chain from, or None."""
        nodes = self.trace.nodes
        n = nodes[c]
        if n.is_leaf or c in self.outputs or self.unit_of[c] != f"n{c}" or c in self.rep_of:
            return None
        ins = [i for i, _ in n.inputs if i is not None and i in self.included]
        if len(ins) != 1:
            return None
        p = ins[0]
        if (nodes[p].is_leaf or p in self.outputs or self.consumers.get(p) != [c]
                or self.unit_of[p] != f"n{p}" or p in self.rep_of or self.call_of[p] != self.call_of[c]):
            return None
        return p

    def _collapse(self):
        nodes = self.trace.nodes
        pred = {}
        for c in sorted(self.included):
            p = self._link(c)
            if p is not None:
                pred[c] = p
        succ = {p: c for c, p in pred.items()}
        for head in sorted(succ):
            if head in pred:
                continue
            chain = [head]
            while chain[-1] in succ:
                chain.append(succ[chain[-1]])
            names = [nodes[c].name for c in chain]
            i = 0
            while i < len(chain):
                best = (0, 0)
                for period in range(1, MAX_PERIOD + 1):
                    pattern = names[i:i + period]
                    if len(pattern) < period:
                        break
                    r = 1
                    while names[i + r * period:i + (r + 1) * period] == pattern:
                        r += 1
                    if r >= MIN_REPEATS and r * period >= MIN_COLLAPSE and r * period > best[0] * best[1]:
                        best = (period, r)
                period, r = best
                if period:
                    members = chain[i:i + period * r]
                    unit = f"n{members[0]}_n{members[-1]}"
                    self.runs[unit] = members
                    for c in members:
                        self.unit_of[c] = unit
                    i += period * r
                else:
                    i += 1

    def _nearest(self, limit: int):
        """Breadth-first from the sinks (newest first) along inputs: the first ``limit`` units."""
        nodes = self.trace.nodes
        sinks = sorted((c for c in self.included if c not in self.consumers or c in self.outputs),
                       reverse=True)
        kept: list[str] = []
        seen_units = set()
        seen = set()
        queue = list(sinks)
        head = 0
        while head < len(queue) and len(kept) < limit:
            c = queue[head]
            head += 1
            if c in seen:
                continue
            seen.add(c)
            u = self.unit_of[c]
            if u not in seen_units:
                seen_units.add(u)
                kept.append(u)
                members = self.nodes_of(u) if (u in self.runs or u in self.members) else [c]
            else:
                members = [c]
            for m in members:
                for i, _ in nodes[m].inputs:
                    if i is not None and i in self.included and i not in seen:
                        queue.append(i)
        return set(kept)

    # -- clusters --------------------------------------------------------------------------

    def _groups(self, param_home):
        """Clusters of the kept units: module calls (those not drawn as one box) and
        folded loop bodies, nested by the node ranges they cover."""
        calls = self.trace.module_calls
        anchors = sorted(int(u[1:]) for u in self.units if u.startswith("n") and "_" not in u)
        anchors += [min(self.runs[u]) for u in self.units if u in self.runs]
        anchors += [c for u in self.units if u in self.box_call for c in self.members[u]]
        anchors = sorted(c for c in anchors if not self.trace.nodes[c].is_leaf)
        self.groups: dict[str, Group] = {}

        def drawn_call(call):
            if self.depth is not None and call.depth >= self.depth:
                return False
            lo = bisect.bisect_left(anchors, call.start)
            return lo < len(anchors) and anchors[lo] < call.end

        for call in calls:
            if drawn_call(call):
                self.groups[f"cluster_m{call.index}"] = Group(f"cluster_m{call.index}", "module",
                                                              call.start, call.end - 1, call=call)
        for fi, f in enumerate(self.folds):
            if any(self.unit_of.get(c) in self.kept and self.unit_of.get(c, "").startswith("n")
                   for c in f.drawn):
                self.groups[f"cluster_f{fi}"] = Group(f"cluster_f{fi}", "fold", f.lo, f.hi, fold=f)

        def call_group(k):
            """The nearest drawn call group at or above call index k."""
            while k is not None:
                g = self.groups.get(f"cluster_m{k}")
                if g is not None:
                    return g
                k = calls[k].parent
            return None

        def innermost(c):
            """The innermost group around node c (its module call or its loop body)."""
            g = call_group(self.call_of[c])
            fi = self.fold_of.get(c)
            fg = self.groups.get(f"cluster_f{fi}") if fi is not None else None
            if fg is None:
                return g
            if g is None:
                return fg
            # the call is inside the loop body unless it spans the whole loop
            return fg if g.lo <= fg.lo and fg.hi <= g.hi else g

        for g in self.groups.values():
            if g.kind == "module":
                parent = call_group(g.call.parent)
                fi = self.fold_of.get(self.rep_of.get(g.lo, g.lo))
                fg = self.groups.get(f"cluster_f{fi}") if fi is not None else None
                if fg is not None and not (g.lo <= fg.lo and fg.hi <= g.hi) and (
                        parent is None or (parent.lo <= fg.lo and fg.hi <= parent.hi)):
                    parent = fg
            else:
                parent = None
                k = self.call_of[g.lo]
                while k is not None:
                    call = calls[k]
                    cg = self.groups.get(f"cluster_m{k}")
                    if cg is not None and call.start <= g.lo and g.hi < call.end:
                        parent = cg
                        break
                    k = call.parent
            g.parent = parent.id if parent is not None else None
        for g in self.groups.values():
            if g.parent is not None:
                self.groups[g.parent].children.append(g.id)

        self.group_of: dict[str, str | None] = {}
        nodes = self.trace.nodes
        for u in self.units:
            if u in self.box_call:
                home = call_group(self.box_call[u].parent)
                c = self.box_call[u].start
                fi = self.fold_of.get(c)
                fg = self.groups.get(f"cluster_f{fi}") if fi is not None else None
                if fg is not None and (home is None or (home.lo <= fg.lo and fg.hi <= home.hi)):
                    home = fg
            elif u in self.runs:
                home = innermost(self.runs[u][0])
            else:
                c = int(u[1:])
                if nodes[c].is_leaf:
                    call = param_home.get(c)
                    home = call_group(call.index) if call is not None else None
                else:
                    home = innermost(c)
            self.group_of[u] = home.id if home is not None else None
            if home is not None:
                home.units.append(u)

    def edges(self):
        """The drawn edges, input -> consumer in creation order, as ``(edges, nones,
        omitted)``: :class:`Edge` records (edges that fold into one unit pair are one
        edge with a ``count``), ``(node, input index)`` of the ``(None, 0)`` inputs of
        nodes drawn themselves, and the units fed by nodes left out by ``max_nodes``."""
        nodes = self.trace.nodes
        out: dict[tuple, Edge] = {}
        nones = []
        omitted = []
        for c in sorted(self.included):
            dst = self.unit_of[c]
            if dst not in self.kept:
                continue
            fi = self.fold_of.get(c)
            own = dst == f"n{c}"
            for k, (i, nr) in enumerate(nodes[c].inputs):
                if i is None:
                    if own:
                        nones.append((c, k))
                    continue
                if i not in self.included:
                    continue
                src = self.unit_of[i]
                if src == dst:
                    continue
                if src not in self.kept:
                    omitted.append(dst)
                    continue
                inside = fi is not None and self.fold_of.get(i) == fi
                carry = inside and self.iteration[i] == self.iteration[c] - 1
                # many iterations feeding one node outside the loop body: one edge marked ×N
                gather = self.fold_of.get(i) is not None and not inside
                key = (src, dst, carry, gather)
                e = out.get(key)
                if e is not None:
                    e.count += 1
                    continue
                out[key] = Edge(src, dst, c, k, i, nr, own, carry, gather)
        return list(out.values()), nones, list(dict.fromkeys(omitted))

    def top_groups(self) -> list:
        return [g for g in self.groups.values() if g.parent is None]

    def module_label(self, call) -> tuple[str, str]:
        """(name, class) of a module call: ``("model.0", "Linear")``; an unnamed module
        by its class alone."""
        return (call.path or call.cls, call.cls)
