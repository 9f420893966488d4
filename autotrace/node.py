"""Graph nodes: the objects behind ``tensor.grad_fn``.

A :class:`Node` is one recorded op: PyTorch's node name (``MulBackward0``), its
``next_functions`` (``((node, output_nr), ...)`` with ``(None, 0)`` for inputs that need
no gradient), the tensors its backward formula reads (saved tensors, freed after a
backward without ``retain_graph``) and the shapes of its inputs (the engine sums a
broadcast gradient back to them, as PyTorch's ``validate_outputs`` does).
:class:`AccumulateGrad` is the sink that adds a gradient into a leaf's ``.grad``.
"""

from __future__ import annotations

import re
import weakref

from . import anomaly as _anomaly, record, site

SAVED_FREED = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)

_sequence = 0
_addresses = 0
_NO_INPUT = (None, 0)  # a NodeRecord input edge that needs no gradient (shared)
_wrap_number = None    # autotrace.ops.wrap_scalar, installed when the op table loads
_tensor_make = None    # Tensor._make, installed by autotrace.tensor (which imports this module)


def reset_sequence() -> None:
    global _sequence, _addresses
    _sequence = 0
    _addresses = 0


def display_address(obj) -> str:
    """A stable stand-in for the memory address in ``<MulBackward0 object at 0x…>``:
    the n-th object printed in a run gets the n-th address, so the same script prints the
    same text on every run (and golden files can hold it)."""
    global _addresses
    addr = obj._addr
    if addr is None:
        _addresses += 1
        addr = obj._addr = 0x7F0000001000 + 0x70 * _addresses
    return f"0x{addr:x}"


class VersionCounter:
    """Counts in-place modifications; shared by a tensor and its views (``x._version``)."""

    __slots__ = ("value",)

    def __init__(self):
        self.value = 0


INFERENCE_SAVED = (
    "Inference tensors cannot be saved for backward. Please do not use Tensors created in inference mode in "
    "computation tracked by autograd. To work around this, you can make a clone to get a normal tensor and use "
    "it in autograd, or use `torch.no_grad()` instead of `torch.inference_mode()`.")


class SavedTensor:
    """A tensor saved for backward, with the version it had when saved.

    Inputs are kept as the tensor object; an op's own output is kept as its data and
    version counter only (keeping the tensor would make a cycle through ``grad_fn``) and
    is rebuilt on unpack with this node as its ``grad_fn``, as PyTorch's SavedVariable does.
    """

    __slots__ = ("tensor", "data", "counter", "version", "is_output", "requires_grad", "output_nr")

    def __init__(self, tensor, is_output: bool = False):
        counter = tensor._counter   # tensor._version_counter, without the property call
        if counter is None:
            counter = tensor._counter = VersionCounter()
        self.counter = counter
        self.version = counter.value
        self.is_output = is_output
        if is_output:
            self.tensor = None
            self.data = tensor._data
            self.requires_grad = True  # an op output that gets a node always requires grad
            self.output_nr = tensor._output_nr
        else:
            if getattr(tensor, "_inference", False):
                from . import grad_mode
                if not grad_mode.inference:
                    raise RuntimeError(INFERENCE_SAVED)
            self.tensor = tensor
            self.data = None

    @classmethod
    def number(cls, value):
        """A saved Python number the op wrapped as a 0-dim tensor (the 3 in ``x * 3``):
        only the number is kept (not a tensor, its array and version counter); unpack
        wraps it again, as a fresh tensor with the same dtype and value."""
        self = cls.__new__(cls)
        self.tensor = None
        self.data = value
        self.counter = None
        self.version = 0
        self.is_output = False
        return self

    def unpack(self, node):
        counter = self.counter
        if counter is None:
            return _wrap_number(self.data)
        if counter.value == self.version:
            if not self.is_output:
                return self.tensor
            t = _tensor_make(self.data, None, self.requires_grad)
            t._counter = counter  # (Tensor._version_counter's setter)
            if self.requires_grad:
                t._grad_fn = node
                t._output_nr = self.output_nr
            return t
        # changed in place since it was saved: torch's error
        if self.is_output:
            t = _tensor_make(self.data)
            where = f", which is output {self.output_nr} of {_op_name(node)},"
        else:
            t = self.tensor
            fn = t.grad_fn  # torch's reads it too: a stale view's is regenerated (AsStridedBackward0)
            if fn is None:
                where = ""
            else:
                where = f", which is output {t._output_nr} of {_op_name(fn)},"
        shape = ", ".join(str(s) for s in t.shape)
        raise RuntimeError(
            "one of the variables needed for gradient computation has been modified by an "
            f"inplace operation: [torch.{t.dtype.legacy} [{shape}]]{where} is at version "
            f"{counter.value}; expected version {self.version} instead. Hint: enable "
            "anomaly detection to find the operation that failed to compute its gradient, "
            "with torch.autograd.set_detect_anomaly(True, check_nan=False)."
        )


def _op_name(node) -> str:
    """The op a node records, as torch 2.13's in-place error names it: ``ExpBackward0`` → ``Exp``."""
    return re.sub(r"Backward\d*$", "", node.name())


class Context:
    """What a backward formula sees: saved tensors as attributes (``ctx.self``,
    ``ctx.other``, ``ctx.result``), non-tensor attributes (``ctx.dim``), and
    ``ctx.needs(i)``: whether input ``i`` needs a gradient."""

    __slots__ = ("node",)

    def __init__(self, node):
        self.node = node

    def __getattr__(self, name):
        node = self.node
        saved = node.saved
        if saved is not None and name in saved:
            value = saved[name]
            return value.unpack(node) if isinstance(value, SavedTensor) else value
        try:
            return node.attrs[name]
        except KeyError:
            if saved is None and node.had_saved:
                raise RuntimeError(SAVED_FREED) from None
            raise AttributeError(name) from None

    def needs(self, i: int) -> bool:
        return self.node.next_functions[i][0] is not None

    def saved_array(self, name: str):
        """The array of saved tensor ``name`` when it has not changed in place since it
        was saved (what ``ctx.<name>`` would wrap, without building a tensor), else None
        (``ctx.<name>`` then raises torch's error, or the name is not a saved tensor)."""
        saved = self.node.saved
        s = saved.get(name) if saved is not None else None
        if s.__class__ is not SavedTensor or s.counter is None or s.counter.value != s.version:
            return None
        return s.data if s.is_output else s.tensor._data

    # the names most formulas read, found on the class (a name that is not goes through a
    # failed lookup before __getattr__, which costs more than the read)
    self = property(lambda ctx: ctx.__getattr__("self"))
    other = property(lambda ctx: ctx.__getattr__("other"))
    result = property(lambda ctx: ctx.__getattr__("result"))


class Node:
    """A backward node. Scripts see ``name()``, ``next_functions``, ``metadata``,
    ``register_hook``, ``register_prehook`` and ``_saved_*`` attributes."""

    __slots__ = ("op", "next_functions", "saved", "attrs", "seq", "rec", "rid", "in_meta",
                 "n_outputs", "pre_hooks", "retains_grad", "post_hooks", "had_saved",
                 "_metadata", "_addr", "__weakref__")

    _script_attrs = frozenset({
        "name", "next_functions", "metadata", "register_hook", "register_prehook",
        "requires_grad", "_sequence_nr",
        "_saved_self", "_saved_other", "_saved_result", "_saved_exponent", "_saved_dim",
        "_saved_keepdim", "_saved_mat2", "_saved_vec", "_saved_tensor", "_saved_indices",
        "_saved_alpha", "_saved_min", "_saved_max", "_saved_negative_slope", "_saved_weight",
        "_saved_target", "_saved_mask", "_saved_condition", "_saved_p", "_saved_self_sym_sizes",
        "_saved_other_sym_sizes", "_saved_exponent_sym_sizes", "_saved_self_sizes", "_saved_sizes",
        "_saved_index", "_saved_values", "_saved_reduction", "_saved_approximate",
        "_saved_size", "_saved_stride", "_saved_storage_offset",
        "_saved_query", "_saved_key", "_saved_value", "_saved_output", "_saved_logsumexp", "_saved_attn_mask",
        "_saved_scale", "_saved_dropout_p", "_saved_is_causal",
        "_saved_grad_output", "_saved_threshold", "_saved_min_val", "_saved_max_val", "_saved_beta",
        "_saved_input_scale", "_saved_is_result", "_saved_self_or_result", "_saved_padding",
    })

    @staticmethod
    def _script_node_type(node) -> str:
        """``type(t.grad_fn).__name__`` is the node's class name in torch (``MulBackward0``)."""
        return node.op.node

    def __init__(self, op, next_functions, saved, attrs, in_meta, n_outputs=1, saved_names=None,
                 shape=None, dtype=None):
        """``saved_names`` (the keys of ``saved`` that hold a :class:`SavedTensor`) is found
        when not given; ``shape``/``dtype`` (name) describe the output for the record.
        (:func:`op_node` is this for the ops' own results, in fewer steps.)"""
        global _sequence
        self.op = op
        self.next_functions = next_functions
        self.saved = saved
        if saved:
            if saved_names is None:
                saved_names = tuple([k for k, v in saved.items() if v.__class__ is SavedTensor])
            self.had_saved = bool(saved_names)
        else:
            saved_names = ()
            self.had_saved = False
        self.attrs = attrs
        self.in_meta = in_meta
        self.n_outputs = n_outputs
        self.seq = _sequence
        _sequence += 1
        self.pre_hooks = None
        self.retains_grad = None
        self.post_hooks = None
        self._metadata = None  # the dict is made on first use (most nodes never need one)
        self._addr = None
        if _anomaly.enabled:
            self.metadata["traceback_"] = _anomaly.forward_trace(site.current)
        rec = record.active
        if rec is not None:
            self.rec = rec.add_node(
                op, tuple([_NO_INPUT if fn is None else ((fn.rec.id if fn.rec is not None else None), i)
                           for fn, i in next_functions]),
                shape, dtype, rec.intern(saved_names) if saved_names else (),
                rec.node_attrs(attrs, saved, saved_names) if attrs or saved else _EMPTY)
            self.rid = self.rec.id
        else:
            self.rec = self.rid = None

    @property
    def metadata(self) -> dict:
        """PyTorch's ``metadata``: a dict scripts may store anything in."""
        m = self._metadata
        if m is None:
            m = self._metadata = {}
        return m

    def name(self) -> str:
        """PyTorch's ``name()``: the node class name, C++-qualified for CopySlices."""
        n = self.op.node
        return "torch::autograd::" + n if n in ("CopySlices", "CopyBackwards", "NotImplemented") else n

    @property
    def requires_grad(self) -> bool:
        return True

    @property
    def _sequence_nr(self) -> int:
        return self.seq

    def release(self) -> None:
        """Free saved tensors (after a backward without retain_graph)."""
        if self.saved is not None and self.had_saved:
            self.saved = None

    def register_hook(self, fn):
        """Post-hook ``fn(grad_inputs, grad_outputs)``, called after this node runs."""
        if self.post_hooks is None:
            self.post_hooks = []
        self.post_hooks.append(fn)
        return _Handle(self.post_hooks, fn)

    def register_prehook(self, fn):
        """Pre-hook ``fn(grad_outputs)``, called before this node runs; may return new grads."""
        return self._add_pre_hook(-1, fn)

    def _add_pre_hook(self, output_nr, fn):
        if self.pre_hooks is None:
            self.pre_hooks = []
        entry = (output_nr, fn)
        self.pre_hooks.append(entry)
        return _Handle(self.pre_hooks, entry)

    def __getattr__(self, name):
        if name.startswith("_saved_"):
            key = name[7:]
            saved = object.__getattribute__(self, "saved")
            attrs = object.__getattribute__(self, "attrs")
            if saved is not None and key in saved:
                value = saved[key]
                return value.unpack(self) if isinstance(value, SavedTensor) else value
            if key in attrs:
                value = attrs[key]
                # PyTorch hands out a fresh tuple: clearing it cannot change the backward
                return tuple(value) if isinstance(value, list) else value
            if saved is None and object.__getattribute__(self, "had_saved"):
                raise RuntimeError(SAVED_FREED)
        from .interpreter.errors import script_visible
        raise script_visible(AttributeError(
            f"'{object.__getattribute__(self, 'op').node}' object has no attribute '{name}'"))

    def __repr__(self) -> str:
        if getattr(self.op, "custom", False):   # a script's autograd.Function
            return f"<torch.autograd.function.{self.op.node} object at {display_address(self)}>"
        return f"<{self.op.node} object at {display_address(self)}>"

    __str__ = __repr__


def op_node(op, next_functions, saved, had_saved, attrs, in_meta):
    """A one-output :class:`Node` as ``Node(op, next_functions, saved, attrs, in_meta)``
    makes it, for :func:`autotrace.ops.make` and ``make_number``, which know whether
    ``saved`` holds tensors (``had_saved``); ``rec`` is left to the caller, which builds
    the record (:meth:`autotrace.record.Recorder.add_node`) and ``rid`` (its id), or sets
    both None."""
    global _sequence
    node = _new(Node)
    node.op = op
    node.next_functions = next_functions
    node.saved = saved
    node.had_saved = had_saved
    node.attrs = attrs
    node.in_meta = in_meta
    node.n_outputs = 1
    node.seq = _sequence
    _sequence += 1
    node.pre_hooks = node.retains_grad = node.post_hooks = node._metadata = node._addr = None
    if _anomaly.enabled:
        node.metadata["traceback_"] = _anomaly.forward_trace(site.current)
    return node


_new = object.__new__
_EMPTY = record.EMPTY


class AccumulateGrad(Node):
    """The sink of a leaf that requires grad: adds incoming gradients into ``.grad``.

    Its ``variable`` is the leaf. PyTorch runs it before other ready nodes (its sequence
    number is the maximum), which :mod:`autotrace.engine` mirrors.
    """

    __slots__ = ("_variable",)
    _script_attrs = frozenset({"name", "next_functions", "variable", "metadata",
                               "register_hook", "register_prehook", "requires_grad"})

    def __init__(self, variable):
        self._variable = weakref.ref(variable)
        Node.__init__(self, _ACCUMULATE, (), {}, {}, ((variable.shape, variable.dtype),))
        self.seq = float("inf")
        if self.rec is not None:
            self.rec.is_leaf = True
            self.rec.shape = tuple(variable.shape)
            self.rec.dtype = variable.dtype.name
            self.rec.var_name = variable._name
            r = record.active
            if r is not None and r.keep_values:
                self.rec.leaf_value = r.keep(variable._data)

    @property
    def variable(self):
        return self._variable()

    def name(self) -> str:
        """torch 2.13 returns the C++ qualified name here (the repr says AccumulateGrad)."""
        return "torch::autograd::AccumulateGrad"

    @property
    def _sequence_nr(self) -> int:
        return 2**64 - 1


class _AccumulateOp:
    node = "AccumulateGrad"
    name = "accumulate_grad"


_ACCUMULATE = _AccumulateOp()


class _Handle:
    """What ``register_hook`` returns: ``handle.remove()`` unregisters the hook."""

    __slots__ = ("_list", "_entry")
    _script_attrs = frozenset({"remove"})
    _script_type_name = "torch.utils.hooks.RemovableHandle"

    def __init__(self, lst, entry):
        self._list = lst
        self._entry = entry

    def remove(self) -> None:
        try:
            self._list.remove(self._entry)
        except ValueError:
            pass

    def __repr__(self) -> str:
        return f"<torch.utils.hooks.RemovableHandle object at 0x{id(self):x}>"
