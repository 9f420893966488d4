"""The op table: every differentiable op defined once.

An :class:`Op` carries PyTorch's node name, the names of its tensor inputs, its
vector-Jacobian product per input as text (the ``derivatives.yaml`` formula that
``autotrace ops`` and ``explain`` print), optionally the local derivative per input in
symbols, and the backward function. Backward functions are written with Tensor ops, so
with ``create_graph=True`` they record a graph and higher derivatives work.

The public functions (``torch.mul``, ``Tensor.mul``, ``F.relu`` ...) live beside their
ops in the submodules and are exported with :func:`export`; :func:`load` imports them all
and attaches the Tensor methods.
"""

from __future__ import annotations

import re
from types import MappingProxyType

import numpy as np

from .. import dtypes, grad_mode, record as _record
from ..node import Node, SavedTensor, op_node as _op_node
from ..tensor import Tensor, move_retained_grad

OPS: dict[str, "Op"] = {}          # op name -> Op
TORCH: dict[str, object] = {}      # torch.<name>
METHODS: dict[str, object] = {}    # Tensor.<name>
FUNCTIONAL: dict[str, object] = {} # torch.nn.functional.<name>
_FUNCS: dict[str, object] = {}     # any exported function by its own name

RESULT = object()  # in ``save=``: save the op's output (PyTorch's ``result``)
_NO_EDGE = (None, 0)
_NO_ATTRS = _record.EMPTY  # a node without attributes shares one read-only mapping
_ReadOnly = type(_NO_ATTRS)  # attrs of this type are constants of the op modules (``{"alpha": 1}``)


class Op:
    """One differentiable op (compare PyTorch's ``derivatives.yaml`` entries).

    ``vjp`` maps each input name to the gradient it receives, as text in terms of
    ``grad`` (the upstream gradient), the inputs and ``result``; ``local`` maps input
    names to the local derivative ∂out/∂input in symbols for elementwise ops (None where
    the op is not elementwise). ``backward(ctx, grad)`` returns one gradient (Tensor or
    None) per input.
    """

    __slots__ = ("name", "node", "inputs", "vjp", "local", "backward", "doc")

    def __init__(self, name, node, inputs, vjp, backward, local=None, doc=""):
        self.name = name
        self.node = node
        self.inputs = inputs
        self.vjp = vjp
        self.local = local
        self.backward = backward
        self.doc = doc

    def __repr__(self) -> str:
        return f"Op({self.name!r}, {self.node!r})"


def op(name, node, inputs, vjp, local=None, doc=""):
    """Decorator: define the op whose backward is the decorated function."""

    def register(backward):
        o = Op(name, node, tuple(inputs), dict(vjp), backward, local=local, doc=doc)
        if name in OPS:
            raise ValueError(f"op {name!r} defined twice")
        OPS[name] = o
        return o

    return register


def export(*, torch=(), tensor=(), functional=(), name=None):
    """Decorator: publish a function as ``torch.X``, ``Tensor.X`` and/or ``F.X``."""

    def register(fn):
        key = name or fn.__name__
        _FUNCS[key] = fn
        for n in torch:
            TORCH[n] = getattr(fn, "_torch_form", fn)
        for n in tensor:
            METHODS[n] = getattr(fn, "_method_form", fn)
        for n in functional:
            FUNCTIONAL[n] = fn
        return fn

    return register


def tensor_params(*names, optional=()):
    """Decorator (below :func:`export`): the named parameters must be Tensors (those in
    ``optional`` may also be None), else torch's ``f(): argument 'x' (position n) must be Tensor, not int``
    — positions counted as ``torch.f(...)`` counts them, and one less for ``Tensor.f``."""

    def deco(fn):
        code = fn.__code__
        argnames = code.co_varnames[:code.co_argcount]
        where = tuple((n, argnames.index(n)) for n in names)
        lead = (("input", 0),) if argnames[:1] == ("input",) else ()

        def form(offset):
            checks = where if offset else lead + where

            def checked(*args, **kwargs):
                for n, i in checks:
                    if i < len(args):
                        v = args[i]
                    elif n in kwargs:
                        v = kwargs[n]
                    else:
                        continue
                    if not isinstance(v, Tensor) and not (v is None and n in optional):
                        at = f" (position {i + 1 - offset})" if i < len(args) else ""  # torch names keywords only
                        raise TypeError(f"{fn.__name__}(): argument '{n}'{at} must be Tensor, not {type(v).__name__}")
                return fn(*args, **kwargs)
            checked.__name__ = fn.__name__
            checked.__doc__ = fn.__doc__
            checked.__wrapped__ = fn
            return checked

        fn._torch_form, fn._method_form = form(0), form(1)
        return fn

    return deco


def get(name):
    """An exported function by name (``get("unbind")``)."""
    load()
    return _FUNCS[name]


# -- building results ------------------------------------------------------------------


def wrap_scalar(value):
    """A Python number as the 0-dim tensor PyTorch wraps it in (float -> float64,
    int -> int64, bool -> bool); flagged so promotion treats it as a scalar."""
    cls = value.__class__
    if cls is float:
        t = _tensor_make(_array(value), _F64)
    elif cls is bool:
        t = _tensor_make(_array(value), _BOOL)
    elif isinstance(value, bool):
        t = _tensor_make(np.array(value, dtype=np.bool_), _BOOL)
    elif isinstance(value, int):
        t = _tensor_make(np.array(value, dtype=np.int64), dtypes.int64)
    elif isinstance(value, dtypes.NumberLike):
        return wrap_scalar(value.torch_number())
    else:
        t = _tensor_make(np.array(value, dtype=np.float64), _F64)
    t._wrapped = True
    return t


_array = np.array
_tensor_make = Tensor._make
_F64 = dtypes.float64
_BOOL = dtypes.bool_


from .. import node as _node  # noqa: E402

_node._wrap_number = wrap_scalar


class BadOperand(TypeError):
    """A binary op's ``other`` is neither a Tensor nor a Python number. Tensor operator
    methods turn it into ``NotImplemented`` so Python raises its own TypeError
    (``unsupported operand type(s) for +: 'Tensor' and 'NoneType'``), as torch's do."""


BadOperand.__name__ = BadOperand.__qualname__ = "TypeError"  # what scripts see: a TypeError


#: what a binary op accepts as ``other``; anything else is a BadOperand
OPERANDS = (Tensor, bool, int, float, dtypes.NumberLike)


def as_tensor_arg(value, name="other"):
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, int, float, dtypes.NumberLike)):
        return wrap_scalar(value)
    raise BadOperand(f"expected Tensor as element 1 in argument 1, but got {type(value).__name__}")


def make(op_, out, inputs, save=None, attrs=None, dtype=None):
    """The result tensor of ``op_`` with data ``out`` (a numpy array), recording a graph
    node when grad mode is on and some input requires grad.

    ``inputs`` are the op's tensor inputs in ``op_.inputs`` order (None for a
    non-tensor argument); ``save`` maps names to what backward reads (tensors, the
    :data:`RESULT` marker, or plain values); ``attrs`` are non-tensor attributes.
    """
    t = _tensor_make(out, dtype)
    if not grad_mode.enabled or t._dtype.category != _FLOAT:
        return t
    for x in inputs:
        if x is not None and x._requires_grad:
            break
    else:
        return t
    n = len(inputs)
    if n == 2 and inputs[0] is not None and inputs[1] is not None \
            and not inputs[0]._wrapped and not inputs[1]._wrapped:
        edges, ids = _two_edges(inputs)
        x, y = inputs
        key = (x._data.shape, x._dtype, y._data.shape, y._dtype)
        meta = _METAS.get(key) or _shared_meta(((key[0], key[1]), (key[2], key[3])), key)
        wrapped = False
    elif n == 1 and not inputs[0]._wrapped:  # (the loop above found it requires grad)
        x = inputs[0]
        fn = x._grad_fn if x._base is None else x.grad_fn  # a view's may be regenerated
        if fn is not None:
            nr = x._output_nr
        else:
            fn = x._acc
            if fn is None:
                fn = x._grad_accumulator()
            nr = 0
        edges, ids = ((fn, nr),), ((fn.rid, nr),)
        key = (x._data.shape, x._dtype)
        meta = _METAS.get(key) or _shared_meta((key,), key)
        wrapped = False
    else:
        edges, ids, meta, wrapped = _edges(inputs)
    saved = None
    names = ()
    if save is SAVE_RESULT:  # (the usual save of an elementwise op: its output alone)
        saved = {"result": SavedTensor(t, is_output=True)}
        names = _RESULT
    elif save:
        saved = {}
        names = []
        for k, v in save.items():
            if v is RESULT:
                saved[k] = SavedTensor(t, is_output=True)
                names.append(k)
            elif isinstance(v, Tensor):
                saved[k] = _saved_number(v._data.item()) if v._wrapped else SavedTensor(v)
                names.append(k)
            else:
                saved[k] = v
                if v.__class__ is SavedTensor:
                    names.append(k)
        names = tuple(names)
    node = t._grad_fn = _op_node(op_, edges, saved, bool(names), attrs or _NO_ATTRS, meta)
    t._requires_grad = True
    active = _record.active
    if active is None:
        node.rec = node.rid = None
        return t
    if (attrs is None or attrs.__class__ is _ReadOnly) and (saved is None or len(names) == len(saved)):
        rec_attrs = active.fixed_attrs(attrs)  # no plain values saved: the attrs alone decide
    elif attrs or saved:
        rec_attrs = active.node_attrs(attrs or _NO_ATTRS, saved, names)
    else:
        rec_attrs = _NO_ATTRS
    rec = node.rec = active.add_node(op_, ids, t._data.shape, t._dtype.name,
                                     active.intern(names) if names else (), rec_attrs)
    node.rid = rec.id
    if wrapped:
        scalars = {}
        for name, x in zip(op_.inputs, inputs):
            if x is not None and x._wrapped:
                scalars[name] = x._data.item()
        if len(scalars) == 1:
            rec.scalars = active.node_scalar(*next(iter(scalars.items())))
        else:
            rec.scalars = active.node_scalars(scalars)
    if active.keep_values:
        rec.value = active.keep(t._data)
    return t


def _shared_meta(meta, key):
    """``meta`` (a node's ``in_meta``), shared by the nodes that have an equal one while
    there are few distinct ones: a graph's nodes repeat a handful (a training loop's),
    and one tuple read by every node stays in the cache during backward. ``key``: its
    ``(shape, dtype)`` pairs flattened into one tuple (one tuple to build and hash per node,
    not three), or ``None`` in place of a pair for a number's input."""
    if len(_METAS) < 1024:
        _METAS[key] = meta
    return meta


_METAS: dict = {}


def _edges(inputs):
    """``(next_functions, the record's inputs, in_meta, wrapped)`` of a node over
    ``inputs`` (tensors, or None for a non-tensor argument): per input its edge, the edge
    as ``(node id, output index)``, its ``(shape, dtype)`` (None for a wrapped number), and
    whether some input is a wrapped number."""
    edges = []
    ids = []
    meta = []
    wrapped = False
    for x in inputs:
        if x is None:
            edges.append(_NO_EDGE)
            ids.append(_NO_EDGE)
            meta.append(None)
            continue
        fn = x._grad_fn if x._base is None else x.grad_fn
        if fn is not None:
            nr = x._output_nr
        elif x._requires_grad:
            fn = x._grad_accumulator()
            nr = 0
        if fn is None:
            edges.append(_NO_EDGE)
            ids.append(_NO_EDGE)
        else:
            edges.append((fn, nr))
            ids.append((fn.rid, nr))
        if x._wrapped:
            meta.append(None)
            wrapped = True
        else:
            meta.append((x._data.shape, x._dtype))
    return tuple(edges), tuple(ids), tuple(meta), wrapped


def _two_edges(inputs):
    """The first two of :func:`_edges` for two tensors (the usual binary op), unrolled."""
    x, y = inputs
    fx = x._grad_fn if x._base is None else x.grad_fn  # a stale view's is regenerated
    if fx is not None:
        nr = x._output_nr
        ex, ix = (fx, nr), (fx.rid, nr)
    elif x._requires_grad:
        fx = x._acc
        if fx is None:
            fx = x._grad_accumulator()
        ex, ix = (fx, 0), (fx.rid, 0)
    else:
        ex = ix = _NO_EDGE
    fy = y._grad_fn if y._base is None else y.grad_fn
    if fy is not None:
        nr = y._output_nr
        return (ex, (fy, nr)), (ix, (fy.rid, nr))
    if y._requires_grad:
        fy = y._acc
        if fy is None:
            fy = y._grad_accumulator()
        return (ex, (fy, 0)), (ix, (fy.rid, 0))
    return (ex, _NO_EDGE), (ix, _NO_EDGE)


def make_pair(op_, out, a, b, attrs=None, dtype=None, save_both=False):
    """:func:`make` for ``op_(a, b)`` of two tensors, neither a wrapped number, with
    ``attrs`` None or a constant read-only mapping, saving nothing (add and sub) or, with
    ``save_both``, both as ``self`` and ``other`` (mul when both require grad): the same
    node and record, without make's steps for other cases."""
    t = _tensor_make(out, dtype)
    if not grad_mode.enabled or not (a._requires_grad or b._requires_grad) or t._dtype.category != _FLOAT:
        return t
    edges, ids = _two_edges((a, b))
    key = (a._data.shape, a._dtype, b._data.shape, b._dtype)
    meta = _METAS.get(key) or _shared_meta(((key[0], key[1]), (key[2], key[3])), key)
    saved = {"self": SavedTensor(a), "other": SavedTensor(b)} if save_both else None
    node = t._grad_fn = _op_node(op_, edges, saved, save_both, attrs or _NO_ATTRS, meta)
    t._requires_grad = True
    active = _record.active
    if active is None:
        node.rec = node.rid = None
        return t
    hit = active.fixed_attrs_cache[0].get(id(attrs))  # active.fixed_attrs(attrs), inline
    rec = node.rec = active.add_node(op_, ids, t._data.shape, t._dtype.name, _SELF_OTHER if save_both else (),
                                     hit[0] if hit is not None else active.fixed_attrs(attrs))
    node.rid = rec.id
    if active.keep_values:
        rec.value = active.keep(t._data)
    return t


def make_number(op_, out, a, number, attrs=None, dtype=None, save_other=False):
    """:func:`make` for ``op_(a, number)`` — ``self`` a tensor, ``other`` a Python number —
    without wrapping the number as a 0-dim tensor: the node and its record are the ones
    :func:`make` builds for the wrapped number (``(None, 0)`` in ``next_functions``, the
    value in ``rec.scalars``). ``save_other`` saves ``{"self": None, "other": number}``, what
    mul and div save when only ``a`` requires grad."""
    t = _tensor_make(out, dtype)
    if not grad_mode.enabled or not a._requires_grad or t._dtype.category != _FLOAT:
        return t
    fn = a._grad_fn if a._base is None else a.grad_fn
    if fn is None:
        fn = a._grad_accumulator()
        nr = 0
    else:
        nr = a._output_nr
    saved = _saved_other(number) if save_other else None
    key = (a._data.shape, a._dtype, None)
    node = t._grad_fn = _op_node(op_, ((fn, nr), _NO_EDGE), saved, save_other, attrs or _NO_ATTRS,
                                _METAS.get(key) or _shared_meta(((key[0], key[1]), None), key))
    t._requires_grad = True
    active = _record.active
    if active is None:
        node.rec = node.rid = None
        return t
    hit = active.fixed_attrs_cache[save_other].get(id(attrs))  # active.fixed_attrs, inline
    rec = node.rec = active.add_node(op_, ((fn.rid, nr), _NO_EDGE),
                                     t._data.shape, t._dtype.name, _OTHER if save_other else (),
                                     hit[0] if hit is not None else active.fixed_attrs(attrs, save_other))
    node.rid = rec.id
    rec.scalars = active.node_scalar(op_.inputs[1], number)
    if active.keep_values:
        rec.value = active.keep(t._data)
    return t


def _saved_other(number):
    """``{"self": None, "other": number}`` as ``make_number`` saves it: one read-only
    mapping per number, shared by the nodes of a loop's ``x * 2`` (nothing writes into a
    node's saved values: :func:`_resave_for_inplace` replaces only a saved tensor)."""
    key = (number.__class__, number)
    saved = _SAVED_OTHER.get(key)
    if saved is None:
        saved = MappingProxyType({"self": None, "other": _saved_number(number)})
        if number and number == number and len(_SAVED_OTHER) < 4096:  # zeros (0.0 == -0.0) and nan are not keys
            _SAVED_OTHER[key] = saved
    return saved


#: ``save`` of an op that saves its output alone (read-only: pass it as it is)
SAVE_RESULT = MappingProxyType({"result": RESULT})
_RESULT = ("result",)
_SAVED_OTHER: dict = {}
_OTHER = ("other",)
_SELF_OTHER = ("self", "other")
_FLOAT = dtypes.FLOAT
_saved_number = SavedTensor.number


def make_multi(op_, outs, inputs, save=None, attrs=None, differentiable=None):
    """Like :func:`make` for ops with several outputs (``unbind``, ``split``, ``max(dim)``):
    one node, output ``i`` has ``_output_nr == i``. ``differentiable[i]`` False marks an
    output (indices) that never requires grad."""
    ts = [Tensor._make(o) for o in outs]
    if not grad_mode.enabled or not any(x is not None and x._requires_grad for x in inputs):
        return ts
    edges = tuple(x._edge() if x is not None else (None, 0) for x in inputs)
    saved = None
    if save:
        saved = {k: (SavedTensor(v) if isinstance(v, Tensor) else v) for k, v in save.items()}
    meta = tuple((x._data.shape, x._dtype) if x is not None else None for x in inputs)
    node = Node(op_, edges, saved, attrs or {}, meta, n_outputs=len(ts))
    node.attrs["out_meta"] = tuple((o.shape, t._dtype) for o, t in zip(outs, ts))
    for i, t in enumerate(ts):
        if (differentiable is None or differentiable[i]) and t._dtype.category == dtypes.FLOAT:
            t._requires_grad = True
            t._grad_fn = node
            t._output_nr = i
    if node.rec is not None:
        node.rec.shape = outs[0].shape
        node.rec.dtype = ts[0]._dtype.name
    return ts


LEAF_INPLACE = "a leaf Variable that requires grad is being used in an in-place operation."
VIEW_LEAF_INPLACE = "a view of a leaf Variable that requires grad is being used in an in-place operation."


INFERENCE_INPLACE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a normal "
    "tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.")
NO_GRAD_VIEW_INPLACE = (
    "{prefix} no_grad mode and {modified} modified inplace with grad mode enabled. Given "
    "that this use case is ambiguous and error-prone, it is forbidden. You can clarify your code by "
    "moving both the view and the inplace either both inside the no_grad block (if you don't want the "
    "inplace to be tracked) or both outside (if you want the inplace to be tracked).")
MULTI_VIEW_INPLACE = (
    "Output {nr} of {node} is a view and {modified} modified inplace. This view is the output of a "
    "function that returns multiple views. Such functions do not allow the output views to be modified "
    "inplace. You should replace the inplace operation by an out-of-place one.")


def view_rebase_error(t: Tensor, indirect: bool, via: str | None = None) -> RuntimeError:
    """torch 2.13 ``handle_view_on_rebase``'s error for a view made in no_grad mode or by a
    multi-output op (or a view of such a view, which inherits its creation meta): modified
    in place itself, or (``indirect``) its base or another view of the base was, found when
    its ``grad_fn`` is read. ``via`` names the function of the view ``x[key] = v`` writes
    through ("Select", "Slice", "Unsqueeze"), output 0 of it, instead of ``t``'s own."""
    modified = "its base or another view of its base has been" if indirect else "is being"
    fn = t._grad_fn
    nr, node = (0, via) if via is not None else (t._output_nr, None)
    if node is None and fn is not None:
        # torch names the function, not its node: "Output 0 of Unbind", "of SplitWithSizes"
        node = re.sub(r"Backward\d*$", "", fn.op.node)
    if getattr(t, "_view_kind", None) == "multi":
        return RuntimeError(MULTI_VIEW_INPLACE.format(nr=nr, node=node, modified=modified))
    prefix = f"Output {nr} of {node} is a view of a view which was created in" if node else "A view was created in"
    return RuntimeError(NO_GRAD_VIEW_INPLACE.format(prefix=prefix, modified=modified))


def check_inplace(t: Tensor, view_of_leaf: bool = True) -> None:
    """PyTorch's errors for in-place ops on leaves that require grad (outside no_grad),
    on views of such leaves, and on views made in no_grad mode or by multi-view ops
    (torch 2.13 ``check_inplace``; like torch's, it reads the history as last set)."""
    if grad_mode.enabled and t._requires_grad:
        base = t._base
        if base is not None:
            kind = getattr(t, "_view_kind", None)
            if kind is not None and (kind == "no_grad" or t._grad_fn is not None):
                raise view_rebase_error(t, indirect=False)
            if base._grad_fn is None and view_of_leaf:
                raise RuntimeError(VIEW_LEAF_INPLACE)
        if t._grad_fn is None:
            raise RuntimeError(LEAF_INPLACE)


def commit_inplace(t: Tensor, result: Tensor) -> Tensor:
    """Make ``t`` take ``result``'s value and history: the data is written into ``t``'s
    own storage (views see it), the version counter moves, and ``t.grad_fn`` becomes the
    result's node (PyTorch's history rebase for in-place ops)."""
    data = result._data
    if data.dtype != t._data.dtype:
        if t._dtype.category < result._dtype.category:
            if data.shape != t._data.shape and np.broadcast_shapes(data.shape, t._data.shape) != t._data.shape:
                from .errors import inplace_broadcast_error
                raise inplace_broadcast_error(t._data.shape, [data.shape])  # torch checks shapes first
            raise RuntimeError(
                f"result type {_type_word(result._dtype)} "
                f"can't be cast to the desired output type {_type_word(t._dtype)}")
        data = data.astype(t._data.dtype)
    node = result._grad_fn
    saved = node.saved if node is not None else None
    if saved:
        _resave_for_inplace(t, saved)
    if t._data.shape != data.shape:
        try:
            t._data[...] = np.broadcast_to(data, t._data.shape)
        except ValueError:
            from .errors import inplace_broadcast_error
            raise inplace_broadcast_error(t._data.shape, [data.shape]) from None
    else:
        np.copyto(t._data, data)
    if getattr(t, "_inference", False) and not grad_mode.inference:
        raise RuntimeError(INFERENCE_INPLACE)  # torch checks after its kernel wrote the data
    t._version_counter.value += 1
    if saved:
        for v in saved.values():
            if isinstance(v, SavedTensor) and v.is_output:
                # the result now lives in t: later in-place ops on t must be detected
                v.counter = t._version_counter
                v.version = t._version_counter.value
    if node is not None:
        move_retained_grad(t, t._grad_fn, node, result._output_nr)
        t.grad_fn = node  # a view's version is recorded: its history is current
        t._output_nr = result._output_nr
        t._requires_grad = True
        if node.rec is not None and t._name is not None:
            node.rec.var_name = t._name
        base = t._base
        if base is not None:
            _rebase_view(base, t)
    return t


def _resave_for_inplace(t: Tensor, saved: dict) -> None:
    """The op behind an in-place ``t.op_(...)`` saved ``t`` itself; t is about to be
    overwritten, so keep its original value instead (torch saves ``self.clone()``)."""
    orig = None
    for k, v in saved.items():
        if isinstance(v, SavedTensor) and not v.is_output and v.tensor is t:
            if orig is None:
                orig = Tensor._make(t._data.copy(), t._dtype, t._requires_grad)
                orig.grad_fn = t.grad_fn
                orig._output_nr = t._output_nr
            saved[k] = SavedTensor(orig)


def _type_word(d) -> str:
    return {"int64": "Long", "int32": "Int", "bool": "Bool", "float32": "Float",
            "float64": "Double", "uint8": "Byte", "int16": "Short", "int8": "Char",
            "float16": "Half"}[d.name]


def _rebase_view(base: Tensor, view: Tensor) -> None:
    """After an in-place op on a view, the base's history passes through the view's new
    node (PyTorch's CopySlices)."""
    from .rebase import rebase_base_through_view
    rebase_base_through_view(base, view)


_loaded = False


def load():
    """Import every op module once and attach Tensor methods and operators."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    from . import arith, power, unary, reduce, shape, indexing, linalg, nn, conv, norm, rnn, losses  # noqa: F401
    from . import activations, adaptive_pool, attention, convert, counting, einsum, feature_dropout, fills, mathops, matrix, mha, pad_modes, put, scatter, similarity, sorting, upsample  # noqa: F401
    from . import bilinear, distance_losses, double_backward, embedding_bag, moments, nanreduce, packed, storage  # noqa: F401
    for name, fn in METHODS.items():
        setattr(Tensor, name, fn)
    Tensor._script_attrs = frozenset(
        set(METHODS) | {
            "shape", "size", "dtype", "ndim", "dim", "ndimension", "numel", "nelement",
            "element_size", "device", "is_leaf", "requires_grad", "requires_grad_", "grad",
            "grad_fn", "retains_grad", "_version", "data", "T", "mT", "mH", "H", "backward", "retain_grad",
            "register_hook", "detach", "detach_", "item", "tolist", "numpy", "type",
            "is_floating_point", "is_complex", "itemsize", "nbytes", "cpu", "_base", "output_nr", "_output_nr", "is_inference",
        } - {n for n in METHODS if n.startswith("__")}
    )
