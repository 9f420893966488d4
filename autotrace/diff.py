"""Where two runs part, and why their gradients differ.

:func:`compare` takes two :class:`~autotrace.trace.Trace` records made with values kept
(``runner.Options(keep_values=True)``) and returns a :class:`Diff`:

* the graphs are aligned node by node in creation order, a node's key being its PyTorch
  name and the source expression that made it (``difflib`` on the two key sequences, so
  an inserted line or an extra loop iteration shifts nothing after it);
* the first place where the runs part: a node only one run made (a different op or
  structure), a matched node with another shape or dtype, another forward value, another
  gradient in a backward pass, another printed line, another error;
* the causes, when the evidence is one of the known ones: gradients accumulated over an
  extra pass (a missing ``zero_grad``), a path cut by ``detach()`` / ``.data`` /
  ``no_grad``, an in-place change, a different dtype or broadcast shape, different random
  numbers (the seed), a different reduction (``sum`` vs ``mean``). Each names the lines in
  both scripts;
* every leaf whose final ``.grad`` differs, with the largest difference and, when one is a
  constant multiple of the other, the factor.

Nothing here runs a script; :func:`run_pair` does, for the CLI and the notebook API.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

import numpy as np

from .messages import text

#: values closer than this are the same (both runs compute in the same precision; a
#: different order of the same float32 sums can differ in the last bits)
RTOL, ATOL = 1e-5, 1e-7


@dataclass
class Place:
    """A spot in one script: a line and its text (both None when there is none)."""

    line: int | None = None
    text: str | None = None


@dataclass
class Parting:
    """The first place the two runs part. ``kind``: ``stdout``, ``error``, ``structure``,
    ``shape``, ``dtype``, ``forward``, ``passes``, ``backward``. ``a``/``b`` locate it in
    each script; ``detail`` is one sentence (from the message catalog)."""

    kind: str
    a: Place
    b: Place
    detail: str


@dataclass
class Cause:
    """A known reason for the difference. ``kind``: ``zero_grad``, ``cut``, ``inplace``,
    ``dtype``, ``shape``, ``seed``, ``reduction``; ``message`` says it in plain words."""

    kind: str
    message: str
    a: Place = field(default_factory=Place)
    b: Place = field(default_factory=Place)


@dataclass
class LeafDiff:
    """A leaf (or any top-level tensor) whose ``.grad`` differs at the end of the runs.
    ``max_abs`` is the largest |a - b| (None when one side is None), ``factor`` is k when
    b = k·a everywhere (None otherwise)."""

    name: str
    grad_a: np.ndarray | None
    grad_b: np.ndarray | None
    max_abs: float | None
    factor: float | None


@dataclass
class Diff:
    script_a: str
    script_b: str
    same: bool
    parting: Parting | None
    causes: list
    leaves: list
    changed_lines: list          # [(line a | None, text a | None, line b | None, text b | None)]
    notes: list = field(default_factory=list)


# -- running ---------------------------------------------------------------------------------


def run_pair(source_a, name_a, source_b, name_b, *, sets_a=(), sets_b=(), limits=None):
    """Run both scripts with values kept; returns the two traces (script errors are in
    each trace's ``error``; ``runner.UsageError`` propagates)."""
    from . import runner

    opts = runner.Options(keep_values=True)
    ta = runner.run(source_a, name_a, sets=sets_a, limits=limits, options=opts)
    tb = runner.run(source_b, name_b, sets=sets_b, limits=limits, options=runner.Options(keep_values=True))
    return ta, tb


# -- comparing -------------------------------------------------------------------------------


def _key(n) -> tuple:
    return (n.name, _norm(n.text))


def _norm(s) -> str:
    return re.sub(r"\s+", "", s or "")


def _same_array(x, y) -> bool:
    if x is None or y is None:
        return x is None and y is None
    x = np.asarray(x)
    y = np.asarray(y)
    if x.shape != y.shape:
        return False
    if x.dtype == np.bool_ or y.dtype == np.bool_:
        return bool(np.array_equal(x, y))
    with np.errstate(all="ignore"):
        return bool(np.allclose(x.astype(np.float64), y.astype(np.float64), rtol=RTOL, atol=ATOL, equal_nan=True))


def align(nodes_a, nodes_b) -> dict:
    """Node id in A -> node id in B, for the nodes both runs made in the same order."""
    sm = difflib.SequenceMatcher(None, [_key(n) for n in nodes_a], [_key(n) for n in nodes_b], autojunk=False)
    pairs = {}
    for i, j, size in sm.get_matching_blocks():
        for k in range(size):
            pairs[nodes_a[i + k].id] = nodes_b[j + k].id
    return pairs


def compare(ta, tb) -> Diff:
    """The :class:`Diff` of two traces (made with values kept)."""
    nodes_a = {n.id: n for n in ta.nodes}
    nodes_b = {n.id: n for n in tb.nodes}
    pairs = align(ta.nodes, tb.nodes)
    changed = changed_lines(ta.source, tb.source)
    # the first place in run order: node ids count creations; a pass comes after the
    # nodes it walks
    found = [c for c in (_structure_parting(ta, tb, pairs), _forward_parting(ta, tb, pairs, nodes_b),
                         _backward_parting(ta, tb, pairs, nodes_a, nodes_b)) if c is not None]
    parting = min(found, key=lambda c: c[0])[1] if found else (_error_parting(ta, tb) or _stdout_parting(ta, tb))
    if any(t.error is not None and t.error.get("phase") == "parse" for t in (ta, tb)):
        # a script refused before it ran parts at its error, not at the graph it never built
        parting = _error_parting(ta, tb) or parting
    leaves = leaf_diffs(ta, tb)
    causes = []
    if parting is not None or leaves:
        causes = find_causes(ta, tb, pairs, nodes_a, nodes_b, changed, leaves)
    notes = []
    ending = _error_parting(ta, tb)
    if ending is not None and parting is not None and parting.kind != "error":
        notes.append(ending.detail)
    same = parting is None and not leaves
    return Diff(script_a=ta.script, script_b=tb.script, same=same, parting=parting, causes=causes,
                leaves=leaves, changed_lines=changed, notes=notes)


def changed_lines(src_a: str, src_b: str) -> list:
    """The lines that differ between the two sources, as
    ``(line a, text a, line b, text b)`` (None on the side that lacks the line);
    comment-only and blank lines are left out."""
    la, lb = src_a.splitlines(), src_b.splitlines()
    ca, cb = _code_lines(src_a), _code_lines(src_b)
    sm = difflib.SequenceMatcher(None, [x.strip() for x in ca], [x.strip() for x in cb], autojunk=False)
    out = []
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag == "equal":
            continue
        n = max(i2 - i1, j2 - j1)
        for k in range(n):
            ia, ib = i1 + k, j1 + k
            ta = ca[ia] if ia < i2 else None
            tb = cb[ib] if ib < j2 else None
            if not (ta or "").strip() and not (tb or "").strip():
                continue
            ta = ta if ta and ta.strip() else None
            tb = tb if tb and tb.strip() else None
            out.append((ia + 1 if ta is not None else None, ta, ib + 1 if tb is not None else None, tb))
    return out


def _code_lines(src: str) -> list:
    """The source's lines without comments and trailing blanks (tokenize finds comments;
    a source it cannot tokenize keeps its lines, minus whole-line comments)."""
    import io
    import tokenize

    lines = src.splitlines()
    out = [ln.rstrip() for ln in lines]
    try:
        for tok in tokenize.generate_tokens(io.StringIO(src).readline):
            if tok.type == tokenize.COMMENT:
                row, col = tok.start
                if 0 < row <= len(out):
                    out[row - 1] = lines[row - 1][:col].rstrip()
    except (tokenize.TokenError, SyntaxError, IndentationError):
        out = ["" if ln.lstrip().startswith("#") else ln.rstrip() for ln in lines]
    return out


def _place(n) -> Place:
    return Place(n.line, n.statement or n.text) if n is not None else Place()


def _structure_parting(ta, tb, pairs):
    inv = {v: k for k, v in pairs.items()}
    first_a = next((n for n in ta.nodes if n.id not in pairs), None)
    first_b = next((n for n in tb.nodes if n.id not in inv), None)
    if first_a is None and first_b is None:
        return None
    # report the one that comes first in its own run, with the other run's counterpart spot
    if first_b is None or (first_a is not None and first_a.id <= first_b.id):
        detail = text("diff.structure.only", side="A", node=first_a.name, expr=first_a.text or "?")
        other = _neighbour(ta, tb, pairs, first_a)
        return first_a.id, Parting("structure", _place(first_a), _place(other), detail)
    detail = text("diff.structure.only", side="B", node=first_b.name, expr=first_b.text or "?")
    other = _neighbour(tb, ta, inv, first_b)
    return (inv.get(other.id, -1) + 0.25 if other is not None else -1), Parting(
        "structure", _place(other), _place(first_b), detail)


def _neighbour(t_from, t_to, pairs, node):
    """The node of the other run matched to the last matched node before ``node``."""
    to = {n.id: n for n in t_to.nodes}
    best = None
    for n in t_from.nodes:
        if n.id >= node.id:
            break
        if n.id in pairs:
            best = to.get(pairs[n.id])
    return best


def _forward_parting(ta, tb, pairs, nodes_b):
    for n in ta.nodes:
        j = pairs.get(n.id)
        if j is None:
            continue
        m = nodes_b[j]
        if tuple(n.shape or ()) != tuple(m.shape or ()):
            return n.id, Parting("shape", _place(n), _place(m),
                           text("diff.shape", node=n.name, a=_shape(n.shape), b=_shape(m.shape)))
        if n.dtype != m.dtype:
            return n.id, Parting("dtype", _place(n), _place(m), text("diff.dtype", node=n.name, a=n.dtype, b=m.dtype))
        va = n.leaf_value if n.is_leaf else n.value
        vb = m.leaf_value if m.is_leaf else m.value
        if va is not None and vb is not None and not _same_array(va, vb):
            what = (text("diff.leaf_value", name=n.var_name or "?") if n.is_leaf
                    else text("diff.value", node=n.name))
            return n.id, Parting("forward", _place(n), _place(m),
                           text("diff.forward", what=what, a=_fmt(va), b=_fmt(vb)))
    return None


def _backward_parting(ta, tb, pairs, nodes_a, nodes_b):
    for pa, pb in zip(ta.passes, tb.passes):
        steps_b = {s.node: s for s in pb.steps}
        for s in pa.steps:
            j = pairs.get(s.node)
            t = steps_b.get(j) if j is not None else None
            if t is None:
                continue
            n = nodes_a[s.node]
            if n.is_leaf:
                ga, gb = s.after, t.after
                what = text("diff.grad_of", name=n.var_name or "?")
            else:
                ga = s.grad_in[0] if s.grad_in else None
                gb = t.grad_in[0] if t.grad_in else None
                what = text("diff.grad_into", node=n.name)
            if ga is None or gb is None or _same_array(ga, gb):
                continue
            return _pass_time(pa), Parting(
                "backward", Place(pa.line, pa.text), Place(pb.line, pb.text),
                text("diff.backward", number=pa.index + 1, what=what, a=_fmt(ga), b=_fmt(gb),
                     line_a=n.line or "?", line_b=nodes_b[j].line or "?"))
    for pa, pb in zip(ta.passes, tb.passes):
        if pa.error or pb.error:
            continue
        walked_b = {s.node for s in pb.steps}
        inv = {v: k for k, v in pairs.items()}
        walked_a = {s.node for s in pa.steps}
        gone = [(side, n) for side, steps, other_walked, m, nodes in
                (("A", pa.steps, walked_b, pairs, nodes_a), ("B", pb.steps, walked_a, inv, nodes_b))
                for n in (nodes[s.node] for s in steps)
                if n.is_leaf and m.get(n.id) is not None and m[n.id] not in other_walked]
        if gone:
            side, n = gone[0]
            return _pass_time(pa), Parting(
                "backward", Place(pa.line, pa.text), Place(pb.line, pb.text),
                text("diff.not_reached", number=pa.index + 1, side=side, other="B" if side == "A" else "A",
                     name=n.var_name or n.name))
    if len(ta.passes) != len(tb.passes):
        k = min(len(ta.passes), len(tb.passes))
        pa = ta.passes[k] if len(ta.passes) > k else None
        pb = tb.passes[k] if len(tb.passes) > k else None
        return _pass_time(pa or pb), Parting(
            "passes", Place(pa.line, pa.text) if pa else Place(), Place(pb.line, pb.text) if pb else Place(),
            text("diff.passes", a=len(ta.passes), b=len(tb.passes)))
    return None


def _pass_time(p) -> float:
    """When pass ``p`` ran, on the node-id clock: after the newest node it walks."""
    return max((s.node for s in p.steps), default=-1) + 0.5


def _error_parting(ta, tb):
    ea, eb = ta.error, tb.error
    if ea is None and eb is None:
        return None
    if ea is not None and eb is not None and ea["type"] == eb["type"] and ea["message"] == eb["message"]:
        return None
    def desc(e):
        return text("diff.no_error") if e is None else f"{e['type']}: {e['message']}"
    return Parting("error", Place(ea and ea.get("line"), ta.source_line(ea and ea.get("line")) or None),
                   Place(eb and eb.get("line"), tb.source_line(eb and eb.get("line")) or None),
                   text("diff.error", a=desc(ea), b=desc(eb)))


def _stdout_parting(ta, tb):
    from .check import mask_addresses

    a = mask_addresses(ta.stdout).splitlines()
    b = mask_addresses(tb.stdout).splitlines()
    if a == b:
        return None
    for k in range(max(len(a), len(b))):
        la = a[k] if k < len(a) else None
        lb = b[k] if k < len(b) else None
        if la != lb:
            return Parting("stdout", Place(), Place(),
                           text("diff.stdout", number=k + 1, a=_q(la), b=_q(lb)))
    return None  # pragma: no cover


def _q(s):
    return text("diff.nothing") if s is None else repr(s)


def leaf_diffs(ta, tb) -> list:
    """Every top-level tensor bound in both runs whose ``.grad`` differs."""
    out = []
    for name in sorted(set(ta.variables) & set(tb.variables)):
        va, vb = ta.variables[name], tb.variables[name]
        if va.kind != "tensor" or vb.kind != "tensor":
            continue
        ga, gb = va.grad, vb.grad
        if ga is None and gb is None:
            continue
        if ga is not None and gb is not None and _same_array(ga, gb):
            continue
        out.append(LeafDiff(name, ga, gb, _max_abs(ga, gb), _factor(ga, gb)))
    return out


def _max_abs(a, b):
    if a is None or b is None or np.shape(a) != np.shape(b):
        return None
    with np.errstate(all="ignore"):
        d = np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))
    return float(np.nanmax(d)) if d.size else 0.0


def _factor(a, b):
    """k when b = k·a everywhere (a not all zero), else None."""
    if a is None or b is None or np.shape(a) != np.shape(b):
        return None
    a = np.asarray(a, np.float64).reshape(-1)
    b = np.asarray(b, np.float64).reshape(-1)
    nz = np.abs(a) > 1e-12
    if not nz.any() or not np.all(np.isfinite(a)) or not np.all(np.isfinite(b)):
        return None
    k = b[nz] / a[nz]
    k0 = float(np.median(k))
    if np.allclose(k, k0, rtol=1e-4, atol=1e-6) and np.allclose(b[~nz], 0, atol=1e-6) and abs(k0 - 1) > 1e-6:
        return k0
    return None


# -- causes ----------------------------------------------------------------------------------

_RESET = re.compile(r"zero_grad\s*\(|\.grad\s*=\s*None|\.grad\.zero_\s*\(")
_CUT = (("detach", re.compile(r"\.detach\s*\(|\.detach_\s*\(")),
        ("data", re.compile(r"\.data\b(?!_)")),
        ("no_grad", re.compile(r"no_grad|inference_mode|set_grad_enabled\s*\(\s*False")),
        ("requires_grad", re.compile(r"requires_grad\s*=\s*False|requires_grad_\s*\(\s*False")))
_INPLACE = re.compile(r"[\w\]\)]\s*(\+|-|\*|/|@|\*\*)=|\.\w+_\s*\(")
_SEED = re.compile(r"manual_seed\s*\(([^)]*)\)")
_RANDOM = re.compile(r"\b(randn|rand|randint|randperm|normal_|uniform_|bernoulli|dropout|Dropout|Linear|Conv\w*|init\.)")
_DTYPE = re.compile(r"float64|double|float16|half|int64|long\(|\.int\(|dtype\s*=")


def _lines_matching(changed, pattern, side):
    """The changed lines of one side (0 = A, 1 = B) that match ``pattern``."""
    out = []
    for la, xa, lb, xb in changed:
        line, txt = (la, xa) if side == 0 else (lb, xb)
        if txt is not None and pattern.search(txt):
            out.append(Place(line, txt.strip()))
    return out


def find_causes(ta, tb, pairs, nodes_a, nodes_b, changed, leaves) -> list:
    causes = []
    for fn in (_cause_zero_grad, _cause_cut, _cause_seed, _cause_reduction, _cause_shape_dtype, _cause_inplace):
        c = fn(ta, tb, pairs, nodes_a, nodes_b, changed, leaves)
        if c is not None:
            causes.append(c)
    return causes


def _accumulated(trace, name) -> tuple:
    """(passes summed in the final .grad of leaf ``name``, line of its last pass): how
    many backward passes in a row added into the leaf's .grad since it was last None."""
    count = 0
    line = None
    for p in trace.passes:
        for s in p.steps:
            n = trace.nodes[s.node] if s.node < len(trace.nodes) else None
            if n is None or not n.is_leaf or n.var_name != name or p.kind != "backward":
                continue
            if s.before is None:
                count = 1
            else:
                count += 1
            line = p.line
    return count, line


def _cause_zero_grad(ta, tb, pairs, nodes_a, nodes_b, changed, leaves):
    for d in leaves:
        ca, la = _accumulated(ta, d.name)
        cb, lb = _accumulated(tb, d.name)
        if ca == cb or min(ca, cb) == 0:
            continue
        more, fewer = ("B", "A") if cb > ca else ("A", "B")
        resets_a = _lines_matching(changed, _RESET, 0)
        resets_b = _lines_matching(changed, _RESET, 1)
        reset = (resets_a or resets_b or [Place()])[0]
        msg = text("diff.cause.zero_grad", leaf=d.name, more=more, fewer=fewer,
                   count_more=max(ca, cb), count_fewer=min(ca, cb),
                   reset=(text("diff.cause.zero_grad.at", line=reset.line, text=reset.text, fewer=fewer,
                               more=more, leaf=d.name)
                          if reset.line else text("diff.cause.zero_grad.none", leaf=d.name)))
        return Cause("zero_grad", msg, Place(la, ta.source_line(la) or None) if not resets_a else resets_a[0],
                     Place(lb, tb.source_line(lb) or None) if not resets_b else resets_b[0])
    return None


def _reached(trace) -> set:
    names = set()
    for p in trace.passes:
        for s in p.steps:
            if s.node < len(trace.nodes):
                n = trace.nodes[s.node]
                if n.is_leaf and n.var_name:
                    names.add(n.var_name)
    return names


def _cause_cut(ta, tb, pairs, nodes_a, nodes_b, changed, leaves):
    if any(p.error for p in ta.passes) or any(p.error for p in tb.passes):
        return None
    ra, rb = _reached(ta), _reached(tb)
    lost_b = sorted(n for n in ra - rb if n in tb.variables)
    lost_a = sorted(n for n in rb - ra if n in ta.variables)
    if not lost_a and not lost_b:
        return None
    side = 1 if lost_b else 0
    lost = lost_b or lost_a
    for how, pattern in _CUT:
        hits = _lines_matching(changed, pattern, side)
        if hits:
            where = hits[0]
            msg = text(f"diff.cause.cut.{how}", side="B" if side else "A", other="A" if side else "B",
                       leaves=", ".join(lost), line=where.line, text=where.text)
            return Cause("cut", msg, where if side == 0 else Place(), where if side == 1 else Place())
    msg = text("diff.cause.cut.unknown", side="B" if side else "A", other="A" if side else "B", leaves=", ".join(lost))
    return Cause("cut", msg)


def _cause_seed(ta, tb, pairs, nodes_a, nodes_b, changed, leaves):
    seeds_a = _SEED.findall(ta.source)
    seeds_b = _SEED.findall(tb.source)
    differ = [n for n in ta.nodes if n.is_leaf and n.id in pairs
              and n.leaf_value is not None and nodes_b[pairs[n.id]].leaf_value is not None
              and not _same_array(n.leaf_value, nodes_b[pairs[n.id]].leaf_value)]
    if not differ and not leaves:
        return None
    if [s.strip() for s in seeds_a] == [s.strip() for s in seeds_b]:
        return None
    la = _lines_matching(changed, _SEED, 0)
    lb = _lines_matching(changed, _SEED, 1)
    msg = text("diff.cause.seed", a=", ".join(s.strip() for s in seeds_a) or text("diff.cause.seed.default"),
               b=", ".join(s.strip() for s in seeds_b) or text("diff.cause.seed.default"),
               leaves=", ".join(sorted({n.var_name or "?" for n in differ})) or text("diff.cause.seed.random"))
    return Cause("seed", msg, la[0] if la else Place(), lb[0] if lb else Place())


_REDUCTIONS = {"SumBackward0": "sum", "SumBackward1": "sum", "MeanBackward0": "mean", "MeanBackward1": "mean"}


def _cause_reduction(ta, tb, pairs, nodes_a, nodes_b, changed, leaves):
    inv = {v: k for k, v in pairs.items()}
    only_a = [n for n in ta.nodes if n.id not in pairs and n.name in _REDUCTIONS]
    only_b = [n for n in tb.nodes if n.id not in inv and n.name in _REDUCTIONS]
    for n in only_a:
        for m in only_b:
            if _REDUCTIONS[n.name] != _REDUCTIONS[m.name]:
                factor = _factor_text(leaves)
                msg = text("diff.cause.reduction", a=_REDUCTIONS[n.name], b=_REDUCTIONS[m.name],
                           line_a=n.line, line_b=m.line, factor=factor)
                return Cause("reduction", msg, _place(n), _place(m))
    for i, j in pairs.items():
        n, m = nodes_a[i], nodes_b[j]
        ra, rb = n.attrs.get("reduction"), m.attrs.get("reduction")
        if ra is not None and rb is not None and ra != rb:
            msg = text("diff.cause.reduction_arg", node=n.name, a=ra, b=rb, line_a=n.line, line_b=m.line,
                       factor=_factor_text(leaves))
            return Cause("reduction", msg, _place(n), _place(m))
    return None


def _factor_text(leaves) -> str:
    ks = [d for d in leaves if d.factor is not None]
    if not ks:
        return ""
    d = ks[0]
    return text("diff.factor", leaf=d.name, factor=_fmt(np.float64(d.factor)))


def _cause_shape_dtype(ta, tb, pairs, nodes_a, nodes_b, changed, leaves):
    for i, j in pairs.items():
        n, m = nodes_a[i], nodes_b[j]
        if tuple(n.shape or ()) != tuple(m.shape or ()):
            msg = text("diff.cause.shape", node=n.name, expr=n.text or "?", a=_shape(n.shape), b=_shape(m.shape),
                       line_a=n.line, line_b=m.line)
            return Cause("shape", msg, _place(n), _place(m))
        if n.dtype != m.dtype:
            msg = text("diff.cause.dtype", node=n.name, expr=n.text or "?", a=n.dtype, b=m.dtype,
                       line_a=n.line, line_b=m.line)
            return Cause("dtype", msg, _place(n), _place(m))
    return None


def _cause_inplace(ta, tb, pairs, nodes_a, nodes_b, changed, leaves):
    def inplace_error(t):
        return t.error is not None and "modified by an inplace operation" in t.error.get("message", "")
    hits_a = [p for p in _lines_matching(changed, _INPLACE, 0) if not _RESET.search(p.text)]
    hits_b = [p for p in _lines_matching(changed, _INPLACE, 1) if not _RESET.search(p.text)]
    if not hits_a and not hits_b:
        return None
    side = "B" if hits_b else "A"
    where = (hits_b or hits_a)[0]
    err = inplace_error(tb) or inplace_error(ta)
    key = "diff.cause.inplace_error" if err else "diff.cause.inplace"
    msg = text(key, side=side, line=where.line, text=where.text)
    return Cause("inplace", msg, where if side == "A" else Place(), where if side == "B" else Place())


# -- formatting ------------------------------------------------------------------------------


def _shape(s) -> str:
    return "[" + ", ".join(str(int(x)) for x in (s or ())) + "]"


def _fmt(a) -> str:
    from .explain import fmt
    return fmt(np.asarray(a) if a is not None else None)


def to_dict(d: Diff) -> dict:
    """The diff as JSON-ready data (arrays as lists, nan/inf as strings)."""
    from .explain import _json_numbers

    def place(p):
        return {"line": p.line, "text": p.text}

    def arr(a):
        return None if a is None else _json_numbers(np.asarray(a).tolist())

    def num(x):
        return None if x is None else _json_numbers(x)

    return {
        "schema_version": 1,
        "a": d.script_a, "b": d.script_b, "same": d.same,
        "parting": None if d.parting is None else {
            "kind": d.parting.kind, "a": place(d.parting.a), "b": place(d.parting.b), "detail": d.parting.detail},
        "causes": [{"kind": c.kind, "message": c.message, "a": place(c.a), "b": place(c.b)} for c in d.causes],
        "leaves": [{"name": x.name, "grad_a": arr(x.grad_a), "grad_b": arr(x.grad_b),
                    "max_abs": num(x.max_abs), "factor": num(x.factor)} for x in d.leaves],
        "changed_lines": [{"a": {"line": la, "text": xa}, "b": {"line": lb, "text": xb}}
                          for la, xa, lb, xb in d.changed_lines],
    }
