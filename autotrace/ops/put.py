"""Index-driven writes: ``index_put`` (``x[indices] = values`` as a function, with
``accumulate``), ``put`` (flat indices) and ``index_copy`` (whole slices along a dim),
with their in-place forms. Shapes, errors and gradients as torch 2.13
(``derivatives.yaml``): without ``accumulate`` the written positions get no gradient
through ``self``; ``values`` / ``source`` receive the gradient read back at the
positions they were written to. Repeated indices without ``accumulate``: the last write
wins (torch's CPU loop order).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..tensor import Tensor, wrap_dim
from . import check_inplace, commit_inplace, export, make, op, tensor_params


def _sizes(shape) -> str:
    return "[" + ", ".join(map(str, shape)) + "]"


def _written_mask(shape, key) -> np.ndarray:
    m = np.zeros(shape, dtype=bool)
    m[key] = True
    return m


def _zero_written(g: Tensor, shape, key) -> Tensor:
    from .unary import masked_fill
    return masked_fill(g, Tensor._make(_written_mask(shape, key)), 0.0)


def _read_back(g: Tensor, key, shape) -> Tensor:
    """``grad[key]`` summed to ``shape`` (the gradient of the written values)."""
    from .indexing import take
    from .shape import sum_to
    r = take(g, key)
    if r._data.shape != tuple(shape):
        r = sum_to(r, shape) if r._data.size != int(np.prod(shape, dtype=np.int64)) else r.reshape(shape)
    return r


# -- index_put -----------------------------------------------------------------------------


@op("index_put", "IndexPutBackward0", ("self", "values"),
    vjp={"self": "accumulate ? grad : grad.index_put(indices, zeros_like(values), false)",
         "values": "grad[indices] summed to values.sizes()"},
    local={"self": "1 (0 at the written positions unless accumulate)", "values": "1 at each written position"})
def INDEX_PUT(ctx, g):
    shape = g._data.shape
    g = g.reshape(ctx.self_sym_sizes)  # a 0-d self is written as 1-d
    gs = None
    if ctx.needs(0):
        gs = g if ctx.accumulate else _zero_written(g, ctx.self_sym_sizes, ctx.key)
        gs = gs.reshape(shape)
    gv = _read_back(g, ctx.key, ctx.values_sizes) if ctx.needs(1) else None
    return gs, gv


def _put_key(x: np.ndarray, indices, fn: str):
    """torch's ``indices`` (a tuple or list of long/int/bool tensors) as a numpy key,
    bounds checked; bool tensors stand for their nonzero positions."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{fn}(): argument 'indices' (position 1) must be tuple of Tensors, "
                        f"not {type(indices).__name__}")
    for i, t in enumerate(indices):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    n_dims = sum(max(t._data.ndim, 1) if t._dtype is dtypes.bool_ else 1 for t in indices)
    if n_dims > max(x.ndim, 1):
        raise IndexError(f"too many indices for tensor of dimension {x.ndim} (got {n_dims})")
    key = []
    d = 0
    for t in indices:
        a = t._data
        if t._dtype is dtypes.bool_:
            shape = x.shape[d:d + max(a.ndim, 1)]
            if a.ndim and shape != a.shape:
                raise IndexError(f"The shape of the mask {_sizes(a.shape)} at index {d} does not match the shape "
                                 f"of the indexed tensor {_sizes(x.shape)} at index {d}")
            key.extend(np.nonzero(a))
            d += a.ndim
            continue
        if t._dtype.category == dtypes.FLOAT or t._dtype is dtypes.bool_:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        size = x.shape[d] if x.ndim else 1
        if a.size and (a.max() >= size or a.min() < -size):
            bad = int(a.max() if a.max() >= size else a.min())
            raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {size}")
        key.append(a.astype(np.int64))
        d += 1
    return tuple(key)


@export(torch=("index_put",), tensor=("index_put",))
@tensor_params('values')
def index_put(input, indices, values, accumulate=False):
    """``out = input.clone(); out[indices] = values`` (or ``+=`` with ``accumulate``,
    repeats adding up): IndexPutBackward0. ``indices`` is a tuple of long/int/bool
    tensors, one per leading dim; ``values`` broadcasts to the indexed shape and has
    ``input``'s dtype (torch's errors otherwise)."""
    return _index_put(input, indices, values, accumulate, "index_put")


def _index_put(input, indices, values, accumulate, fn):
    x = input._data
    key = _put_key(x, indices, fn)
    if values._dtype is not input._dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{input._dtype.legacy[:-6]} for the destination and {values._dtype.legacy[:-6]} "
                           "for the source.")
    xs = x if x.ndim else x.reshape(1)
    target = xs[key].shape
    v = values._data
    try:
        vb = np.broadcast_to(v, target)
    except ValueError:
        raise RuntimeError(f"shape mismatch: value tensor of shape {_sizes(v.shape)} cannot be broadcast to "
                           f"indexing result of shape {_sizes(target)}") from None
    out = xs.copy()
    if accumulate:
        np.add.at(out, key, vb)
    else:
        out[key] = vb
    return make(INDEX_PUT, out.reshape(x.shape), (input, values),
                attrs={"key": key, "accumulate": bool(accumulate), "self_sym_sizes": xs.shape,
                       "values_sizes": v.shape})


@export(tensor=("index_put_",))
def index_put_(self, indices, values, accumulate=False):
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put_(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}")
    _put_key(self._data, indices, "index_put_")
    check_inplace(self)
    return commit_inplace(self, _index_put(self, indices, values, accumulate, "index_put_"))


# -- put -------------------------------------------------------------------------------


@op("put", "PutBackward0", ("self", "source"),
    vjp={"self": "accumulate ? grad : grad.put(index, zeros_like(source), false)",
         "source": "grad.take(index).reshape_as(source)"},
    local={"self": "1 (0 at the written positions unless accumulate)", "source": "1 at each written position"})
def PUT(ctx, g):
    gs = None
    flat_shape = (int(np.prod(ctx.self_sym_sizes, dtype=np.int64)),)
    if ctx.needs(0):
        gs = g if ctx.accumulate else _zero_written(g.reshape(-1), flat_shape, ctx.key).reshape(ctx.self_sym_sizes)
    gv = _read_back(g.reshape(-1), ctx.key, ctx.source_sizes) if ctx.needs(1) else None
    return gs, gv


@export(torch=("put",), tensor=("put",))
@tensor_params('index', 'source')
def put(input, index, source, accumulate=False):
    """Write ``source``'s elements at the flat positions ``index`` of ``input`` (as if
    1-d; negative positions count from the end): PutBackward0."""
    if index._dtype is not dtypes.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {index._dtype.legacy[:-6]}")
    if source._dtype is not input._dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{input._dtype.legacy[:-6]} and source.dtype = {source._dtype.legacy[:-6]}")
    idx = index._data.reshape(-1)
    if source._data.size != idx.size:
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source._data.size}, index.numel() = {idx.size}")
    x = input._data
    n = x.size
    bad = idx[(idx < -n) | (idx >= n)]
    if bad.size:
        raise IndexError(f"out of range: tried to access index {int(bad[0])} on a tensor of {n} elements.")
    key = (np.where(idx < 0, idx + n, idx),)
    out = x.reshape(-1).copy()
    s = source._data.reshape(-1)
    if accumulate:
        np.add.at(out, key, s)
    else:
        out[key] = s
    return make(PUT, out.reshape(x.shape), (input, source),
                attrs={"key": key, "accumulate": bool(accumulate), "self_sym_sizes": x.shape,
                       "source_sizes": source._data.shape})


@export(tensor=("put_",))
def put_(self, index, source, accumulate=False):
    check_inplace(self)
    return commit_inplace(self, put(self, index, source, accumulate))


# -- index_copy ------------------------------------------------------------------------


@op("index_copy", "IndexCopyBackward0", ("self", "source"),
    vjp={"self": "grad.index_fill(dim, index, 0)", "source": "grad.index_select(dim, index)"},
    local={"self": "0 in the copied slices, 1 elsewhere", "source": "1"})
def INDEX_COPY(ctx, g):
    shape = g._data.shape
    g = g.reshape(ctx.self_sym_sizes)  # a 0-d self is written as 1-d
    gs = _zero_written(g, ctx.self_sym_sizes, ctx.key).reshape(shape) if ctx.needs(0) else None
    gv = _read_back(g, ctx.key, ctx.source_sizes) if ctx.needs(1) else None
    return gs, gv


@export(torch=("index_copy",), tensor=("index_copy",))
@tensor_params('index', 'source')
def index_copy(input, dim, index, source):
    """Copy ``source.select(dim, i)`` into ``input.select(dim, index[i])`` for every i
    (IndexCopyBackward0); ``index`` is a 0-d or 1-d long tensor, ``source`` has
    ``input``'s dtype and slice shapes."""
    x = input._data
    s = source._data
    if index._dtype is not dtypes.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got {index._dtype.legacy[:-6]}")
    if index._data.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index._data.ndim})")
    if x.ndim and s.ndim and x.ndim != s.ndim:
        raise IndexError("index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({s.ndim}), destination dimensionality ({x.ndim})")
    d = wrap_dim(dim, max(x.ndim, 1))
    idx = index._data.reshape(-1)
    if source._dtype is not input._dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{input._dtype.legacy[:-6]} and (source) {source._dtype.legacy[:-6]}")
    xs = x if x.ndim else x.reshape(1)
    ss = s if s.ndim else s.reshape(1)
    if ss.shape[d] != idx.size:
        raise IndexError(f"index_copy_(): Number of indices ({idx.size}) should be equal to source.size(dim) "
                         f"({ss.shape[d]})")
    xslice = xs.shape[:d] + xs.shape[d + 1:]
    sslice = ss.shape[:d] + ss.shape[d + 1:]
    if xslice != sslice:
        raise RuntimeError("index_copy_(): Source/destination tensor must have same slice shapes. Destination "
                           f"slice shape: {' '.join(map(str, xslice))} at dimension {d} and source slice shape: "
                           f"{' '.join(map(str, sslice))} at dimension 0.")
    size = xs.shape[d]
    bad = idx[(idx < 0) | (idx >= size)]
    if bad.size:
        raise IndexError(f"index_copy_(): index {int(bad[0])} is out of bounds for dimension {d} with size {size}")
    key = (slice(None),) * d + (idx,)
    out = xs.copy()
    out[key] = ss
    return make(INDEX_COPY, out.reshape(x.shape), (input, source),
                attrs={"key": key, "self_sym_sizes": xs.shape, "source_sizes": s.shape})


@export(tensor=("index_copy_",))
def index_copy_(self, dim, index, source):
    check_inplace(self)
    return commit_inplace(self, index_copy(self, dim, index, source))
