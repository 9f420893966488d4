"""Reductions: sum, mean, max/min (full and along a dim), amax/amin, norm.

Gradients of reductions are spread back over the reduced elements: ``sum`` copies the
gradient to every element, ``mean`` divides it by their count, ``max``/``min``/``amax``
over all elements split it evenly among tied extrema (torch 2.13), while ``max(dim)``
sends it to the one index it returned. ``norm`` at 0 has a 0 gradient (PyTorch's
choice, not nan).
"""

from __future__ import annotations

from collections import namedtuple
from types import MappingProxyType

import numpy as np

from .. import dtypes
from ..tensor import Tensor, wrap_dim
from . import RESULT, export, make, make_multi, op
from .accumulate import cumulative, vector_norm
from .errors import check_empty_reduction
from .shape import expand_grad
from .summation import small_sum, torch_sum


class _All:
    """The default ``dim`` of sum and mean: not given (torch's overload without dim), told
    apart from an explicit None."""

    __slots__ = ()

    def __repr__(self):
        return "None"


ALL = _All()


def _dims(dim, ndim):
    """Normalised tuple of reduced dims (None: all)."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        if len(dim) == 0:
            return None
        dims = {wrap_dim(d, ndim) for d in dim}
        if len(dims) != len(dim):
            _repeated_dim(dim, ndim)
        return tuple(sorted(dims)) if ndim else ()
    d = wrap_dim(dim, ndim)
    return (d,) if ndim else ()  # a 0-d tensor reduces over dim 0 / -1 to itself


def _repeated_dim(dim, ndim):
    seen = set()
    for d in dim:
        w = wrap_dim(d, ndim)
        if w in seen:
            raise RuntimeError(f"dim {w} appears multiple times in the list of dims")
        seen.add(w)


def expand_back(g: Tensor, shape, dims, keepdim) -> Tensor:
    """Undo a reduction's shape change on the gradient: unsqueeze the reduced dims (when
    keepdim was False) and expand to the input's ``shape``."""
    if dims is not None and not keepdim and len(shape):
        kept = list(shape)
        for d in dims:
            kept[d] = 1
        g = g.reshape(tuple(kept))
    elif dims is None and g.ndim != len(shape):
        g = g.reshape((1,) * len(shape))
    return g.expand(tuple(shape))


@op("sum", "SumBackward0", ("self",), vjp={"self": "grad.expand(self.sizes())"}, local={"self": "1"})
def SUM(ctx, g):
    return (expand_grad(g, ctx.node.attrs["self_sym_sizes"]),)  # ctx.self_sym_sizes: sum saves no tensors


@op("sum_dim", "SumBackward1", ("self",),
    vjp={"self": "grad (unsqueezed at dim unless keepdim).expand(self.sizes())"}, local={"self": "1"})
def SUM_DIM(ctx, g):
    return (expand_back(g, ctx.self_sym_sizes, ctx.dim, ctx.keepdim),)


def _acc_dtype(x: Tensor, dtype):
    if dtype is not None:
        return dtype
    if x._dtype.category != dtypes.FLOAT:
        return dtypes.int64
    return x._dtype


@export(torch=("sum",), tensor=("sum",))
def sum(input, dim=ALL, keepdim=False, *, dtype=None):
    """Sum of all elements (SumBackward0) or over ``dim`` (SumBackward1). Integer and
    bool tensors sum to int64, as in PyTorch. A ``dim`` given as None or ``()`` takes
    torch's dim overload: every dim, SumBackward1, ``keepdim`` kept."""
    dt = _acc_dtype(input, dtype)
    x = input._data
    if dim is ALL:
        out = small_sum(x) if dtype is None else None
        if out is None:
            out = torch_sum(x, dtype=dt.np)
        return make(SUM, out, (input,), attrs=_sizes_attrs(x.shape), dtype=dt)
    dims = _dims(dim, x.ndim)
    out = torch_sum(x, axis=dims, keepdims=keepdim, dtype=dt.np)
    return make(SUM_DIM, out, (input,), dtype=dt,
                attrs={"self_sym_sizes": x.shape, "dim": dims or tuple(range(x.ndim)), "keepdim": keepdim})


def _sizes_attrs(shape):
    """``{"self_sym_sizes": shape}`` as one read-only mapping per shape, kept for the
    process (so ``make`` takes the record's attrs from its cache by the mapping's id)."""
    attrs = _SIZES_ATTRS.get(shape)
    if attrs is None:
        if len(_SIZES_ATTRS) >= 1024:
            return {"self_sym_sizes": shape}  # a plain dict: make's per-mapping cache would grow
        attrs = _SIZES_ATTRS[shape] = MappingProxyType({"self_sym_sizes": shape})
    return attrs


_SIZES_ATTRS: dict = {}


@op("mean", "MeanBackward0", ("self",), vjp={"self": "grad.expand(self.sizes()) / self.numel()"},
    local={"self": "1/N"})
def MEAN(ctx, g):
    return (expand_grad(g, ctx.self_sym_sizes) / ctx.numel,)


@op("mean_dim", "MeanBackward1", ("self",),
    vjp={"self": "grad (unsqueezed at dim).expand(self.sizes()) / N"}, local={"self": "1/N"})
def MEAN_DIM(ctx, g):
    return (expand_back(g, ctx.self_sym_sizes, ctx.dim, ctx.keepdim) / ctx.numel,)


@export(torch=("mean",), tensor=("mean",))
def mean(input, dim=ALL, keepdim=False, *, dtype=None):
    """Mean (MeanBackward0 over all elements, MeanBackward1 over ``dim``, also a ``dim``
    given as None or ``()``: every dim, ``keepdim`` kept, as torch's dim overload); integer
    inputs raise PyTorch's error."""
    if input._dtype.category != dtypes.FLOAT and dtype is None:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {_type_name(input._dtype)}")
    x = input._data if dtype is None else input._data.astype(dtype.np)
    if dim is ALL:
        out = _mean(x, None, False, x.size)
        return make(MEAN, out, (input,), attrs={"self_sym_sizes": x.shape, "numel": x.size})
    dims = _dims(dim, x.ndim)
    n = 1
    for d in (dims or range(x.ndim)):
        n *= x.shape[d]
    out = _mean(x, dims, keepdim, n)
    return make(MEAN_DIM, out, (input,),
                attrs={"self_sym_sizes": x.shape, "dim": dims or tuple(range(x.ndim)), "keepdim": keepdim, "numel": n})


def _mean(x, dims, keepdim, n):
    """torch's CPU mean: its sum, divided by the count in the tensor's dtype."""
    if x.size == 0 or x.dtype not in (np.float32, np.float64):
        return np.asarray(x.mean(axis=dims, keepdims=keepdim, dtype=x.dtype))
    return np.asarray(torch_sum(x, axis=dims, keepdims=keepdim) / x.dtype.type(n))


def _type_name(d):
    return {"int64": "Long", "int32": "Int", "bool": "Bool", "int16": "Short", "int8": "Char",
            "uint8": "Byte"}.get(d.name, d.name)


# -- max / min -------------------------------------------------------------------------


def _evenly_distribute(ctx, g):
    """torch 2.13's ``evenly_distribute_backward`` (full max()/min()): the gradient is
    shared evenly by the tied extrema (the nan elements when the result is nan) and
    written with ``masked_fill`` into zeros, so inf/nan does not leak elsewhere."""
    from .unary import where
    x, r = ctx.self, ctx.result
    mask = x.isnan() if bool(np.isnan(r._data)) else x == r
    return (where(mask, g / mask.sum(), 0.0),)


def _evenly(ctx, g):
    """Gradient of amax/amin: ``grad / count * (self == result)`` (scale_grad_by_count;
    a product, so inf·0 gives nan as in torch)."""
    x, r = ctx.self, ctx.result
    dims, keepdim = ctx.dim, ctx.keepdim
    rr = expand_back(r, x.shape, dims, keepdim) if dims is not None else r
    mask = (x == rr).to(g.dtype)
    count = mask.sum() if dims is None else mask.sum(dims, keepdim=True)
    gg = expand_back(g, x.shape, dims, keepdim) if dims is not None else g
    if dims is not None:
        count = count.expand(tuple(x.shape))
    return (gg * mask / count,)


@op("max", "MaxBackward1", ("self",),
    vjp={"self": "zeros_like(self).masked_fill(self == result, grad / count(self == result))"},
    local={"self": "1/k at each of the k maxima, 0 elsewhere"})
def MAX_ALL(ctx, g):
    return _evenly_distribute(ctx, g)


@op("min", "MinBackward1", ("self",),
    vjp={"self": "zeros_like(self).masked_fill(self == result, grad / count(self == result))"},
    local={"self": "1/k at each of the k minima, 0 elsewhere"})
def MIN_ALL(ctx, g):
    return _evenly_distribute(ctx, g)


@op("amax", "AmaxBackward0", ("self",), vjp={"self": "grad * (self == result) / count(self == result)"},
    local={"self": "1/k at each of the k maxima, 0 elsewhere"})
def AMAX(ctx, g):
    return _evenly(ctx, g)


@op("amin", "AminBackward0", ("self",), vjp={"self": "grad * (self == result) / count(self == result)"},
    local={"self": "1/k at each of the k minima, 0 elsewhere"})
def AMIN(ctx, g):
    return _evenly(ctx, g)


@op("max_dim", "MaxBackward0", ("self",), vjp={"self": "grad scattered to the returned indices along dim"},
    local={"self": "1 at the returned index, 0 elsewhere"})
def MAX_DIM(ctx, grads):
    return (_scatter_back(ctx, grads[0]),)


@op("min_dim", "MinBackward0", ("self",), vjp={"self": "grad scattered to the returned indices along dim"},
    local={"self": "1 at the returned index, 0 elsewhere"})
def MIN_DIM(ctx, grads):
    return (_scatter_back(ctx, grads[0]),)


def _scatter_back(ctx, g):
    from .indexing import index_select_backward
    return index_select_backward(g, ctx.indices, ctx.self_sym_sizes, ctx.dim, ctx.keepdim)


def _return_type(kind):
    t = namedtuple(kind, ["values", "indices"])
    t._script_attrs = frozenset({"values", "indices"})
    t.__module__ = "torch.return_types"
    t.__repr__ = t.__str__ = \
        lambda self: f"torch.return_types.{kind}(\nvalues={self[0]!r},\nindices={self[1]!r})"
    return t


_RETURN_TYPES = {k: _return_type(k) for k in ("max", "min")}


def ReturnTypes(kind, values, indices):
    """``torch.return_types.max(values=..., indices=...)`` (or ``min``): a named tuple
    whose type is named as torch's."""
    return _RETURN_TYPES[kind](values, indices)


def _extreme(input, dim, keepdim, full_op, dim_op, npfn, argfn, kind, other=None):
    if other is not None and isinstance(other, Tensor):
        from .unary import maximum, minimum
        return (maximum if kind == "max" else minimum)(input, other)
    x = input._data
    if dim is None:
        check_empty_reduction(x.shape, kind)
        out = np.asarray(npfn(x))
        return make(full_op, out, (input,), save={"self": input, "result": RESULT},
                    attrs={"dim": None, "keepdim": False})
    d = wrap_dim(dim, x.ndim)
    check_empty_reduction(x.shape, kind, d)
    if x.ndim == 0:
        values, idx = x.copy(), np.asarray(0, dtype=np.int64)
    else:
        idx = argfn(x, axis=d, keepdims=True).astype(np.int64)
        values = np.take_along_axis(x, idx, axis=d)
        if not keepdim:
            values = values.squeeze(d)
            idx = idx.squeeze(d)
    v, i = make_multi(dim_op, (np.asarray(values), np.asarray(idx)), (input,),
                      save={"indices": None}, attrs={"dim": d, "keepdim": keepdim, "self_sym_sizes": x.shape},
                      differentiable=(True, False))
    if v.grad_fn is not None:
        v.grad_fn.saved["indices"] = i
    return ReturnTypes(kind, v, i)


@export(torch=("max",), tensor=("max",))
def max(input, dim=None, keepdim=False, *, other=None):
    """``max()`` over all elements (MaxBackward1: ties share the gradient evenly), or
    ``max(dim)`` → (values, indices) (MaxBackward0: the gradient goes to the index
    returned), or ``max(a, b)`` elementwise (torch.maximum)."""
    if isinstance(dim, Tensor):
        return _extreme(input, None, keepdim, MAX_ALL, MAX_DIM, np.max, np.argmax, "max", other=dim)
    return _extreme(input, dim, keepdim, MAX_ALL, MAX_DIM, np.max, np.argmax, "max", other)


@export(torch=("min",), tensor=("min",))
def min(input, dim=None, keepdim=False, *, other=None):
    """``min()`` / ``min(dim)`` / ``min(a, b)``, mirroring :func:`max`."""
    if isinstance(dim, Tensor):
        return _extreme(input, None, keepdim, MIN_ALL, MIN_DIM, np.min, np.argmin, "min", other=dim)
    return _extreme(input, dim, keepdim, MIN_ALL, MIN_DIM, np.min, np.argmin, "min", other)


def _a_extreme(op_, npfn, input, dim, keepdim):
    x = input._data
    check_empty_reduction(x.shape, op_.name, dim)
    dims = _dims(dim, x.ndim) if dim is not None else None
    out = np.asarray(npfn(x, axis=dims, keepdims=keepdim))
    return make(op_, out, (input,), save={"self": input, "result": RESULT},
                attrs={"dim": dims, "keepdim": keepdim})


@export(torch=("amax",), tensor=("amax",))
def amax(input, dim=(), keepdim=False):
    """Maximum over ``dim`` (all by default); ties share the gradient evenly (AmaxBackward0)."""
    return _a_extreme(AMAX, np.max, input, dim if dim != () else None, keepdim)


@export(torch=("amin",), tensor=("amin",))
def amin(input, dim=(), keepdim=False):
    return _a_extreme(AMIN, np.min, input, dim if dim != () else None, keepdim)


@export(torch=("argmax",), tensor=("argmax",))
def argmax(input, dim=None, keepdim=False):
    x = input._data
    if input._dtype is dtypes.bool_:
        raise RuntimeError("argmax(): does not support bool input")
    check_empty_reduction(x.shape, "argmax", None if dim is None else wrap_dim(dim, x.ndim), arg=True)
    if dim is None:  # the flat index; keepdim keeps every dim as size 1
        r = np.asarray(np.argmax(x), dtype=np.int64)
        return Tensor._make(r.reshape((1,) * x.ndim) if keepdim else r)
    return Tensor._make(np.asarray(np.argmax(x, axis=wrap_dim(dim, x.ndim), keepdims=keepdim), dtype=np.int64))


@export(torch=("argmin",), tensor=("argmin",))
def argmin(input, dim=None, keepdim=False):
    x = input._data
    if input._dtype is dtypes.bool_:
        raise RuntimeError("argmin(): does not support bool input")
    check_empty_reduction(x.shape, "argmin", None if dim is None else wrap_dim(dim, x.ndim), arg=True)
    if dim is None:  # the flat index; keepdim keeps every dim as size 1
        r = np.asarray(np.argmin(x), dtype=np.int64)
        return Tensor._make(r.reshape((1,) * x.ndim) if keepdim else r)
    return Tensor._make(np.asarray(np.argmin(x, axis=wrap_dim(dim, x.ndim), keepdims=keepdim), dtype=np.int64))


# -- norm ------------------------------------------------------------------------------


@op("norm", "LinalgVectorNormBackward0", ("self",),
    vjp={"self": "grad * self * |self|^(p-2) / result^(p-1)  (0 where result = 0)"},
    local={"self": "self/‖self‖ for p = 2  (0 at 0)"})
def NORM(ctx, g):
    x, r, p = ctx.self, ctx.result, ctx.p
    dims, keepdim = ctx.dim, ctx.keepdim
    if dims is not None:
        r = expand_back(r, x.shape, dims, keepdim)
        g = expand_back(g, x.shape, dims, keepdim)
    from .unary import where, zeros_like_grad
    # torch's norm_backward (FunctionsManual.cpp), operation for operation
    if p == 0:
        return (zeros_like_grad(x),)
    if p == 1:
        return (x.sign() * g,)
    if p == 2:
        scale = x / r
        return (g * where(r == 0, zeros_like_grad(scale), scale),)
    if p in (float("inf"), float("-inf")):
        ax = x.abs()
        mask = ((ax == r) | ax.isnan()).to(x.dtype)
        count = mask.sum(dims, keepdim=True) if dims is not None else mask.sum().reshape((1,) * x.ndim)
        return (x.sign() * ((g / count) * mask),)
    if p < 1:
        powed = x.abs().pow(p - 1)
        scaled = x.sign() * where(x == 0, zeros_like_grad(powed), powed)
        return (scaled * g * r.pow(1 - p),)
    scaled = x.sign() * x.abs().pow(p - 1) if p < 2 else x * x.abs().pow(p - 2)
    sv = g / r.pow(p - 1)
    return (scaled * where(r == 0, zeros_like_grad(sv), sv),)


def norm_values(x: np.ndarray, p: float, dims, keepdim: bool) -> np.ndarray:
    """The p-norm of ``x`` over ``dims`` (None: all) as torch 2.13's vector norm kernel
    sums it (:func:`.accumulate.vector_norm`), or numpy's sums where that kernel has no
    exact counterpart here."""
    out = vector_norm(x, p, dims, keepdim)
    if out is not None:
        return out
    if p == float("inf"):
        return np.max(np.abs(x), axis=dims, keepdims=keepdim)
    if p == 2:
        return np.sqrt(np.sum(x * x, axis=dims, keepdims=keepdim))
    if p == 1:
        return np.sum(np.abs(x), axis=dims, keepdims=keepdim)
    return np.sum(np.abs(x) ** p, axis=dims, keepdims=keepdim) ** (1.0 / p)


@export(torch=("norm",), tensor=("norm",))
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """Vector p-norm (LinalgVectorNormBackward0, torch 2.13). p = 2 ("fro") by default."""
    if p == "fro" or p is None:
        p = 2
    if input._dtype.category != dtypes.FLOAT:
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {_type_name(input._dtype)}")
    x = input._data
    dims = _dims(dim, x.ndim) if dim is not None else None
    if x.size == 0 and p in (float("inf"), float("-inf")):
        _empty_inf_norm(x.shape, p, dim if dims is not None else None)
    out = norm_values(x, float(p), dims, keepdim)
    return make(NORM, np.asarray(out, dtype=x.dtype), (input,), save={"self": input, "result": RESULT},
                attrs={"p": p, "dim": dims, "keepdim": keepdim})


def _empty_inf_norm(shape, p, dim):
    """torch 2.13's errors for the ±inf norm (a max, no identity) over no elements."""
    what = "-inf" if p < 0 else "inf"
    if dim is None:
        raise RuntimeError(f"linalg.vector_norm cannot compute the {what} norm on an empty tensor because the "
                           "operation does not have an identity")
    for d in ((dim,) if isinstance(dim, int) else dim):
        if shape[wrap_dim(d, len(shape))] == 0:
            # sic: torch's message has no space before "because"
            raise RuntimeError(f"linalg.vector_norm cannot compute the {what} norm on the dimension {d}because "
                               "this dimension is empty and the operation does not have an identity")


# -- prod, logsumexp, cumsum ------------------------------------------------------


@op("prod", "ProdBackward0", ("self",), vjp={"self": "grad * result / self  (products of the others where self has zeros)"},
    local={"self": "∏ of the other elements"})
def PROD(ctx, g):
    x = ctx.self
    return (g * _prod_others(x, None),)


@op("prod_dim", "ProdBackward1", ("self",),
    vjp={"self": "grad (unsqueezed at dim) * product of the other elements along dim"},
    local={"self": "∏ of the other elements along dim"})
def PROD_DIM(ctx, g):
    x = ctx.self
    dim, keepdim = ctx.dim, ctx.keepdim
    g = expand_back(g, x.shape, (dim,), keepdim) if x.ndim else g
    return (g * _prod_others(x, dim),)


def _prod_others(x: Tensor, dim):
    """For each element, the product of the other elements (over all, or along ``dim``),
    exact when some elements are 0: the exclusive cumulative products from both ends,
    built from Tensor ops so double backward works."""
    if dim is None:
        flat = x.reshape(-1)
        return _exclusive(flat, 0).reshape(x.shape) if x.ndim else _exclusive(flat, 0).reshape(())
    if x.ndim == 0:
        return x * 0 + 1
    return _exclusive(x, dim)


def _exclusive(x: Tensor, dim: int) -> Tensor:
    from .shape import cat
    n = x.shape[dim]
    ones_shape = list(x.shape)
    ones_shape[dim] = 1
    one = Tensor._make(np.ones(ones_shape, dtype=x._data.dtype))
    if n == 0:
        return x
    left = cumprod(cat([one, x.narrow(dim, 0, n - 1)], dim), dim) if n > 1 else one
    rev = x.flip(dim)
    right = cumprod(cat([one, rev.narrow(dim, 0, n - 1)], dim), dim).flip(dim) if n > 1 else one
    return left * right


@export(torch=("prod",), tensor=("prod",))
def prod(input, dim=None, keepdim=False, *, dtype=None):
    """Product of all elements (ProdBackward0) or along one ``dim`` (ProdBackward1).
    The gradient is the product of the other elements, exact at zeros (torch 2.13)."""
    dt = _acc_dtype(input, dtype)
    x = input._data
    if dim is None:
        return make(PROD, np.asarray(np.prod(x, dtype=dt.np)), (input,), save={"self": input}, dtype=dt)
    d = wrap_dim(dim, x.ndim)
    out = np.prod(x, axis=d, keepdims=keepdim, dtype=dt.np) if x.ndim else x.astype(dt.np)
    return make(PROD_DIM, np.asarray(out), (input,), save={"self": input},
                attrs={"dim": d, "keepdim": keepdim}, dtype=dt)


@op("cumprod", "CumprodBackward0", ("self",), vjp={"self": "reverse-cumsum(grad * result) / self"},
    local={"self": "∂(running product)/∂self"})
def CUMPROD(ctx, g):
    x, dim = ctx.self, ctx.dim
    if x.ndim and not (x._data == 0).any():
        r = ctx.result
        return ((g * r).flip(dim).cumsum(dim).flip(dim) / x,)
    # sum_{j >= i} g_j * prod_{k <= j, k != i} x_k, written without division (zeros safe)
    n = x.shape[dim] if x.ndim else 1
    if x.ndim == 0:
        return (g,)
    from .shape import stack
    cols = []
    xs = x.unbind(dim)
    gs = g.unbind(dim)
    for i in range(n):
        acc = None
        for j in range(i, n):
            term = gs[j]
            for k in range(j + 1):
                if k != i:
                    term = term * xs[k]
            acc = term if acc is None else acc + term
        cols.append(acc)
    return (stack(cols, dim),)


@export(torch=("cumprod",), tensor=("cumprod",))
def cumprod(input, dim, *, dtype=None):
    """Running product along ``dim`` (CumprodBackward0)."""
    dt = _acc_dtype(input, dtype)
    x = input._data
    d = wrap_dim(dim, x.ndim)
    out = _scan(x, d, dt, "prod")
    return make(CUMPROD, np.asarray(out), (input,), save={"self": input, "result": RESULT},
                attrs={"dim": d}, dtype=dt)


@op("cumsum", "CumsumBackward0", ("self",), vjp={"self": "grad.flip(dim).cumsum(dim).flip(dim)"},
    local={"self": "1 for every later position along dim"})
def CUMSUM(ctx, g):
    d = ctx.dim
    if g.ndim == 0:
        return (g,)
    return (g.flip(d).cumsum(d).flip(d),)


@export(torch=("cumsum",), tensor=("cumsum",))
def cumsum(input, dim, *, dtype=None):
    """Running sum along ``dim`` (CumsumBackward0). Integer input gives int64."""
    dt = _acc_dtype(input, dtype)
    x = input._data
    d = wrap_dim(dim, x.ndim)
    out = _scan(x, d, dt, "sum")
    return make(CUMSUM, np.asarray(out), (input,), attrs={"dim": d}, dtype=dt)


def _scan(x, d, dt, kind):
    """The running sum/product: floats accumulated in double as ATen does (see
    :func:`.accumulate.cumulative`), integers exactly by numpy."""
    if not x.ndim:
        return x.astype(dt.np)
    if dt.np in (np.float32, np.float64):
        return cumulative(x.astype(dt.np, copy=False), d, kind)
    return (np.cumsum if kind == "sum" else np.cumprod)(x, axis=d, dtype=dt.np)


@op("logsumexp", "LogsumexpBackward0", ("self",), vjp={"self": "grad * exp(self - result)"},
    local={"self": "softmax(self) along dim"})
def LOGSUMEXP(ctx, g):
    x, r = ctx.self, ctx.result
    dims, keepdim = ctx.dim, ctx.keepdim
    if x.ndim:
        g = expand_back(g, x.shape, dims, keepdim)
        r = expand_back(r, x.shape, dims, keepdim)
    return (g * (x - r).exp(),)


@export(torch=("logsumexp",), tensor=("logsumexp",))
def logsumexp(input, dim, keepdim=False):
    """``log(sum(exp(x), dim))`` computed stably (LogsumexpBackward0)."""
    x = input._data if input._dtype.category == dtypes.FLOAT else input._data.astype(np.float32)
    dims = _dims(dim, x.ndim) or tuple(range(x.ndim))
    if x.ndim == 0:
        out = x.copy()
    else:
        m = np.max(x, axis=dims, keepdims=True, initial=-np.inf)   # -inf over no elements, as torch
        m = np.where(np.isfinite(m), m, 0)
        with np.errstate(divide="ignore"):
            out = np.log(np.sum(np.exp(x - m), axis=dims, keepdims=True)) + m
        if not keepdim:
            out = np.squeeze(out, axis=dims)
    return make(LOGSUMEXP, np.asarray(out, dtype=x.dtype), (input,), save={"self": input, "result": RESULT},
                attrs={"dim": dims, "keepdim": keepdim})
