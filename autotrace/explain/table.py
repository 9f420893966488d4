"""The table that opens each backward pass: one row per step (a summarised run is one
row) — step, PyTorch's node, line and expression, local derivative in symbols, the
gradient arriving and what is passed on. Cells are short: an array too long for a cell
is written as its shape and norm (the detailed steps below have it whole)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..messages import rule_words, text
from .folding import Run, collapse
from .numbers import fmt, fmt_num

CELL = 16           # characters of a number cell before it is summarised


@dataclass
class TableRow:
    step: str                   # "3", or "6–1999" for a summarised run
    node: str                   # MulBackward0, AccumulateGrad, or a run's pattern
    where: str                  # "8: y = x * x", or "leaf x"
    local: list                 # per input edge: the local derivative in symbols
    upstream: str               # the gradient arriving, as a short cell
    passed: list                # per input edge: what it receives (or the leaf's .grad after)
    upstream_value: np.ndarray | None = None
    passed_values: list = field(default_factory=list)   # [{"target", "value"}]


COLUMNS = ("col.step", "col.node", "col.where", "col.local", "col.upstream", "col.passed")


def cell(a, limit: int = CELL) -> str:
    """A value short enough for a table cell: whole, or its shape and norm (4×3 ‖0.2933‖)."""
    s = fmt(a)
    if len(s) <= limit or a is None:
        return s
    a = np.asarray(a)
    with np.errstate(all="ignore"):
        norm = float(np.sqrt(np.sum(np.square(a.astype(np.float64)))))
    # a no-break space: the summary wraps as one word
    return text("cell.summary", shape="×".join(map(str, a.shape)) or "()", norm=f"{norm:.3g}").replace(" ", "\u00a0")


def rows(steps, all_steps: bool = False) -> list:
    out = []
    for s in (steps if all_steps else collapse(steps)):
        if isinstance(s, Run):
            out.append(TableRow(step=f"{s.first}–{s.last}", node=", ".join(s.pattern),
                                where=s.cell,
                                local=[text("cell.same_rules", count=s.repeats)],
                                upstream=f"{cell(s.upstream_first)} … {cell(s.upstream_last)}",
                                passed=[], upstream_value=None))
            continue
        if s.kind == "accumulate":
            passed = cell(s.after if s.after is not None else s.increment)
            out.append(TableRow(step=str(s.number), node=s.node_name, where=s.output,
                                local=[], upstream=cell(s.upstream), passed=[passed], upstream_value=s.upstream,
                                passed_values=[{"target": s.output, "value": s.after if s.after is not None
                                                else s.increment}]))
            continue
        expr = s.expr or s.statement or ""
        where = f"{s.line}: {expr}" if s.line else expr
        locals_, passed, values = [], [], []
        for e in s.edges:
            if e.target_node is None:
                continue
            rule = _short_rule(e, s)
            locals_.append(rule)
            if e.sum_back is not None:
                # the op's output in the broadcast shape, then the sum-back: a row of its own
                passed.append(cell(e.sum_back))
                locals_.append(text("cell.sum_back", target=e.target, shape=list(np.shape(e.grad))))
            passed.append(cell(e.grad) if rule else f"{e.target}: {cell(e.grad)}")
            values.append({"target": e.target, "value": e.grad})
        out.append(TableRow(step=str(s.number), node=s.node_name, where=where, local=locals_,
                            upstream=cell(s.upstream), passed=passed, upstream_value=s.upstream,
                            passed_values=values))
    return out


def _short_rule(e, s) -> str:
    """The local derivative of one edge in symbols, short: ``∂y/∂x = 2·x``."""
    rule = e.rule or ""
    if not rule:
        return ""
    if rule.startswith(text("step.matrix", rule="")):
        rule = rule[len(text("step.matrix", rule="")):]
        return rule.replace(s.upstream_symbol, "g") if s.upstream_symbol else rule
    if "∂" not in rule.split(" ")[0]:
        # a sentence (sum, mean): the derivative is 1 or 1/N, copied to every element
        n = None
        if s.upstream is not None and e.grad is not None and "mean" in s.node_name.lower():
            n = max(1, int(np.size(e.sum_back if e.sum_back is not None else e.grad)) // max(1, int(np.size(s.upstream))))
        return f"∂{s.output}/∂{e.target}ᵢ = " + (f"1/{n}" if n else "1")
    parts = rule.split("   (")[0].split(" = ")
    short = f"{parts[0]} = {parts[-1]}" if len(parts) > 2 else " = ".join(parts)
    # a rule written with the upstream gradient (a VJP): that gradient is g in the table
    if s.upstream_symbol and s.upstream_symbol in parts[-1]:
        short = short.replace(s.upstream_symbol, "g")
    return rule_words(short)
