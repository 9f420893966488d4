"""Index-driven reads and writes along a dim: ``gather``, ``scatter`` / ``scatter_add`` /
``scatter_reduce`` (and their in-place forms), ``index_add``, ``index_fill``,
``masked_select``, ``masked_scatter``, ``take``. Shapes, errors and gradients as torch
2.13 (``derivatives.yaml``): an index may be smaller than ``self`` in every dim but
``dim``; repeated indices add up in the gradients of gather and take.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..tensor import Tensor, wrap_dim
from . import tensor_params, check_inplace, commit_inplace, export, make, op, OPERANDS


def _index_arr(index: Tensor, fn: str) -> np.ndarray:
    if not isinstance(index, Tensor):
        raise TypeError(f"{fn}(): argument 'index' (position 2) must be Tensor, not {type(index).__name__}")
    if index._dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"{fn}(): Expected dtype int32/int64 for index")
    return index._data.astype(np.int64, copy=False)


def _sizes(s) -> str:
    return "[" + ", ".join(map(str, s)) + "]"


def _along(idx: np.ndarray, dim: int):
    """The numpy key that addresses ``x[..., idx[i], ...]`` (idx along ``dim``, the
    index's own position in the other dims)."""
    key = list(np.indices(idx.shape, sparse=True))
    key[dim] = idx
    return tuple(key)


def _bounds(idx: np.ndarray, size: int, d: int) -> None:
    if idx.size:
        bad = idx[(idx < 0) | (idx >= size)]
        if bad.size:
            raise RuntimeError(f"index {int(bad.flat[0])} is out of bounds for dimension {d} with size {size}")


def _check_gather(x: np.ndarray, idx: np.ndarray, d: int) -> None:
    if idx.ndim != max(x.ndim, 1) and not (x.ndim == 0 and idx.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    if x.ndim:
        for i in range(x.ndim):
            if i != d and idx.shape[i] > x.shape[i]:
                raise RuntimeError(f"Size does not match at dimension {i} expected index {_sizes(idx.shape)} to be "
                                   f"no larger than self {_sizes(x.shape)} apart from dimension {d}")
    _bounds(idx, x.shape[d] if x.ndim else 1, d)


@op("gather", "GatherBackward0", ("self",), vjp={"self": "zeros(self.sizes()).scatter_add(dim, index, grad)"},
    local={"self": "1 at each gathered index (repeats add up)"})
def GATHER(ctx, g):
    z = Tensor._make(np.zeros(ctx.self_sym_sizes, dtype=g._data.dtype))
    return (scatter_add(z, ctx.dim, ctx.index, g),)


@export(torch=("gather",), tensor=("gather",))
@tensor_params('index')
def gather(input, dim, index, *, sparse_grad=False):
    """``out[i][j] = input[index[i][j]][j]`` (dim 0) and so on: ``index`` has input's number
    of dims and sizes no larger than input's apart from ``dim``; int64/int32 (GatherBackward0)."""
    x = input._data
    d = wrap_dim(dim, x.ndim)
    idx = _index_arr(index, "gather")
    _check_gather(x, idx, d)
    if x.ndim == 0:
        out = np.broadcast_to(x, idx.shape).copy()
    else:
        out = x[_along(idx, d)]
    return make(GATHER, np.asarray(out), (input,), attrs={"self_sym_sizes": x.shape, "dim": d, "index": index})


def _check_scatter(x, idx, d, src_shape, fn="scatter"):
    if idx.ndim != max(x.ndim, 1) and not (x.ndim == 0 and idx.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if src_shape is not None and len(src_shape) != idx.ndim and idx.size:
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if x.ndim:
        for i in range(x.ndim):
            too_big_self = i != d and idx.shape[i] > x.shape[i]
            too_big_src = src_shape is not None and idx.shape[i] > src_shape[i]
            if too_big_self or too_big_src:
                if src_shape is None:
                    raise RuntimeError(f"Expected index {_sizes(idx.shape)} to be no larger than self "
                                       f"{_sizes(x.shape)} apart from dimension {d}")
                raise RuntimeError(f"Expected index {_sizes(idx.shape)} to be no larger than self {_sizes(x.shape)} "
                                   f"apart from dimension {d} and to be no larger size than src {_sizes(src_shape)}")
    _bounds(idx, x.shape[d] if x.ndim else 1, d)


def _src_part(src: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """The leading ``idx.shape`` block of ``src`` (scatter reads only that part)."""
    return src[tuple(slice(0, n) for n in idx.shape)] if src.ndim else src


@op("scatter", "ScatterBackward0", ("self", "src"),
    vjp={"self": "grad.scatter(dim, index, 0)", "src": "grad.gather(dim, index)"},
    local={"self": "0 where written, 1 elsewhere", "src": "1 where written (the last write wins)"})
def SCATTER(ctx, g):
    gs = scatter(g, ctx.dim, ctx.index, 0.0) if ctx.needs(0) else None
    gv = None
    if ctx.needs(1):
        gv = _pad_to(gather(g, ctx.dim, ctx.index), ctx.src_sizes)
    return gs, gv


@op("scatter_value", "ScatterBackward1", ("self",), vjp={"self": "grad.scatter(dim, index, 0)"},
    local={"self": "0 where written, 1 elsewhere"})
def SCATTER_VALUE(ctx, g):
    return (scatter(g, ctx.dim, ctx.index, 0.0),)


def _pad_to(t: Tensor, shape) -> Tensor:
    """``t`` (the gradient of the part of src that scatter read) padded with zeros to
    src's full ``shape``."""
    if tuple(t._data.shape) == tuple(shape):
        return t
    from .indexing import pad_back, embed
    key = tuple(slice(0, n) for n in t._data.shape)
    return embed(t, tuple(shape), key)


REDUCE_DEPRECATED = ("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a future "
                     "PyTorch release. Use torch.scatter_reduce instead for more reduction options.")


@export(torch=("scatter",), tensor=("scatter",))
@tensor_params('index')
def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """``out = input.clone(); out[index[i][j]][j] = src[i][j]`` (dim 0) ... with a tensor
    ``src`` (ScatterBackward0) or a number (ScatterBackward1). ``reduce='add'|'multiply'``
    accumulates instead (torch records no derivative for it)."""
    if src is None:
        src = value
    x = input._data
    d = wrap_dim(dim, x.ndim)
    idx = _index_arr(index, "scatter")
    is_t = isinstance(src, Tensor)
    if not is_t and not isinstance(src, (bool, int, float)):
        raise TypeError(f"scatter(): argument 'src' must be Tensor, not {type(src).__name__}")
    if is_t and src._dtype is not input._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    _check_scatter(x, idx, d, src._data.shape if is_t else None)
    out = x.copy()
    key = _along(idx, d) if x.ndim else ()
    vals = _src_part(src._data, idx) if is_t else x.dtype.type(src)
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError(f"reduce argument must be either add or multiply.")
        if is_t:
            from .. import diagnostics
            diagnostics.warn(REDUCE_DEPRECATED)
        v = np.broadcast_to(vals, idx.shape)
        (np.add if reduce == "add" else np.multiply).at(out, key, v)
        return make(SCATTER_NOT_IMPL, out, (input, src if is_t else None))
    out[key] = vals
    if is_t:
        return make(SCATTER, out, (input, src),
                    attrs={"dim": d, "index": index, "src_sizes": src._data.shape})
    return make(SCATTER_VALUE, out, (input,), attrs={"dim": d, "index": index})


@op("scatter_not_implemented", "NotImplemented", ("self", "src"),
    vjp={"self": "not implemented", "src": "not implemented"}, local={"self": "-", "src": "-"})
def SCATTER_NOT_IMPL(ctx, g):
    raise RuntimeError("derivative for aten::scatter is not implemented")


@export(tensor=("scatter_",))
def scatter_(self, dim, index, src=None, *, value=None, reduce=None):
    check_inplace(self)
    return commit_inplace(self, scatter(self, dim, index, src, value=value, reduce=reduce))


@op("scatter_add", "ScatterAddBackward0", ("self", "src"), vjp={"self": "grad", "src": "grad.gather(dim, index)"},
    local={"self": "1", "src": "1 at each written position"})
def SCATTER_ADD(ctx, g):
    gv = _pad_to(gather(g, ctx.dim, ctx.index), ctx.src_sizes) if ctx.needs(1) else None
    return (g if ctx.needs(0) else None), gv


@export(torch=("scatter_add",), tensor=("scatter_add",))
@tensor_params('index', 'src')
def scatter_add(input, dim, index, src):
    """``out = input.clone(); out[index[i][j]][j] += src[i][j]`` (dim 0) ...: repeated
    indices add up (ScatterAddBackward0)."""
    x = input._data
    d = wrap_dim(dim, x.ndim)
    idx = _index_arr(index, "scatter_add")
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_add(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")
    if src._dtype is not input._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    _check_scatter(x, idx, d, src._data.shape)
    out = x.copy()
    np.add.at(out, _along(idx, d) if x.ndim else (), _src_part(src._data, idx))
    return make(SCATTER_ADD, out, (input, src), attrs={"dim": d, "index": index, "src_sizes": src._data.shape})


@export(tensor=("scatter_add_",))
def scatter_add_(self, dim, index, src):
    check_inplace(self)
    return commit_inplace(self, scatter_add(self, dim, index, src))


_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


@op("scatter_reduce", "ScatterReduceBackward0", ("self", "src"),
    vjp={"self": "sum/mean: grad (/ count); amax/amin: grad where self equals the result, split among ties; "
                 "prod: grad * result / self",
         "src": "the same rule for src, gathered at index"},
    local={"self": "reduction-dependent", "src": "reduction-dependent"})
def SCATTER_REDUCE(ctx, g):
    from .unary import masked_fill
    dim, index, red = ctx.dim, ctx.index, ctx.reduce
    self_t, src_t = ctx.self, ctx.src
    result = ctx.result
    gs = gv = None
    if red == "sum":
        gs = g if ctx.include_self else masked_fill(g, ctx.written, 0.0)
        gv = gather(g, dim, index)
    elif red == "mean":
        n = ctx.count
        gs = g / n
        if not ctx.include_self:
            gs = masked_fill(gs, ctx.written, 0.0)
        gv = gather(g / n, dim, index)
    elif red in ("amax", "amin"):
        eq_self = (self_t == result)
        if not ctx.include_self:
            eq_self = eq_self & Tensor._make(~ctx.written._data)
        eq_src = (src_t_part(src_t, index) == gather(result, dim, index))
        z = Tensor._make(np.zeros(result._data.shape, dtype=g._data.dtype))
        cnt = scatter_add(eq_self.to(g._dtype), dim, index, eq_src.to(g._dtype))
        share = g / cnt.clamp(min=1)
        gs = share * eq_self.to(g._dtype)
        gv = gather(share, dim, index) * eq_src.to(g._dtype)
        del z
    else:  # prod (inputs without zeros)
        gs = g * result / self_t
        if not ctx.include_self:
            gs = masked_fill(g, ctx.written, 0.0)
        gv = gather(g * result, dim, index) / src_t_part(src_t, index)
    if gv is not None:
        gv = _pad_to(gv, ctx.src_sizes)
    return (gs if ctx.needs(0) else None), (gv if ctx.needs(1) else None)


def src_t_part(src: Tensor, index: Tensor) -> Tensor:
    if tuple(src._data.shape) == tuple(index._data.shape):
        return src
    from .indexing import take
    return take(src, tuple(slice(0, n) for n in index._data.shape))


@export(torch=("scatter_reduce",), tensor=("scatter_reduce",))
@tensor_params('index', 'src')
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    """Reduce ``src`` into ``input`` at ``index`` along ``dim`` with ``reduce`` (sum, prod,
    mean, amax, amin); ``include_self=False`` leaves input's own values out where written
    (ScatterReduceBackward0; mean of integers floors, as torch)."""
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    x = input._data
    d = wrap_dim(dim, x.ndim)
    idx = _index_arr(index, "scatter_reduce")
    if src._dtype is not input._dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    _check_scatter(x, idx, d, src._data.shape)
    key = _along(idx, d) if x.ndim else ()
    vals = _src_part(src._data, idx)
    written = np.zeros(x.shape, dtype=bool)
    written[key] = True
    out = x.copy()
    if not include_self:
        init = {"sum": 0, "mean": 0, "prod": 1}.get(reduce)
        if init is None:
            init = (-np.inf if reduce == "amax" else np.inf) if x.dtype.kind == "f" else \
                (np.iinfo(x.dtype).min if reduce == "amax" else np.iinfo(x.dtype).max)
        out[written] = init
    ufunc = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}[reduce]
    ufunc.at(out, key, vals)
    count = None
    if reduce == "mean":
        cnt = np.zeros(x.shape, dtype=np.int64)
        np.add.at(cnt, key, 1)
        cnt = cnt + (1 if include_self else 0)
        cnt = np.maximum(cnt, 1)
        out = (out / cnt).astype(x.dtype) if x.dtype.kind == "f" else (out // cnt).astype(x.dtype)
        count = Tensor._make(cnt.astype(x.dtype if x.dtype.kind == "f" else np.float32))
    from . import RESULT
    return make(SCATTER_REDUCE, out, (input, src),
                save={"self": input, "src": src, "result": RESULT},
                attrs={"dim": d, "index": index, "reduce": reduce, "include_self": include_self,
                       "written": Tensor._make(written), "count": count, "src_sizes": src._data.shape})


@export(tensor=("scatter_reduce_",))
def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    check_inplace(self)
    return commit_inplace(self, scatter_reduce(self, dim, index, src, reduce, include_self=include_self))


# -- index_add / index_fill -------------------------------------------------------------------


def _index_1d(index, fn):
    idx = _index_arr(index, fn)
    if idx.ndim > 1:
        raise IndexError(f"{fn}_(): Index is supposed to be a vector")
    return idx.reshape(-1)


@op("index_add", "IndexAddBackward0", ("self", "source"),
    vjp={"self": "grad", "source": "grad.index_select(dim, index) * alpha"},
    local={"self": "1", "source": "alpha at each indexed slice"})
def INDEX_ADD(ctx, g):
    gv = None
    if ctx.needs(1):
        from .indexing import index_select
        gv = index_select(g, ctx.dim, ctx.index)
        if ctx.alpha != 1:
            gv = gv * ctx.alpha
        if gv._data.shape != tuple(ctx.source_sizes):
            gv = gv.reshape(ctx.source_sizes)
    return (g if ctx.needs(0) else None), gv


@export(torch=("index_add",), tensor=("index_add",))
@tensor_params('index', 'source')
def index_add(input, dim, index, source, *, alpha=1):
    """``out = input.clone(); out.select(dim, index[i]) += alpha * source.select(dim, i)``
    (IndexAddBackward0; repeated indices add up)."""
    x = input._data
    d = wrap_dim(dim, x.ndim)
    idx = _index_1d(index, "index_add")
    if source._dtype is not input._dtype:
        raise RuntimeError(f"index_add_(): self ({input._dtype.legacy[:-6]}) and source "
                           f"({source._dtype.legacy[:-6]}) must have the same scalar type")
    size = x.shape[d] if x.ndim else 1
    s = source._data if source._data.ndim else source._data.reshape(1)
    xs = x if x.ndim else x.reshape(1)
    if s.shape[d] != idx.size:
        raise RuntimeError(f"index_add_(): Number of indices ({idx.size}) should be equal to source.size(dim): "
                           f"({s.shape[d]}), for dim: {d}")
    _bounds(idx, size, d)
    out = xs.copy()
    key = (slice(None),) * d + (idx,)
    np.add.at(out, key, s * x.dtype.type(alpha))
    return make(INDEX_ADD, out.reshape(x.shape), (input, source),
                attrs={"dim": d, "index": Tensor._make(idx), "alpha": alpha, "source_sizes": source._data.shape})


@export(tensor=("index_add_",))
def index_add_(self, dim, index, source, *, alpha=1):
    check_inplace(self)
    return commit_inplace(self, index_add(self, dim, index, source, alpha=alpha))


@op("index_fill", "IndexFillBackward0", ("self",), vjp={"self": "grad.index_fill(dim, index, 0)"},
    local={"self": "0 in the filled slices, 1 elsewhere"})
def INDEX_FILL(ctx, g):
    return (index_fill(g, ctx.dim, ctx.index, 0.0),)


@export(torch=("index_fill",), tensor=("index_fill",))
@tensor_params('index')
def index_fill(input, dim, index, value):
    """Fill the slices ``index`` along ``dim`` with ``value`` (IndexFillBackward0)."""
    x = input._data
    d = wrap_dim(dim, x.ndim)
    idx = _index_1d(index, "index_fill")
    try:
        _bounds(idx, x.shape[d] if x.ndim else 1, d)
    except RuntimeError as e:
        raise IndexError(str(e)) from None
    v = value.item() if isinstance(value, Tensor) else value
    out = x.copy()
    key = (slice(None),) * d + (idx,)
    if x.ndim:
        out[key] = v
    elif idx.size:
        out[...] = v
    return make(INDEX_FILL, out, (input,), attrs={"dim": d, "index": Tensor._make(idx)})


@export(tensor=("index_fill_",))
def index_fill_(self, dim, index, value):
    check_inplace(self)
    return commit_inplace(self, index_fill(self, dim, index, value))


# -- masked_select / masked_scatter / take ---------------------------------------------------


def _mask_arr(mask, fn):
    if not isinstance(mask, Tensor):
        raise TypeError(f"{fn}(): argument 'mask' (position 1) must be Tensor, not {type(mask).__name__}")
    if mask._dtype is not dtypes.bool_:
        raise RuntimeError(f"{fn}: expected BoolTensor for mask")
    return mask._data


@op("masked_select", "MaskedSelectBackward0", ("self",),
    vjp={"self": "zeros(self.sizes()).masked_scatter(mask, grad)"}, local={"self": "1 where mask"})
def MASKED_SELECT(ctx, g):
    from .shape import sum_to
    z = Tensor._make(np.zeros(ctx.full_shape, dtype=g._data.dtype))
    full = masked_scatter(z, Tensor._make(ctx.mask_full), g)
    return (sum_to(full, ctx.self_sym_sizes),)


@export(torch=("masked_select",), tensor=("masked_select",))
@tensor_params('mask')
def masked_select(input, mask):
    """The elements where ``mask`` (bool, broadcast with input) is True, as a 1-d tensor."""
    m = _mask_arr(mask, "masked_select")
    from .errors import broadcast_shapes
    shape = broadcast_shapes(input._data.shape, m.shape)
    xb = np.broadcast_to(input._data, shape)
    mb = np.broadcast_to(m, shape)
    return make(MASKED_SELECT, xb[mb].copy(), (input,),
                attrs={"self_sym_sizes": input._data.shape, "full_shape": shape, "mask_full": mb.copy()})


@op("masked_scatter", "MaskedScatterBackward0", ("self", "source"),
    vjp={"self": "grad.masked_fill(mask, 0)", "source": "grad.masked_select(mask), zero-padded to source's shape"},
    local={"self": "0 where mask, 1 elsewhere", "source": "1 for the first mask.sum() elements"})
def MASKED_SCATTER(ctx, g):
    from .unary import masked_fill
    gs = masked_fill(g, ctx.mask, 0.0) if ctx.needs(0) else None
    gv = None
    if ctx.needs(1):
        sel = masked_select(g, ctx.mask)
        n = int(np.prod(ctx.source_sizes, dtype=np.int64))
        from .indexing import embed
        gv = embed(sel, (n,), (slice(0, sel._data.size),)).reshape(ctx.source_sizes)
    return gs, gv


@export(torch=("masked_scatter",), tensor=("masked_scatter",))
@tensor_params('mask', 'source')
def masked_scatter(input, mask, source):
    """Copy ``source``'s elements, in order, into the positions where ``mask`` is True
    (MaskedScatterBackward0)."""
    m = _mask_arr(mask, "masked_scatter_")
    mb = np.broadcast_to(m, input._data.shape)
    n = int(mb.sum())
    if source._data.size < n:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if source._dtype is not input._dtype:
        raise RuntimeError(f"masked_scatter_: expected self and source to have same dtypes but got "
                           f"{input._dtype.legacy[:-6]} and {source._dtype.legacy[:-6]}")
    out = input._data.copy()
    out[mb] = source._data.reshape(-1)[:n]
    return make(MASKED_SCATTER, out, (input, source),
                attrs={"mask": Tensor._make(mb.copy()), "source_sizes": source._data.shape})


@export(tensor=("masked_scatter_",))
def masked_scatter_(self, mask, source):
    check_inplace(self)
    return commit_inplace(self, masked_scatter(self, mask, source))


@op("take_flat", "TakeBackward0", ("self",), vjp={"self": "zeros(self.sizes()).put_(index, grad, accumulate=True)"},
    local={"self": "1 at each taken element (repeats add up)"})
def TAKE_FLAT(ctx, g):
    from .indexing import embed
    n = int(np.prod(ctx.self_sym_sizes, dtype=np.int64))
    return (embed(g.reshape(-1), (n,), (ctx.flat,), accumulate=True).reshape(ctx.self_sym_sizes),)


@export(torch=("take",), tensor=("take",))
@tensor_params('index')
def take(input, index):
    """``input.flatten()[index]`` with index's shape (TakeBackward0)."""
    idx = _index_arr(index, "take")
    n = input._data.size
    if idx.size:
        bad = idx[(idx < -n) | (idx >= n)]
        if bad.size:
            raise IndexError(f"out of range: tried to access index {int(bad.flat[0])} on a tensor of {n} elements.")
    flat = np.where(idx < 0, idx + n, idx)
    return make(TAKE_FLAT, input._data.reshape(-1)[flat], (input,),
                attrs={"self_sym_sizes": input._data.shape, "flat": flat.reshape(-1)})
