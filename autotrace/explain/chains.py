"""Each leaf's whole chain: the paths from the root, counted and written out.

The paths are found with parent pointers over the executed nodes, in the order the engine
ran them (a topological order), so the cost is linear in the pass: for every node the
number of paths from the root (exact, any size), its depth, the first few edges of one
path from the root and the product of its local derivatives while they are single
numbers. A leaf's gradient is the sum of what arrives along its incoming edges (the
engine's fan-in at ``AccumulateGrad``); each incoming edge carries the sum of the paths
through it, so those contributions are the engine's own numbers and add up to the
``.grad`` increment. Past :data:`READABLE` contributions the chain is summarised: the
count, the sum and the largest ones.
"""

from __future__ import annotations

import numpy as np

from ..messages import text
from .graph import nid
from .model import Chain
from .numbers import _factor, fmt, fmt_num, uniform

READABLE = 8        # contributions to one leaf written out one by one; past that, summarised
LARGEST = 3         # contributions shown in a summary
KEEP = 3            # factors kept at each end of a long product

_SHAPE_OPS = ("sum", "view", "unsafe_view", "squeeze", "unsqueeze", "expand", "squeeze_dim", "t",
              "transpose", "alias", "clone", "reshape", "permute")


def chains(ex, p, out, root_id) -> list:
    """The :class:`Chain` of every leaf the pass ``p`` (a PassRecord) reached; ``out`` is
    its explained :class:`Pass`; ``ex`` the explainer (labels, factors, symbols)."""
    if root_id is None or p.error:
        return []
    g = ex.g
    steps = {s.node: s for s in p.steps}
    # per node: paths from the root, depth, parent edge, first edges from the root, product
    count = {root_id: 1}
    parent = {}
    depth = {root_id: 0}
    prefix = {root_id: ()}
    prod = {root_id: 1.0}
    incoming: dict = {}
    for s in p.steps:
        a = s.node
        if a not in count:
            continue
        n = g.node(a)
        if n is None or n.is_leaf:
            continue
        for i, (tid, _nr) in enumerate(n.inputs):
            if tid is None or tid not in steps:
                continue
            if i >= len(s.grads_out) or s.grads_out[i] is None:
                continue
            incoming.setdefault(tid, []).append((a, i))
            count[tid] = count.get(tid, 0) + count[a]
            if tid not in parent:
                parent[tid] = (a, i)
                depth[tid] = depth[a] + 1
                pre = prefix[a]
                prefix[tid] = pre + ((a, i),) if len(pre) < KEEP else pre
                f = _factor_of(ex, a, i)
                prod[tid] = prod[a] * f if prod[a] is not None and f is not None else None
    out_chains = []
    for st in out.steps:
        if st.kind != "accumulate":
            continue
        leaf = int(st.node[1:])
        if leaf not in count:
            continue
        out_chains.append(_chain(ex, out, steps, leaf, st, count, parent, depth, prefix, prod,
                                 incoming.get(leaf, [])))
    return out_chains


def _factor_of(ex, a, i):
    """The single-number local derivative of edge ``i`` of node ``a``, or None."""
    f = ex._factors.get((a, i))
    if isinstance(f, float):
        return f
    if f is None:
        na = ex.g.node(a)
        if na is not None and getattr(na.op, "name", "") in _SHAPE_OPS:
            return 1.0
        return None
    u = uniform(f)
    return None if u is None else float(u)


def _edges_to(leaf, edge, parent, prefix, depth):
    """One path root → ``edge`` → leaf as (first edges, last edges, edges left out)."""
    a, _ = edge
    tail = [edge]
    node = a
    while node in parent and len(tail) < KEEP + 1:
        tail.append(parent[node])
        node = parent[node][0]
    tail.reverse()
    total = depth.get(a, 0) + 1
    if total <= 2 * KEEP + 1:
        # short enough to walk whole
        full = [edge]
        node = a
        while node in parent:
            full.append(parent[node])
            node = parent[node][0]
        full.reverse()
        return full, [], 0
    head = list(prefix.get(a, ()))[:KEEP]
    return head, tail[-KEEP:], total - len(head) - KEEP


def _symbols(ex, leaf, edges):
    label = ex.g.label(leaf)
    return [ex._path_sym(a, i, leaf, label) for a, i in edges]


def _chain(ex, out, steps, leaf, st, count, parent, depth, prefix, prod, ins) -> Chain:
    g = ex.g
    label = g.label(leaf)
    head = f"{ex._d(label)} = "
    value = st.increment if st.increment is not None else st.upstream
    n_paths = count[leaf]
    remark = text("chain.paths", count=n_paths, root=out.root, leaf=label) if n_paths > 1 else None
    seed = out.seed
    if not ins:     # the pass starts at the leaf itself: its gradient is the seed
        su = uniform(seed)
        body = fmt_num(su) if su is not None and not ex._pre else f"{ex.vsym} = {fmt(seed)}"
        return Chain(leaf=label, paths=[f"∂{out.root}/∂{label} = {body}  " + text("chain.at_leaf")],
                     total=None, value=value, matches=_close(seed, value), remark=None, count=1)
    su = uniform(seed)
    numbers = {int(x.node[1:]): x.number for x in out.steps}
    contribs = []
    for a, i in ins:
        s = steps[a]
        contribs.append((a, i, s.grads_out[i], count[a]))
    if len(contribs) == 1:
        a, i, v, k = contribs[0]
        formula, ok = _path_formula(ex, out, leaf, label, (a, i), parent, prefix, depth, prod, steps, su, v,
                                    flow_only=k > 1)
        if k > 1:
            remark = text("chain.paths_merge", count=n_paths, root=out.root, leaf=label)
        return Chain(leaf=label, paths=[head + formula], total=None, value=value, matches=_close(v, value) and ok,
                     remark=remark, count=n_paths, contributions=[_contribution(ex, a, i, v, k, numbers)])
    # several incoming edges: one contribution each (the paths through it, summed)
    total = _sum([v for _, _, v, _ in contribs], value)
    matches = _close(total, value)
    lines = []
    data = [_contribution(ex, a, i, v, k, numbers) for a, i, v, k in contribs]
    if len(contribs) <= READABLE:
        for (a, i, v, k), d in zip(contribs, data):
            formula, ok = _path_formula(ex, out, leaf, label, (a, i), parent, prefix, depth, prod, steps, su, v,
                                        flow_only=k > 1)
            matches = matches and ok
            key = "chain.via" if k == 1 else "chain.via_paths"
            lines.append(text(key, via=d["via"], count=k) + ": " + formula)
        total_text = head + " + ".join(_factor(fmt(v)) for _, _, v, _ in contribs) + " = " + fmt(total)
        return Chain(leaf=label, paths=lines, total=total_text, value=value, matches=matches, remark=remark,
                     count=n_paths, contributions=data)
    # past a readable number: the count, the sum and the largest contributions
    norms = [float(np.sqrt(np.sum(np.square(np.asarray(v, dtype=np.float64))))) for _, _, v, _ in contribs]
    order = sorted(range(len(contribs)), key=lambda k: -np.nan_to_num(norms[k], nan=np.inf))[:LARGEST]
    remark = None
    lines.append(text("chain.summary", count=len(contribs), paths=n_paths, root=out.root, leaf=label, largest=len(order)))
    for k in order:
        a, i, v, m = contribs[k]
        lines.append("  " + text("chain.via", via=data[k]["via"]) + ": " + fmt(v)
                     + ("" if m == 1 else " " + text("chain.n_paths", count=m)))
    total_text = head + text("chain.sum_of", count=len(contribs)) + " = " + fmt(total)
    return Chain(leaf=label, paths=lines, total=total_text, value=value, matches=matches, remark=remark,
                 count=n_paths, contributions=data)


def _contribution(ex, a, i, v, paths, numbers) -> dict:
    n = ex.g.node(a)
    line = n.line if n is not None else None
    via = text("chain.via_step", label=ex.g.label(a), step=numbers.get(a, "?"), line=line) if line else \
        text("chain.via_step_noline", label=ex.g.label(a), step=numbers.get(a, "?"))
    return {"via": via, "node": nid(a), "edge": i, "paths": paths, "value": v}


def _path_formula(ex, out, leaf, label, edge, parent, prefix, depth, prod, steps, su, v, flow_only=False):
    """One path written out: its symbols, and its factors when they are single numbers
    (checked: their product equals the engine's gradient), else the gradient flowing
    along it. Returns (formula, numbers agree)."""
    first, last, hidden = _edges_to(leaf, edge, parent, prefix, depth)
    syms = _symbols(ex, leaf, first)
    if hidden:
        syms += [text("chain.elided", count=hidden)] + _symbols(ex, leaf, last)
    a, i = edge
    f = _factor_of(ex, a, i)
    p = prod.get(a)
    product = p * f if p is not None and f is not None else None
    pre = ex._pre
    if product is not None and su is not None and not flow_only:
        nums = [_factor(fmt_num(_factor_of(ex, x, j))) for x, j in first]
        if hidden:
            nums += [text("chain.elided", count=hidden)] + [_factor(fmt_num(_factor_of(ex, x, j))) for x, j in last]
        if su != 1 or pre:
            syms.insert(0, ex.vsym)
            nums.insert(0, _factor(fmt_num(su)))
            product = product * float(su)
        elif len(syms) == 1:
            syms.insert(0, f"∂{out.root}/∂{out.root}")
            nums.insert(0, "1")
        ok = _close(np.float64(product), v)
        return " · ".join(syms) + " = " + " · ".join(nums) + " = " + fmt_num(product), ok
    # the gradient along the path, from the seed to the leaf
    flow = [_flow(out.seed)] + [_flow(_grad(steps, x, j)) for x, j in first]
    if hidden:
        flow += [text("chain.elided", count=hidden)] + [_flow(_grad(steps, x, j)) for x, j in last]
    if pre:
        syms.insert(0, ex.vsym)
    flow_text = text("chain.flow", flow=" → ".join(flow))
    if len(syms) == 1 and syms[0] == f"∂{out.root}/∂{label}":
        return flow_text, True
    return " · ".join(syms) + "; " + flow_text, True


def _flow(a) -> str:
    """A gradient along a path: whole while small (3 elements), else its shape and norm."""
    from .table import cell

    return fmt(a) if a is None or np.size(a) <= 3 else cell(a, limit=0)


def _grad(steps, a, i):
    s = steps.get(a)
    return s.grads_out[i] if s is not None and i < len(s.grads_out) else None


def _sum(values, like):
    """The contributions added in arrival order, in the leaf gradient's dtype (as the
    engine adds them)."""
    dt = like.dtype if isinstance(like, np.ndarray) else np.float32
    total = None
    for v in values:
        if v is None:
            continue
        v = np.asarray(v).astype(dt, copy=False)
        total = v.copy() if total is None else total + v
    return total


def _close(a, b) -> bool | None:
    if a is None or b is None:
        return None
    try:
        return bool(np.allclose(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64),
                                rtol=1e-5, atol=1e-6, equal_nan=True))
    except ValueError:
        return False
