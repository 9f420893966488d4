"""History rebase after in-place writes through views (torch 2.13 rebase_history and
VariableHooks::grad_fn): the base's CopySlices, a view's regenerated AsStridedBackward0,
and where a view's elements sit in its base's storage."""

from __future__ import annotations

import numpy as np

from ..node import Node
from ..tensor import Tensor, move_retained_grad
from . import op


@op("as_strided", "AsStridedBackward0", ("self",),
    vjp={"self": "zeros(self.sizes()) with grad added at the view's positions"},
    local={"self": "1 at the view's positions"})
def AS_STRIDED(ctx, g):
    from .indexing import embed
    pos = ctx.positions
    flat = embed(g.reshape(-1), (int(np.prod(ctx.self_sym_sizes, dtype=np.int64)),), (pos.reshape(-1),),
                 accumulate=True)
    return (flat.reshape(ctx.self_sym_sizes),)


def set_history(t: Tensor, node) -> None:
    """An in-place write gave ``t`` a new history: ``node`` becomes its grad_fn (output 0)
    and the record of the node describes ``t``."""
    if node.rec is not None:
        node.rec.shape = t._data.shape
        node.rec.dtype = t._dtype.name
        node.rec.var_name = t._name
    move_retained_grad(t, t._grad_fn, node, 0)
    t.grad_fn = node
    t._output_nr = 0
    t._requires_grad = True


def rebase_base_through_view(base: Tensor, view: Tensor) -> None:
    """An in-place op on a view changed part of ``base``: its history becomes a
    CopySlices node whose source is the view's new history (PyTorch's rebase), and the
    view's own ``grad_fn`` becomes AsStridedBackward0 of the base's new history."""
    if base._data.shape == view._data.shape and base._data is view._data:
        move_retained_grad(base, base._grad_fn, view._grad_fn, 0)
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
    set_history(base, node)
    as_strided_history(base, view, pos)


def as_strided_history(base: Tensor, view: Tensor, pos=None):
    """Give ``view`` the history torch 2.13 regenerates for a view whose base changed in
    place (VariableHooks::grad_fn without view replay): an AsStridedBackward0 node whose
    next edge is ``base``'s current gradient edge, the view's version recorded; a
    ``retain_grad`` moves from the view's previous node to it, as torch's
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
    set_history(view, vnode)
    return vnode


@op("copy_slices_view", "CopySlices", ("self", "other"),
    vjp={"self": "grad outside the view; the wrapped op's grad for its input inside it",
         "other": "the wrapped op's grad for its other inputs"},
    local={"self": "1 outside the written view; the op's derivative inside"})
def COPY_SLICES_VIEW(ctx, g):
    from .. import node_steps
    from .indexing import embed, take
    from .unary import masked_fill
    fn = ctx.fn
    pos = ctx.positions
    g_view = take(g.reshape(-1), (pos,))
    res = node_steps._call(fn, [g_view])
    gs = masked_fill(g, Tensor._make(ctx.key), 0.0)
    inner = res[0] if res else None
    if inner is not None:
        inner = node_steps._validate(inner, fn.in_meta[0])
        n = int(np.prod(ctx.self_sym_sizes, dtype=np.int64))
        gs = gs + embed(inner.reshape(-1), (n,), (pos.reshape(-1),), accumulate=True).reshape(ctx.self_sym_sizes)
    return (gs,) + tuple(res[1:])


def _view_positions(base: np.ndarray, view: np.ndarray):
    """For each element of ``view``, its flat (C-order) index in ``base``; None when
    ``view`` does not sit inside a C-contiguous ``base``."""
    if not base.flags.c_contiguous or (view.size and not np.shares_memory(base, view)):
        return None  # an empty view shares no memory but is still a view (torch: CopySlices)
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


def key_in_base(base: np.ndarray, view: np.ndarray, key):
    """The numpy index into ``base`` of the elements ``view[key]`` names (a tuple of index
    arrays shaped like ``view[key]``)."""
    pos = _view_positions(base, view)
    if pos is None:
        pos = _strided_positions(base, view)
    return np.unravel_index(np.asarray(pos[key]), base.shape)
