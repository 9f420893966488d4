"""The Tensor: a numpy array plus PyTorch's autograd attributes.

``Tensor`` holds ``_data`` (a numpy array of the tensor's dtype, 0-d for scalars),
``requires_grad``, ``grad``, ``grad_fn`` (a :class:`autotrace.node.Node` or None) and a
version counter shared with its views (a view's ``grad_fn`` is regenerated when read after
its base or another view of it was modified in place, as torch's is). Arithmetic and the
other ops are defined in :mod:`autotrace.ops` and attached here as methods; this module
holds what is not an op: attributes, ``backward``, hooks, conversion and printing.
Behaviour follows torch 2.13.
"""

from __future__ import annotations

import weakref

import numpy as np

from . import diagnostics, dtypes, grad_mode, record, resources
from .device import CPU as _CPU, Device  # noqa: F401  (Device re-exported)
from . import node as _node
from .node import AccumulateGrad, VersionCounter

_MISSING = object()
_new_object = object.__new__
_ndarray = np.ndarray
_BY_NP = dtypes._BY_NP
_NO_EDGE = (None, 0)


class Size(tuple):
    """``tensor.shape``: a tuple that prints as ``torch.Size([2, 3])``."""

    _script_attrs = frozenset({"numel", "index", "count"})

    def __repr__(self) -> str:
        return "torch.Size([" + ", ".join(str(int(s)) for s in self) + "])"

    __str__ = __repr__

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, key):
        out = tuple.__getitem__(self, key)
        return Size(out) if isinstance(key, slice) else out


Size.__name__ = "torch.Size"  # as Python's own messages name torch's type ("... for -: 'torch.Size'")


class Tensor:
    """A multi-dimensional array that can record the ops that made it.

    Attributes as in torch 2.13: ``data``, ``shape`` (a :class:`Size`), ``dtype``,
    ``requires_grad``, ``grad`` (None until a backward pass reaches the leaf; reading it on
    a non-leaf that does not retain its grad warns, like PyTorch), ``grad_fn``, ``is_leaf``,
    ``_version``.
    """

    __slots__ = ("_data", "_dtype", "_requires_grad", "_grad", "_grad_fn", "_output_nr",
                 "_counter", "_base", "_retains_grad", "_name", "_acc", "_hooks",
                 "_wrapped", "_view_kind", "_attr_version", "_grad_of", "_inference", "__weakref__")
    # ``_grad_fn`` is the history as last set; read ``grad_fn`` (which regenerates a stale
    # view's) unless the tensor is not a view (``_base is None``).
    # ``_attr_version`` is set only on views: the version counter's value when their
    # ``_grad_fn`` was set (torch's attr_version).
    # ``_view_kind`` is set only on views made in no_grad mode ("no_grad") or by
    # multi-output view ops ("multi"); read it with getattr(t, "_view_kind", None).
    # ``_grad_of`` (a weakref to the leaf) is set on a ``.grad`` tensor only while a
    # recorder is active, so ``x.grad.zero_()`` can be recorded as a grad event.
    # ``_inference`` is True on tensors made under ``torch.inference_mode()`` (read it with
    # getattr(t, "_inference", False)).

    # Filled in by autotrace.ops when the op table is loaded; the interpreter reads these.
    _script_attrs = frozenset()
    _script_setattrs = frozenset({"grad", "requires_grad", "data"})
    __array_priority__ = 1000  # numpy scalars defer to Tensor's reflected operators

    def __new__(cls, *args, **kwargs):
        """``torch.Tensor(...)``, the legacy constructor: sizes, data or a tensor to alias
        (see :func:`autotrace.torch_api.legacy.legacy_new`)."""
        from .torch_api.legacy import legacy_new
        return legacy_new(None, args, kwargs)

    def __init__(self, *args, **kwargs):
        pass

    @classmethod
    def _make(cls, data, dtype=None, requires_grad=False):
        """A new tensor over ``data`` (a numpy array; not copied). ``dtype`` defaults to
        the array's own."""
        t = _new_object(cls)
        if data.__class__ is not _ndarray:
            data = np.asarray(data)
        if dtype is None:
            dtype = _BY_NP.get(data.dtype) or dtypes.from_numpy(data.dtype)
        elif data.dtype is not dtype.np and data.dtype != dtype.np:
            data = data.astype(dtype.np)
        if data.size > resources.max_elements:
            raise resources.element_limit(data.size)
        t._data = data
        t._dtype = dtype
        t._requires_grad = requires_grad
        t._grad = None
        t._grad_fn = None
        t._output_nr = 0
        t._counter = None  # made on first use: most results are never saved, viewed or changed
        t._base = None
        t._retains_grad = False
        t._name = None
        t._acc = None
        t._hooks = None
        t._wrapped = False  # a Python number wrapped for an op: promotes like a scalar
        t._inference = grad_mode.inference  # set (False too): getattr(t, "_inference", False) is then fast
        return t

    # -- attributes -------------------------------------------------------------------

    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim=None):
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    @property
    def dtype(self):
        return self._dtype

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    def numel(self) -> int:
        return int(self._data.size)

    nelement = numel

    def element_size(self) -> int:
        return self._dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        """numel() * itemsize: a view or an expanded tensor counts its elements, not its
        storage (torch 2.13)."""
        return int(self._data.size) * self._dtype.itemsize

    @property
    def device(self):
        return _CPU

    @property
    def grad_fn(self):
        """The node that made this tensor, or None for a leaf. Matches torch 2.13
        VariableHooks::grad_fn: a view whose version changed since its history was set (its
        base or another view of the base was modified in place) gets, when this is read, a
        new AsStridedBackward0 whose next edge is the base's current gradient edge; views
        made in no_grad mode or by multi-output ops raise torch's error instead."""
        fn = self._grad_fn
        if self._base is None:
            return fn
        return _view_grad_fn(self, fn)

    @grad_fn.setter
    def grad_fn(self, fn) -> None:
        self._grad_fn = fn
        if self._base is not None:  # torch's set_gradient_edge records a view's version
            self._attr_version = self._counter.value

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value) -> None:
        value = bool(value)
        if self._grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if value and self._dtype.category != dtypes.FLOAT:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._requires_grad = value

    def requires_grad_(self, requires_grad=True):
        """In-place ``requires_grad`` change; only on leaves (PyTorch's text otherwise)."""
        if self._grad_fn is not None and not requires_grad:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if self._grad_fn is None:
            if requires_grad and self._dtype.category != dtypes.FLOAT:
                raise RuntimeError("only Tensors of floating point dtype can require gradients")
            if requires_grad and not grad_mode.inference and getattr(self, "_inference", False):
                raise RuntimeError("Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.")
            self._requires_grad = bool(requires_grad)
        return self

    @property
    def grad(self):
        if self._grad_fn is not None and not self._retains_grad:
            diagnostics.warn(diagnostics.NON_LEAF_GRAD)
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(value).__name__}")
            if value is self:
                raise RuntimeError("can't assign Variable as its own grad")
            if value._dtype is not self._dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_CPP_TYPE[value._dtype.name]}' to a tensor "
                    f"with grad_dtype '{self._dtype.legacy[:-6]}'. The gradient must match the tensor's "
                    "grad_dtype (defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute "
                    "with a specific dtype, or None to allow any dtype. Set grad_dtype with caution. Diverging the "
                    "dtypes of a tensor and its gradient may break downstream systems that assume they match.")
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '[{', '.join(map(str, value._data.shape))}]' to a "
                    f"tensor of size '[{', '.join(map(str, self._data.shape))}]'. Please ensure that the gradient "
                    "and the tensor are the same size")
        if record.active is not None:
            if value is None:
                if self._grad is not None:
                    record.grad_event(self, "none")
            else:
                value._grad_of = weakref.ref(self)
        self._grad = value

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    @property
    def _version(self) -> int:
        return self._version_counter.value

    @property
    def _version_counter(self) -> VersionCounter:
        """The in-place modification counter, shared with views (made on first use)."""
        c = self._counter
        if c is None:
            c = self._counter = VersionCounter()
        return c

    @_version_counter.setter
    def _version_counter(self, counter: VersionCounter) -> None:
        self._counter = counter

    @property
    def data(self):
        """A tensor sharing storage with this one, outside the graph, with its own version counter."""
        t = Tensor._make(self._data, self._dtype)
        return t

    @data.setter
    def data(self, value) -> None:
        if not isinstance(value, Tensor):
            raise TypeError("data must be a Tensor")
        self._data = value._data
        self._dtype = value._dtype

    @property
    def mT(self):
        from . import ops
        return ops.get("mT_fn")(self)

    @property
    def mH(self):
        from . import ops
        return ops.get("mT_fn")(self, "mH")

    @property
    def H(self):
        from . import ops
        return ops.get("H_fn")(self)

    @property
    def T(self):
        from . import ops
        return ops.get("numpy_T")(self)

    # -- autograd ---------------------------------------------------------------------

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate the gradient of this tensor into the leaves' ``.grad``
        (torch 2.13 ``Tensor.backward``). Raises PyTorch's RuntimeErrors."""
        from . import engine

        engine.backward((self,), gradient, retain_graph, create_graph, inputs=inputs)

    def retain_grad(self) -> None:
        """Keep ``.grad`` for this non-leaf after backward (no-op on leaves)."""
        if self._grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        if self._retains_grad:
            return
        fn = self.grad_fn
        self._retains_grad = True
        if fn.retains_grad is None:
            fn.retains_grad = {}
        fn.retains_grad[self._output_nr] = weakref.ref(self)

    def register_hook(self, hook):
        """Call ``hook(grad)`` when the gradient of this tensor is computed; a non-None
        return replaces the gradient. Returns a handle with ``remove()``."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            return self.grad_fn._add_pre_hook(self._output_nr, hook)
        return self._grad_accumulator()._add_pre_hook(0, hook)

    def _grad_accumulator(self):
        acc = self._acc
        if acc is None:
            acc = self._acc = AccumulateGrad(self)
        return acc

    def _edge(self):
        """``(node, output_nr)`` for next_functions: grad_fn, the AccumulateGrad of a leaf
        that requires grad, or (None, 0)."""
        fn = self._grad_fn if self._base is None else self.grad_fn
        if fn is not None:
            return (fn, self._output_nr)
        if self._requires_grad:
            return (self._grad_accumulator(), 0)
        return _NO_EDGE

    def detach(self):
        """A tensor sharing data and version counter, with no grad_fn and requires_grad=False."""
        t = Tensor._make(self._data, self._dtype)
        t._version_counter = self._version_counter
        return t

    def detach_(self):
        """Detach in place (torch 2.13 refuses it on views)."""
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel "
                "(DDP) for training, and gradient_as_bucket_view is set as True, gradients are views of DDP "
                "buckets, and hence detach_() cannot be called on these gradients. To fix this error, please "
                "refer to the Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self.grad_fn = None
        self._requires_grad = False
        return self

    # -- conversion -------------------------------------------------------------------

    def item(self):
        """The single element as a Python number; RuntimeError for more than one element."""
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar")
        return self._data.reshape(()).item()

    def tolist(self):
        """Nested Python lists (a number for a 0-d tensor); over the sequence limit the
        script's lists could not grow to, a LimitExceeded before any list is built."""
        from .interpreter.limits import RT, seq_limit
        if self._data.size > RT.max_seq:
            raise seq_limit(self._data.size, "tolist()")
        return self._data.tolist()

    def numpy(self, force=False):
        if self._requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        from .numpy_api.ndarray import NDArray
        return NDArray(self._data)   # shares the storage, as torch's does

    def __float__(self):
        if self._data.size != 1:
            raise TypeError("only one element tensors can be converted to Python scalars")
        return float(self._data.reshape(()))

    def __int__(self):
        if self._data.size != 1:
            raise TypeError("only one element tensors can be converted to Python scalars")
        return int(self._data.reshape(()))

    def __index__(self):
        if self._dtype.category == dtypes.FLOAT or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self._data.reshape(()))

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._data.reshape(()))

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        from . import ops
        unbind = ops.get("unbind")
        return iter(unbind(self, 0))

    __hash__ = object.__hash__

    def __contains__(self, item):
        return bool((self._data == (item._data if isinstance(item, Tensor) else item)).any())

    # -- printing ---------------------------------------------------------------------

    def __repr__(self) -> str:
        from .printing import tensor_repr

        try:
            fn = self.grad_fn
            name = fn.op.node if fn is not None else None
        except RuntimeError:  # torch's _tensor_str: a view whose history cannot be regenerated
            name = "Invalid"
        return tensor_repr(self._data, self._dtype.name, requires_grad=self._requires_grad,
                           grad_fn_name=name)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            from .printing import format_number_for_fstring
            return format_number_for_fstring(self._data, self._dtype.name, spec)
        if spec:
            raise TypeError(f"unsupported format string passed to {type(self).__name__}.__format__")
        return repr(self)

    def _on_bind(self, name: str) -> None:
        """The interpreter bound this tensor to a script variable ``name``. The first
        name a tensor gets is its name in the trace: a later alias (``for p in
        model.parameters()``) does not rename it."""
        if self._name is not None:
            return
        self._name = name
        fn = self._grad_fn  # as last set: naming a stale view does not regenerate its history
        if fn is not None:
            if fn.rec is not None and (fn.rec.var_name is None or self._output_nr == 0):
                fn.rec.var_name = name
        elif self._acc is not None and self._acc.rec is not None:
            self._acc.rec.var_name = name

    def type(self, dtype=None):
        if dtype is None:
            return f"torch.{self._dtype.legacy}"
        from . import ops
        return ops.get("to")(self, dtype)

    def is_floating_point(self) -> bool:
        return self._dtype.category == dtypes.FLOAT

    def is_complex(self) -> bool:
        return False

    def cpu(self, memory_format=None):
        return self

    def is_inference(self) -> bool:
        """Whether the tensor was made under ``torch.inference_mode()``."""
        return getattr(self, "_inference", False)

    def __deepcopy__(self, memo):
        """torch 2.13's ``Tensor.__deepcopy__``: leaves only; data and ``.grad`` copied."""
        if id(self) in memo:
            return memo[id(self)]
        if not self.is_leaf:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy protocol at the "
                "moment.  If you were attempting to deepcopy a module, this may be because of a "
                "torch.nn.utils.weight_norm usage, see https://github.com/pytorch/pytorch/pull/103001")
        t = type(self)._make(self._data.copy(), self._dtype, self._requires_grad)
        memo[id(self)] = t
        g = self._grad
        if g is not None:
            t._grad = g.__deepcopy__(memo)
        return t


def _view_grad_fn(view: Tensor, fn):
    """``view.grad_fn`` for a view (matches torch 2.13 VariableHooks::grad_fn): ``fn`` while
    the shared version counter still has the value it had when ``fn`` was set; otherwise a
    new AsStridedBackward0 over the base's current gradient edge (view replay is off), with
    the version recorded. A view without history of a base that does not require grad is
    left alone; a stale view made in no_grad mode or by a multi-output op raises torch's
    ``handle_view_on_rebase`` error (indirect: its base or another view was modified)."""
    base = view._base
    if fn is None and not base._requires_grad:
        return None
    if view._attr_version == view._counter.value:
        return fn
    if getattr(view, "_view_kind", None) is not None:
        from .ops import view_rebase_error
        raise view_rebase_error(view, indirect=True)
    from .ops.rebase import as_strided_history
    return as_strided_history(base, view)


def move_retained_grad(t: Tensor, old, new, nr: int) -> None:
    """``t``'s history changed from ``old`` to ``new`` (output ``nr``): a ``retain_grad()``
    moves with it, so ``t.grad`` is the gradient w.r.t. the tensor as modified (torch 2.13
    update_tensor_hooks_on_new_gradfn). Hooks stay on ``old``."""
    if t._retains_grad and old is not None and old is not new and old.retains_grad:
        ref = old.retains_grad.pop(t._output_nr, None)
        if ref is not None:
            if new.retains_grad is None:
                new.retains_grad = {}
            new.retains_grad[nr] = ref


# the C++ type names torch 2.13 prints for a gradient's dtype in ``.grad`` assignment errors
_CPP_TYPE = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
             "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
             "bool": "bool"}


class Parameter(Tensor):
    """``torch.nn.Parameter``: a leaf tensor that requires grad and prints as
    ``Parameter containing:`` followed by the tensor."""

    __slots__ = ()

    def __deepcopy__(self, memo):
        """torch 2.13's ``Parameter.__deepcopy__``: a new Parameter of the cloned data with
        the same ``requires_grad``; unlike a tensor's, the ``.grad`` is not copied."""
        if id(self) in memo:
            return memo[id(self)]
        t = type(self)._make(self._data.copy(), self._dtype, self._requires_grad)
        memo[id(self)] = t
        return t

    def __repr__(self) -> str:
        return "Parameter containing:\n" + Tensor.__repr__(self)

    __str__ = __repr__


def _wrap_dim(dim: int, ndim: int) -> int:
    """A dim index in range(ndim), negative dims counted from the end; PyTorch's IndexError."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


wrap_dim = _wrap_dim

_node._tensor_make = Tensor._make  # (autotrace.node cannot import this module: it is imported here)
