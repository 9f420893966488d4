"""Diagnostics with their why and fix: errors, nan/inf origins, accumulation, non-leaf
.grad, .grad None."""

from __future__ import annotations

import ast
import math
import re

import numpy as np

from ..messages import text
from .graph import _Graph
from .steps import _Explainer
from .model import Diagnostic
from .numbers import _and_list, fmt, uniform

# -- diagnostics -------------------------------------------------------------------------

_ERRORS = (
    ("grad can be implicitly created only for scalar outputs", "scalar"),
    ("Trying to backward through the graph a second time", "twice"),
    ("has been modified by an inplace operation", "inplace"),
    ("leaf Variable that requires grad is being used in an in-place operation", "leaf_inplace"),
    ("does not require grad and does not have a grad_fn", "no_grad_fn"),
    ("Mismatch in shape", "shape"),
    ("Only Tensors of floating point", "int_grad"),
    ("appears to not have been used in the graph", "unused"),
)


def _error_kind(message: str) -> str:
    for needle, kind in _ERRORS:
        if needle in message:
            return kind
    return "other"


def diagnose(trace, passes, timeline, g: _Graph, wrt=None, of=None, in_full=None) -> list:
    """The diagnostics of a run. ``passes``: the explained passes, some perhaps explained
    light (see ``explain_pass``); ``in_full(k)`` writes pass k + 1 out in full where a
    diagnostic needs its sentences."""
    diags: list[Diagnostic] = []
    diags += _error_diagnostics(trace, passes, g)
    diags += _nan_diagnostics(trace, passes, g, in_full)
    diags += _accumulation_diagnostics(timeline, passes)
    diags += _nonleaf_diagnostics(trace, g)
    diags += _none_grad_diagnostics(trace, passes, g, wrt=wrt)
    diags += _warning_diagnostics(trace)
    return diags


_SIZES = re.compile(r"Using a target size \(torch\.Size\(\[([\d, ]*)\]\)\) that is different to the input size "
                    r"\(torch\.Size\(\[([\d, ]*)\]\)\)")


def _warning_diagnostics(trace) -> list:
    """Every warning PyTorch issued (once per line and message) — the mse_loss broadcast
    warning with its why and fix — except the non-leaf .grad one (its own diagnostic)."""
    out, seen = [], set()
    for w in trace.warnings:
        msg, line = w.get("message", ""), w.get("line")
        if msg.startswith(NONLEAF_PREFIX) or (line, msg) in seen:
            continue
        seen.add((line, msg))
        m = _SIZES.search(msg)
        if m:
            target = [int(x) for x in m.group(1).split(",") if x.strip()]
            inp = [int(x) for x in m.group(2).split(",") if x.strip()]
            try:
                big = list(np.broadcast_shapes(tuple(inp), tuple(target)))
            except ValueError:
                big = "?"
            out.append(Diagnostic(kind="warning.mse_broadcast", severity="warning", line=line,
                                  title=text("diag.mse_broadcast.title", line=line, input=inp, target=target),
                                  why=text("diag.mse_broadcast.why", big=big),
                                  fix=text("diag.mse_broadcast.fix", input_shape=", ".join(map(str, inp)))))
            continue
        out.append(Diagnostic(kind="warning", severity="warning", line=line,
                              title=text("diag.warning.title", line=line, category=w.get("category"), message=msg),
                              why=text("diag.warning.why"), fix=None))
    return out


def _error_diagnostics(trace, passes, g):
    out = []
    err = trace.error
    seen_uncaught = False
    for p, rec in zip(passes, trace.passes):
        if not rec.error:
            continue
        typ, _, msg = rec.error.partition(": ")
        caught = True
        if err is not None and err.get("message") == msg and not seen_uncaught:
            caught = False
            seen_uncaught = True
        out.append(_explain_error(typ, msg, rec.line or (err or {}).get("line"), p, rec, trace, g, caught))
    if err is not None and not seen_uncaught and err.get("type"):
        out.append(_explain_error(err["type"], err["message"], err.get("line"), None, None, trace, g, False))
    return out


def _inplace_line(trace, failing, g, until):
    """The line that changed a saved tensor of ``failing`` in place, between the line that
    made the node and ``until`` (the backward call): ``(7, "h += 1")``, or None."""
    if failing is None or not failing.line:
        return None
    names = set()
    if failing.var_name and "result" in (failing.saved or ()):
        names.add(failing.var_name)          # the saved result (exp, tanh, sigmoid ...)
    ops = g.operands(failing) or {}
    for k in failing.saved or ():
        v = ops.get(k)
        if v and re.fullmatch(r"[A-Za-z_]\w*", v.strip()):
            names.add(v.strip())
    lines = trace.source.splitlines()
    stop = min(until or len(lines), len(lines))
    for k in range(failing.line, stop):
        src = lines[k].split("#")[0]
        for name in names:
            n = re.escape(name)
            if re.search(rf"(^|[^\w.]){n}\s*(\*\*|//|[-+*/@%])=", src) or \
                    re.search(rf"(^|[^\w.]){n}\[[^\]]*\]\s*=(?!=)", src) or \
                    re.search(rf"(^|[^\w.]){n}\.\w+_\(", src):
                return k + 1, src.strip()
    return None


def autotrace_message(msg: str) -> bool:
    """Whether an error message is autotrace's own (an unsupported construct or API, a
    sandbox refusal, a limit), not one PyTorch would print."""
    return any(k in msg for k in ("not supported by autotrace", "is not allowed", "not supported yet",
                                  "autotrace"))


def _explain_error(typ, msg, line, p, rec, trace, g, caught):
    kind = _error_kind(msg)
    title = text("diag.error.title", line=line, type=typ, message=msg) if line else text(
        "diag.error.title_noline", type=typ, message=msg)
    values = {}
    if kind == "scalar":
        root = p.root if p is not None else text("label.the_output")
        values = {"root": root, "shape": list(p.root_shape) if p is not None else "?"}
        if p is not None and rec is not None and rec.roots:
            n = g.node(rec.roots[0])
            if n is not None and n.shape is not None:
                values["shape"] = list(n.shape)
    why_key = f"diag.error.{kind}.why"
    fix_key = f"diag.error.{kind}.fix"
    if kind in ("twice", "inplace") and rec is not None and rec.steps:
        failing = g.node(rec.steps[-1].node)
        saved = ""
        if failing is not None and failing.saved:
            ops = g.operands(failing) or {}
            parts = []
            for k in failing.saved:
                v = ops.get(k)
                parts.append(f"{k} = {v}" if v else k)
            saved = " (" + ", ".join(parts) + ")"
        first_line = None
        for prev in trace.passes[:rec.index]:
            if not prev.retain_graph and any(s.node == rec.steps[-1].node for s in prev.steps):
                first_line = prev.line
                break
        values = {"node": failing.name if failing else "?", "expr": failing.statement or failing.text if failing else "?",
                  "node_line": failing.line if failing else "?", "saved": saved, "first_line": first_line or "?"}
        if kind == "twice" and first_line is None:
            why_key = "diag.error.twice.why_noline"
    try:
        why = text(why_key, **values)
    except KeyError:
        why = text("diag.error.other.why")
    if kind == "inplace" and rec is not None and rec.steps:
        where = _inplace_line(trace, g.node(rec.steps[-1].node), g, rec.line or line)
        if where:
            why += " " + text("diag.error.inplace.where", line=where[0], code=where[1])
    fix = text(fix_key, **values) if kind != "other" else text("diag.error.other.fix")
    err = trace.error or {}
    if kind == "other" and (autotrace_message(msg) or (err.get("message") == msg and err.get("phase") in ("parse", "limit"))):
        why, fix = text("diag.error.autotrace.why"), text("diag.error.autotrace.fix")
    if caught:
        why = text("diag.error.caught") + " " + why
    return Diagnostic(kind=f"error.{kind}", severity="info" if caught else "error", line=line, title=title, why=why, fix=fix)


NAN_ORIGINS = 4   # distinct places where nan/inf first appears, each with its own diagnostic

_NAN_FIX = {"sqrt": "sqrt", "rsqrt": "sqrt", "log": "log", "log2": "log", "log10": "log",
            "div": "div", "reciprocal": "div", "where": "where", "pow": "sqrt"}
_SAFE_ARG = {"sqrt": "torch.sqrt", "rsqrt": "torch.rsqrt", "log": "torch.log", "log2": "torch.log2",
             "log10": "torch.log10", "reciprocal": "torch.reciprocal"}


def _finite(a) -> bool:
    if a.size == 1:
        return math.isfinite(a.item())
    if a.size <= 16 and a.dtype.kind == "f":
        return all(map(math.isfinite, a.ravel().tolist()))
    return bool(np.isfinite(a).all())


def _nan_diagnostics(trace, passes, g, in_full=None):
    """One diagnostic per place (node, pass) where nan/inf is born: an edge's gradient is
    not finite at an element where the gradient arriving was finite. Passes that repeat an
    earlier one (same steps, same numbers) and nodes already reported are skipped; at most
    NAN_ORIGINS are reported, then one line says how many more there are."""
    ex = _Explainer(trace)
    out, seen, more = [], set(), 0
    for p, rec in zip(passes, trace.passes):
        if p.same_as is not None:
            continue
        for st, s in zip(p.steps, rec.steps):
            if st.kind != "node":
                continue
            up = s.grad_in[0] if s.grad_in else None
            if up is None:
                continue
            for e in st.edges:
                if e.grad is None or _finite(e.grad):
                    continue
                try:
                    upb = np.broadcast_to(up, e.grad.shape)
                except ValueError:
                    upb = None
                if upb is not None:
                    born = ~np.isfinite(e.grad) & np.isfinite(upb)
                else:
                    born = ~np.isfinite(e.grad) if np.all(np.isfinite(up)) else np.zeros(e.grad.shape, bool)
                if not np.any(born):
                    continue
                node_id = int(st.node[1:])
                if node_id in seen:
                    continue
                seen.add(node_id)
                if len(out) >= NAN_ORIGINS:
                    more += 1
                    continue
                fp, fst, fe = p, st, e
                if in_full is not None:      # the rule's words: the pass written out in full
                    fp = in_full(p.number - 1)
                    fst = fp.steps[st.number - 1]
                    fe = fst.edges[next(k for k, x in enumerate(st.edges) if x is e)]
                out.append(_nan_origin(trace, fp, fst, fe, upb, born, node_id, g, ex))
    if more:
        out.append(Diagnostic(kind="nan.more", severity="info", line=None,
                              title=text("diag.nan.more", count=more), why=None, fix=None))
    return out


def _nan_origin(trace, p, st, e, upb, born, node_id, g, ex):
    kind = "nan" if np.any(np.isnan(e.grad[born])) else "inf"
    n = g.node(node_id)
    opname = getattr(n.op, "name", "") if n is not None else ""
    fix = _NAN_FIX.get(opname, "generic")
    vals = ex._symbol_values(n, g.operands(n) or {}) if n is not None else {}
    xv = vals.get("self")
    detail = f"{e.target} = {fmt(xv)}" if xv is not None else "-"
    rule = (e.rule or "").split(" = ")[-1] or st.node_name
    where = ", ".join(_index_str(i) for i in zip(*np.nonzero(born))) if born.ndim else ""
    title = text("diag.nan.title", kind=kind, node=st.node_name, line=st.line, expr=st.statement or st.expr,
                 number=p.number)
    masked = upb is not None and bool(np.all(upb[born] == 0))
    if masked:
        local = e.local[born] if e.local is not None else None
        lk = "inf" if local is not None and np.all(np.isinf(local)) else "nan" if local is not None and np.all(np.isnan(local)) else "inf or nan"
        consumer = _consumer(p, st.node)
        why = text("diag.nan.why_masked" if consumer == "where" else "diag.nan.why_zero",
                   at=text("diag.nan.at", where=where) if where else "", rule=rule, detail=detail,
                   local=lk, target=e.target, kind=kind,
                   product=f"0 × {lk} = nan" if lk in ("inf", "nan") else "0 × inf = nan, 0 × nan = nan")
        safe = _SAFE_ARG.get(opname)
        arg = (g.operands(n) or {}).get("self") if n is not None else None
        cond = _where_condition(g, p, st.node)
        if consumer == "where" and safe and arg:
            fixtext = text("diag.nan.fix.where_masked", fn=safe, arg=arg.strip(), cond=cond or "mask")
        else:
            fixtext = text("diag.nan.fix.where")
        return Diagnostic(kind="nan", severity="warning", line=st.line, title=title, why=why, fix=fixtext)
    why = text("diag.nan.why", rule=rule, detail=detail, target=e.target, kind=kind)
    return Diagnostic(kind="nan", severity="warning", line=st.line, title=title, why=why,
                      fix=text(f"diag.nan.fix.{fix}"))


def _index_str(idx) -> str:
    return "[" + ", ".join(str(int(i)) for i in idx) + "]"


def _consumers(p, node):
    return [s for s in p.steps if s.kind == "node" and any(e.target_node == node for e in s.edges)]


def _consumer(p, node):
    """"where" when a where/masked_fill passed this node its gradient (the zeros are the
    mask), else None."""
    for s in _consumers(p, node):
        if s.node_name.startswith(("WhereBackward", "MaskedFillBackward")):
            return "where"
    return None


def _where_condition(g, p, node):
    """The condition's source text of the torch.where that consumes ``node``."""
    for s in _consumers(p, node):
        if not s.node_name.startswith("WhereBackward") or not s.expr:
            continue
        try:
            tree = ast.parse(s.expr.strip(), mode="eval").body
        except SyntaxError:
            continue
        if isinstance(tree, ast.Call) and tree.args:
            return ast.get_source_segment(s.expr.strip(), tree.args[0])
    return None


def _accumulation_diagnostics(timeline, passes):
    lines = {p.number: p.line for p in passes}
    out = []
    for leaf, entries in timeline.items():
        run = [entries[0]]
        for e in entries[1:]:
            if e.reset is None and e.before is not None:
                run.append(e)
            else:
                run = [e]
        if len(run) >= 2 and run[-1].before is not None and np.any(run[-1].before != 0):
            seq = " → ".join([fmt(run[0].before)] + [fmt(e.after) for e in run])
            inc = uniform(np.array([fmt(e.increment) for e in run]))
            line = lines.get(run[-1].pass_number)
            out.append(Diagnostic(
                kind="accumulation", severity="warning", line=line,
                title=text("diag.accumulation.title" if line else "diag.accumulation.title_noline",
                           leaf=leaf, count=len(run), sequence=seq, line=line),
                why=text("diag.accumulation.why" if inc is not None else "diag.accumulation.why_varied",
                         leaf=leaf, increment=inc),
                fix=text("diag.accumulation.fix", leaf=leaf)))
    return out


NONLEAF_PREFIX = "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed"


def _nonleaf_diagnostics(trace, g):
    out = []
    seen = set()
    for w in trace.warnings:
        if not w.get("message", "").startswith(NONLEAF_PREFIX):
            continue
        line = w.get("line")
        if line in seen:
            continue
        seen.add(line)
        why = text("diag.nonleaf_grad.why")
        fix = text("diag.nonleaf_grad.fix")
        src = trace.source_line(line)
        for name in re.findall(r"(\w+)\.grad\b", src):
            v = trace.variables.get(name)
            if v is not None and v.kind == "tensor" and not v.is_leaf and v.node is not None:
                n = g.node(v.node)
                if n is not None:
                    why += " " + text("diag.nonleaf_made.why", leaf=name, node=n.name, line=n.line, expr=n.statement or n.text)
                    fix += " " + _nonleaf_fix(name, n)
                break
        out.append(Diagnostic(kind="nonleaf_grad", severity="warning", line=line,
                              title=text("diag.nonleaf_grad.title", line=line), why=why, fix=fix))
    return out


def _nonleaf_fix(name, n) -> str:
    """The non-leaf fix that names the operation which made ``name`` a non-leaf:
    ``w = (torch.randn(3, 1) * 0.01).requires_grad_()``."""
    expr = (n.text or "").strip()
    op = (getattr(n.op, "name", None) or n.name.replace("Backward0", "").lower()).replace("_", " ")
    if not expr:
        return text("diag.nonleaf_made.fix")
    inner = re.sub(r",\s*requires_grad\s*=\s*True", "", expr)
    if inner != expr:
        suggestion = f"{name} = ({inner}).requires_grad_()"
    else:
        suggestion = f"{name} = ({expr}).detach().requires_grad_()"
    return text("diag.nonleaf_made.fix_op", leaf=name, op=f"{op} ({n.name})", suggestion=suggestion)


def _none_grad_diagnostics(trace, passes, g, wrt=None):
    out = []
    reached = set()
    for rec in trace.passes:
        for s in rec.steps:
            reached.add(s.node)
    tree = None
    try:
        tree = ast.parse(trace.source)
    except SyntaxError:
        pass
    for name, v in trace.variables.items():
        if v.kind != "tensor" or not v.is_leaf or v.grad is not None:
            continue
        reads = re.search(r"\b" + re.escape(name) + r"\.grad\b", trace.source) is not None
        if not (reads or wrt == name or v.requires_grad):
            continue
        if not v.requires_grad:
            if not (reads or wrt == name):
                continue
            out.append(Diagnostic(kind="none_grad.requires_grad", severity="info", line=None,
                                  title=text("diag.none_grad.title", leaf=name),
                                  why=text("diag.none_grad.no_requires_grad", leaf=name),
                                  fix=text("diag.none_grad.no_requires_grad.fix", leaf=name)))
            continue
        if not trace.passes or (trace.implicit_root and all(r.line is None for r in trace.passes)):
            roots = [k for k, x in trace.variables.items() if x.kind == "tensor" and not x.is_leaf]
            out.append(Diagnostic(kind="none_grad.no_pass", severity="info", line=None,
                                  title=text("diag.none_grad.title", leaf=name),
                                  why=text("diag.none_grad.unused", leaf=name, reason=text(
                                      "diag.none_grad.reason.stopped", line=trace.error.get("line") or "?")
                                      if trace.error and trace.error.get("phase") != "parse"
                                      else text("diag.none_grad.reason.no_pass")),
                                  fix=text("diag.none_grad.no_pass.fix", root=roots[-1] if roots else "loss")))
            continue
        if v.node is not None and v.node in reached:
            continue   # reached by autograd.grad only, or grad reset by the script
        # what happened, in order: passes whose graph leads to the leaf failed; else no pass
        # started from a tensor computed from it; the no_grad/detach reading of the source
        # only when the graph shows the leaf cut off (in no graph, or in none a pass walked)
        failed = [r for r in trace.passes if r.error and v.node is not None and v.node in _reach(g, r.roots)]
        reason = None
        if failed:
            lines = [r.line for r in failed if r.line]
            key = "diag.none_grad.reason.failed_lines" if len(lines) > 1 else "diag.none_grad.reason.failed_line"
            reason = text(key, lines=_and_list([str(x) for x in lines])) if lines else text("diag.none_grad.reason.failed")
        elif v.node is not None and any(v.node in _reach(g, r.roots) for r in trace.passes):
            continue   # a pass reached it and the script reset .grad afterwards
        else:
            reason = _unused_reason(tree, name) if tree is not None else None
            if reason is None:
                reason = text("diag.none_grad.reason.never_used" if v.node is None else "diag.none_grad.reason.off_path")
        out.append(Diagnostic(kind="none_grad.unused", severity="warning", line=None,
                              title=text("diag.none_grad.title", leaf=name),
                              why=text("diag.none_grad.unused", leaf=name, reason=reason),
                              fix=text("diag.none_grad.failed.fix" if failed else "diag.none_grad.unused.fix", leaf=name)))
    return out


def _reach(g, roots) -> set:
    """Ids of every recorded node the graph of ``roots`` leads to."""
    seen, stack = set(), [r for r in roots or () if r is not None]
    while stack:
        i = stack.pop()
        if i in seen:
            continue
        seen.add(i)
        n = g.node(i)
        if n is not None:
            stack.extend(t for t, _ in n.inputs if t is not None and t not in seen)
    return seen


def _unused_reason(tree, name):
    """A no_grad block or a .detach() the leaf goes through, from the source."""
    for node in ast.walk(tree):
        if isinstance(node, ast.With):
            ctx = " ".join(ast.unparse(i.context_expr) for i in node.items)
            if "no_grad" in ctx or "inference_mode" in ctx or "set_grad_enabled(False)" in ctx:
                for stmt in node.body:
                    inplace = set()
                    for sub in ast.walk(stmt):
                        # x.add_(1), x -= lr * g: updating the leaf in place, not computing from it
                        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and \
                                sub.func.attr.endswith("_") and isinstance(sub.func.value, ast.Name):
                            inplace.add(id(sub.func.value))
                        if isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name):
                            inplace.add(id(sub.target))
                    for sub in ast.walk(stmt):
                        if id(sub) in inplace:
                            continue
                        if isinstance(sub, ast.Name) and sub.id == name and isinstance(sub.ctx, ast.Load):
                            return text("diag.none_grad.reason.no_grad", line=sub.lineno)
        if isinstance(node, ast.Attribute) and node.attr == "detach" and isinstance(node.value, ast.Name) and node.value.id == name:
            return text("diag.none_grad.reason.detach", line=node.lineno)
        if isinstance(node, ast.Attribute) and node.attr == "data" and isinstance(node.value, ast.Name) and \
                node.value.id == name and isinstance(node.ctx, ast.Load):
            return text("diag.none_grad.reason.data", line=node.lineno, leaf=name)
    return None


