"""Explain a trace: the backward passes step by step, as plain data.

:func:`explain` turns a :class:`~autotrace.trace.Trace` (run with ``keep_values``) into an
:class:`Explanation`: per backward pass the seed, per executed node the forward
expression, PyTorch's node name, the local rule in symbols and with numbers, the upstream
gradient and what each input receives; fan-in sums; ``AccumulateGrad`` before → increment
→ after; each leaf's whole chain; a timeline of every leaf's ``.grad``; diagnostics with
their why and fix; and optionally a central-difference check (:func:`verify`).

Nothing here prints or imports rich: renderers (``render/explain_*``) turn the model into
text, Markdown or JSON. Every sentence comes from :mod:`autotrace.messages`; formulas are
built here.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

import numpy as np

from .messages import text

SCHEMA_VERSION = 1
SMALL = 12          # tensors with at most this many elements are shown whole
MAX_PATHS = 16      # paths per leaf written out in a chain

# -- numbers -----------------------------------------------------------------------------


def fmt_num(v) -> str:
    """One number as a learner writes it, with at most 6 significant digits: 75, 0.5,
    -3.25, 0.659001, 1.82172e-9, nan, inf."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    x = v if isinstance(v, (np.floating,)) else np.float64(v)
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"
    a = abs(float(x))
    if a >= 1e6 or a < 1e-4:
        return np.format_float_scientific(x, trim="-", unique=True, precision=5, exp_digits=1).replace("e+", "e")
    # at most 6 significant digits (float32 noise: 0.30000001 -> 0.3, 0.9900396 -> 0.99004)
    return np.format_float_positional(x, trim="-", precision=6, unique=True, fractional=False)


def fmt(a) -> str:
    """A number or an array: whole when small, else shape and a summary."""
    if a is None:
        return text("label.none")
    if not isinstance(a, np.ndarray):
        return fmt_num(a)
    if a.ndim == 0:
        return fmt_num(a[()])
    if a.size <= SMALL:
        return _nested(a)
    flat = a.reshape(-1).astype(np.float64)
    with np.errstate(all="ignore"):
        finite = flat[np.isfinite(flat)]
        lo = fmt_num(finite.min()) if finite.size else "nan"
        hi = fmt_num(finite.max()) if finite.size else "nan"
        norm = fmt_num(np.sqrt(np.sum(finite * finite)))
    preview = ", ".join(fmt_num(x) for x in a.reshape(-1)[:4])
    return f"shape {list(a.shape)} min {lo} max {hi} norm {norm} [{preview}, …]"


def _nested(a) -> str:
    if a.ndim == 1:
        return "[" + ", ".join(fmt_num(x) for x in a) + "]"
    return "[" + ", ".join(_nested(x) for x in a) + "]"


def uniform(a):
    """The single value of an array whose elements are all equal, else None."""
    if a is None:
        return None
    a = np.asarray(a)
    if a.size == 0:
        return None
    first = a.reshape(-1)[0]
    if np.all(a == first):
        return first
    return None


def as_tensor_value(a):
    """JSON-ready: nested lists of floats, nan/inf as strings."""
    if a is None:
        return None
    if isinstance(a, np.ndarray):
        if a.dtype == np.bool_:
            return a.tolist()
        return _json_numbers(a.astype(np.float64).tolist())
    if isinstance(a, (float, np.floating)):
        return _json_numbers(float(a))
    return a


def _json_numbers(x):
    """Nested lists of floats with nan/inf as strings (the trace JSON's number rule)."""
    from .render.json import _walk

    return _walk(x)


_SUP = str.maketrans("0123456789-.", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻·")


def sup(n) -> str:
    s = fmt_num(n)
    if re.fullmatch(r"-?\d+", s):
        return s.translate(_SUP)
    return f"^{s}" if re.fullmatch(r"[\w.]+", s) else f"^({s})"


def sum_to(g: np.ndarray, shape) -> np.ndarray:
    shape = tuple(shape)
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for i, s in enumerate(shape):
        if s == 1 and g.shape[i] != 1:
            g = g.sum(axis=i, keepdims=True)
    return g


# -- the model ---------------------------------------------------------------------------


@dataclass
class Edge:
    """What one node passes to one of its inputs."""
    input: str                  # the op's input name: self, other, exponent, ...
    target: str                 # label of the input: a variable name, an expression, a constant
    target_node: str | None     # "n3" for a graph node, None where no gradient flows
    rule: str | None            # ∂out/∂in in symbols
    numbers: str | None         # the rule with numbers put in
    formula: str | None         # upstream · local = value
    grad: np.ndarray | None     # the gradient passed on (before any broadcast sum)
    local: np.ndarray | None    # the local derivative the engine applied (grad / upstream), when elementwise
    note: str | None = None     # broadcasting sum, no-gradient remark


@dataclass
class Step:
    number: int
    node: str                   # "n1"
    node_name: str              # PowBackward0
    line: int | None
    statement: str | None
    expr: str | None
    output: str                 # label of the node's output (x) or the leaf (A)
    shape: tuple
    value: np.ndarray | None    # forward value of the output
    upstream: np.ndarray | None # gradient arriving at the output (∂root/∂output)
    upstream_symbol: str
    fan_in: list = field(default_factory=list)     # [(from label, value)] when several paths meet
    edges: list = field(default_factory=list)      # [Edge]
    kind: str = "node"          # "node" | "accumulate"
    before: np.ndarray | None = None
    increment: np.ndarray | None = None
    after: np.ndarray | None = None
    remark: str | None = None
    failed: bool = False


@dataclass
class Run:
    """Consecutive steps that repeat one pattern of nodes (a loop unrolled into the graph),
    shown as one line instead of step by step: steps ``first``..``last`` hidden."""
    first: int
    last: int
    pattern: list               # node names of one period: ["TanhBackward0", "MulBackward0"]
    where: str | None           # "line 7: y = torch.tanh(y) * 1.01" when the period has one line
    repeats: int                # how many periods are hidden
    upstream_first: np.ndarray | None
    upstream_last: np.ndarray | None


RUN_MIN_STEPS = 12   # a repeating stretch shorter than this is shown step by step
RUN_KEEP = 2         # periods shown in full before a hidden run (one more after it)


def collapse(steps, *, min_steps=RUN_MIN_STEPS, keep=RUN_KEEP, max_period=4) -> list:
    """``steps`` with long runs of a repeating pattern (same node names and source lines,
    period 1 to ``max_period``) replaced by a :class:`Run`: the first ``keep`` periods and
    the last one stay."""
    sig = [(s.node_name, s.line, s.statement, s.kind, bool(s.fan_in)) for s in steps]
    out, i, n = [], 0, len(steps)
    while i < n:
        best = None
        for p in range(1, max_period + 1):
            k = i + p
            while k < n and sig[k] == sig[k - p]:
                k += 1
            reps = (k - i) // p
            if reps * p >= min_steps and reps >= keep + 2 and (best is None or reps * p > best[0] * best[1]):
                best = (reps, p)
        if best is None:
            out.append(steps[i])
            i += 1
            continue
        reps, p = best
        shown = steps[i:i + keep * p]
        hidden = steps[i + keep * p:i + (reps - 1) * p]
        out.extend(shown)
        lines = {(s.line, s.statement) for s in hidden}
        where = None
        if len(lines) == 1:
            line, stmt = next(iter(lines))
            where = text("label.at_line", line=line, statement=stmt) if line else stmt
        out.append(Run(first=hidden[0].number, last=hidden[-1].number, pattern=[s.node_name for s in hidden[:p]],
                       where=where, repeats=len(hidden) // p, upstream_first=hidden[0].upstream,
                       upstream_last=hidden[-1].upstream))
        out.extend(steps[i + (reps - 1) * p:i + reps * p])
        i += reps * p
    return out


def _elide(items, keep=3):
    """A long product or flow written with its middle left out."""
    if len(items) <= 2 * keep + 1:
        return items
    return items[:keep] + [text("chain.elided", count=len(items) - 2 * keep)] + items[-keep:]


@dataclass
class Chain:
    leaf: str
    paths: list                 # formulas, one per path
    total: str | None           # the sum over paths (several paths) or None
    value: np.ndarray | None    # the engine's increment for this leaf in this pass
    matches: bool | None
    remark: str | None = None


@dataclass
class Pass:
    number: int
    kind: str                   # "backward" | "grad"
    line: int | None
    statement: str | None
    root: str
    root_shape: tuple
    seed: np.ndarray | None
    seed_text: str
    retain_graph: bool
    implicit: bool
    steps: list = field(default_factory=list)
    chains: list = field(default_factory=list)
    error: str | None = None
    same_as: int | None = None  # an earlier pass with the very same steps and numbers


@dataclass
class TimelineEntry:
    pass_number: int
    before: np.ndarray | None
    increment: np.ndarray | None
    after: np.ndarray | None
    reset: str | None = None


@dataclass
class Diagnostic:
    kind: str
    severity: str               # "error" | "warning" | "info"
    line: int | None
    title: str
    why: str | None
    fix: str | None


@dataclass
class VerifyRow:
    leaf: str
    index: tuple
    analytic: float
    numeric: float
    error: float


@dataclass
class Verification:
    pass_number: int | None
    rows: list
    largest: VerifyRow | None
    ok: bool | None
    notes: list


@dataclass
class Explanation:
    script: str
    stdout: str
    passes: list
    timeline: dict              # leaf name -> [TimelineEntry]
    final_grads: dict           # leaf name -> final .grad (None when None)
    diagnostics: list
    notes: list
    verification: Verification | None = None


# -- helpers over the record -------------------------------------------------------------


def nid(i) -> str:
    return f"n{i}"


_SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _where_made(n) -> str:
    """The source of a node: its statement when it made a variable (y = x * x), else its
    expression (y * y)."""
    if n.var_name and n.statement:
        return n.statement
    return n.text or n.statement or n.name


def _count_word(k: int) -> str:
    return text("label.both") if k == 2 else text("label.all_n", count=k)


def _sub(k: int) -> str:
    return str(k).translate(_SUBSCRIPT)


class _Graph:
    """Labels and values of the recorded nodes, with operands recovered from the source."""

    def __init__(self, trace):
        self.trace = trace
        self.nodes = trace.nodes
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
        """Source text of the op's operands in ``op.inputs`` order, or None."""
        if not n.text or n.op is None:
            return None
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


def _factor(s: str) -> str:
    """A number written as a factor of a product: negative ones in parentheses."""
    return f"({s})" if s.startswith("-") else s


def _paren(s: str) -> str:
    s = s.strip()
    if re.fullmatch(r"[\w.]+", s) or _wrapped(s):
        return s
    return f"({s})"


def _wrapped(s: str) -> bool:
    """``(…)`` whose first parenthesis closes at the end."""
    if not (s.startswith("(") and s.endswith(")")):
        return False
    depth = 0
    for k, ch in enumerate(s):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and k < len(s) - 1:
            return False
    return True


ELEMENTWISE = {
    "add", "sub", "rsub", "rsub_scalar", "mul", "mul_scalar", "div", "div_scalar", "neg", "pow",
    "pow_tensor", "pow_scalar_base", "exp", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt",
    "reciprocal", "sin", "cos", "tan", "tanh", "sigmoid", "abs", "relu", "clamp", "clamp_min",
    "clamp_max", "maximum", "minimum", "clone", "alias", "to_copy", "erf", "gelu", "silu", "softplus",
    "leaky_relu", "hardtanh", "where", "masked_fill", "frac", "round", "floor", "ceil", "trunc", "sign",
}
MATRIX = {"mm", "addmm", "mv", "dot", "bmm", "matmul_batched"}

_SYMBOLS = ("self", "other", "exponent", "result", "tensor", "vec", "mat1", "mat2", "alpha", "input",
            "index", "dim", "min", "max", "negative_slope", "beta", "threshold")


_LOCAL_NP = {
    "sqrt": {"self": lambda v: 0.5 / np.sqrt(v["self"])},
    "rsqrt": {"self": lambda v: -0.5 * np.power(v["self"], -1.5)},
    "log": {"self": lambda v: 1.0 / v["self"]},
    "log2": {"self": lambda v: 1.0 / (v["self"] * np.log(2.0))},
    "log10": {"self": lambda v: 1.0 / (v["self"] * np.log(10.0))},
    "reciprocal": {"self": lambda v: -1.0 / (v["self"] * v["self"])},
    "div": {"self": lambda v: 1.0 / v["other"], "other": lambda v: -v["self"] / (v["other"] * v["other"])},
    "mul": {"self": lambda v: v["other"], "other": lambda v: v["self"]},
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


class _Explainer:
    def __init__(self, trace):
        self.trace = trace
        self.g = _Graph(trace)
        # the symbol for a gradient= vector: one the script does not use as a name
        taken = set(trace.variables) | {n.var_name for n in trace.nodes if n.var_name}
        self.vsym = next(c for c in ("v", "u", "g", "𝐯") if c not in taken)

    # -- one pass ----------------------------------------------------------------------

    def explain_pass(self, p, number, total, implicit_of=None) -> Pass:
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
            seed_text += " " + text("seed.implicit_of", root=implicit_of)
        elif p.steps and p.retain_graph:
            seed_text += " " + text("seed.retain")
        out = Pass(number=number, kind=p.kind, line=p.line, statement=p.text, root=root,
                   root_shape=shape, seed=seed, seed_text=seed_text, retain_graph=bool(p.retain_graph),
                   implicit=implicit_of is not None, error=p.error)
        self._root = root
        # with a gradient= vector v every gradient of the pass is vᵀ·∂root/∂t, not ∂root/∂t
        self._pre = f"{self.vsym}·" if seed is not None and not implicit else ""
        self._seed_root = root_id
        self._factors = {}
        for k, s in enumerate(p.steps):
            out.steps.append(self.explain_step(s, k + 1, root_id, seed, p, failed=bool(p.error) and k == len(p.steps) - 1))
        out.chains = self.chains(p, out, root_id)
        return out

    @staticmethod
    def signature(p: Pass):
        """What must be equal for a pass to be shown as a repeat of an earlier one."""
        return (p.root, p.statement, p.error, fmt(p.seed), tuple(
            (s.node_name, s.statement, s.kind, fmt(s.upstream), tuple((e.rule, e.numbers, e.formula) for e in s.edges))
            for s in p.steps))

    def explain_step(self, s, number, root_id, seed, p, failed=False) -> Step:
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
        if failed:
            step.remark = text("step.not_reached")
            return step
        op = n.op
        operands = g.operands(n) or {}
        names = list(getattr(op, "inputs", ()) or ())
        for i, (tid, nr) in enumerate(n.inputs):
            in_name = names[i] if i < len(names) else f"input{i}"
            go = s.grads_out[i] if i < len(s.grads_out) else None
            if tid is not None:
                target = g.label(tid)
                src = operands.get(in_name)
                if src is not None and re.fullmatch(r"[A-Za-z_]\w*", src.strip()) and tid not in g.leaf_names:
                    target = src.strip()
            else:
                src = operands.get(in_name)
                target = _paren(src) if src else text("label.constant")
            edge = Edge(input=in_name, target=target, target_node=nid(tid) if tid is not None else None,
                        rule=None, numbers=None, formula=None, grad=go, local=None)
            if tid is None:
                edge.note = text("label.no_input.number" if in_name in n.scalars or _literal(src or "") is not None
                                 else "label.no_input")
                step.edges.append(edge)
                continue
            self.describe_edge(step, n, op, operands, edge, upstream, go, i)
            tn = g.node(tid)
            if go is not None:
                val = go
                if tn is not None and nr == 0 and tn.shape is not None and tuple(go.shape) != tuple(tn.shape):
                    try:
                        val = sum_to(go, tn.shape)
                        edge.note = text("step.broadcast", target=edge.target, small=list(tn.shape),
                                         big=list(go.shape), value=fmt(val))
                    except (ValueError, IndexError):
                        pass
            step.edges.append(edge)
        tids = [tid for tid, _ in n.inputs if tid is not None]
        for tid in set(tids):
            if tids.count(tid) > 1:
                first = next(e for e in step.edges if e.target_node == nid(tid))
                extra = text("step.same_input", target=first.target, count=_count_word(tids.count(tid)),
                             stmt=_where_made(n))
                first.note = f"{first.note} {extra}" if first.note else extra
        return step

    def describe_edge(self, step, n, op, operands, edge, upstream, go, i):
        out = step.output
        name = edge.input
        local = getattr(op, "local", None) or {}
        rule_text = local.get(name)
        opname = getattr(op, "name", "")
        values = self._symbol_values(n, operands)
        labels = self._symbol_labels(n, operands, out)
        # the local derivative the engine applied, recovered as grad / upstream
        if opname in ELEMENTWISE and go is not None and upstream is not None:
            with np.errstate(all="ignore"):
                try:
                    ratio = np.asarray(go, dtype=np.float64) / np.broadcast_to(upstream, go.shape).astype(np.float64)
                except ValueError:
                    ratio = None
            if (ratio is not None and np.all(np.isfinite(ratio) | ~np.isfinite(go)) and np.all(upstream != 0)
                    and np.all(np.isfinite(upstream))):
                edge.local = ratio.astype(go.dtype)
                self._factors[(n.id, i)] = edge.local
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
        elif opname in MATRIX:
            vjp = self._substitute(op.vjp.get(name, ""), {k: v for k, v in labels.items() if k in ("alpha", "beta")})
            vjp = re.sub(r"\bgrad\b", self._d(out), vjp, flags=re.ASCII).replace("self's", f"{edge.target}'s")
            edge.rule = f"{self._d(edge.target)} = {vjp}"
        elif rule_text is not None or (getattr(op, "vjp", None) and name in op.vjp):
            vjp = op.vjp.get(name, "")
            r = rule_text if rule_text not in (None, "1") else None
            attrs = {k: labels[k] for k in ("self", "index") if k in labels}
            if "dim" in labels:
                attrs["dim"] = f"dim {labels['dim']}"
            vjp = re.sub(r"\bgrad\b", self._d(out), self._substitute(vjp, attrs), flags=re.ASCII)
            edge.rule = f"{self._d(edge.target)} = {vjp}"
            if r:
                edge.rule += f"   ({r})"
        # upstream · local = value
        if go is not None:
            up = fmt(upstream) if upstream is not None else "?"
            if edge.local is not None:
                loc = uniform(edge.local)
                loc_s = fmt_num(loc) if loc is not None else fmt(edge.local)
                edge.formula = f"{self._d(edge.target)} = {_factor(up)} · {_factor(loc_s)} = {fmt(go)}"
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
            return str(mapping.get(k, k))
        s = re.sub(r"\b(" + "|".join(_SYMBOLS) + r")\b", rep, rule, flags=re.ASCII)
        s = s.replace("−1·", "−").replace("-1·", "-")
        s = re.sub(r"^-(-?\d)", lambda m: str(-int(m.group(1))) if m.group(1).lstrip("-").isdigit() else m.group(0), s)
        return s.replace("--", "")

    # -- chains ------------------------------------------------------------------------

    def chains(self, p, out: Pass, root_id):
        if root_id is None or p.error:
            return []
        g = self.g
        steps = {s.node: s for s in p.steps}
        leaves = [s.node for s in p.steps if g.node(s.node) is not None and g.node(s.node).is_leaf]
        chains = []
        for leaf in leaves:
            paths = self._paths(root_id, leaf, steps)
            leaf_label = g.label(leaf)
            step = next(st for st in out.steps if st.node == nid(leaf))
            value = step.increment if step.increment is not None else step.upstream
            formulas = []
            totals = []
            ok = True
            for path in paths[:MAX_PATHS]:
                syms, nums, prod = [], [], None
                for (a, i) in path:
                    syms.append(self._path_sym(a, i, leaf, leaf_label))
                    na = g.node(a)
                    f = self._factors.get((a, i))
                    if f is None and na.op is not None and getattr(na.op, "name", "") in ("sum", "view", "unsafe_view", "squeeze", "unsqueeze", "expand", "squeeze_dim", "t", "transpose", "alias", "clone"):
                        f = np.ones((), dtype=np.float32)
                    u = uniform(f) if f is not None else None
                    if u is None:
                        ok = False
                        break
                    nums.append(_factor(fmt_num(u)))
                    prod = u if prod is None else prod * u
                if not ok:
                    break
                seed = out.seed
                if prod is None:  # the pass starts at the leaf itself: the gradient is the seed
                    su = uniform(seed)
                    if su is None:
                        ok = False
                        break
                    totals.append(su)
                    formulas.append(f"∂{out.root}/∂{leaf_label} = {fmt_num(su)}  " + text("chain.at_leaf"))
                    continue
                su = uniform(seed)
                if su is None:
                    ok = False
                    break
                if su != 1 or self._pre:
                    syms.insert(0, self.vsym)
                    nums.insert(0, _factor(fmt_num(su)))
                    prod = prod * su
                elif len(syms) == 1:
                    syms.insert(0, f"∂{out.root}/∂{out.root}")
                    nums.insert(0, "1")
                totals.append(prod)
                syms, nums = _elide(syms), _elide(nums)
                formulas.append(f"{self._d(leaf_label)} = " + " · ".join(syms) + " = " + " · ".join(nums)
                                + " = " + fmt_num(prod) if len(syms) > 1 else
                                f"{self._d(leaf_label)} = " + syms[0] + " = " + fmt_num(prod))
            if ok and paths and len(paths) <= MAX_PATHS:
                total = None
                tot = totals[0]
                if len(totals) > 1:
                    tot = sum(totals[1:], totals[0])
                    total = f"{self._d(leaf_label)} = " + " + ".join(fmt_num(t) for t in totals) + " = " + fmt_num(tot)
                    formulas = [f.replace(f"{self._d(leaf_label)} = ", f"path {k + 1}: ", 1) for k, f in enumerate(formulas)]
                matches = value is not None and bool(np.allclose(np.asarray(value, dtype=np.float64), float(tot), rtol=1e-5, atol=1e-6, equal_nan=True))
                chains.append(Chain(leaf=leaf_label, paths=formulas, total=total, value=value, matches=matches,
                                    remark=text("chain.paths", count=len(paths), root=out.root, leaf=leaf_label) if len(paths) > 1 else None))
            else:
                finals = []
                for path in paths[:MAX_PATHS]:
                    if not path:  # the pass starts at the leaf: its gradient is the seed
                        formulas.append(f"∂{out.root}/∂{leaf_label} = {self.vsym} = {fmt(out.seed)}  "
                                        + text("chain.at_leaf"))
                        continue
                    flow = [fmt(out.seed)]
                    for (a, i) in path:
                        s = steps[a]
                        go = s.grads_out[i] if i < len(s.grads_out) else None
                        flow.append(fmt(go))
                    finals.append(go)
                    syms = [self._path_sym(a, i, leaf, leaf_label) for a, i in path]
                    head = f"{self._d(leaf_label)} = "
                    if self._pre:
                        syms.insert(0, self.vsym)
                    if len(syms) == 1 and syms[0].startswith(f"∂{out.root}/∂{leaf_label}"):
                        # one step from the root: the chain is the local rule itself, not
                        # "∂y/∂x = ∂y/∂x"
                        body = syms[0] if syms[0] != f"∂{out.root}/∂{leaf_label}" else ""
                        formulas.append((head + body + "; " if body else "") + text("chain.flow", flow=" → ".join(_elide(flow))))
                    else:
                        formulas.append(head + " · ".join(_elide(syms)) + "; "
                                        + text("chain.flow", flow=" → ".join(_elide(flow))))
                total = None
                ends = [path[-1] for path in paths if path]
                # a path's last gradient is its own contribution only when no other path
                # ends on the same edge (x * x: yes; two paths merging before the leaf: no)
                if (1 < len(paths) <= MAX_PATHS and len(ends) == len(paths) == len(set(ends))
                        and all(f is not None for f in finals)):
                    try:
                        tot = sum(finals[1:], finals[0])
                        total = f"{self._d(leaf_label)} = " + " + ".join(_factor(fmt(f)) for f in finals) + " = " + fmt(tot)
                        formulas = [f"path {k + 1}: " + f.replace(f"{self._d(leaf_label)} = ", "", 1)
                                    for k, f in enumerate(formulas)]
                    except ValueError:
                        total = None
                chains.append(Chain(leaf=leaf_label, paths=formulas[:MAX_PATHS], total=total, value=value, matches=None,
                                    remark=text("chain.paths", count=len(paths), root=out.root, leaf=leaf_label) if len(paths) > 1 else None))
        return chains

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

    def _paths(self, root, leaf, steps):
        """Every path root → leaf through executed nodes, as [(node, edge index)], without recursion."""
        g = self.g
        out = []
        stack = [(root, [])]
        while stack and len(out) <= MAX_PATHS:
            node, path = stack.pop()
            if node == leaf:
                out.append(path)
                continue
            n = g.node(node)
            s = steps.get(node)
            if n is None or s is None or n.is_leaf:
                continue
            for i in range(len(n.inputs) - 1, -1, -1):
                tid = n.inputs[i][0]
                if tid is None or tid not in steps:
                    continue
                if i < len(s.grads_out) and s.grads_out[i] is None:
                    continue
                stack.append((tid, path + [(node, i)]))
        return out


# -- whole trace -------------------------------------------------------------------------


def explain(trace, *, of: str | None = None, wrt: str | None = None, pass_number: int | None = None) -> Explanation:
    """The explanation of ``trace`` (run with keep_values). ``of`` names the tensor an
    implicit backward started from; ``wrt`` keeps only that leaf's steps and chain;
    ``pass_number`` (1-based) keeps one pass."""
    with np.errstate(all="ignore"):      # inf·0 and the like are part of what is explained
        return _explain(trace, of=of, wrt=wrt, pass_number=pass_number)


def _explain(trace, *, of, wrt, pass_number) -> Explanation:
    ex = _Explainer(trace)
    passes = []
    total = len(trace.passes)
    firsts = {}
    for k, p in enumerate(trace.passes):
        implicit = of if (of and k == 0 and p.line is None) else None
        ep = ex.explain_pass(p, k + 1, total, implicit_of=implicit)
        sig = _Explainer.signature(ep)
        if sig in firsts and pass_number is None:
            ep.same_as = firsts[sig]
        else:
            firsts.setdefault(sig, ep.number)
        passes.append(ep)
    timeline = _timeline(trace, passes)
    finals = {}
    for name, v in trace.variables.items():
        if v.kind == "tensor" and v.is_leaf and (v.requires_grad or v.grad is not None):
            # a loop's ``p`` holding a module's parameter is shown as that parameter
            n = ex.g.node(v.node)
            key = ex.g.label(v.node) if n is not None and n.is_leaf else name
            finals.setdefault(key, v.grad)
    diags = diagnose(trace, passes, timeline, ex.g, wrt=wrt, of=of)
    notes = []
    if not trace.passes:
        notes.append(text("no_pass"))
    if pass_number is not None:
        if not 1 <= pass_number <= total:
            notes.append(text("selection.no_pass", number=pass_number, total=total))
            passes = []
        else:
            passes = [passes[pass_number - 1]]
    if wrt is not None:
        passes = [_only_leaf(p, wrt, ex.g) for p in passes]
        timeline = {k: v for k, v in timeline.items() if k == wrt}
        finals = {k: v for k, v in finals.items() if k == wrt}
        if not any(c.leaf == wrt for p in passes for c in p.chains):
            notes.append(text("selection.no_leaf", name=wrt))
    return Explanation(script=trace.script, stdout=trace.stdout, passes=passes, timeline=timeline,
                       final_grads=finals, diagnostics=diags, notes=notes)


def _only_leaf(p: Pass, leaf: str, g: _Graph) -> Pass:
    """Keep the steps on a path to ``leaf`` (and its chain)."""
    leaf_steps = [s for s in p.steps if s.kind == "accumulate" and s.output == leaf]
    if not leaf_steps:
        p.steps, p.chains = [], []
        return p
    keep = {leaf_steps[0].node}
    changed = True
    while changed:
        changed = False
        for s in p.steps:
            if s.node not in keep and any(e.target_node in keep for e in s.edges):
                keep.add(s.node)
                changed = True
    p.steps = [s for s in p.steps if s.node in keep]
    p.chains = [c for c in p.chains if c.leaf == leaf]
    return p


def _timeline(trace, passes):
    g = _Graph(trace)
    tl: dict = {}
    for p, rec in zip(passes, trace.passes):
        if rec.kind != "backward":
            continue
        for s in p.steps:
            if s.kind != "accumulate" or s.after is None:
                continue
            entries = tl.setdefault(s.output, [])
            reset = None
            if entries:
                prev = entries[-1]
                if not _same(prev.after, s.before):
                    how = _reset_how(trace, int(s.node[1:]), s.output)
                    reset = text("timeline.reset", before_pass=prev.pass_number, after_pass=p.number,
                                 leaf=s.output, old=fmt(prev.after), new=fmt(s.before), how=how)
            entries.append(TimelineEntry(p.number, s.before, s.increment, s.after, reset))
    del g
    return tl


_RESET_KIND = {"zero": "timeline.how.zero", "none": "timeline.how.none"}


def _reset_how(trace, node, leaf) -> str:
    """How the script reset ``leaf``'s .grad, from the recorded grad events: "by
    x.grad.zero_() at line 14" (every distinct kind and line), or a generic phrase."""
    seen = []
    for ev in getattr(trace, "grad_events", ()):
        if ev.node == node or (ev.node is None and ev.name == leaf):
            key = (ev.kind, ev.line)
            if key not in seen:
                seen.append(key)
    if not seen:
        return text("timeline.how.unknown")
    return text("timeline.how.list", list=" / ".join(text(_RESET_KIND.get(k, "timeline.how.none"), leaf=leaf, line=ln)
                                                      for k, ln in seen))


def _same(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return a.shape == b.shape and bool(np.array_equal(a, b, equal_nan=True))


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


def diagnose(trace, passes, timeline, g: _Graph, wrt=None, of=None) -> list:
    diags: list[Diagnostic] = []
    diags += _error_diagnostics(trace, passes, g)
    diags += _nan_diagnostics(trace, passes, g)
    diags += _accumulation_diagnostics(timeline, passes)
    diags += _nonleaf_diagnostics(trace, g)
    diags += _none_grad_diagnostics(trace, passes, g, wrt=wrt)
    return diags


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
    fix = text(fix_key, **values) if kind != "other" else text("diag.error.other.fix")
    if caught:
        why = text("diag.error.caught") + " " + why
    return Diagnostic(kind=f"error.{kind}", severity="info" if caught else "error", line=line, title=title, why=why, fix=fix)


NAN_ORIGINS = 4   # distinct places where nan/inf first appears, each with its own diagnostic

_NAN_FIX = {"sqrt": "sqrt", "rsqrt": "sqrt", "log": "log", "log2": "log", "log10": "log",
            "div": "div", "reciprocal": "div", "where": "where", "pow": "sqrt"}
_SAFE_ARG = {"sqrt": "torch.sqrt", "rsqrt": "torch.rsqrt", "log": "torch.log", "log2": "torch.log2",
             "log10": "torch.log10", "reciprocal": "torch.reciprocal"}


def _nan_diagnostics(trace, passes, g):
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
                if e.grad is None or np.all(np.isfinite(e.grad)):
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
                out.append(_nan_origin(trace, p, st, e, upb, born, node_id, g, ex))
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
                    fix += " " + text("diag.nonleaf_made.fix")
                break
        out.append(Diagnostic(kind="nonleaf_grad", severity="warning", line=line,
                              title=text("diag.nonleaf_grad.title", line=line), why=why, fix=fix))
    return out


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
        if not trace.passes:
            roots = [k for k, x in trace.variables.items() if x.kind == "tensor" and not x.is_leaf]
            out.append(Diagnostic(kind="none_grad.no_pass", severity="info", line=None,
                                  title=text("diag.none_grad.title", leaf=name),
                                  why=text("diag.none_grad.unused", leaf=name, reason=text("diag.none_grad.reason.no_pass")),
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


def _and_list(items) -> str:
    if len(items) <= 1:
        return "".join(items)
    return text("list.and", items=text("list.sep").join(items[:-1]), last=items[-1])


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
    return None


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


# -- running a script for explain ------------------------------------------------------


def run(source, filename, *, sets=(), limits=None, of=None, perturb=None, expect=()):
    """Run a script for explain: values kept (failed backward calls are recorded by the
    engine), and with ``perturb`` (``{name: (index, delta)}``) that leaf moved by delta in
    float64 when the script first binds it (for :func:`verify`)."""
    from . import runner

    return runner.run(source, filename, sets=sets, limits=limits,
                      options=runner.Options(keep_values=True, of=of, perturb=perturb or None,
                                             expect=tuple(expect)))


# -- as data -----------------------------------------------------------------------------


def to_dict(ex: Explanation) -> dict:
    """The explanation as JSON-ready data (arrays as lists, nan/inf as strings)."""
    def conv(o):
        if isinstance(o, np.ndarray) or isinstance(o, (np.floating,)):
            return as_tensor_value(o)
        if isinstance(o, (np.integer,)):
            return int(o)
        if isinstance(o, (np.bool_,)):
            return bool(o)
        if isinstance(o, float):
            return _json_numbers(o)
        if isinstance(o, dict):
            return {str(k): conv(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [conv(v) for v in o]
        if hasattr(o, "__dataclass_fields__"):
            return {k: conv(getattr(o, k)) for k in o.__dataclass_fields__}
        return o
    d = conv(ex)
    d["schema_version"] = SCHEMA_VERSION
    for p in d["passes"]:
        for s in p["steps"]:
            s["fan_in"] = [{"from": f, "value": v} for f, v in s["fan_in"]]
    return d
