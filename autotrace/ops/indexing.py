"""Indexing: ``x[...]`` reads (SelectBackward0, SliceBackward0, UnsqueezeBackward0,
AliasBackward0, IndexBackward0 — one node per indexed dim, in PyTorch's order) and
``x[...] = v`` writes (CopySlices), plus the scatter ops their gradients need.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes, grad_mode, resources
from ..node import Node
from ..tensor import Tensor, wrap_dim
from . import OPERANDS, check_inplace, export, make, op
from .rebase import key_in_base, set_history
from .shape import _view_of, sum_to, unsqueeze
from .errors import type_str


@op("select", "SelectBackward0", ("self",), vjp={"self": "zeros(self.sizes()) with grad at [index] along dim"},
    local={"self": "1 at the selected index, 0 elsewhere"})
def SELECT(ctx, g):
    key = [slice(None)] * len(ctx.self_sym_sizes)
    key[ctx.dim] = ctx.index
    return (embed(g, ctx.self_sym_sizes, tuple(key)),)


@export(torch=("select",), tensor=("select",))
def select(input, dim, index):
    x = input._data
    if x.ndim == 0:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    d = wrap_dim(dim, x.ndim)
    n = x.shape[d]
    if not -n <= index < n:
        raise IndexError(f"index {index} is out of bounds for dimension {d} with size {n}")
    i = index % n
    key = (slice(None),) * d + (i, Ellipsis)    # the Ellipsis: a 0-dim result is a view too, not a copy
    return _view_of(input, make(SELECT, x[key], (input,), attrs={"self_sym_sizes": x.shape, "dim": d, "index": i}))


@op("slice", "SliceBackward0", ("self",), vjp={"self": "zeros(self.sizes()) with grad at [start:end:step] along dim"},
    local={"self": "1 inside the slice, 0 elsewhere"})
def SLICE(ctx, g):
    key = [slice(None)] * len(ctx.self_sym_sizes)
    key[ctx.dim] = ctx.slice
    return (embed(g, ctx.self_sym_sizes, tuple(key)),)


def _slice(input, d, s):
    x = input._data
    if s.step is not None and s.step <= 0:
        raise ValueError("step must be greater than zero")
    key = (slice(None),) * d + (s,)
    return _view_of(input, make(SLICE, x[key], (input,), attrs={"self_sym_sizes": x.shape, "dim": d, "slice": s}))


@op("alias", "AliasBackward0", ("self",), vjp={"self": "grad"}, local={"self": "1"})
def ALIAS(ctx, g):
    return (g,)


@op("index", "IndexBackward0", ("self",), vjp={"self": "zeros(self.sizes()).index_put(indices, grad, accumulate=True)"},
    local={"self": "1 at each indexed element (repeats add up)"})
def INDEX(ctx, g):
    return (embed(g, ctx.self_sym_sizes, ctx.indices, accumulate=True),)


@op("embed", "IndexPutBackward0", ("grad",), vjp={"grad": "grad[index]"}, local={"grad": "1"})
def EMBED(ctx, g):
    return (take(g, ctx.key),)


@op("take", "IndexBackward0", ("self",), vjp={"self": "zeros(self.sizes()).index_put(indices, grad, accumulate=True)"},
    local={"self": "1"})
def TAKE(ctx, g):
    return (embed(g, ctx.self_sym_sizes, ctx.key, accumulate=True),)


def embed(g: Tensor, shape, key, accumulate=False) -> Tensor:
    """Zeros of ``shape`` with ``g`` written (or, with ``accumulate``, added) at
    ``key`` — the gradient of reading ``x[key]``."""
    out = np.zeros(shape, dtype=g._data.dtype)
    if accumulate:
        np.add.at(out, key, g._data)
    else:
        out[key] = g._data
    return make(EMBED, out, (g,), attrs={"key": key})


def take(g: Tensor, key) -> Tensor:
    return make(TAKE, np.asarray(g._data[key]), (g,), attrs={"key": key, "self_sym_sizes": g._data.shape})


def _to_index_array(item, size=None):
    if isinstance(item, Tensor):
        a = item._data
        if item._dtype.category == dtypes.FLOAT:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        return a
    a = np.asarray(item)
    if a.dtype.kind == "f":
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    return a


def _ranges_as_lists(key):
    """A ``range`` in an index is a sequence of ints to torch (``x[range(n), y]``); its
    length is checked before the list is built."""
    if type(key) is range:
        resources.check_count(len(key))
        return list(key)
    if type(key) is tuple and any(type(k) is range for k in key):
        return tuple(_ranges_as_lists(k) if type(k) is range else k for k in key)
    return key


def _is_advanced(item):
    return isinstance(item, (Tensor, list)) or (isinstance(item, np.ndarray))


_ndarray = []


def _arrays_as_tensors(key):
    """numpy arrays in an index (``t[mask_array]``) as the tensors torch makes of them."""
    if not _ndarray:
        from ..numpy_api.ndarray import NDArray
        _ndarray.append(NDArray)
    nd = _ndarray[0]
    if type(key) is nd:
        return Tensor._make(key._array)
    if type(key) is tuple and any(type(k) is nd for k in key):
        return tuple(Tensor._make(k._array) if type(k) is nd else k for k in key)
    return key


@export(tensor=("__getitem__",))
def getitem(input, key):
    """``x[key]`` with PyTorch's node chain: one Select/Slice/Unsqueeze per basic
    index, then one IndexBackward0 for the advanced (list, int or bool tensor) indices.
    numpy arrays in ``key`` index as tensors."""
    key = _arrays_as_tensors(_ranges_as_lists(key))
    if not isinstance(key, tuple):
        if key is Ellipsis:
            return _view_of(input, make(ALIAS, input._data, (input,)))
        if isinstance(key, slice):
            return _slice(input, 0, key) if input.ndim else _zero_dim_error()
        if not input._data.ndim and type(key) is int:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                             "in C++ to convert a 0-dim tensor to a number")
        key = (key,)
    n_real = 0  # dims of the input the key consumes
    for k in key:
        if k is None or k is Ellipsis or isinstance(k, bool):
            continue
        if isinstance(k, Tensor) and k._dtype is dtypes.bool_:
            n_real += max(k.ndim, 1)
        else:
            n_real += 1
    if n_real > input.ndim:
        raise IndexError(f"too many indices for tensor of dimension {input.ndim}")
    t = input
    dim = 0
    advanced = []  # (dim in t, index array)
    seen_ellipsis = False
    n_adv = 0  # tensor indices so far: torch's index kernel names this position in its errors
    for real, k in enumerate(key):  # torch's real_dim (the position in the key) names int errors
        if k is Ellipsis:
            if seen_ellipsis:
                raise IndexError("an index can only have a single ellipsis ('...')")
            seen_ellipsis = True
            dim += input.ndim - n_real
        elif k is None:
            t = unsqueeze(t, dim)
            dim += 1
        elif isinstance(k, bool):
            t = unsqueeze(t, dim)
            if not k:
                advanced.append((dim, np.zeros(0, dtype=np.int64)))
            dim += 1
        elif isinstance(k, int):
            if t._data.ndim:
                n = t._data.shape[dim]
                if not -n <= k < n:
                    raise IndexError(f"index {k} is out of bounds for dimension {real} with size {n}")
            t = select(t, dim, k)
        elif isinstance(k, slice):
            if not (k.start is None and k.stop is None and k.step is None):
                t = _slice(t, dim, k)
            dim += 1
        elif isinstance(k, (Tensor, list, tuple)):
            a = _to_index_array(k)
            if a.dtype == np.bool_:
                if a.ndim == 0:
                    t = unsqueeze(t, dim)
                    advanced.append((dim, np.arange(1 if a else 0)))
                    dim += 1
                    continue
                shape = t._data.shape[dim:dim + a.ndim]
                if shape != a.shape:
                    raise IndexError(
                        f"The shape of the mask [{', '.join(map(str, a.shape))}] at index {dim} does not match "
                        f"the shape of the indexed tensor [{', '.join(map(str, t._data.shape))}] at index {dim}")
                for j, idx in enumerate(np.nonzero(a)):
                    advanced.append((dim + j, idx))
                dim += a.ndim
                n_adv += a.ndim
            else:
                size = t._data.shape[dim]
                if a.size and (a.max() >= size or a.min() < -size):
                    bad = int(a.max() if a.max() >= size else a.min())
                    raise IndexError(f"index {bad} is out of bounds for dimension {n_adv} with size {size}")
                advanced.append((dim, a.astype(np.int64)))
                dim += 1
                n_adv += 1
        else:
            if isinstance(k, str):
                raise TypeError(f"new(): invalid data type '{type(k).__name__}'")
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices (got "
                f"{type(k).__name__})")
    if advanced:
        full = [slice(None)] * t.ndim
        for d, a in advanced:
            full[d] = a
        full = tuple(full)
        out = np.asarray(t._data[full])
        t = make(INDEX, out, (t,), attrs={"self_sym_sizes": t._data.shape, "indices": full})
    elif t is input:
        t = _view_of(input, make(ALIAS, input._data, (input,))) if key == (Ellipsis,) else _slice(input, 0, slice(None))
    return t


def _zero_dim_error():
    raise IndexError("slice() cannot be applied to a 0-dim tensor.")


def _numpy_key(x: Tensor, key):
    """``key`` as a numpy index into ``x``'s data."""
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    for k in key:
        if isinstance(k, Tensor):
            out.append(k._data)
        elif isinstance(k, list):
            out.append(np.asarray(k))
        else:
            out.append(k)
    return tuple(out)


@op("copy_slices", "CopySlices", ("self", "src"),
    vjp={"self": "grad with the written region zeroed", "src": "grad[index] summed to src.sizes()"},
    local={"self": "1 outside the written region, 0 inside", "src": "1 inside the written region"})
def COPY_SLICES(ctx, g):
    key = ctx.key
    gs = None
    if ctx.needs(0):
        mask = np.zeros(ctx.self_sym_sizes, dtype=bool)
        mask[key] = True
        from .unary import masked_fill
        gs = masked_fill(g, Tensor._make(mask), 0.0)
    gv = None
    if ctx.needs(1):
        pos = ctx.node.attrs.get("src_positions")
        if pos is not None:  # the written region is a view of self, element for element
            gv = take(g.reshape(-1), (pos,))
        else:
            gv = sum_to(take(g, key), ctx.src_sizes)
    return gs, gv


@export(tensor=("__setitem__",))
def setitem(input, key, value):
    """``x[key] = value`` in place. When ``x`` or ``value`` is in a graph, ``x.grad_fn``
    becomes CopySlices (edges: x's previous history, value's); on a leaf that requires
    grad it raises PyTorch's in-place error."""
    key = _arrays_as_tensors(_ranges_as_lists(key))
    if not isinstance(value, OPERANDS) or isinstance(value, dtypes.NumberLike) \
            or getattr(type(value), "_np_type", None) in (np.float32, np.float16):
        # torch takes numpy integers and float64 (a Python float) here, not np.bool_/float32/float16
        raise TypeError(f"can't assign a {type(value).__name__} to a torch.{input._dtype.legacy}")
    if key is False:
        return  # torch 2.13's THPVariable_setitem writes nothing for ``x[False] = v``
    try:
        if grad_mode.enabled and input._requires_grad:
            via = _key_view_fn(input._data.shape, key)
            if via is not None:
                kind = getattr(input, "_view_kind", None)
                if kind is not None:  # the view written through inherits its creation meta
                    from . import view_rebase_error
                    raise view_rebase_error(input, indirect=False, via=via)
                if input._grad_fn is None:
                    from . import VIEW_LEAF_INPLACE
                    raise RuntimeError(VIEW_LEAF_INPLACE)
        check_inplace(input)
    except RuntimeError:
        _setitem_check(input, key, value, inplace_error=True)  # torch reports a bad index or value first
        raise
    k = _numpy_key(input, key)
    src = value if isinstance(value, Tensor) else None
    if src is not None and src._dtype is not input._dtype and _is_advanced_key(key) and not _masked_fill_key(key, src):
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{input._dtype.legacy[:-6]} for the destination and {src._dtype.legacy[:-6]} for the source.")
    v = value._data if isinstance(value, Tensor) else value
    try:
        input._data[k] = v
    except (IndexError, TypeError) as e:
        _setitem_check(input, key, value)
        raise IndexError(str(e)) from None
    except ValueError:
        _setitem_check(input, key, value)
        shape = np.shape(input._data[k])
        raise RuntimeError(
            f"shape mismatch: value tensor of shape [{', '.join(map(str, np.shape(v)))}] cannot be broadcast "
            f"to indexing result of shape [{', '.join(map(str, shape))}]") from None
    if getattr(input, "_inference", False) and not grad_mode.inference:
        from . import INFERENCE_INPLACE
        raise RuntimeError(INFERENCE_INPLACE)  # after the write, as torch
    input._version_counter.value += 1
    if grad_mode.enabled and (input._requires_grad or (src is not None and src._requires_grad)):
        if src is not None and src._requires_grad and src._data.ndim:
            src = _value_as_written(src, np.shape(input._data[k]), _is_advanced_key(key))
        target = input
        if input._base is not None:
            # torch writes through a view of the view: the CopySlices lands on the base's
            # history, and the view's grad_fn is regenerated when read (its version moved)
            target = input._base
            k = key_in_base(target._data, input._data, k)
        edges = (target._edge(), src._edge() if src is not None else (None, 0))
        op_ = COPY_SLICES
        if target is input and _key_view_fn(input._data.shape, key) is None:
            # torch writes into x itself, no view to copy into: index_put_ for advanced
            # indices, else copy_to's fill_ (a 0-d value) or copy_
            if _is_advanced_key(key):
                from .put import INDEX_PUT as op_
            elif src is None or not src._data.ndim:
                from .arith import FILL_TENSOR as op_
            else:
                from .fills import COPY as op_
        node = Node(op_, edges, None,
                    {"key": k, "self_sym_sizes": target._data.shape, "accumulate": False,
                     "src_sizes": src._data.shape if src is not None else (),
                     "values_sizes": src._data.shape if src is not None else (),
                     "src_dtype": src._dtype if src is not None else None},
                    ((target._data.shape, target._dtype),
                     (src._data.shape, src._dtype) if src is not None else None))
        set_history(target, node)


def _value_as_written(src: Tensor, shape, advanced: bool) -> Tensor:
    """The value torch 2.13's setitem writes: leading 1s dropped by a view
    (slicePrefix1sSize), then, unless index_put_ takes it, expanded to the written
    region's ``shape`` (copy_to) — ViewBackward0 and ExpandBackward0 in the graph."""
    from .shape import expand, view
    sizes = src._data.shape
    stripped = sizes
    while stripped and stripped[0] == 1:
        stripped = stripped[1:]
    if advanced:
        return view(src, *stripped) if stripped != sizes else src
    if sizes == tuple(shape):
        return src
    src = view(src, *stripped)
    return expand(src, *shape) if stripped != tuple(shape) else src


def _is_advanced_key(key) -> bool:
    """Whether torch's ``x[key] = v`` is an index_put (a list or a tensor index that is
    not a 0-d integer tensor, which indexes as an int)."""
    return any(isinstance(k, (list, tuple)) or (isinstance(k, Tensor) and (k._data.ndim or k._dtype is dtypes.bool_))
               for k in (key if isinstance(key, tuple) else (key,)))


def _masked_fill_key(key, src) -> bool:
    """``x[mask] = value`` with a one-element value is a masked_fill in torch 2.13
    (canDispatchToMaskedFill), which casts the value."""
    return src._data.size == 1 and any(isinstance(k, Tensor) and k._dtype is dtypes.bool_ and k._data.ndim > 0
                                      for k in (key if type(key) is tuple else (key,)))


def _setitem_check(input, key, value, inplace_error=False):
    """On an error path of ``x[key] = value``: raise torch's error for a bad index (as
    ``x[key]`` reads it) or a value that does not fit — ``expand(...)`` errors when the
    key is basic (torch copies into a view), index_put's shape mismatch when advanced.
    With ``inplace_error`` (the in-place check failed), index_put's own checks of an
    advanced key come after it, as in torch."""
    advanced = _is_advanced_key(key)
    was = grad_mode.enabled
    grad_mode.enabled = False
    try:
        target = getitem(input, key)._data.shape
    except IndexError as e:
        if inplace_error and advanced and not str(e).startswith(("too many", "invalid index", "only integers")):
            return
        raise
    finally:
        grad_mode.enabled = was
    if not isinstance(value, Tensor) or (inplace_error and advanced):
        return
    vs = value._data.shape
    while vs and vs[0] == 1:
        vs = vs[1:]  # torch's setitem views the value without leading 1s first
    if advanced:
        try:
            ok = np.broadcast_shapes(vs, target) == tuple(target)
        except ValueError:
            ok = False
        if not ok:
            raise RuntimeError(
                f"shape mismatch: value tensor of shape [{', '.join(map(str, vs))}] cannot be broadcast "
                f"to indexing result of shape [{', '.join(map(str, target))}]")
        return
    if len(vs) > len(target):
        raise RuntimeError(
            f"expand({type_str(value._dtype)}{{[{', '.join(map(str, vs))}]}}, size=[{', '.join(map(str, target))}]): "
            f"the number of sizes provided ({len(target)}) must be greater or equal to the number of dimensions "
            f"in the tensor ({len(vs)})")
    off = len(target) - len(vs)
    for j, n in enumerate(vs):
        if n != 1 and n != target[off + j]:
            raise RuntimeError(
                f"The expanded size of the tensor ({target[off + j]}) must match the existing size ({n}) at "
                f"non-singleton dimension {off + j}.  Target sizes: [{', '.join(map(str, target))}].  "
                f"Tensor sizes: [{', '.join(map(str, vs))}]")


def _key_view_fn(shape, key):
    """The function of the last view torch's ``x[key] = v`` takes of ``x`` before writing
    ("Select", "Slice", "Unsqueeze"), or None when it writes into ``x`` itself (torch 2.13
    applySlicing: a slice covering its whole dim returns ``self``; only advanced indices
    or an Ellipsis take no view)."""
    items = key if isinstance(key, tuple) else (key,)

    def dims(k):
        if k is None or isinstance(k, bool) or k is Ellipsis:
            return 0
        if isinstance(k, Tensor) and k._dtype is dtypes.bool_:
            return k._data.ndim
        return 1

    fn = None
    d = 0
    for k in items:
        if k is Ellipsis:
            d += len(shape) - sum(dims(j) for j in items)
        elif k is None or isinstance(k, bool) or (isinstance(k, Tensor) and k._dtype is dtypes.bool_ and not k._data.ndim):
            fn = "Unsqueeze"
        elif isinstance(k, int) or (isinstance(k, Tensor) and not k._data.ndim and k._dtype.category != dtypes.FLOAT):
            fn = "Select"
        elif isinstance(k, slice):
            n = shape[d] if d < len(shape) else 0
            stop = k.stop.__index__() if k.stop is not None else None
            if not (k.start in (None, 0) and k.step in (None, 1) and (stop is None or stop >= n)):
                fn = "Slice"
        d += dims(k) if k is not Ellipsis else 0
    return fn


@op("scatter_back", "IndexBackward0", ("self",), vjp={"self": "grad gathered at indices"}, local={"self": "1"})
def SCATTER_BACK(ctx, g):
    return (take_along(g, ctx.indices, ctx.dim),)


def index_select_backward(g: Tensor, indices: Tensor, shape, dim, keepdim) -> Tensor:
    """Zeros of ``shape`` with ``g`` placed at ``indices`` along ``dim`` (the gradient
    of ``max(dim)``/``min(dim)``/``gather``)."""
    idx = indices._data
    gd = g._data
    if not keepdim and len(shape):
        idx = np.expand_dims(idx, dim)
        gd = np.expand_dims(gd, dim)
    out = np.zeros(shape, dtype=g._data.dtype)
    if len(shape) == 0:
        out[...] = gd
    else:
        np.put_along_axis(out, idx, gd, axis=dim)
    return make(SCATTER_BACK, out, (g,), attrs={"indices": Tensor._make(idx), "dim": dim})


def take_along(g: Tensor, indices: Tensor, dim: int) -> Tensor:
    from .scatter import gather
    return gather(g, dim, indices)


def pad_back(g: Tensor, shape, dim, start) -> Tensor:
    key = [slice(None)] * len(shape)
    key[dim] = slice(start, start + g._data.shape[dim])
    return embed(g, shape, tuple(key))


@export(torch=("index_select",), tensor=("index_select",))
def index_select(input, dim, index):
    d = wrap_dim(dim, input.ndim)
    n = input._data.shape[d] if input.ndim else 1
    if index._data.size and (index._data.min() < 0 or index._data.max() >= n):
        raise IndexError("index out of range in self")
    key = [slice(None)] * input.ndim
    key[d] = index._data
    key = tuple(key)
    out = np.asarray(input._data[key])
    return make(INDEX_SELECT, out, (input,), attrs={"self_sym_sizes": input._data.shape, "indices": key})


@op("index_select", "IndexSelectBackward0", ("self",), vjp={"self": "zeros(self.sizes()).index_add(dim, index, grad)"},
    local={"self": "1 at each selected index"})
def INDEX_SELECT(ctx, g):
    return (embed(g, ctx.self_sym_sizes, ctx.indices, accumulate=True),)
