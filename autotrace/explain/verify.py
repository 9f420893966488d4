"""Checking autograd's gradients by central differences in float64."""

from __future__ import annotations

import numpy as np

from ..messages import text
from .graph import _Graph
from .model import Verification, VerifyRow

# -- verification by central differences ------------------------------------------------


def verify(trace, rerun, *, pass_number=None, of=None, h=1e-6, limit=16, tol=1e-3):
    """Check autograd's gradients for one backward pass by central differences.

    ``rerun(perturb)`` runs the script again with ``perturb`` — a dict ``name -> (index,
    delta)`` — applied in float64 to that leaf when the script first binds it, and returns
    the new Trace. The root's value in that run (the tensor the pass started from, by its
    variable name) gives f(x ± h).
    """
    with np.errstate(all="ignore"):
        return _verify(trace, rerun, pass_number=pass_number, of=of, h=h, limit=limit, tol=tol)


def _verify(trace, rerun, *, pass_number, of, h, limit, tol):
    notes = []
    if not trace.passes:
        return Verification(None, [], None, None, [text("verify.skipped", reason=text("verify.reason.no_pass"))])
    k = (pass_number - 1) if pass_number else len(trace.passes) - 1
    while pass_number is None and k > 0 and trace.passes[k].error:
        k -= 1
    rec = trace.passes[k]
    g = _Graph(trace)
    root_id = rec.roots[0] if rec.roots else None
    root_node = g.node(root_id)
    root = of if (of and rec.line is None) else (root_node.var_name if root_node is not None else None)
    if not root or root not in trace.variables:
        return Verification(k + 1, [], None, None, [text("verify.skipped", reason=text("verify.reason.root", number=k + 1))])
    seed = rec.seed[0] if rec.seed else None
    # every float tensor the script binds by name goes to float64 with the moved one (moved
    # by 0), so a float64 parameter meets float64 inputs in a matmul, which needs one dtype
    along = {}
    for n in trace.nodes:
        if n.is_leaf and n.var_name and str(n.dtype or "").startswith(("float", "torch.float")):
            along[n.var_name] = ((), 0.0)
    for name, v in trace.variables.items():
        if v.kind == "tensor" and v.is_leaf and str(v.dtype or "").startswith("float"):
            along.setdefault(name, ((), 0.0))
    rows = []
    skipped = False
    for s in rec.steps:
        n = g.node(s.node)
        if n is None or not n.is_leaf:
            continue
        analytic = s.grad_in[0] if s.grad_in else None
        if analytic is None:
            continue
        leaf = g.label(s.node)
        # the runner's perturb hook sees the name the tensor got first (a module's
        # parameters: model.0.weight, from Module._on_bind)
        key = n.var_name
        value = g.value(s.node)
        if not key or value is None:
            notes.append(text("verify.cannot_perturb", leaf=leaf,
                              reason=text("verify.reason.unnamed" if not key else "verify.reason.no_value")))
            skipped = True
            continue
        value = np.asarray(value)
        size = value.size
        if size > limit:
            notes.append(text("verify.too_big", leaf=leaf, count=size, limit=limit))
        failed = None
        for flat in range(min(size, limit)):
            idx = np.unravel_index(flat, value.shape) if value.ndim else ()
            tp, tm = rerun({**along, key: (idx, h)}), rerun({**along, key: (idx, -h)})
            fp, fm = _root_value(tp, root), _root_value(tm, root)
            if fp is None or fm is None:
                bad = next((t for t in (tp, tm) if t is not None and t.error), None)
                failed = (text("verify.reason.rerun", error=f"{bad.error.get('type')}: {bad.error.get('message')}")
                          if bad is not None else text("verify.reason.no_root", root=root))
                break
            with np.errstate(all="ignore"):
                d = (fp - fm) / (2 * h)
                num = float(np.sum(d * seed.astype(np.float64))) if seed is not None else float(np.sum(d))
            a = float(np.asarray(analytic, dtype=np.float64)[idx] if analytic.ndim else analytic)
            rows.append(VerifyRow(leaf=leaf, index=tuple(int(i) for i in idx), analytic=a, numeric=num,
                                  error=abs(a - num)))
        if failed is not None:
            notes.append(text("verify.cannot_perturb", leaf=leaf, reason=failed))
            skipped = True
    if not rows:
        if skipped:     # the leaves were found; the notes say why none could be checked
            return Verification(k + 1, [], None, None, notes)
        return Verification(k + 1, [], None, None, notes + [text("verify.skipped", reason=text("verify.reason.no_leaf"))])
    largest = max(rows, key=lambda r: (np.nan_to_num(r.error, nan=np.inf)))
    ok = all(r.error <= tol * max(1.0, abs(r.analytic)) for r in rows)
    return Verification(k + 1, rows, largest, ok, notes)


def _root_value(trace, root):
    v = trace.variables.get(root) if trace is not None else None
    if v is None or v.kind != "tensor" or v.value is None:
        return None
    return np.asarray(v.value, dtype=np.float64)


