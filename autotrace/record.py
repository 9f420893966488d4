"""What the engine reports while a script runs, kept for the trace record.

A :class:`Recorder` is active during a run (``active``); the engine appends one
:class:`NodeRecord` per graph node it creates and one :class:`PassRecord` per backward
pass. Records hold ids, names, shapes and sites — never the live graph — so keeping them
does not keep graphs alive. With ``keep_values`` (explain, graph ``--values``) they also
keep the numbers: node outputs and every gradient the engine passes.
"""

from __future__ import annotations

import numpy as np


class NodeRecord:
    """One graph node (a ``grad_fn`` or an ``AccumulateGrad``) as created.

    ``inputs`` are the node's ``next_functions`` as ``(node id | None, output index)``;
    ``line``/``text``/``statement`` locate the forward expression in the script;
    ``var_name`` is the script variable last bound to the node's output (or, for
    ``AccumulateGrad``, to its leaf); ``shape``/``dtype`` describe the output (the leaf).
    """

    __slots__ = ("id", "name", "inputs", "line", "col", "text", "statement", "shape", "dtype",
                 "var_name", "leaf_value", "leaf_grad", "value", "saved", "is_leaf", "op")

    def __init__(self, id, name, inputs, site, shape, dtype, op=None, is_leaf=False):
        self.id = id
        self.name = name
        self.inputs = inputs
        if site is not None:
            self.line, self.col, self.text, self.statement = site.line, site.col, site.text, site.statement
        else:
            self.line = self.col = self.text = self.statement = None
        self.shape = shape
        self.dtype = dtype
        self.var_name = None
        self.value = None
        self.leaf_value = None
        self.leaf_grad = None
        self.saved = ()
        self.is_leaf = is_leaf
        self.op = op


class StepRecord:
    """One node executed by a backward pass: the gradient it received per output
    (``grad_in``), what it passed on per input edge (``grads_out``, None where no input
    needs it), and for ``AccumulateGrad`` the leaf's ``.grad`` before and after."""

    __slots__ = ("node", "grad_in", "grads_out", "before", "after", "fan_in")

    def __init__(self, node, grad_in, grads_out, before=None, after=None, fan_in=None):
        self.node = node
        self.grad_in = grad_in
        self.grads_out = grads_out
        self.before = before
        self.after = after
        self.fan_in = fan_in


class PassRecord:
    """One ``backward()`` or ``torch.autograd.grad`` call."""

    __slots__ = ("index", "kind", "roots", "seed", "line", "text", "retain_graph",
                 "create_graph", "steps", "error", "inputs")

    def __init__(self, index, kind, roots, seed, site, retain_graph, create_graph, inputs=()):
        self.index = index
        self.kind = kind
        self.roots = roots
        self.seed = seed
        self.line = site.line if site is not None else None
        self.text = site.statement if site is not None else None
        self.retain_graph = retain_graph
        self.create_graph = create_graph
        self.steps = []
        self.error = None
        self.inputs = inputs


def snapshot(array, limit: int):
    """A private copy of ``array`` when it has at most ``limit`` elements, else None."""
    if array is None:
        return None
    if array.size <= limit:
        return np.array(array, copy=True)
    return None


class Recorder:
    def __init__(self, keep_values: bool = False, value_limit: int = 100_000):
        self.keep_values = keep_values
        self.value_limit = value_limit
        self.nodes: list[NodeRecord] = []
        self.passes: list[PassRecord] = []

    def keep(self, array):
        return snapshot(array, self.value_limit) if self.keep_values else None


active: Recorder | None = None
