"""``torch.autograd.Function``: custom ops whose forward and backward the script writes.

A script class ``class MyReLU(torch.autograd.Function)`` with ``@staticmethod``
``forward(ctx, ...)`` and ``backward(ctx, *grads)``; ``MyReLU.apply(...)`` runs forward
under no_grad with a :class:`FunctionCtx` and, when grad mode is on and a tensor input
requires grad, gives the tensor outputs one node named as torch names it
(``MyReLUBackward``, printed ``<torch.autograd.function.MyReLUBackward object at 0x…>``).
Its backward calls the script's ``backward`` and checks what comes back with torch 2.13's
errors: the number of gradients (trailing ``None``\\ s beyond the inputs are dropped), a
gradient for a non-tensor input, a shape that cannot be summed back to the input's.

The node's op is a :class:`CustomOp`: ``custom`` is True, ``vjp`` reads "the script's own
backward" for every input, and the engine records the gradients it returned like any
other node's, so explain and ``--verify`` treat it as one step.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes, grad_mode
from ..interpreter.classes import NOT_FOUND, ScriptClass
from ..node import SAVED_FREED, Node, SavedTensor
from ..ops import Op
from ..tensor import Tensor

RULE = "the script's own backward"


class CustomOp(Op):
    """The op of a script's ``autograd.Function``: one per class and number of inputs."""

    __slots__ = ("script_class",)
    custom = True

    def __init__(self, cls: ScriptClass, ninputs: int):
        names = tuple(f"input{i}" if ninputs > 1 else "input" for i in range(ninputs))
        super().__init__(cls.name, f"{cls.name}Backward", names, {n: RULE for n in names}, _backward,
                         doc=f"custom autograd.Function {cls.name}")
        self.script_class = cls


class FunctionCtx:
    """``ctx`` of a custom Function: ``save_for_backward``/``saved_tensors``,
    ``needs_input_grad``, ``mark_non_differentiable``, ``set_materialize_grads``, and any
    attribute the script sets (``ctx.k = 2``)."""

    __slots__ = ("_saved", "_node", "needs_input_grad", "_non_diff", "_materialize", "_sdict", "__weakref__")
    _script_attrs = frozenset({"save_for_backward", "saved_tensors", "needs_input_grad",
                               "mark_non_differentiable", "set_materialize_grads", "mark_dirty"})
    _script_type_name = "torch.autograd.function.BackwardCFunction"

    def __init__(self, needs):
        self._saved = None
        self._node = None
        self.needs_input_grad = needs
        self._non_diff = set()
        self._materialize = True
        self._sdict = {}

    def _script_getattr(self, name):
        return self._sdict.get(name, NOT_FOUND)

    def _script_setattr(self, name, value):
        if name in FunctionCtx._script_attrs:
            from ..interpreter.errors import ScriptAttributeError
            raise ScriptAttributeError(f"attribute '{name}' of 'BackwardCFunction' objects is not writable")
        self._sdict[name] = value

    def save_for_backward(self, *tensors):
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                                f"{type(t).__name__}")
        self._saved = tensors

    @property
    def saved_tensors(self):
        node = self._node
        if node is None:
            return tuple(self._saved or ())
        saved = node.saved
        if saved is None:
            if node.had_saved:
                raise RuntimeError(SAVED_FREED)
            return ()
        n = node.attrs["nsaved"]
        return tuple(saved[f"saved{i}"].unpack(node) if saved[f"saved{i}"] is not None else None
                     for i in range(n))

    def mark_non_differentiable(self, *tensors):
        for t in tensors:
            if not isinstance(t, Tensor):
                raise TypeError("mark_non_differentiable only accepts tensors")
            self._non_diff.add(id(t))

    def set_materialize_grads(self, value):
        self._materialize = bool(value)

    def mark_dirty(self, *tensors):
        raise RuntimeError("ctx.mark_dirty() (in-place custom Functions) is not supported yet in autotrace")

    def __repr__(self):
        return f"<torch.autograd.function.BackwardCFunction object at 0x{id(self):x}>"


class Function:
    """``torch.autograd.Function``: subclass it in the script; call ``Cls.apply(...)``."""

    _script_subclassable = True
    _script_attrs = frozenset()

    def __call__(self, *args, **kwargs):
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use new-style "
            "autograd function with static forward method. (Example: "
            "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def _script_class_getattr(cls: ScriptClass, name: str):
        if name == "apply":
            return _Apply(cls)
        return NOT_FOUND


def once_differentiable(fn):
    """``torch.autograd.function.once_differentiable``: backward runs without recording a
    graph (so it cannot be differentiated again)."""
    from ..grad_mode import GradModeFunction, no_grad
    return GradModeFunction(fn, no_grad)


class _Apply:
    """``MyFn.apply``."""

    __slots__ = ("cls",)
    _script_attrs = frozenset()

    def __init__(self, cls):
        self.cls = cls

    def __call__(self, *args, **kwargs):
        return apply(self.cls, args, kwargs)

    def __repr__(self):
        return f"<bound method Function.apply of <class '__main__.{self.cls.name}'>>"


def apply(cls: ScriptClass, args: tuple, kwargs: dict | None):
    fwd = cls.lookup("forward")
    if fwd is NOT_FOUND:
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")
    setup = cls.lookup("setup_context")
    if setup is NOT_FOUND:
        args = _passed_inputs(fwd, args, kwargs)
    else:
        args = _bind_args(fwd, args, kwargs, with_ctx=False)
    kwargs = None
    needs = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
    ctx = FunctionCtx(needs)
    prev = grad_mode.enabled
    grad_mode.enabled = False
    try:
        if setup is NOT_FOUND:
            out = _call_static(fwd, (ctx,) + tuple(args), kwargs)
        else:   # torch 2's style: forward(*args) and setup_context(ctx, inputs, output)
            out = _call_static(fwd, tuple(args), kwargs)
            _call_static(setup, (ctx, tuple(args), out), None)
    finally:
        grad_mode.enabled = prev
    is_tuple = isinstance(out, tuple)
    outs = list(out) if is_tuple else [out]
    inputs = [a if isinstance(a, Tensor) else None for a in args]
    # an input returned as an output is returned as a new tensor sharing its data (torch: a view)
    for i, o in enumerate(outs):
        if isinstance(o, Tensor) and any(o is a for a in inputs):
            alias = Tensor._make(o._data, o._dtype)
            if id(o) in ctx._non_diff:
                ctx._non_diff.add(id(alias))
            outs[i] = alias
    if not (grad_mode.enabled and any(a is not None and a._requires_grad for a in inputs)):
        return tuple(outs) if is_tuple else outs[0]
    op = _op_for(cls, len(args))
    # torch's node has an edge per tensor argument only; backward returns one per argument
    edges = tuple(a._edge() for a in inputs if a is not None)
    meta = tuple((a._data.shape, a._dtype) for a in inputs if a is not None)
    arg_meta = tuple((a._data.shape, a._dtype) if a is not None else None for a in inputs)
    out_meta = tuple((o._data.shape, o._dtype) if isinstance(o, Tensor) else None for o in outs)
    node = Node(op, edges, None, {"fctx": ctx, "nsaved": 0, "out_meta": out_meta, "arg_meta": arg_meta}, meta,
                n_outputs=len(outs))
    ctx._node = node
    first = None
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor) or id(o) in ctx._non_diff or o._dtype.category != dtypes.FLOAT:
            continue
        o._requires_grad = True
        o.grad_fn = node
        o._output_nr = i
        if first is None:
            first = o
    if ctx._saved:
        # saved after the outputs got the node, so a saved output unpacks with its grad_fn
        out_ids = {id(o) for o in outs if isinstance(o, Tensor) and o.grad_fn is node}
        node.saved = {f"saved{i}": None if t is None else SavedTensor(t, is_output=id(t) in out_ids)
                      for i, t in enumerate(ctx._saved)}
        node.attrs["nsaved"] = len(ctx._saved)
        node.had_saved = True
        if node.rec is not None:
            node.rec.saved = tuple(k for k, v in node.saved.items() if v is not None)
    ctx._saved = None
    if node.rec is not None and first is not None:
        node.rec.shape = first._data.shape
        node.rec.dtype = first._dtype.name
    return tuple(outs) if is_tuple else outs[0]


def _passed_inputs(fwd, args, kwargs):
    """The inputs of ``apply`` for a ``forward(ctx, ...)`` (no ``setup_context``), as torch
    2.13's C++ ``Function.apply`` takes them: the arguments actually passed, positional
    first, each keyword one at the position of forward's parameter of that name (after
    ctx), with no gap before it. Defaults are not filled in: a parameter left to its
    default is no input, so ``needs_input_grad`` has no entry for it and backward returns
    no gradient for it (a trailing ``None`` more is still accepted)."""
    args = tuple(args)
    if not kwargs:
        return args
    from ..interpreter.classes import StaticMethod
    from ..interpreter.values import ScriptFunction
    f = fwd.f if type(fwd) is StaticMethod else fwd
    if type(f) is not ScriptFunction:
        raise TypeError("apply() keyword arguments need a forward defined by the script")
    names = list(f._code.posnames[1:])      # keyword-only and **kwargs parameters are no inputs
    placed = {}
    for k, v in kwargs.items():
        if k not in names:
            raise TypeError(f"forward() got an unexpected keyword argument '{k}'")
        i = names.index(k)
        if i < len(args):
            raise TypeError(f"forward() got multiple values for argument '{k}'")
        placed[i] = v
    out = list(args)
    for i in range(len(args), max(placed) + 1):
        if i not in placed:
            raise TypeError(f"forward() missing required argument: '{names[i]}' (position {i})")
        out.append(placed[i])
    return tuple(out)


def _bind_args(fwd, args, kwargs, with_ctx=True):
    """With ``setup_context`` (torch 2's style), torch binds apply's arguments to
    forward's signature, defaults included: the inputs (and gradients backward must
    return) are forward's parameters."""
    from ..interpreter.classes import StaticMethod
    from ..interpreter.values import ScriptFunction, UNBOUND, _bind_args as bind
    f = fwd.f if type(fwd) is StaticMethod else fwd
    if type(f) is not ScriptFunction:
        if kwargs:
            raise TypeError("apply() keyword arguments need a forward defined by the script")
        return tuple(args)
    code = f._code
    fr = code.template.copy()
    lead = 1 if with_ctx else 0
    bind(f, fr, (None,) * lead + tuple(args), kwargs or {})
    out = list(fr[2 + lead:2 + code.npos])
    if code.vararg is not None:
        out.extend(fr[code.vararg])
    if code.kwonly or code.kwarg is not None:
        raise TypeError(f"{code.name}(): keyword-only arguments of a custom Function's forward are not supported yet")
    return tuple(None if v is UNBOUND else v for v in out)


def _call_static(f, args, kwargs):
    from ..interpreter.classes import StaticMethod
    if type(f) is StaticMethod:
        f = f.f
    return f(*args, **(kwargs or {}))


_OPS: dict = {}


def _op_for(cls, n):
    key = (id(cls), n)
    hit = _OPS.get(key)
    if hit is None or hit[0] is not cls:
        hit = _OPS[key] = (cls, CustomOp(cls, n))
    return hit[1]


def _backward(ectx, grads):
    node = ectx.node
    fctx = node.attrs["fctx"]
    cls = node.op.script_class
    name = node.op.node
    bw = cls.lookup("backward")
    if bw is NOT_FOUND:
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")
    if fctx._materialize:
        gs = []
        for g, m in zip(grads, node.attrs["out_meta"]):
            if g is None and m is not None:
                g = Tensor._make(np.zeros(m[0], dtype=m[1].np), m[1])
            gs.append(g)
        grads = gs
    res = _call_static(bw, (fctx,) + tuple(grads), None)
    res = list(res) if isinstance(res, tuple) else [res]
    arg_meta = node.attrs["arg_meta"]
    n_in = len(arg_meta)
    if len(res) > n_in and all(r is None for r in res[n_in:]):
        res = res[:n_in]
    if len(res) != n_in:
        raise RuntimeError(f"function {name} returned an incorrect number of gradients (expected {n_in}, got {len(res)})")
    out = []
    for i, (g, meta) in enumerate(zip(res, arg_meta)):
        if meta is None:
            if g is not None:
                raise RuntimeError(f"function {name} returned a gradient different than None at position {i + 1}, "
                                   "but the corresponding forward input was not a Variable")
            continue
        if g is None:
            out.append(None)
            continue
        if not isinstance(g, Tensor):
            raise TypeError(f"expected Variable or None (got {type(g).__name__})")
        shape = meta[0]
        if g._data.shape != shape:
            try:
                ok = np.broadcast_shapes(g._data.shape, shape) == tuple(shape) and g._data.ndim <= len(shape) \
                    or _sums_to(g._data.shape, shape)
            except ValueError:
                ok = False
            if not ok:
                raise RuntimeError(
                    f"Function {name} returned an invalid gradient at index {i} - got "
                    f"[{', '.join(map(str, g._data.shape))}] but expected shape compatible with "
                    f"[{', '.join(map(str, shape))}]")
        out.append(g)
    return out


def _sums_to(gshape, shape) -> bool:
    """torch's is_expandable_to(shape, grad.shape): the grad may be summed back to shape."""
    ndim, gdim = len(shape), len(gshape)
    if ndim > gdim:
        return False
    for i in range(1, ndim + 1):
        s, g = shape[-i], gshape[-i]
        if s != g and s != 1:
            return False
    return True
