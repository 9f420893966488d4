"""Order statistics and predicates: ``sort``, ``argsort``, ``topk``, ``kthvalue``,
``median``/``nanmedian``, ``cummax``/``cummin``, ``any``/``all``, ``nonzero``.

Values and int64 indices as torch 2.13 on CPU (ties keep their original order; NaN
counts as the largest value); the gradient goes to the selected positions
(``zeros.scatter(dim, indices, grad)``, derivatives.yaml's value_selecting_reduction_backward).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .. import dtypes
from ..resources import check_sort
from ..tensor import Tensor, wrap_dim
from . import RESULT, export, make, make_multi, op
from .errors import check_empty_reduction
from .selection import MAX_EMULATED, kthvalue_row, mode_row, topk_row

_sort_ret = namedtuple("sort", ["values", "indices"])
_topk_ret = namedtuple("topk", ["values", "indices"])
_kth_ret = namedtuple("kthvalue", ["values", "indices"])
_median_ret = namedtuple("median", ["values", "indices"])
_nanmedian_ret = namedtuple("nanmedian", ["values", "indices"])
_cummax_ret = namedtuple("cummax", ["values", "indices"])
_cummin_ret = namedtuple("cummin", ["values", "indices"])
_mode_ret = namedtuple("mode", ["values", "indices"])
def _return_repr(self) -> str:
    return f"torch.return_types.{type(self).__name__}(\nvalues={self[0]!r},\nindices={self[1]!r})"


for _t in (_sort_ret, _topk_ret, _kth_ret, _median_ret, _nanmedian_ret, _cummax_ret, _cummin_ret, _mode_ret):
    _t._script_attrs = frozenset({"values", "indices"})
    _t.__module__ = "torch.return_types"
    _t.__repr__ = _t.__str__ = _return_repr


def _order(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Stable argsort along ``axis``; NaN is the largest value (first when descending).
    Refused over the work limit before it starts (one numpy sort cannot be interrupted)."""
    check_sort(x.size, along=x.shape[axis] if x.ndim else 1)
    if x.dtype.kind == "b":
        x = x.astype(np.int8)
    if descending:
        if x.dtype.kind == "f":
            key = np.where(np.isnan(x), -np.inf, -x)
            # -x maps the largest first; NaN must come before +inf
            order = np.lexsort((key, ~np.isnan(x)), axis=axis) if x.ndim else np.zeros((), np.int64)
            return order
        if x.dtype.kind == "u":
            x = x.astype(np.int64)
        return np.argsort(-x, axis=axis, kind="stable")
    return np.argsort(x, axis=axis, kind="stable")


def _distinct(row: np.ndarray) -> bool:
    return np.unique(row).size == row.size


def _tied_rows(x: np.ndarray, d: int, idx: np.ndarray, numpy_ok, emulate) -> np.ndarray:
    """``idx`` (indices along ``d`` from a stable order) with the rows where the order
    of ties matters recomputed by ``emulate(row values) -> indices`` (torch's CPU
    algorithm, :mod:`.selection`); ``numpy_ok(row, n)`` says a row needs no emulation."""
    xm = np.moveaxis(x, d, -1)
    n = xm.shape[-1]
    rows = xm.reshape(-1, n)
    im = np.moveaxis(idx, d, -1).copy()
    flat = im.reshape(-1, im.shape[-1])
    budget = MAX_EMULATED
    for r in range(rows.shape[0]):
        if numpy_ok(rows[r], n):
            continue
        budget -= n
        if budget < 0:
            break
        flat[r] = emulate(rows[r].tolist())
    return np.moveaxis(flat.reshape(im.shape), -1, d)


def _scatter_back(g: Tensor, dim: int, indices: Tensor, shape, keepdim: bool = True) -> Tensor:
    """zeros(shape).scatter(dim, indices, grad) (unsqueezed first when not keepdim)."""
    from .scatter import scatter
    if not len(shape):
        return g.reshape(())
    if not keepdim:
        g = g.unsqueeze(dim)
        indices = Tensor._make(np.expand_dims(indices._data, dim))
    z = Tensor._make(np.zeros(shape, dtype=g._data.dtype))
    return scatter(z, dim, indices, g)


def _select_op(name, node, what):
    def backward(ctx, grads):
        g = grads[0]
        if g is None:
            g = Tensor._make(np.zeros(ctx.out_meta[0][0], dtype=ctx.out_meta[0][1].np))
        return (_scatter_back(g, ctx.dim, ctx.indices, ctx.self_sym_sizes, ctx.keepdim),)
    return op(name, node, ("self",), vjp={"self": "zeros(self.sizes()).scatter(dim, indices, grad)"},
              local={"self": f"1 at the {what}, 0 elsewhere"})(backward)


SORT = _select_op("sort", "SortBackward0", "position each value came from")
TOPK = _select_op("topk", "TopkBackward0", "k selected positions")
KTHVALUE = _select_op("kthvalue", "KthvalueBackward0", "k-th smallest")
MEDIAN_DIM = _select_op("median_dim", "MedianBackward1", "median")
NANMEDIAN_DIM = _select_op("nanmedian_dim", "NanmedianBackward1", "median of the non-nan values")
MODE = _select_op("mode", "ModeBackward0", "position of the most frequent value")
CUMMAX = _op = op("cummax", "CummaxBackward0", ("self",),
                  vjp={"self": "zeros(self.sizes()).scatter_add(dim, indices, grad)"},
                  local={"self": "1 at the running maximum's position"})(
    lambda ctx, grads: (_cum_back(grads[0], ctx),))
CUMMIN = op("cummin", "CumminBackward0", ("self",),
            vjp={"self": "zeros(self.sizes()).scatter_add(dim, indices, grad)"},
            local={"self": "1 at the running minimum's position"})(lambda ctx, grads: (_cum_back(grads[0], ctx),))


def _cum_back(g, ctx):
    from .scatter import scatter_add
    if g is None:
        g = Tensor._make(np.zeros(ctx.out_meta[0][0], dtype=ctx.out_meta[0][1].np))
    if not len(ctx.self_sym_sizes):
        return g
    z = Tensor._make(np.zeros(ctx.self_sym_sizes, dtype=g._data.dtype))
    return scatter_add(z, ctx.dim, ctx.indices, g)


def _pair(op_, values, idx, input, attrs, ret):
    vals, inds = make_multi(op_, [values, idx.astype(np.int64)], (input,), attrs=attrs,
                            differentiable=(True, False))
    if vals.grad_fn is not None:
        vals.grad_fn.attrs["indices"] = inds
    return ret(vals, inds)


@export(torch=("sort",), tensor=("sort",))
def sort(input, dim=-1, descending=False, stable=False):
    """(values, indices) sorted along ``dim`` (SortBackward0)."""
    x = input._data
    d = wrap_dim(dim, x.ndim)
    if x.ndim == 0:
        return _pair(SORT, x.copy(), np.zeros((), np.int64), input,
                     {"dim": 0, "self_sym_sizes": x.shape, "keepdim": True}, _sort_ret)
    idx = _order(x, d, descending)
    return _pair(SORT, np.take_along_axis(x, idx, d), idx, input,
                 {"dim": d, "self_sym_sizes": x.shape, "keepdim": True}, _sort_ret)


@export(torch=("argsort",), tensor=("argsort",))
def argsort(input, dim=-1, descending=False, stable=False):
    """The int64 indices that sort ``input`` along ``dim`` (no gradient)."""
    x = input._data
    if x.ndim == 0:
        return Tensor._make(np.zeros((), np.int64))
    return Tensor._make(_order(x, wrap_dim(dim, x.ndim), descending).astype(np.int64))


@export(torch=("topk",), tensor=("topk",))
def topk(input, k, dim=-1, largest=True, sorted=True):
    """The ``k`` largest (or smallest) values along ``dim`` and their indices (TopkBackward0)."""
    x = input._data
    d = wrap_dim(dim, x.ndim)
    n = x.shape[d] if x.ndim else 1
    if not 0 <= k <= n:
        raise RuntimeError("selected index k out of range")
    if x.ndim == 0:
        return _pair(TOPK, x.copy(), np.zeros((), np.int64), input,
                     {"dim": 0, "self_sym_sizes": x.shape, "keepdim": True}, _topk_ret)
    idx = np.take(_order(x, d, largest), np.arange(k), axis=d)
    if k:
        idx = _tied_rows(x, d, idx, lambda row, n: (sorted or k * 64 <= n) and _distinct(row),
                         lambda row: topk_row(row, k, largest, sorted))
    return _pair(TOPK, np.take_along_axis(x, idx, d), idx, input,
                 {"dim": d, "self_sym_sizes": x.shape, "keepdim": True}, _topk_ret)


@export(torch=("kthvalue",), tensor=("kthvalue",))
def kthvalue(input, k, dim=-1, keepdim=False):
    """The ``k``-th smallest value along ``dim`` (1-based) and its index (KthvalueBackward0)."""
    x = input._data
    d = wrap_dim(dim, x.ndim)
    check_empty_reduction(x.shape, "kthvalue", d)
    n = x.shape[d] if x.ndim else 1
    if not 1 <= k <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if x.ndim == 0:
        return _pair(KTHVALUE, x.copy(), np.zeros((), np.int64), input,
                     {"dim": 0, "self_sym_sizes": x.shape, "keepdim": True}, _kth_ret)
    idx = np.take(_order(x, d, False), [k - 1], axis=d)
    idx = _tied_rows(x, d, idx, lambda row, n: _distinct(row), lambda row: [kthvalue_row(row, k)])
    vals = np.take_along_axis(x, idx, d)
    if not keepdim:
        idx, vals = np.squeeze(idx, d), np.squeeze(vals, d)
    return _pair(KTHVALUE, vals, idx, input, {"dim": d, "self_sym_sizes": x.shape, "keepdim": keepdim}, _kth_ret)


@op("median", "MedianBackward0", ("self",),
    vjp={"self": "zeros_like(self).masked_fill(self == result, grad / count(self == result))  (nan: at the nan elements)"},
    local={"self": "1/k at each of the k elements equal to the median"})
def MEDIAN(ctx, g):
    from .reduce import _evenly_distribute
    return _evenly_distribute(ctx, g)


@op("nanmedian", "NanmedianBackward0", ("self",),
    vjp={"self": "zeros_like(self).masked_fill(self == result, grad / count(self == result))  (nan: at the nan elements)"},
    local={"self": "1/k at each of the k elements equal to the median"})
def NANMEDIAN(ctx, g):
    from .reduce import _evenly_distribute
    return _evenly_distribute(ctx, g)


def _median(input, dim, keepdim, ignore_nan):
    """torch 2.13's CPU median/nanmedian: the lower median of a stable order in which nan
    is the largest value (its nth_element breaks ties by index). ``median`` is nan when
    there is a nan; ``nanmedian`` takes the median of the non-nan values (position
    ``(count - 1) / 2`` truncated as C does: nan, index 0, when all are nan)."""
    x = input._data
    if x.dtype == np.bool_ and (dim is not None or x.size):
        raise NotImplementedError(f'"{"median_cpu" if dim is None else "median_out"}" not implemented for \'Bool\'')
    isnan = np.isnan(x) if x.dtype.kind == "f" else None
    if dim is None:
        check_sort(x.size)
        flat = np.sort(x.reshape(-1), kind="stable")
        if flat.size == 0:  # torch fills the result with nan, cast to the dtype
            v = np.nan if x.dtype.kind == "f" else True if x.dtype == np.bool_ else np.iinfo(np.int64).min
        else:
            nans = int(np.count_nonzero(np.isnan(flat))) if isnan is not None else 0
            if ignore_nan:
                v = flat[int((flat.size - nans - 1) / 2)]
            else:
                v = flat[-1] if nans else flat[(flat.size - 1) // 2]
        return make(NANMEDIAN if ignore_nan else MEDIAN, np.array(v, dtype=x.dtype), (input,),
                    save={"self": input, "result": RESULT})
    op_, ret = (NANMEDIAN_DIM, _nanmedian_ret) if ignore_nan else (MEDIAN_DIM, _median_ret)
    d = wrap_dim(dim, x.ndim)
    check_empty_reduction(x.shape, "median", d)
    if x.ndim == 0:
        return _pair(op_, x.copy(), np.zeros((), np.int64), input,
                     {"dim": 0, "self_sym_sizes": x.shape, "keepdim": True}, ret)
    n = x.shape[d]
    order = _order(x, d, False)
    if isnan is not None and ignore_nan:
        count = n - np.count_nonzero(isnan, axis=d, keepdims=True)
        idx = np.take_along_axis(order, np.trunc((count - 1) / 2).astype(np.int64), axis=d)
    else:
        idx = np.take(order, [(n - 1) // 2], axis=d)
    if isnan is not None and not ignore_nan:
        has_nan = isnan.any(axis=d, keepdims=True)
        first_nan = np.expand_dims(np.argmax(isnan, axis=d), d)
        idx = np.where(has_nan, first_nan, idx)
    vals = np.take_along_axis(x, idx, d)
    if not keepdim:
        idx, vals = np.squeeze(idx, d), np.squeeze(vals, d)
    return _pair(op_, vals, idx, input, {"dim": d, "self_sym_sizes": x.shape, "keepdim": keepdim}, ret)


@export(torch=("median",), tensor=("median",))
def median(input, dim=None, keepdim=False):
    """``median()``: the lower median of all elements, nan if there is one (MedianBackward0:
    ties share the gradient, the nan elements when it is nan); ``median(dim)``: (values,
    indices) along ``dim`` (MedianBackward1, the gradient to the index)."""
    return _median(input, dim, keepdim, False)


@export(torch=("nanmedian",), tensor=("nanmedian",))
def nanmedian(input, dim=None, keepdim=False):
    """:func:`median` of the non-nan values (NanmedianBackward0 / NanmedianBackward1):
    nan only where every value is nan."""
    return _median(input, dim, keepdim, True)


_aminmax_ret = namedtuple("aminmax", ["min", "max"])
_aminmax_ret._script_attrs = frozenset({"min", "max"})
_aminmax_ret.__module__ = "torch.return_types"
_aminmax_ret.__repr__ = _aminmax_ret.__str__ = \
    lambda self: f"torch.return_types.aminmax(\nmin={self[0]!r},\nmax={self[1]!r})"


@op("aminmax", "AminmaxBackward0", ("self",),
    vjp={"self": "grad_min spread evenly over the minima + grad_max spread evenly over the maxima"},
    local={"self": "1/k at each of the k minimal (maximal) elements"})
def AMINMAX(ctx, grads):
    x = ctx.self
    out = None
    for g, v in zip(grads, (ctx.result0, ctx.result1)):
        if g is None:
            continue
        if ctx.dim is not None and not ctx.keepdim:
            g, v = g.unsqueeze(ctx.dim), v.unsqueeze(ctx.dim)
        mask = (x == v).to(g.dtype)
        count = mask.sum() if ctx.dim is None else mask.sum(ctx.dim, keepdim=True)
        part = mask * (g / count)
        out = part if out is None else out + part
    return (out,)


@export(torch=("aminmax",), tensor=("aminmax",))
def aminmax(input, *, dim=None, keepdim=False):
    """(min, max) of all elements, or along ``dim`` (AminmaxBackward0: each gradient is
    shared evenly among the tied extremes, as amin/amax)."""
    x = input._data
    d = None if dim is None else wrap_dim(dim, max(x.ndim, 1))
    if x.size == 0 or (d is not None and x.ndim and x.shape[d] == 0):
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity.")
    if d is None:
        lo, hi = np.min(x), np.max(x)
        if keepdim:
            lo, hi = np.full((1,) * x.ndim, lo), np.full((1,) * x.ndim, hi)
    else:
        xx = x if x.ndim else x.reshape(1)
        lo, hi = np.min(xx, axis=d, keepdims=keepdim), np.max(xx, axis=d, keepdims=keepdim)
        if not x.ndim:
            lo, hi = lo.reshape(()), hi.reshape(())
    mn, mx = make_multi(AMINMAX, [np.asarray(lo, dtype=x.dtype), np.asarray(hi, dtype=x.dtype)], (input,),
                        save={"self": input}, attrs={"dim": d if x.ndim else None, "keepdim": keepdim})
    node = mn.grad_fn
    if node is not None:
        node.attrs["result0"], node.attrs["result1"] = mn.detach(), mx.detach()
    return _aminmax_ret(mn, mx)


@export(torch=("mode",), tensor=("mode",))
def mode(input, dim=-1, keepdim=False):
    """The most frequent value along ``dim`` (the smallest among equally frequent ones)
    and an index of it, the one torch's CPU kernel reports (ModeBackward0)."""
    x = input._data
    d = wrap_dim(dim, max(x.ndim, 1))
    check_empty_reduction(x.shape, "mode", d)
    if x.ndim == 0:
        return _pair(MODE, x.copy(), np.zeros((), np.int64), input,
                     {"dim": 0, "self_sym_sizes": x.shape, "keepdim": True}, _mode_ret)
    xm = np.moveaxis(x, d, -1)
    rows = xm.reshape(-1, xm.shape[-1])
    vals = np.empty(rows.shape[0], dtype=x.dtype)
    inds = np.empty(rows.shape[0], dtype=np.int64)
    emulate = rows.size <= MAX_EMULATED
    for r in range(rows.shape[0]):
        if emulate:
            vals[r], inds[r] = mode_row(rows[r].tolist())
            continue
        order = np.argsort(rows[r], kind="stable")  # past the budget: a stable order
        u, start, counts = np.unique(rows[r][order], return_index=True, return_counts=True)
        best = int(np.argmax(counts))
        vals[r], inds[r] = u[best], order[start[best] + counts[best] - 1]
    shape = xm.shape[:-1]
    vals, inds = vals.reshape(shape), inds.reshape(shape)
    if keepdim:
        vals, inds = np.expand_dims(vals, d), np.expand_dims(inds, d)
    return _pair(MODE, vals, inds, input, {"dim": d, "self_sym_sizes": x.shape, "keepdim": keepdim}, _mode_ret)


def _cum(input, dim, better, op_, ret):
    x = input._data
    d = wrap_dim(dim, x.ndim)
    if x.ndim == 0 or x.size == 0:
        return _pair(op_, x.copy(), np.zeros(x.shape, np.int64), input, {"dim": d, "self_sym_sizes": x.shape}, ret)
    xm = np.moveaxis(x, d, -1)
    vals = np.empty_like(xm)
    idx = np.empty(xm.shape, dtype=np.int64)
    best = xm[..., 0].copy()
    bi = np.zeros(best.shape, dtype=np.int64)
    for i in range(xm.shape[-1]):
        cur = xm[..., i]
        take = better(cur, best) | (cur == best)
        if x.dtype.kind == "f":
            take = take | np.isnan(cur)
            take = take & ~(np.isnan(best) & ~np.isnan(cur))
        best = np.where(take, cur, best)
        bi = np.where(take, i, bi)
        vals[..., i] = best
        idx[..., i] = bi
    return _pair(op_, np.moveaxis(vals, -1, d), np.moveaxis(idx, -1, d), input,
                 {"dim": d, "self_sym_sizes": x.shape}, ret)


@export(torch=("cummax",), tensor=("cummax",))
def cummax(input, dim):
    """Running maximum along ``dim`` and the index where it was reached (the last of equal
    values; CummaxBackward0)."""
    return _cum(input, dim, np.greater, CUMMAX, _cummax_ret)


@export(torch=("cummin",), tensor=("cummin",))
def cummin(input, dim):
    return _cum(input, dim, np.less, CUMMIN, _cummin_ret)


# -- predicates ---------------------------------------------------------------------------


def _reduce_bool(fn, name):
    def reduce(input, dim=None, keepdim=False, *, out=None):
        x = input._data
        out_dtype = np.uint8 if x.dtype == np.uint8 else np.bool_
        if dim is None:  # every dim; keepdim keeps them as size 1, as torch's dim overload
            r = np.asarray(fn(x != 0)).astype(out_dtype)
            return Tensor._make(r.reshape((1,) * x.ndim) if keepdim else r)
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        axes = tuple(wrap_dim(d, x.ndim) for d in dims) if x.ndim else ()
        if not axes:
            return Tensor._make(np.asarray(x != 0).astype(out_dtype))
        return Tensor._make(np.asarray(fn(x != 0, axis=axes, keepdims=keepdim)).astype(out_dtype))
    reduce.__name__ = name
    reduce.__doc__ = (f"``{name}()``: whether {'any element is' if name == 'any' else 'all elements are'} nonzero "
                      f"(over ``dim`` when given; bool, uint8 for uint8 input). No gradient.")
    return reduce


any_ = export(torch=("any",), tensor=("any",), name="any")(_reduce_bool(np.any, "any"))
all_ = export(torch=("all",), tensor=("all",), name="all")(_reduce_bool(np.all, "all"))


@export(torch=("nonzero",), tensor=("nonzero",))
def nonzero(input, *, as_tuple=False):
    """Indices of the nonzero elements: an (n, ndim) int64 tensor, or one 1-d tensor per
    dim with ``as_tuple=True``."""
    x = input._data
    if as_tuple:
        if x.ndim == 0:
            return (Tensor._make(np.nonzero(np.atleast_1d(x))[0].astype(np.int64)),)
        return tuple(Tensor._make(i.astype(np.int64)) for i in np.nonzero(x))
    if x.ndim == 0:
        return Tensor._make(np.zeros((1 if x != 0 else 0, 0), dtype=np.int64))
    return Tensor._make(np.argwhere(x).astype(np.int64))


@export(torch=("count_nonzero",), tensor=("count_nonzero",))
def count_nonzero(input, dim=None):
    x = input._data
    if dim is None:
        return Tensor._make(np.array(np.count_nonzero(x), dtype=np.int64))
    return Tensor._make(np.asarray(np.count_nonzero(x, axis=wrap_dim(dim, x.ndim))).astype(np.int64))
