"""Shape ops: view/reshape, expand, unsqueeze/squeeze, transpose/permute/t, (un)flatten,
clone, dtype conversion, unbind/split/chunk, cat/stack.

Their gradients only move numbers around: a view's gradient is reshaped back, an
expand's is summed over the broadcast dims, a permutation's is permuted back.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes, grad_mode
from ..node import VersionCounter
from ..resources import check_count
from ..tensor import Tensor, wrap_dim
from .errors import type_str
from .view_strides import compute_stride
from . import export, make, make_multi, op


def _shape_arg(shape):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    return tuple(int(s) for s in shape)


def _view_of(base: Tensor, t: Tensor) -> Tensor:
    """Mark ``t`` as a view of ``base``: shares the version counter, remembers its base.
    A view made in no_grad mode of a tensor that requires grad still requires grad (and
    may not be modified in place with grad mode on), as in torch 2.13. The view's history is
    current at the counter's present value (torch's attr_version); a view made in no_grad
    mode is marked so: its history cannot be regenerated after an in-place change."""
    counter = base._counter
    if counter is None:
        counter = base._counter = VersionCounter()
    t._counter = counter
    t._attr_version = counter.value
    t._base = base._base if base._base is not None else base
    if not grad_mode.enabled:
        t._view_kind = "no_grad"
        if base._requires_grad:
            t._requires_grad = True
    elif base._base is not None:
        kind = getattr(base, "_view_kind", None)
        if kind is not None:  # torch's propagate_creation_meta: a view of such a view is one too
            t._view_kind = kind
    return t


def _multi_view_of(base: Tensor, t: Tensor) -> Tensor:
    _view_of(base, t)
    if t._grad_fn is not None:
        t._view_kind = "multi"
    return t


def _infer_shape(shape, numel):
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = 1
    for s in shape:
        if s != -1:
            known *= s
    if -1 in shape:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    elif known != numel:
        raise RuntimeError(f"shape '[{', '.join(map(str, shape))}]' is invalid for input of size {numel}")
    return shape


@op("view", "ViewBackward0", ("self",), vjp={"self": "grad.reshape(self.sizes())"}, local={"self": "1 (same numbers, reshaped)"})
def VIEW(ctx, g):
    return (g.reshape(ctx.self_sym_sizes),)


@export(tensor=("view",))
def view(input, *shape):
    """A view with a new shape (ViewBackward0); shares data and version counter."""
    if len(shape) == 1 and isinstance(shape[0], dtypes.DType):
        raise RuntimeError("view(dtype) is not supported by autotrace")
    shape = _infer_shape(_shape_arg(shape), input._data.size)
    out = _nocopy_reshape(input._data, shape)
    if out is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension spans "
            "across two contiguous subspaces). Use .reshape(...) instead.")
    return _view_of(input, make(VIEW, out, (input,), attrs={"self_sym_sizes": input._data.shape}))


def _nocopy_reshape(x: np.ndarray, shape):
    """``x`` viewed with ``shape`` when strides allow it (torch's computeStride), else None."""
    if x.flags.c_contiguous:
        return x.reshape(shape)
    strides = compute_stride(x.shape, [s // x.itemsize for s in x.strides], tuple(shape))
    if strides is None:
        return None
    return np.lib.stride_tricks.as_strided(x, shape, [s * x.itemsize for s in strides])



@op("reshape_alias", "ReshapeAliasBackward0", ("self",), vjp={"self": "grad.reshape(self.sizes())"},
    local={"self": "1 (same numbers, reshaped)"})
def RESHAPE_ALIAS(ctx, g):
    return (g.reshape(ctx.self_sym_sizes),)


@export(torch=("reshape",), tensor=("reshape",))
def reshape(input, *shape):
    """Reshape as torch 2.13 records it: a contiguous input gives a view
    (ViewBackward0), a strided one that can still be viewed gives ReshapeAliasBackward0,
    otherwise a copy (UnsafeViewBackward0 over CloneBackward0)."""
    shape = _infer_shape(_shape_arg(shape), input._data.size)
    x = input._data
    if x.flags.c_contiguous:
        return _view_of(input, make(VIEW, x.reshape(shape), (input,), attrs={"self_sym_sizes": x.shape}))
    out = _nocopy_reshape(x, shape)
    if out is not None:
        return _view_of(input, make(RESHAPE_ALIAS, out, (input,), attrs={"self_sym_sizes": x.shape}))
    return unsafe_view(make(CLONE, np.ascontiguousarray(x), (input,)), shape)


def _other_tensor(fn, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"{fn}(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")


@export(tensor=("view_as",))
def view_as(input, other):
    try:
        return view(input, tuple(other._data.shape))
    except AttributeError:
        _other_tensor("view_as", other)
        raise


@export(tensor=("reshape_as",))
def reshape_as(input, other):
    try:
        return reshape(input, tuple(other._data.shape))
    except AttributeError:
        _other_tensor("reshape_as", other)
        raise


@op("unsafe_view", "UnsafeViewBackward0", ("self",), vjp={"self": "grad.reshape(self.sizes())"}, local={"self": "1"})
def UNSAFE_VIEW(ctx, g):
    return (g.reshape(ctx.self_sym_sizes),)


def unsafe_view(input, shape):
    return make(UNSAFE_VIEW, input._data.reshape(shape), (input,), attrs={"self_sym_sizes": input._data.shape})


@op("expand", "ExpandBackward0", ("self",), vjp={"self": "grad summed over the expanded dims to self.sizes()"},
    local={"self": "1 per copy; copies' gradients add up"})
def EXPAND(ctx, g):
    return (sum_to(g, ctx.self_sym_sizes),)


def sum_to(g: Tensor, shape) -> Tensor:
    """Sum a broadcast gradient back to ``shape`` (PyTorch's ``sum_to``): leading dims
    are summed away, dims of size 1 are summed with keepdim; to a 0-dim shape it is the
    whole sum (SumBackward0 in a double-backward graph, as torch 2.13's ``sum_to``)."""
    shape = tuple(shape)
    if tuple(g._data.shape) == shape:
        return g
    if not shape:
        return g.sum()
    lead = g.ndim - len(shape)
    dims = list(range(lead))
    for i, s in enumerate(shape):
        if s == 1 and g._data.shape[lead + i] != 1:
            dims.append(lead + i)
    if dims:
        g = g.sum(tuple(dims), keepdim=True)
    if lead:
        g = g.reshape(shape)
    return g


@export(tensor=("expand",))
def expand(input, *sizes):
    """Broadcast to ``sizes`` without copying (-1 keeps a dim); ExpandBackward0 sums
    the gradient back."""
    sizes = _shape_arg(sizes)
    x = input._data
    if len(sizes) < x.ndim:
        raise RuntimeError(
            f"expand({type_str(input._dtype)}{{[{', '.join(map(str, x.shape))}]}}, size=[{', '.join(map(str, sizes))}]): "
            "the number of sizes provided (%d) must be greater or equal to the number of dimensions in the tensor (%d)"
            % (len(sizes), x.ndim))
    lead = len(sizes) - x.ndim
    target = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s == -1:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension {i}")
            target.append(s)
        else:
            cur = x.shape[i - lead]
            if s == -1:
                s = cur
            elif cur != 1 and s != cur:
                raise RuntimeError(
                    f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at "
                    f"non-singleton dimension {i}.  Target sizes: [{', '.join(map(str, sizes))}].  "
                    f"Tensor sizes: [{', '.join(map(str, x.shape))}]")
            target.append(s)
    out = np.broadcast_to(x, tuple(target))
    return _view_of(input, make(EXPAND, out, (input,), attrs={"self_sym_sizes": x.shape}))


def expand_grad(g: Tensor, shape) -> Tensor:
    """``g.expand(shape)`` for a backward formula (``shape`` a tuple of sizes the gradient
    broadcasts to). With grad mode off and a 0-dim ``g`` (the gradient of a full
    reduction), the same view :func:`expand` makes — numpy's broadcast_to array: zero
    strides, read-only — built directly, without the op's checks."""
    x = g._data
    if x.ndim or grad_mode.enabled:
        return g.expand(shape)
    out = np.ndarray(shape, x.dtype, x, 0, (0,) * len(shape))
    out.setflags(write=False)
    t = Tensor._make(out)
    # _view_of(g, t) with grad mode off, for a gradient (which does not require grad)
    if g._requires_grad:
        return _view_of(g, t)
    counter = g._counter
    if counter is None:
        counter = g._counter = VersionCounter()
    t._counter = counter
    t._attr_version = counter.value
    t._base = g._base if g._base is not None else g
    t._view_kind = "no_grad"
    return t


@export(tensor=("expand_as",))
def expand_as(input, other):
    try:
        return expand(input, tuple(other._data.shape))
    except AttributeError:
        _other_tensor("expand_as", other)
        raise


@export(torch=("broadcast_to",), tensor=("broadcast_to",))
def broadcast_to(input, shape):
    return expand(input, tuple(shape))


@op("unsqueeze", "UnsqueezeBackward0", ("self",), vjp={"self": "grad.squeeze(dim)"}, local={"self": "1"})
def UNSQUEEZE(ctx, g):
    return (g.squeeze(ctx.dim),)


@export(torch=("unsqueeze",), tensor=("unsqueeze",))
def unsqueeze(input, dim):
    x = input._data
    d = wrap_dim(dim, x.ndim + 1)
    return _view_of(input, make(UNSQUEEZE, np.expand_dims(x, d), (input,), attrs={"dim": d}))


@op("squeeze", "SqueezeBackward0", ("self",), vjp={"self": "grad.reshape(self.sizes())"}, local={"self": "1"})
def SQUEEZE(ctx, g):
    return (g.reshape(ctx.self_sym_sizes),)


@op("squeeze_dim", "SqueezeBackward1", ("self",), vjp={"self": "grad.unsqueeze(dim)"}, local={"self": "1"})
def SQUEEZE_DIM(ctx, g):
    return (g.reshape(ctx.self_sym_sizes),)


@op("squeeze_dims", "SqueezeBackward2", ("self",), vjp={"self": "grad.unsqueeze(dims)"}, local={"self": "1"})
def SQUEEZE_DIMS(ctx, g):
    return (g.reshape(ctx.self_sym_sizes),)


@op("squeeze_inplace_dims", "SqueezeBackward4", ("self",), vjp={"self": "grad.unsqueeze(dims)"}, local={"self": "1"})
def SQUEEZE_INPLACE_DIMS(ctx, g):
    return (g.reshape(ctx.self_sym_sizes),)


def squeeze_result_(input, dims):
    """``squeeze_(dims)`` on an op's fresh result as matmul does internally (SqueezeBackward4)."""
    x = input._data
    dims = {wrap_dim(d, x.ndim) for d in dims}
    out = x.reshape(tuple(s for i, s in enumerate(x.shape) if not (i in dims and s == 1)))
    return make(SQUEEZE_INPLACE_DIMS, out, (input,), attrs={"self_sym_sizes": x.shape, "dim": tuple(dims)})


@export(torch=("squeeze",), tensor=("squeeze",))
def squeeze(input, dim=None):
    x = input._data
    if dim is None:
        out = x.reshape(tuple(s for s in x.shape if s != 1))
        return _view_of(input, make(SQUEEZE, out, (input,), attrs={"self_sym_sizes": x.shape}))
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    dims = {wrap_dim(d, x.ndim) for d in dims} if x.ndim else set()
    out = x.reshape(tuple(s for i, s in enumerate(x.shape) if not (i in dims and s == 1)))
    node = SQUEEZE_DIM if not isinstance(dim, (tuple, list)) else SQUEEZE_DIMS
    return _view_of(input, make(node, out, (input,), attrs={"self_sym_sizes": x.shape, "dim": dim}))


@op("transpose", "TransposeBackward0", ("self",), vjp={"self": "grad.transpose(dim0, dim1)"}, local={"self": "1"})
def TRANSPOSE(ctx, g):
    return (g.transpose(ctx.dim0, ctx.dim1),)


@export(torch=("transpose", "swapaxes"), tensor=("transpose", "swapaxes"))
def transpose(input, dim0, dim1):
    x = input._data
    a, b = wrap_dim(dim0, x.ndim), wrap_dim(dim1, x.ndim)
    return _view_of(input, make(TRANSPOSE, np.swapaxes(x, a, b), (input,), attrs={"dim0": a, "dim1": b}))


@op("t", "TBackward0", ("self",), vjp={"self": "grad.t()"}, local={"self": "1"})
def T(ctx, g):
    return (g.t(),)


@export(torch=("t",), tensor=("t",))
def t(input):
    """Transpose of a ≤2-d tensor (TBackward0)."""
    x = input._data
    if x.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {x.ndim}D")
    return _view_of(input, make(T, x.T, (input,)))


@op("permute", "PermuteBackward0", ("self",), vjp={"self": "grad.permute(inverse of dims)"}, local={"self": "1"})
def PERMUTE(ctx, g):
    inv = np.argsort(ctx.dims)
    return (g.permute(*[int(i) for i in inv]),)


@export(torch=("permute",), tensor=("permute",))
def permute(input, *dims):
    x = input._data
    dims = tuple(wrap_dim(d, x.ndim) for d in _shape_arg(dims))
    return _view_of(input, make(PERMUTE, np.transpose(x, dims), (input,), attrs={"dims": dims}))


@export(name="numpy_T")
def numpy_T(input):
    """``x.T``: reverses all dims (PermuteBackward0, also for 2-d in torch 2.13); on other
    than 2-d tensors torch warns once per process that this is deprecated."""
    n = input.ndim
    if n != 2:
        from .. import diagnostics
        diagnostics.warn_once(diagnostics.T_0D if n == 0 else diagnostics.T_NOT_2D)
    return permute(input, *reversed(range(n)))


@export(name="mT_fn")
def mT_fn(input, attr="mT"):
    """``x.mT`` (and ``x.mH``, the same for real tensors): transpose of the last two dims
    (TransposeBackward0); torch's RuntimeError below 2 dims."""
    if input.ndim == 0:
        from .. import diagnostics
        diagnostics.warn_once(diagnostics.MT_0D if attr == "mT" else diagnostics.CONJ_0D.format(attr=attr))
        return input                       # torch returns the tensor itself
    if input.ndim < 2:
        raise RuntimeError(f"tensor.{attr} is only supported on matrices or batches of matrices. "
                           f"Got {input.ndim}-D tensor.")
    return transpose(input, -2, -1)


@export(name="H_fn")
def H_fn(input):
    """``x.H``: the conjugate transpose of a matrix, a transpose for real tensors
    (TransposeBackward0); torch's RuntimeError unless 2-D."""
    if input.ndim == 0:
        from .. import diagnostics
        diagnostics.warn_once(diagnostics.CONJ_0D.format(attr="H"))
        return input
    if input.ndim != 2:
        hint = " For batches of matrices, consider using tensor.mH" if input.ndim > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {input.ndim}-D tensor.{hint}")
    return transpose(input, 0, 1)


@export(tensor=("adjoint",))
def adjoint(input):
    """``x.adjoint()``: ``x.mH`` as a method (TransposeBackward0)."""
    return mT_fn(input, "mH")


@export(torch=("flatten",), tensor=("flatten",))
def flatten(input, start_dim=0, end_dim=-1):
    x = input._data
    if x.ndim == 0:
        return reshape(input, (1,))
    s, e = wrap_dim(start_dim, x.ndim), wrap_dim(end_dim, x.ndim)
    if s == e:
        return input
    n = 1
    for d in x.shape[s:e + 1]:
        n *= d
    return reshape(input, x.shape[:s] + (n,) + x.shape[e + 1:])


@export(torch=("unflatten",), tensor=("unflatten",))
def unflatten(input, dim, sizes):
    """Dim ``dim`` split into ``sizes`` (one may be -1), a view (ViewBackward0), as torch
    2.13's ``unflatten``; RuntimeError for empty sizes or sizes that do not multiply up."""
    shape = list(input._data.shape)
    d = wrap_dim(dim, len(shape))
    sizes = list(sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    known = 1
    for n in sizes:
        known *= n if n != -1 else 1
    if -1 in sizes and known and shape[d] % known == 0:
        sizes[sizes.index(-1)] = shape[d] // known
    elif known != shape[d] or -1 in sizes:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {d} "
                           f"({shape[d]}) in the input tensor")
    return view(input, *(shape[:d] + sizes + shape[d + 1:]))


@op("copy_for_grad", "CopyBackwards", ("self", "src"), vjp={"self": "zeros", "src": "grad"},
    local={"src": "1"})
def COPY_FOR_GRAD(ctx, g):
    return (None, g)


def copy_for_grad(src: Tensor, data=None) -> Tensor:
    """``new_empty_strided(...).copy_(src)``: how torch 2.13's AccumulateGrad stores a first
    gradient under create_graph (its grad_fn is CopyBackwards, edges (None, src)); ``data``
    is that copy when the engine lays it out (the gradient layout contract)."""
    return make(COPY_FOR_GRAD, np.array(src._data, copy=True) if data is None else data, (None, src))


@op("clone", "CloneBackward0", ("self",), vjp={"self": "grad"}, local={"self": "1"})
def CLONE(ctx, g):
    return (g,)


@export(torch=("clone",), tensor=("clone",))
def clone(input, *, memory_format=None):
    """A copy with its own storage (CloneBackward0)."""
    return make(CLONE, input._data.copy(), (input,))


@export(tensor=("contiguous",))
def contiguous(input, memory_format=None):
    """``input`` itself when C-contiguous, else a contiguous copy (CloneBackward0)."""
    if input._data.flags.c_contiguous:
        return input
    return make(CLONE, np.ascontiguousarray(input._data), (input,))


@op("to_copy", "ToCopyBackward0", ("self",), vjp={"self": "grad.to(self.dtype)"}, local={"self": "1"})
def TO_COPY(ctx, g):
    return (g.to(ctx.self_dtype),)


def to(input, *args, dtype=None, copy=False, **kwargs):
    """``x.to(dtype)`` for the dtype casts (``x.float()`` ...); the full ``Tensor.to`` is
    :func:`autotrace.ops.convert.to`."""
    for a in args:
        if isinstance(a, dtypes.DType):
            dtype = a
        elif isinstance(a, Tensor):
            dtype = a._dtype
    if dtype is None or dtype is input._dtype:
        return clone(input) if copy else input
    out = input._data.astype(dtype.np)
    return make(TO_COPY, out, (input,), attrs={"self_dtype": input._dtype}, dtype=dtype)


def _caster(d):
    def cast(input, memory_format=None):
        return to(input, d)
    cast.__name__ = d.name
    return cast


for _n, _d in (("float", dtypes.float32), ("double", dtypes.float64), ("long", dtypes.int64),
               ("int", dtypes.int32), ("bool", dtypes.bool_), ("half", dtypes.float16)):
    export(tensor=(_n,), name="cast_" + _n)(_caster(_d))


# -- several outputs -------------------------------------------------------------------


@op("unbind", "UnbindBackward0", ("self",), vjp={"self": "stack(grads, dim) (zeros for unused)"}, local={"self": "1"})
def UNBIND(ctx, grads):
    parts = [g if g is not None else Tensor._make(np.zeros(m[0], dtype=m[1].np))
             for g, m in zip(grads, ctx.out_meta)]
    return (stack(parts, ctx.dim),)


@export(torch=("unbind",), tensor=("unbind",))
def unbind(input, dim=0):
    x = input._data
    d = wrap_dim(dim, x.ndim)
    lead = (slice(None),) * d
    outs = [x[lead + (i, Ellipsis)] for i in range(x.shape[d])]     # views of x, as torch's
    ts = make_multi(UNBIND, outs, (input,), attrs={"dim": d})
    return tuple(_multi_view_of(input, t) for t in ts)


@op("split", "SplitBackward0", ("self",), vjp={"self": "cat(grads, dim) (zeros for unused)"}, local={"self": "1"})
def SPLIT(ctx, grads):
    parts = [g if g is not None else Tensor._make(np.zeros(m[0], dtype=m[1].np))
             for g, m in zip(grads, ctx.out_meta)]
    return (cat(parts, ctx.dim),)


@op("split_with_sizes", "SplitWithSizesBackward0", ("self",), vjp={"self": "cat(grads, dim) (zeros for unused)"},
    local={"self": "1"})
def SPLIT_WITH_SIZES(ctx, grads):
    return SPLIT.backward(ctx, grads)


@export(torch=("split",), tensor=("split",))
def split(input, split_size_or_sections, dim=0):
    """Split into pieces of ``split_size`` (SplitBackward0) or of the listed sizes
    (SplitWithSizesBackward0), views of ``input``."""
    x = input._data
    d = wrap_dim(dim, x.ndim)
    n = x.shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
        if step == 0 and n != 0:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        bounds = list(range(step, n, step))
        node = SPLIT
    else:
        sizes = [int(s) for s in split_size_or_sections]
        if sum(sizes) != n or any(s < 0 for s in sizes):
            if any(s < 0 for s in sizes):
                raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes={sizes}")
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                               f"dimension {d}), but got split_sizes={sizes}")
        bounds = list(np.cumsum(sizes)[:-1])
        node = SPLIT_WITH_SIZES
    outs = np.split(x, bounds, axis=d)
    ts = make_multi(node, outs, (input,), attrs={"dim": d})
    return tuple(_multi_view_of(input, t) for t in ts)


@export(torch=("chunk",), tensor=("chunk",))
def chunk(input, chunks, dim=0):
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = input._data.shape[wrap_dim(dim, input.ndim)]
    size = -(-n // chunks)
    return split(input, size, dim)


@op("cat", "CatBackward0", ("tensors",), vjp={"tensors": "grad split along dim into the inputs' sizes"}, local={"tensors": "1"})
def CAT(ctx, g):
    sizes = ctx.sizes
    d = ctx.dim
    out = []
    start = 0
    for s in sizes:
        out.append(g.narrow(d, start, s))
        start += s
    return tuple(out)


@export(torch=("cat", "concat", "concatenate"))
def cat(tensors, dim=0):
    """Concatenate along ``dim`` (CatBackward0 with one edge per input)."""
    if isinstance(tensors, Tensor):
        raise TypeError("cat(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    _check_tensor_list(tensors)
    dt = dtypes.result_type(tensors)
    d = wrap_dim(dim, tensors[0].ndim)
    try:
        out = np.concatenate([t._data.astype(dt.np, copy=False) for t in tensors], axis=d)
    except ValueError:
        raise _cat_error(tensors, d) from None
    return make(CAT, out, tuple(tensors), attrs={"dim": d, "sizes": [t._data.shape[d] for t in tensors]}, dtype=dt)


def _check_tensor_list(tensors):
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")


def _cat_error(tensors, d):
    """torch 2.13's error for tensors that cannot be concatenated along ``d``."""
    first = tensors[0]._data.shape
    for i, t in enumerate(tensors):
        shape = t._data.shape
        if len(shape) != len(first):
            return RuntimeError(f"Tensors must have same number of dimensions: got {len(first)} and {len(shape)}")
        for k, (s0, s) in enumerate(zip(first, shape)):
            if k != d and s0 != s:
                return RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size {s0} "
                                    f"but got size {s} for tensor number {i} in the list.")
    return RuntimeError("torch.cat(): input tensors cannot be concatenated")


@op("stack", "StackBackward0", ("tensors",), vjp={"tensors": "grad unbound along dim"}, local={"tensors": "1"})
def STACK(ctx, g):
    return tuple(g.select(ctx.dim, i) for i in range(ctx.n))


@export(torch=("stack",))
def stack(tensors, dim=0):
    """Stack along a new ``dim`` (StackBackward0)."""
    if isinstance(tensors, Tensor):
        raise TypeError("stack(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    _check_tensor_list(tensors)
    dt = dtypes.result_type(tensors)
    d = wrap_dim(dim, tensors[0].ndim + 1)
    first = tensors[0]._data.shape
    for i, t in enumerate(tensors):
        if t._data.shape != first:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got [{', '.join(map(str, first))}] at entry 0 "
                f"and [{', '.join(map(str, t._data.shape))}] at entry {i}")
    out = np.stack([t._data.astype(dt.np, copy=False) for t in tensors], axis=d)
    return make(STACK, out, tuple(tensors), attrs={"dim": d, "n": len(tensors)}, dtype=dt)


@op("narrow", "SliceBackward0", ("self",), vjp={"self": "grad placed back at [start, start+length) along dim"}, local={"self": "1"})
def NARROW(ctx, g):
    from .indexing import pad_back
    return (pad_back(g, ctx.self_sym_sizes, ctx.dim, ctx.start),)


@export(torch=("narrow",), tensor=("narrow",))
def narrow(input, dim, start, length):
    x = input._data
    d = wrap_dim(dim, x.ndim)
    idx = [slice(None)] * x.ndim
    idx[d] = slice(start, start + length)
    return _view_of(input, make(NARROW, x[tuple(idx)], (input,),
                                attrs={"self_sym_sizes": x.shape, "dim": d, "start": start}))


@op("flip", "FlipBackward0", ("self",), vjp={"self": "grad.flip(dims)"}, local={"self": "1 (reversed)"})
def FLIP(ctx, g):
    return (flip(g, ctx.dims),)


@export(torch=("flip",), tensor=("flip",))
def flip(input, *dims):
    """Reverse the order along ``dims`` (FlipBackward0; a copy, not a view)."""
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = tuple(dims[0])
    nd = input.ndim
    ds = tuple(wrap_dim(d, nd) for d in dims)
    out = np.flip(input._data, axis=ds).copy() if nd else input._data.copy()
    return make(FLIP, out, (input,), attrs={"dims": ds})


@op("repeat", "RepeatBackward0", ("self",), vjp={"self": "grad summed over the tiled copies"},
    local={"self": "1 per copy"})
def REPEAT(ctx, g):
    shape, reps = ctx.self_sym_sizes, ctx.repeats
    lead = len(reps) - len(shape)
    # (r0, ..., s0*r_lead, ...) -> (r_lead, s0, ...) pairs, summed over the r axes
    split = []
    for i, r in enumerate(reps):
        s = 1 if i < lead else shape[i - lead]
        split += [r, s]
    gg = g.reshape(*split)
    axes = tuple(range(0, 2 * len(reps), 2))
    return (gg.sum(axes).reshape(shape),)


@export(tensor=("repeat",))
def repeat(input, *sizes):
    """Tile ``input`` (RepeatBackward0). ``sizes`` may not have fewer entries than dims
    (torch's RuntimeError)."""
    sizes = _shape_arg(sizes)
    if len(sizes) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    x = input._data
    x2 = x.reshape((1,) * (len(sizes) - x.ndim) + x.shape)
    n = x.size
    for r in sizes:
        n *= max(int(r), 0)
    check_count(n)          # before np.tile allocates
    out = np.tile(x2, sizes)
    return make(REPEAT, out, (input,), attrs={"self_sym_sizes": x.shape, "repeats": tuple(sizes)})
