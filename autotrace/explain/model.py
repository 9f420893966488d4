"""The explanation as plain data: passes, steps, edges, chains, timeline, diagnostics."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Edge:
    """What one node passes to one of its inputs."""
    input: str                  # the op's input name: self, other, exponent, ...
    target: str                 # label of the input: a variable name, an expression, a constant
    target_node: str | None     # "n3" for a graph node, None where no gradient flows
    rule: str | None            # ∂out/∂in in symbols
    numbers: str | None         # the rule with numbers put in
    formula: str | None         # upstream · local = value
    grad: np.ndarray | None     # the gradient the input receives (in the input's shape)
    local: np.ndarray | None    # the local derivative the engine applied (grad / upstream), when elementwise
    note: str | None = None     # no-gradient remark, an input used twice
    sum_back: np.ndarray | None = None  # the op's output before the broadcast sum-back (grad is after)
    sum_back_text: str | None = None


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
class Chain:
    leaf: str
    paths: list                 # formulas, one per path
    total: str | None           # the sum over paths (several paths) or None
    value: np.ndarray | None    # the engine's increment for this leaf in this pass
    matches: bool | None
    remark: str | None = None
    count: int = 1              # paths from the root to the leaf (exact)
    contributions: list = field(default_factory=list)  # per incoming edge: via, node, edge, paths, value


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
    table: list = field(default_factory=list)   # [table.TableRow]: the pass at a glance
    auto: str | None = None     # "auto": explain picked the root; "stopped": ... of a script stopped early


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
    events: list = field(default_factory=list)      # [events.TimelineEvent], in the order they happened
    folds: list = field(default_factory=list)       # [folding.Fold]: training-loop passes shown once
    total_passes: int = 0                           # backward passes the run made


