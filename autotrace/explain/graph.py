"""Labels, values and source operands of the recorded graph nodes, and the op rules
explain writes out."""

from __future__ import annotations

import ast
import re

import numpy as np

from ..messages import text
from .numbers import _paren, _sub

# -- helpers over the record -------------------------------------------------------------


def nid(i) -> str:
    return f"n{i}"


def _where_made(n) -> str:
    """The source of a node: its statement when it made a variable (y = x * x), else its
    expression (y * y)."""
    if n.var_name and n.statement:
        return n.statement
    return n.text or n.statement or n.name


def _count_word(k: int) -> str:
    return text("label.both") if k == 2 else text("label.all_n", count=k)


class _Graph:
    """Labels and values of the recorded nodes, with operands recovered from the source."""

    def __init__(self, trace):
        self.trace = trace
        self.nodes = trace.nodes
        self._operands = {}     # (source text, op) -> operands: see operands()
        # a leaf is called by the name the tensor got first (NodeRecord.var_name: x, or
        # model.0.weight for a module's parameter), not by a variable bound later (a loop's
        # ``p``); when that first name now holds another tensor (``x = x * 2``), by the first
        # script variable that still holds the leaf
        holders = {}
        for name, v in trace.variables.items():
            if v.kind == "tensor" and v.is_leaf and v.node is not None:
                holders.setdefault(v.node, name)
        self.leaf_names = {}
        for n in self.nodes:
            if not n.is_leaf:
                continue
            first = n.var_name
            if first:
                cur = trace.variables.get(first)
                if cur is not None and cur.node != n.id and n.id in holders:
                    first = holders[n.id]
                self.leaf_names[n.id] = first
            elif n.id in holders:
                self.leaf_names[n.id] = holders[n.id]
        # nodes made inside one call (a module's forward, ``1 / x``) share its source text:
        # all but the call's own output are called by their op and an index (addmm₁)
        self.inner = {}
        groups = {}
        for n in self.nodes:
            if not n.is_leaf and n.text:
                groups.setdefault((n.line, n.col, n.text), []).append(n.id)
        for key, ids in groups.items():
            if len(ids) < 2:
                continue
            members = set(ids)
            # one call's nodes feed each other; the same line run again (a loop) makes a
            # separate group of nodes with the same text, numbered on its own
            comp = {i: i for i in ids}

            def find(i):
                while comp[i] != i:
                    comp[i] = comp[comp[i]]
                    i = comp[i]
                return i
            consumed = set()
            for i in ids:
                for t, _ in self.nodes[i].inputs:
                    if t in members:
                        consumed.add(t)
                        comp[find(t)] = find(i)
            counts = {}
            for i in ids:
                if i not in consumed or self.nodes[i].var_name:
                    continue
                op = getattr(self.nodes[i].op, "name", None) or self.nodes[i].name.replace("Backward0", "").lower()
                c = counts.setdefault(find(i), {})
                c[op] = c.get(op, 0) + 1
                self.inner[i] = (f"{op}{_sub(c[op])}", key[2])

    def node(self, i):
        return self.nodes[i] if i is not None and 0 <= i < len(self.nodes) else None

    def label(self, i) -> str:
        n = self.node(i)
        if n is None:
            return "?"
        if n.is_leaf:
            # a leaf no name reaches (a module's parameter bound to no variable): called by
            # its node id, so two such leaves never share a label
            return self.leaf_names.get(i) or text("label.unnamed_leaf", node=nid(i))
        if n.var_name:
            return n.var_name
        if i in self.inner:
            return self.inner[i][0]
        if n.text:
            return _paren(n.text)
        return n.name

    def value(self, i):
        n = self.node(i)
        if n is None:
            return None
        if n.is_leaf:
            if n.leaf_value is not None:
                return n.leaf_value
            v = self.trace.variables.get(n.var_name) if n.var_name else None
            return v.value if v is not None and v.kind == "tensor" else None
        return n.value

    def operands(self, n):
        """Source text of the op's operands in ``op.inputs`` order, or None (a new dict
        each call; parsed once per source text and op: a loop's nodes share both)."""
        if not n.text or n.op is None:
            return None
        key = (n.text, id(n.op))     # ops are the op table's, alive for the whole run
        if key not in self._operands:
            self._operands[key] = self._parse_operands(n)
        got = self._operands[key]
        return dict(got) if got is not None else None

    def _parse_operands(self, n):
        try:
            tree = ast.parse(n.text.strip(), mode="eval").body
        except SyntaxError:
            return None
        src = n.text.strip()
        seg = lambda e: ast.get_source_segment(src, e)  # noqa: E731
        op = n.op
        names = getattr(op, "inputs", ())
        if not _op_matches(tree, getattr(op, "name", "")):
            return None
        if isinstance(tree, ast.BinOp):
            left, right = tree.left, tree.right
            pair = [seg(left), seg(right)]
            if op.name in ("rsub_scalar",):
                return {names[0]: pair[1]} if names else None
            if isinstance(tree.op, ast.Div) and op.name == "mul":
                # ``1 / x`` runs reciprocal(x) then a multiplication by the number: only the
                # number is an operand of the source; the other input is the reciprocal
                return {names[1]: pair[0]} if _is_number(left) and len(names) > 1 else None
            if _is_number(left) and not _is_number(right) and op.name not in ("pow_scalar_base",):
                pair.reverse()
            if op.name == "pow_scalar_base":
                return {"exponent": pair[1], "base": pair[0]}
            if op.name == "pow":
                return {"self": pair[0], "exponent": pair[1]}
            return dict(zip(names, pair)) if len(names) <= 2 else None
        if isinstance(tree, ast.UnaryOp):
            return {names[0]: seg(tree.operand)} if names else None
        if isinstance(tree, ast.Call):
            args = [seg(a) for a in tree.args]
            kw = {k.arg: seg(k.value) for k in tree.keywords if k.arg}
            f = tree.func
            method = isinstance(f, ast.Attribute) and not _is_module(f.value)
            if op.name == "where":
                # torch.where(condition, self, other) / self.where(condition, other): the
                # condition is no input edge of WhereBackward0
                args = ([seg(f.value)] + args[1:]) if method else args[1:]
                kw.pop("condition", None)
            elif method:
                args = [seg(f.value)] + args
            if "input" in kw and names and not method:
                args = [kw.pop("input")] + args
            out = dict(zip(names, args))
            if op.name == "pow" and len(args) >= 2:
                out["exponent"] = args[1]
            for k, v in kw.items():
                if k in ("exponent", "other", "alpha") or k in names:
                    out[k] = v
            return out
        return None


_BINOPS = {ast.Add: ("add",), ast.Sub: ("sub", "rsub", "rsub_scalar"), ast.Mult: ("mul", "mul_scalar"),
           ast.Div: ("div", "div_scalar", "mul"), ast.Pow: ("pow", "pow_tensor", "pow_scalar_base"),
           ast.MatMult: ("mm", "mv", "dot", "matmul_batched", "bmm")}


def _op_matches(tree, opname: str) -> bool:
    """Whether the expression's outermost operation is the recorded op (so its operands
    are the op's inputs)."""
    if isinstance(tree, ast.BinOp):
        return opname in _BINOPS.get(type(tree.op), ())
    if isinstance(tree, ast.UnaryOp):
        return isinstance(tree.op, ast.USub) and opname == "neg"
    if isinstance(tree, ast.Call):
        f = tree.func
        fname = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
        base = opname.split("_")[0]
        return fname in (opname, base) or fname.rstrip("_") == base
    return False


def _exponent(n, operands):
    """The Python-number exponent of a ``pow`` node: from the record, else the source."""
    for d in (n.scalars, n.attrs):
        v = d.get("exponent")
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return v
    return _literal(operands.get("exponent", ""))


def _is_number(e) -> bool:
    if isinstance(e, ast.Constant) and isinstance(e.value, (int, float)) and not isinstance(e.value, bool):
        return True
    return isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) and _is_number(e.operand)


def _is_module(e) -> bool:
    while isinstance(e, ast.Attribute):
        e = e.value
    return isinstance(e, ast.Name) and e.id in ("torch", "F", "nn", "math")


def _literal(textval):
    try:
        v = ast.literal_eval(textval)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return v
    return None


ELEMENTWISE = {
    "add", "sub", "rsub", "rsub_scalar", "mul", "mul_scalar", "div", "div_scalar", "neg", "pow",
    "pow_tensor", "pow_scalar_base", "exp", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt",
    "reciprocal", "sin", "cos", "tan", "tanh", "sigmoid", "abs", "relu", "clamp", "clamp_min",
    "clamp_max", "maximum", "minimum", "clone", "alias", "to_copy", "erf", "gelu", "silu", "softplus",
    "leaky_relu", "hardtanh", "where", "masked_fill", "frac", "round", "floor", "ceil", "trunc", "sign",
    "atan2", "hypot", "xlogy", "fmod", "remainder",
}
MATRIX = {"mm", "addmm", "mv", "dot", "bmm", "matmul_batched"}

_SYMBOLS = ("self", "other", "exponent", "result", "tensor", "vec", "mat1", "mat2", "alpha", "input",
            "index", "dim", "min", "max", "negative_slope", "beta", "threshold", "target", "end", "weight",
            "tensor1", "tensor2", "source", "src", "values", "x1", "x2", "batch1", "batch2")


_LOCAL_NP = {
    "sqrt": {"self": lambda v: 0.5 / np.sqrt(v["self"])},
    "rsqrt": {"self": lambda v: -0.5 * np.power(v["self"], -1.5)},
    "log": {"self": lambda v: 1.0 / v["self"]},
    "log2": {"self": lambda v: 1.0 / (v["self"] * np.log(2.0))},
    "log10": {"self": lambda v: 1.0 / (v["self"] * np.log(10.0))},
    "reciprocal": {"self": lambda v: -1.0 / (v["self"] * v["self"])},
    "div": {"self": lambda v: 1.0 / v["other"], "other": lambda v: -v["self"] / (v["other"] * v["other"])},
    "mul": {"self": lambda v: v["other"], "other": lambda v: v["self"]},
    "atan2": {"self": lambda v: v["other"] / (v["self"] ** 2 + v["other"] ** 2),
              "other": lambda v: -v["self"] / (v["self"] ** 2 + v["other"] ** 2)},
    "hypot": {"self": lambda v: v["self"] / np.hypot(v["self"], v["other"]),
              "other": lambda v: v["other"] / np.hypot(v["self"], v["other"])},
    "xlogy": {"self": lambda v: np.where((v["self"] == 0) & (v["other"] <= 0), 0.0, np.log(v["other"])),
              "other": lambda v: v["self"] / v["other"]},
}


def _local_np(opname, name, values, shape):
    """The local derivative of an elementwise op from its rule and the forward values
    (float64, broadcast to ``shape``), or None when a value is missing."""
    f = _LOCAL_NP.get(opname, {}).get(name)
    if f is None:
        return None
    try:
        with np.errstate(all="ignore"):
            vals = {k: np.asarray(v, dtype=np.float64) for k, v in values.items()
                    if k in ("self", "other") and v is not None}
            return np.broadcast_to(f(vals), shape).astype(np.float64)
    except (KeyError, ValueError, TypeError):
        return None


def _matrix_rule(rule: str, labels: dict, out: str, opname: str = "") -> str:
    """The op table's matrix rule (``∂L/∂B = Aᵀ · ∂L/∂Y``) with the script's operands in
    place of the letters: A, X = the first matrix, B, W = the second, Y = the result. A
    letter whose operand has no name in the script stays a letter."""
    if opname == "addmm":  # self is the added bias there; the matrices are mat1 and mat2
        first = labels.get("mat1")
    else:
        first = labels.get("self") or labels.get("input")
    second = labels.get("mat2") or labels.get("other")
    letters = {"A": first, "X": first, "B": second, "W": second, "Y": out}

    def name(m):
        v = letters.get(m.group(1))
        if not v:
            return m.group(1)
        v = str(v)
        simple = re.fullmatch(r"[\w.\[\]]+", v) or (v.startswith("(") and v.endswith(")"))
        return v if simple or not m.group(2) else f"({v})"

    # ASCII classes: "ᵀ" is a letter to \w, and must not hide the A in "Aᵀ"
    return re.sub(r"(?<![A-Za-z0-9_])([ABXWY])(?![A-Za-z0-9_])(ᵀ?)", lambda m: name(m) + m.group(2), rule)

