"""One backward pass step by step: the seed, per node the rule in symbols and numbers,
what each input receives."""

from __future__ import annotations

import math
import re
from operator import truediv

import numpy as np

from ..messages import text
from .graph import (_LOCAL_NP, _SYMBOLS, ELEMENTWISE, MATRIX, _count_word, _exponent, _Graph, _literal, _local_np,
                    _matrix_rule, _where_made, nid)
from .chains import chains
from .folding import shown_steps
from .table import rows as table_rows
from .model import Edge, Pass, Step
from .numbers import SMALL, _factor, _paren, _wrapped, fmt, fmt_num, sup, uniform


#: arrays of at most this many float32/float64 elements are read on Python floats
_FEW = 16
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _ratio(go, upstream):
    """``go / upstream`` in float64 rounded to ``go``'s dtype (``upstream`` broadcast to
    ``go``'s shape), or None where some upstream element is 0 or not finite, or a ratio
    is not finite where ``go`` is (the local derivative is then unreadable)."""
    if go.shape == upstream.shape and go.size <= _FEW and go.dtype in _FLOATS and upstream.dtype in _FLOATS:
        return _ratio_few(go, upstream)
    return _ratio_array(go, upstream)


def _ratio_few(go, upstream):
    """:func:`_ratio` of a few elements on Python floats (their division is numpy's
    float64 one), without a dozen array calls."""
    us = upstream.ravel().tolist()
    if 0.0 in us or not all(map(math.isfinite, us)):
        return None
    vs = go.ravel().tolist()
    rs = list(map(truediv, vs, us))
    if all(math.isfinite(r) or not math.isfinite(v) for r, v in zip(rs, vs)):
        out = np.array(rs, dtype=go.dtype)
        out.shape = go.shape    # in place: a reshaped view would keep a second array object
        return out
    return None


def _ratio_array(go, upstream):
    """:func:`_ratio` by array operations."""
    # ndarray methods rather than np.all and a broadcast of an equal shape: this runs
    # for most steps of a long graph
    with np.errstate(all="ignore"):
        try:
            up = upstream if upstream.shape == go.shape else np.broadcast_to(upstream, go.shape)
            ratio = np.asarray(go, dtype=np.float64) / up.astype(np.float64)
        except ValueError:
            return None
    if (np.isfinite(ratio) | ~np.isfinite(go)).all() and (upstream != 0).all() and np.isfinite(upstream).all():
        return ratio.astype(go.dtype)
    return None


class _Explainer:
    def __init__(self, trace):
        self.trace = trace
        self.g = _Graph(trace)
        # the symbol for a gradient= vector: one the script does not use as a name
        taken = set(trace.variables) | {n.var_name for n in trace.nodes if n.var_name}
        self.vsym = next(c for c in ("v", "u", "g", "𝐯") if c not in taken)
        # non-leaf tensors whose gradient the script keeps (retain_grad): node id -> name
        self._retained = {v.node: name for name, v in trace.variables.items()
                          if v.kind == "tensor" and v.retains_grad and not v.is_leaf and v.node is not None}

    # -- one pass ----------------------------------------------------------------------

    def explain_pass(self, p, number, total, implicit_of=None, auto=None, all_steps=False, light=False) -> Pass:
        """Pass ``p`` (a PassRecord) explained. ``light``: only what is compared between
        passes and read by folds, the timeline and diagnostics (the steps' numbers and
        edge targets, no sentences, formulas, chains or table); :meth:`signature` of a
        light pass equals the full one's."""
        g = self.g
        root_id = p.roots[0] if p.roots else None
        root_node = g.node(root_id)
        root = g.label(root_id) if root_node is not None else "?"
        if root_node is not None and root_node.is_leaf:
            root = root_node.var_name or root
        seed = p.seed[0] if p.seed else None
        shape = tuple(root_node.shape) if root_node is not None and root_node.shape is not None else ()
        implicit = seed is not None and seed.size == 1 and float(seed.reshape(-1)[0]) == 1.0 and len(shape) == 0
        if seed is None:
            seed_text = text("seed.failed", root=root, shape=list(shape))
        elif p.kind == "grad":
            seed_text = text("seed.scalar", root=root) if implicit else text(
                "seed.vector", root=root, shape=list(shape), value=fmt(seed), v=self.vsym)
            seed_text += " " + text("seed.grad_call")
        elif implicit:
            seed_text = text("seed.scalar", root=root)
        else:
            seed_text = text("seed.vector", root=root, shape=list(shape), value=fmt(seed), v=self.vsym)
        if implicit_of is not None:
            seed_text += " " + text("seed.implicit_auto" if auto else "seed.implicit_of", root=implicit_of)
        elif p.steps and p.retain_graph:
            seed_text += " " + text("seed.retain")
        out = Pass(number=number, kind=p.kind, line=p.line, statement=p.text, root=root,
                   root_shape=shape, seed=seed, seed_text=seed_text, retain_graph=bool(p.retain_graph),
                   implicit=implicit_of is not None, error=p.error, auto=auto)
        self._root = root
        # with a gradient= vector v every gradient of the pass is vᵀ·∂root/∂t, not ∂root/∂t
        self._pre = f"{self.vsym}·" if seed is not None and not implicit else ""
        self._seed_root = root_id
        self._factors = {}
        self._numbers = {s.node: k + 1 for k, s in enumerate(p.steps)}
        # only the steps the text shows are written out in words (a long run of one pattern
        # is summarised): the others keep their numbers only, so a long pass costs little
        shown = None if all_steps else shown_steps([self._signature(s) for s in p.steps])
        last = len(p.steps) - 1
        for k, s in enumerate(p.steps):
            out.steps.append(self.explain_step(s, k + 1, root_id, seed, p, failed=bool(p.error) and k == last,
                                               detail=shown is None or k in shown, light=light))
        if not light:
            out.chains = chains(self, p, out, root_id)
            out.table = table_rows(out.steps, all_steps)
        return out

    def _signature(self, s):
        """What folding compares between steps (see :func:`folding.collapse`)."""
        n = self.g.node(s.node)
        if n is None:
            return ("?", None, None, "node", bool(s.fan_in))
        return (n.name, n.line, n.statement, "accumulate" if n.is_leaf else "node", bool(s.fan_in))

    @staticmethod
    def signature(p: Pass):
        """What must be equal for a pass to be shown as a repeat of an earlier one: the
        same nodes from the same lines with bit-equal gradients."""
        return (p.root, p.statement, p.error, _bits(p.seed), tuple(
            (s.node_name, s.statement, s.kind, _bits(s.upstream), tuple((e.target, _bits(e.grad)) for e in s.edges))
            for s in p.steps))

    def explain_step(self, s, number, root_id, seed, p, failed=False, detail=True, light=False) -> Step:
        g = self.g
        n = g.node(s.node)
        label = g.label(s.node)
        upstream = s.grad_in[0] if s.grad_in else None
        if s.node == root_id and self._pre:
            up_sym = text("label.seed_vector", v=self.vsym)
        else:
            up_sym = self._d(label)
        step = Step(number=number, node=nid(s.node), node_name=n.name if n else "?", line=n.line if n else None,
                    statement=n.statement if n else None, expr=n.text if n else None, output=label,
                    shape=tuple(n.shape or ()) if n else (), value=g.value(s.node), upstream=upstream,
                    upstream_symbol=up_sym, failed=failed)
        if s.fan_in:
            srcs = [src for src, _ in s.fan_in]
            step.fan_in = []
            for src, v in s.fan_in:
                if src is None:
                    lab = text("label.seed")
                elif srcs.count(src) > 1:
                    sn = g.node(src)
                    lab = text("label.inputs_of", count=_count_word(srcs.count(src)), stmt=_where_made(sn) if sn else g.label(src))
                else:
                    lab = g.label(src)
                if src is not None and src in self._numbers:
                    lab = text("label.via_step", label=lab, step=self._numbers[src])
                step.fan_in.append((lab, v))
        if n is None:
            return step
        if n.is_leaf:
            step.kind = "accumulate"
            if p.kind == "grad":
                step.increment = upstream
                step.remark = text("step.accumulate_captured", leaf=label)
            else:
                step.before = s.before
                step.after = s.after
                if s.after is not None:
                    step.increment = upstream
                step.remark = text("step.accumulate_first" if s.before is None else "step.accumulate_add", leaf=label)
            if not (g.leaf_names.get(s.node) or n.var_name):
                step.remark = text("step.unnamed_leaf", leaf=label, shape=list(n.shape or ()), line=n.line) + " " + step.remark
            return step
        if s.node in g.inner:
            step.remark = text("step.inner", label=label, node=n.name, expr=g.inner[s.node][1])
        retained = self._retained.get(s.node)
        if retained and upstream is not None:
            extra = text("step.retained", name=retained, value=fmt(upstream))
            step.remark = f"{step.remark} {extra}" if step.remark else extra
        if failed:
            step.remark = text("step.not_reached")
            return step
        op = n.op
        if not detail:
            return self._numbers_only(step, s, n, op, upstream)
        operands = g.operands(n) or {}
        names = list(getattr(op, "inputs", ()) or ())
        for i, (tid, nr) in enumerate(n.inputs):
            in_name = names[i] if i < len(names) else f"input{i}"
            go = s.grads_out[i] if i < len(s.grads_out) else None
            src = operands.get(in_name)
            if tid is not None:
                target = g.label(tid)
                if src is not None and re.fullmatch(r"[A-Za-z_]\w*", src.strip()) and tid not in g.leaf_names:
                    target = src.strip()
            else:
                target = _paren(src) if src else text("label.constant")
            edge = Edge(input=in_name, target=target, target_node=nid(tid) if tid is not None else None,
                        rule=None, numbers=None, formula=None, grad=go, local=None)
            if tid is None:
                frozen = self._frozen_source(src)
                if frozen is None and src is None and in_name in ("mat1", "input", "self"):
                    # an op inside a module call ``head(h)``: the call's one argument
                    m = re.fullmatch(r"\s*[A-Za-z_][\w.]*\(([A-Za-z_]\w*)\)\s*", n.text or "")
                    frozen = self._frozen_source(m.group(1)) if m else None
                    if frozen:
                        edge.target = m.group(1)
                if light:
                    step.edges.append(edge)
                    continue
                if in_name in n.scalars or _literal(src or "") is not None:
                    edge.note = text("label.no_input.number")
                elif frozen:
                    edge.note = text("label.no_input.frozen", module=frozen)
                else:
                    edge.note = text("label.no_input")
                step.edges.append(edge)
                continue
            full = s.sum_back.get(i) if s.sum_back else None
            if light:
                step.edges.append(edge)
                continue
            self.describe_edge(step, n, op, operands, edge, upstream, full if full is not None else go, i)
            if full is not None and go is not None:
                # the op's output had the broadcast shape; the engine summed it back to the
                # input's shape (validate_outputs): a step of its own
                edge.sum_back = full
                if edge.formula and " = " in edge.formula:
                    edge.formula = edge.formula.split(" = ", 1)[1]
                dims = _broadcast_dims(full.shape, go.shape)
                edge.sum_back_text = text("step.sum_back", target=edge.target, big=list(full.shape),
                                          small=list(go.shape), dims=", ".join(map(str, dims)),
                                          sym=self._d(edge.target), value=fmt(go))
            step.edges.append(edge)
        if light:
            return step
        tids = [tid for tid, _ in n.inputs if tid is not None]
        for tid in set(tids):
            if tids.count(tid) > 1:
                first = next(e for e in step.edges if e.target_node == nid(tid))
                extra = text("step.same_input", target=first.target, count=_count_word(tids.count(tid)),
                             stmt=_where_made(n))
                first.note = f"{first.note} {extra}" if first.note else extra
        return step

    def _frozen_source(self, src):
        """The module whose output ``src`` is when all its parameters are frozen
        (requires_grad=False), else None: ``h = frozen(x)`` → "frozen"."""
        if not src or not re.fullmatch(r"[A-Za-z_]\w*", src.strip()):
            return None
        name = src.strip()
        v = self.trace.variables.get(name)
        if v is None or v.kind != "tensor" or v.requires_grad:
            return None
        params = getattr(self.trace, "parameters", {}) or {}
        for line in self.trace.source.splitlines():
            m = re.match(rf"\s*{re.escape(name)}\s*=\s*([A-Za-z_][\w.]*)\(", line)
            if m:
                mod = m.group(1)
                own = [p for k, p in params.items() if k.startswith(mod + ".")]
                if own and not any(p.requires_grad for p in own):
                    return mod
        return None

    def _numbers_only(self, step, s, n, op, upstream) -> Step:
        """A step that is not written out: its edges with the gradients passed on and the
        local factors the chains need, no sentences or formulas."""
        g = self.g
        names = list(getattr(op, "inputs", ()) or ())
        opname = getattr(op, "name", "")
        for i, (tid, _nr) in enumerate(n.inputs):
            go = s.grads_out[i] if i < len(s.grads_out) else None
            edge = Edge(input=names[i] if i < len(names) else f"input{i}",
                        target=g.label(tid) if tid is not None else text("label.constant"),
                        target_node=nid(tid) if tid is not None else None,
                        rule=None, numbers=None, formula=None, grad=go, local=None)
            if tid is not None:
                full = s.sum_back.get(i) if s.sum_back else None
                if full is not None:
                    edge.sum_back = full
                if opname in ELEMENTWISE:
                    self._ratio_local(n, edge, upstream, full if full is not None else go, i)
            step.edges.append(edge)
        return step

    def _ratio_local(self, n, edge, upstream, go, i) -> None:
        """The local derivative the engine applied, recovered as grad / upstream (where the
        upstream gradient is finite and not 0)."""
        if go is None or upstream is None:
            return
        if go.size == 1 and upstream.size == 1 and go.ndim >= upstream.ndim:
            u = upstream.item()
            v = go.item()
            if u != 0 and math.isfinite(u):
                r = v / u
                if math.isfinite(r) or not math.isfinite(v):
                    edge.local = np.array(r, dtype=go.dtype).reshape(go.shape)
                    self._factors[(n.id, i)] = float(edge.local.item())
            return
        local = _ratio(go, upstream)
        if local is not None:
            edge.local = local
            self._factors[(n.id, i)] = local

    def describe_edge(self, step, n, op, operands, edge, upstream, go, i):
        out = step.output
        name = edge.input
        local = getattr(op, "local", None) or {}
        rule_text = local.get(name)
        opname = getattr(op, "name", "")
        values = self._symbol_values(n, operands)
        labels = self._symbol_labels(n, operands, out)
        if opname in ELEMENTWISE:
            self._ratio_local(n, edge, upstream, go, i)
        if edge.local is None and go is not None and upstream is not None and opname in _LOCAL_NP:
            # the ratio cannot be read where the upstream gradient is 0 or not finite (0 · inf
            # behind a where): evaluate the rule, and keep it only if it gives the engine's numbers
            local = _local_np(opname, name, values, go.shape)
            if local is not None:
                with np.errstate(all="ignore"):
                    prod = np.broadcast_to(upstream, go.shape).astype(np.float64) * local
                if np.allclose(prod, np.asarray(go, dtype=np.float64), rtol=1e-4, atol=1e-6, equal_nan=True) and \
                        np.array_equal(np.isfinite(prod), np.isfinite(go)):
                    edge.local = local.astype(go.dtype)
                    self._factors[(n.id, i)] = edge.local
        exponent = _exponent(n, operands)
        if opname == "pow" and exponent is not None:
            e = exponent
            base = labels.get("self", "self")
            e1 = e - 1
            sym = f"{fmt_num(e)}·{_paren(base)}{sup(e1)}" if e1 != 1 else f"{fmt_num(e)}·{_paren(base)}"
            if e1 == 0:
                sym = fmt_num(e)
            edge.rule = f"∂{out}/∂{edge.target} = ∂({_paren(base)}{sup(e)})/∂{_paren(base)} = {sym}"
            xv = values.get("self")
            if edge.local is None and xv is not None and go is not None:
                with np.errstate(all="ignore"):
                    edge.local = np.asarray(e * np.power(np.asarray(xv, dtype=np.float64), e1)).astype(go.dtype)
                self._factors[(n.id, i)] = edge.local
            if xv is not None and np.asarray(xv).size <= SMALL:
                xs = fmt(xv)
                xs = xs if np.asarray(xv).ndim == 0 and not xs.startswith("-") else f"({xs})"
                num = f"{fmt_num(e)}·{xs}{sup(e1)}" if e1 not in (0, 1) else (f"{fmt_num(e)}·{xs}" if e1 == 1 else fmt_num(e))
                if edge.local is not None:
                    loc = uniform(edge.local)
                    num += " = " + (fmt_num(loc) if loc is not None else fmt(edge.local))
                edge.numbers = num
        elif opname in ELEMENTWISE and rule_text:
            sym = self._substitute(rule_text, labels)
            edge.rule = f"∂{out}/∂{edge.target} = {sym}"
            num = self._substitute(rule_text, {k: fmt(v) for k, v in values.items()
                                               if v is not None and np.asarray(v).size <= SMALL})
            if edge.local is not None:
                loc = uniform(edge.local)
                loc_s = fmt_num(loc) if loc is not None else fmt(edge.local)
                edge.numbers = num + " = " + loc_s if num != loc_s and num != sym else loc_s
        elif opname in ("sum", "sum_dim", "mean", "mean_dim"):
            tshape = list(go.shape) if go is not None else []
            if opname.startswith("sum"):
                edge.rule = text("rule.sum", out=out, target=edge.target, shape=tshape)
            else:
                count = int(np.prod(go.shape)) // max(1, int(np.prod(np.shape(upstream)))) if go is not None and upstream is not None else "N"
                edge.rule = text("rule.mean", out=out, target=edge.target, shape=tshape, n=count)
        elif opname in MATRIX and rule_text and "∂" in rule_text:
            edge.rule = text("step.matrix", rule=_matrix_rule(rule_text, labels, out, opname).replace(
                "∂L/", f"{self._pre}∂{self._root}/"))
            edge.numbers = _matrix_numbers(rule_text, values, upstream, go, opname)
        elif opname in MATRIX:
            vjp = self._substitute(op.vjp.get(name, ""), {k: v for k, v in labels.items() if k in ("alpha", "beta")})
            vjp = re.sub(r"\bgrad\b", self._d(out), vjp, flags=re.ASCII).replace("self's", f"{edge.target}'s")
            edge.rule = f"{self._d(edge.target)} = {vjp}"
        elif rule_text is not None or (getattr(op, "vjp", None) and name in op.vjp):
            vjp = op.vjp.get(name, "")
            r = rule_text if rule_text not in (None, "1") else None
            # every input by its name in the script (mse_loss's target, lerp's end, ...)
            attrs = {k: labels[k] for k in ("self", "index", *getattr(op, "inputs", ())) if k in labels}
            if "dim" in labels:
                attrs["dim"] = f"dim {labels['dim']}"
            vjp = re.sub(r"\bgrad\b", self._d(out), self._substitute(vjp, attrs), flags=re.ASCII)
            edge.rule = f"{self._d(edge.target)} = {vjp}"
            if r:
                edge.rule += f"   ({r})"
        # upstream · local = value
        if go is not None:
            # a tensor already written out above (the upstream line, the numbers line) is
            # referred to by name when it is more than a few numbers
            up = fmt(upstream) if upstream is not None else "?"
            if upstream is not None and np.size(upstream) > REFER:
                up = text("ref.upstream")
            if edge.local is not None:
                loc = uniform(edge.local)
                loc_s = fmt_num(loc) if loc is not None else fmt(edge.local)
                if loc is None and np.size(edge.local) > REFER and edge.numbers and edge.numbers.endswith(loc_s):
                    loc_s = text("ref.local")
                edge.formula = f"{self._d(edge.target)} = {_factor(up)} · {_factor(loc_s)} = {fmt(go)}"
            elif upstream is not None and np.size(go) > REFER and _same_array(go, upstream):
                edge.formula = f"{self._d(edge.target)} = {text('ref.upstream_same')}"
            else:
                edge.formula = f"{self._d(edge.target)} = {fmt(go)}"

    def _d(self, target) -> str:
        """The symbol of the gradient of this pass's output with respect to ``target``."""
        return f"{self._pre}∂{self._root}/∂{target}"

    def _symbol_values(self, n, operands):
        g = self.g
        vals = {}
        names = list(getattr(n.op, "inputs", ()) or ())
        for i, (tid, _nr) in enumerate(n.inputs):
            if i < len(names):
                if tid is not None:
                    vals[names[i]] = g.value(tid)
        for k, v in list(n.scalars.items()) + list(n.attrs.items()):
            if isinstance(v, (int, float)) and not isinstance(v, bool) and vals.get(k) is None:
                vals[k] = v
        for k, src in operands.items():
            if k in vals and vals[k] is not None:
                continue
            lit = _literal(src)
            if lit is not None:
                vals[k] = lit
            elif src and re.fullmatch(r"[A-Za-z_]\w*", src.strip()):
                v = self.trace.variables.get(src.strip())
                if v is not None and v.kind in ("tensor", "number"):
                    vals[k] = v.value
        vals["result"] = n.value
        vals.setdefault("alpha", 1)
        return vals

    def _symbol_labels(self, n, operands, out):
        g = self.g
        labels = {}
        names = list(getattr(n.op, "inputs", ()) or ())
        for i, (tid, _nr) in enumerate(n.inputs):
            if i < len(names):
                src = operands.get(names[i])
                if tid is not None and tid in g.leaf_names:
                    labels[names[i]] = g.label(tid)
                elif src is not None:
                    labels[names[i]] = src.strip() if re.fullmatch(r"[\w.]+", src.strip()) else _paren(src)
                elif tid is not None:
                    labels[names[i]] = g.label(tid)
        for k, src in operands.items():
            labels.setdefault(k, src.strip() if re.fullmatch(r"[\w.]+", src.strip()) else _paren(src))
        for k, v in list(n.scalars.items()) + list(n.attrs.items()):
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                labels.setdefault(k, fmt_num(v))
        labels["result"] = out
        labels.setdefault("alpha", "1")
        return labels

    @staticmethod
    def _substitute(rule: str, mapping: dict) -> str:
        def rep(m):
            k = m.group(0)
            v = str(mapping.get(k, k))
            before, after = rule[m.start() - 1:m.start()], rule[m.end():m.end() + 1]
            if v[:1] in "-−" and after in ("²", "³"):
                return f"({v})"  # −1.5² would read as −(1.5²)
            if before == "(" and after in (")", ",") and _wrapped(v):
                return v[1:-1]   # log(x.abs()), not log((x.abs()))
            return v
        s = re.sub(r"\b(" + "|".join(_SYMBOLS) + r")\b(?!\()", rep, rule, flags=re.ASCII)
        s = s.replace("−1·", "−").replace("-1·", "-")
        s = re.sub(r"^-(-?\d)", lambda m: str(-int(m.group(1))) if m.group(1).lstrip("-").isdigit() else m.group(0), s)
        return s.replace("--", "")


    def _path_sym(self, a, i, leaf, leaf_label) -> str:
        """∂a/∂input for edge ``i`` of node ``a``; "(via other)" when the node takes that
        input more than once (x * x)."""
        g = self.g
        na = g.node(a)
        tid = na.inputs[i][0]
        sym = f"∂{g.label(a)}/∂{g.label(tid) if tid != leaf else leaf_label}"
        if sum(1 for t, _ in na.inputs if t == tid) > 1:
            names = list(getattr(na.op, "inputs", ()) or ())
            sym += " " + text("label.via", input=names[i] if i < len(names) else text("label.input_n", index=i))
        return sym


MATRIX_NUMBERS = 6  # matrices of at most this many elements are written out in a matrix step


def _matrix_numbers(rule, values, upstream, go, opname):
    """The matrix rule with the operands' values put in, while they are small:
    ``[[1, 3], [2, -1]] · [[-1.4], [2.1]] = [[4.9], [-4.9]]`` for ``Xᵀ · ∂L/∂Y``."""
    rhs = rule.split(" = ", 1)[-1].strip()
    first = values.get("mat1") if opname == "addmm" else values.get("self")
    second = values.get("mat2")
    names = {"A": first, "X": first, "B": second, "W": second, "∂L/∂Y": upstream}
    parts = []
    for tok in rhs.split(" · "):
        tok = tok.strip()
        t = tok.endswith("ᵀ")
        v = names.get(tok[:-1] if t else tok)
        if v is None or go is None:
            return None
        v = np.asarray(v)
        if v.ndim != 2 or v.size > MATRIX_NUMBERS:
            return None
        parts.append(fmt(v.T if t else v))
    if np.size(go) > MATRIX_NUMBERS or len(parts) != 2:
        return None
    return " · ".join(parts) + " = " + fmt(go)


REFER = 4           # arrays of more elements are written once per step and then referred to


def _same_array(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=True))


def _bits(a):
    """An array as comparable bytes (shape, dtype and contents), None as None."""
    if a is None:
        return None
    a = np.asarray(a)
    return (a.shape, a.dtype.str, a.tobytes())


def _broadcast_dims(big, small) -> list:
    """The dimensions of ``big`` that a gradient is summed over to get ``small``'s shape."""
    lead = len(big) - len(small)
    return [d for d in range(len(big)) if d < lead or (small[d - lead] == 1 and big[d] != 1)]
