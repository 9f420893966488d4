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
        target = input
        if input._base is not None:
            # torch writes through a view of the view: the CopySlices lands on the base's
            # history, and the view's grad_fn is regenerated when read (its version moved)
            target = input._base
            k = _key_in_base(target._data, input._data, k)
        edges = (target._edge(), src._edge() if src is not None else (None, 0))
        node = Node(COPY_SLICES, edges, None,
                    {"key": k, "self_sym_sizes": target._data.shape,
                     "src_sizes": src._data.shape if src is not None else ()},
                    ((target._data.shape, target._dtype),
                     (src._data.shape, src._dtype) if src is not None else None))
        _set_history(target, node)


def _key_in_base(base: np.ndarray, view: np.ndarray, key):
    """The numpy index into ``base`` of the elements ``view[key]`` names (a tuple of index
    arrays shaped like ``view[key]``)."""
    pos = _view_positions(base, view)
    if pos is None:
        pos = _strided_positions(base, view)
    return np.unravel_index(np.asarray(pos[key]), base.shape)


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


@op("as_strided", "AsStridedBackward0", ("self",),
    vjp={"self": "zeros(self.sizes()) with grad added at the view's positions"},
    local={"self": "1 at the view's positions"})
def AS_STRIDED(ctx, g):
    pos = ctx.positions
    flat = embed(g.reshape(-1), (int(np.prod(ctx.self_sym_sizes, dtype=np.int64)),), (pos.reshape(-1),),
                 accumulate=True)
    return (flat.reshape(ctx.self_sym_sizes),)


def _set_history(t: Tensor, node) -> None:
    """An in-place write gave ``t`` a new history: ``node`` becomes its grad_fn (output 0)
    and the record of the node describes ``t``."""
    if node.rec is not None:
        node.rec.shape = t._data.shape
        node.rec.dtype = t._dtype.name
        node.rec.var_name = t._name
    t.grad_fn = node
    t._output_nr = 0
    t._requires_grad = True


def rebase_base_through_view(base: Tensor, view: Tensor) -> None:
    """An in-place op on a view changed part of ``base``: its history becomes a
    CopySlices node whose source is the view's new history (PyTorch's rebase), and the
    view's own ``grad_fn`` becomes AsStridedBackward0 of the base's new history."""
    if base._data.shape == view._data.shape and base._data is view._data:
        base.grad_fn = view._grad_fn
        base._requires_grad = True
        return
    # Find where the view sits inside the base's storage.
    pos = _view_positions(base._data, view._data)
    if pos is None:
        return
    key = np.zeros(base._data.shape, dtype=bool)
    key.reshape(-1)[pos.reshape(-1)] = True
    # like torch, CopySlices wraps the op's node: its edges are the base's history and the
    # op's other inputs; backward runs the op's backward on the view's part of the grad
    fn = view._grad_fn
    edges = (base._edge(),) + tuple(fn.next_functions[1:])
    node = Node(COPY_SLICES_VIEW, edges, None,
                {"key": key, "self_sym_sizes": base._data.shape, "src_sizes": view._data.shape,
                 "positions": pos, "fn": fn},
                ((base._data.shape, base._dtype),) + tuple(fn.in_meta[1:]))
    _set_history(base, node)
    as_strided_history(base, view, fn, pos)


def as_strided_history(base: Tensor, view: Tensor, old, pos=None):
    """Give ``view`` the history torch 2.13 regenerates for a view whose base changed in
    place (VariableHooks::grad_fn without view replay): an AsStridedBackward0 node whose
    next edge is ``base``'s current gradient edge, the view's version recorded; a
    ``retain_grad`` moves from ``old`` (the view's previous node) to it, as torch's
    update_tensor_hooks_on_new_gradfn does. Returns the node."""
    if pos is None:
        pos = _view_positions(base._data, view._data)
        if pos is None:
            pos = _strided_positions(base._data, view._data)
    b, v = base._data, view._data
    attrs = {"self_sym_sizes": b.shape, "positions": pos, "size": v.shape,
             "stride": tuple(s // v.itemsize for s in v.strides),
             "storage_offset": (v.__array_interface__["data"][0] - b.__array_interface__["data"][0]) // v.itemsize}
    vnode = Node(AS_STRIDED, (base._edge(),), None, attrs, ((b.shape, base._dtype),),
                 shape=v.shape, dtype=view._dtype.name)
    nr = view._output_nr
    _set_history(view, vnode)
    if view._retains_grad and old is not None and old.retains_grad:
        ref = old.retains_grad.pop(nr, None)
        if ref is not None:
            vnode.retains_grad = {0: ref}
    return vnode


@op("copy_slices_view", "CopySlices", ("self", "other"),
    vjp={"self": "grad outside the view; the wrapped op's grad for its input inside it",
         "other": "the wrapped op's grad for its other inputs"},
    local={"self": "1 outside the written view; the op's derivative inside"})
def COPY_SLICES_VIEW(ctx, g):
    from .. import engine
    from .unary import masked_fill
    fn = ctx.fn
    pos = ctx.positions
    g_view = take(g.reshape(-1), (pos,))
    res = engine._call(fn, [g_view])
    gs = masked_fill(g, Tensor._make(ctx.key), 0.0)
    inner = res[0] if res else None
    if inner is not None:
        inner = engine._validate(inner, fn.in_meta[0])
        n = int(np.prod(ctx.self_sym_sizes, dtype=np.int64))
        gs = gs + embed(inner.reshape(-1), (n,), (pos.reshape(-1),), accumulate=True).reshape(ctx.self_sym_sizes)
    return (gs,) + tuple(res[1:])


def _view_positions(base: np.ndarray, view: np.ndarray):
    """For each element of ``view``, its flat (C-order) index in ``base``; None when
    ``view`` does not sit inside a C-contiguous ``base``."""
    if not base.flags.c_contiguous or not np.shares_memory(base, view):
        return None
    offset0 = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // base.itemsize
    pos = np.full(view.shape, offset0, dtype=np.int64)
    for d, st in enumerate(view.strides):
        shape = [1] * view.ndim
        shape[d] = view.shape[d]
        pos = pos + (np.arange(view.shape[d]) * (st // base.itemsize)).reshape(shape)
    return pos


def _strided_positions(base: np.ndarray, view: np.ndarray):
    """:func:`_view_positions` for any ``base`` whose elements have distinct addresses (a
    non-contiguous one too): each view element's flat (C-order) index in ``base``, found by
    its address."""
    item = base.itemsize

    def addresses(a):
        out = np.full(a.shape, a.__array_interface__["data"][0], dtype=np.int64)
        for d, st in enumerate(a.strides):
            shape = [1] * a.ndim
            shape[d] = a.shape[d]
            out = out + (np.arange(a.shape[d], dtype=np.int64) * st).reshape(shape)
        return out.reshape(-1)

    if not view.size:
        return np.zeros(view.shape, dtype=np.int64)
    at = addresses(base)
    order = np.argsort(at, kind="stable")
    want = addresses(view)
    found = np.searchsorted(at[order], want)
    pos = order[np.clip(found, 0, len(order) - 1)]
    if (at[pos] != want).any() or np.unique(at).size != at.size:
        raise RuntimeError(f"autotrace: cannot place a view of shape {list(view.shape)} inside its base "
                           f"of shape {list(base.shape)} (strides {[s // item for s in base.strides]})")
    return pos.reshape(view.shape)


def _view_key(base: np.ndarray, view: np.ndarray):
    """A numpy index with ``base[key]`` covering exactly ``view``'s elements, or None."""
    if not np.shares_memory(base, view):
        return None
    mask = np.zeros(base.shape, dtype=bool)
    # map every element of the view to its base position by offset arithmetic
    offset0 = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // base.itemsize
    strides = [s // base.itemsize for s in view.strides]
    pos = np.full(view.shape, offset0, dtype=np.int64)
    for d, s in enumerate(strides):
        shape = [1] * view.ndim
        shape[d] = view.shape[d]
        pos = pos + (np.arange(view.shape[d]) * s).reshape(shape)
    if base.flags.c_contiguous:
        mask.reshape(-1)[pos.reshape(-1)] = True
        return mask
    return None


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
    key = [slice(None)] * input.ndim
    key[d] = index._data
    key = tuple(key)
    out = np.asarray(input._data[key])
    return make(INDEX_SELECT, out, (input,), attrs={"self_sym_sizes": input._data.shape, "indices": key})


@op("index_select", "IndexSelectBackward0", ("self",), vjp={"self": "zeros(self.sizes()).index_add(dim, index, grad)"},
    local={"self": "1 at each selected index"})
def INDEX_SELECT(ctx, g):
    return (embed(g, ctx.self_sym_sizes, ctx.indices, accumulate=True),)
