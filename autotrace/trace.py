"""The trace record: everything one run of a script produced, in plain data.

Every view — the console tables, ``explain``, JSON, DOT/SVG, Markdown — renders a
:class:`Trace`; none of them walks the live engine. Arrays stay numpy arrays here;
renderers format them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

VALUE_LIMIT = 10_000  # elements of a tensor kept whole in the record; larger ones are summarised


@dataclass
class Variable:
    """A top-level name the script bound: a tensor, a number or a bool."""

    name: str
    kind: str                      # "tensor" | "number" | "bool"
    value: object                  # numpy array (tensor), int/float (number), bool
    shape: tuple = ()
    dtype: str | None = None
    requires_grad: bool = False
    is_leaf: bool = True
    grad_fn: str | None = None
    grad: np.ndarray | None = None
    node: int | None = None        # id of the grad_fn node, or of the leaf's AccumulateGrad
    retains_grad: bool = False
    summary: dict | None = None    # for tensors past VALUE_LIMIT elements: min/max/mean/norm


@dataclass
class Trace:
    script: str                    # the path as given, "<stdin>" or "<expr>"
    source: str
    stdout: str
    error: dict | None             # type, message, line, column, phase
    warnings: list = field(default_factory=list)
    variables: dict = field(default_factory=dict)
    parameters: dict = field(default_factory=dict)  # "model.fc1.weight" -> Variable, per top-level Module
    nodes: list = field(default_factory=list)      # autotrace.record.NodeRecord, by id
    passes: list = field(default_factory=list)     # autotrace.record.PassRecord, in run order
    sets: dict = field(default_factory=dict)       # names bound from --set
    grad_events: list = field(default_factory=list)  # autotrace.record.GradEvent: .grad zeroed / set to None
    module_calls: list = field(default_factory=list)  # autotrace.record.ModuleCall, in call order
    expectations: list = field(default_factory=list)  # explain --expect: autotrace.expect.Evaluated
    events: list = field(default_factory=list)  # autotrace.record.Event: optimizer steps, clipping, no_grad, hooks, warnings
    implicit_root: str | None = None  # explain: the tensor it ran backward() from when the script calls none
    plotted: bool = False  # the script called matplotlib.pyplot (which draws nothing)

    def source_line(self, line: int | None) -> str:
        if not line:
            return ""
        lines = self.source.splitlines()
        return lines[line - 1] if 0 < line <= len(lines) else ""


def summarise(array: np.ndarray) -> dict:
    """min, max, mean and 2-norm of an array (as floats; nan-aware)."""
    if array.size == 0:
        return {"min": None, "max": None, "mean": None, "norm": 0.0}
    if array.dtype == np.float64 or array.size <= _SUMMARY_CHUNK:
        a = array.astype(np.float64, copy=False)
        with np.errstate(all="ignore"):
            return {"min": float(np.min(a)), "max": float(np.max(a)), "mean": float(np.mean(a)),
                    "norm": float(np.sqrt(np.sum(a * a)))}
    # in float64 chunks, so a large float32 tensor is not copied whole (twice) to summarise it
    flat = array.reshape(-1)
    lo, hi, total, squares = [], [], 0.0, 0.0
    with np.errstate(all="ignore"):
        for start in range(0, flat.size, _SUMMARY_CHUNK):
            a = flat[start:start + _SUMMARY_CHUNK].astype(np.float64)
            lo.append(np.min(a))
            hi.append(np.max(a))
            total += float(np.sum(a))
            np.multiply(a, a, out=a)
            squares += float(np.sum(a))
        return {"min": float(np.minimum.reduce(lo)), "max": float(np.maximum.reduce(hi)),
                "mean": total / flat.size, "norm": float(np.sqrt(squares))}


_SUMMARY_CHUNK = 1 << 20


def parameters_of(variables: dict) -> dict:
    """The parameters of the Modules bound to top-level names, named as torch's
    ``named_parameters()`` names them under the variable (``model.fc1.weight``); a
    parameter shared by several modules is listed once, under the first name."""
    from .torch_api.module import Module

    out = {}
    seen = set()
    for name, value in variables.items():
        if not isinstance(value, Module) or "_params" not in value.__dict__:
            continue
        for pname, p in value.named_parameters():
            if id(p) in seen:
                continue
            seen.add(id(p))
            v = variable_of(f"{name}.{pname}", p)
            if v is not None:
                out[f"{name}.{pname}"] = v
    return out


def variable_of(name: str, value) -> Variable | None:
    """The record of a script value, or None for values the record leaves out (lists,
    modules, functions)."""
    from .tensor import Tensor

    if isinstance(value, Tensor):
        fn = value._grad_fn  # as last set: describing a stale view does not regenerate its history
        node = None
        if fn is not None and fn.rec is not None:
            node = fn.rec.id
        elif value._acc is not None and value._acc.rec is not None:
            node = value._acc.rec.id
        data = value._data
        grad = value._grad
        big = data.size > VALUE_LIMIT
        return Variable(
            name=name, kind="tensor",
            value=None if big else data.copy(),
            shape=tuple(data.shape), dtype=value._dtype.name,
            requires_grad=value._requires_grad, is_leaf=fn is None,
            grad_fn=fn.op.node if fn is not None else None,
            grad=None if grad is None else (grad._data.copy() if grad._data.size <= VALUE_LIMIT else None),
            node=node, retains_grad=value._retains_grad,
            summary=summarise(data) if big else None,
        )
    if isinstance(value, bool):
        return Variable(name=name, kind="bool", value=value)
    if isinstance(value, (int, float)):
        np_type = getattr(type(value), "_np_type", None)
        if np_type is not None and np_type is not np.float64:
            return None     # numpy's other scalars are not Python numbers (only float64 subclasses float)
        return Variable(name=name, kind="number", value=value)
    return None
