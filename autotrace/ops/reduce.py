"""Reductions: sum, mean, max/min (full and along a dim), amax/amin, norm.

Gradients of reductions are spread back over the reduced elements: ``sum`` copies the
gradient to every element, ``mean`` divides it by their count, ``max``/``min``/``amax``
over all elements split it evenly among tied extrema (torch 2.13), while ``max(dim)``
sends it to the one index it returned. ``norm`` at 0 has a 0 gradient (PyTorch's
choice, not nan).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..tensor import Tensor, wrap_dim
from . import RESULT, export, make, make_multi, op


def _dims(dim, ndim):
    """Normalised tuple of reduced dims (None: all)."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        if len(dim) == 0:
            return None
        return tuple(sorted({wrap_dim(d, ndim) for d in dim}))
    return (wrap_dim(dim, ndim),)


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
    return (g.expand(ctx.self_sym_sizes),)


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
def sum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum of all elements (SumBackward0) or over ``dim`` (SumBackward1). Integer and
    bool tensors sum to int64, as in PyTorch."""
    dt = _acc_dtype(input, dtype)
    x = input._data
    dims = _dims(dim, x.ndim)
    if dims is None and dim is None:
        out = np.asarray(x.sum(dtype=dt.np))
        return make(SUM, out, (input,), attrs={"self_sym_sizes": x.shape}, dtype=dt)
    out = np.asarray(x.sum(axis=dims, keepdims=keepdim, dtype=dt.np))
    return make(SUM_DIM, out, (input,), dtype=dt,
                attrs={"self_sym_sizes": x.shape, "dim": dims or tuple(range(x.ndim)), "keepdim": keepdim})


@op("mean", "MeanBackward0", ("self",), vjp={"self": "grad.expand(self.sizes()) / self.numel()"},
    local={"self": "1/N"})
def MEAN(ctx, g):
    return (g.expand(ctx.self_sym_sizes) / ctx.numel,)


@op("mean_dim", "MeanBackward1", ("self",),
    vjp={"self": "grad (unsqueezed at dim).expand(self.sizes()) / N"}, local={"self": "1/N"})
def MEAN_DIM(ctx, g):
    return (expand_back(g, ctx.self_sym_sizes, ctx.dim, ctx.keepdim) / ctx.numel,)


@export(torch=("mean",), tensor=("mean",))
def mean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean (MeanBackward0 over all elements, MeanBackward1 over ``dim``); integer
    inputs raise PyTorch's error."""
    if input._dtype.category != dtypes.FLOAT and dtype is None:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {_type_name(input._dtype)}")
    x = input._data if dtype is None else input._data.astype(dtype.np)
    dims = _dims(dim, x.ndim)
    if dims is None and dim is None:
        out = np.asarray(x.mean(dtype=x.dtype))
        return make(MEAN, out, (input,), attrs={"self_sym_sizes": x.shape, "numel": x.size})
    n = 1
    for d in (dims or range(x.ndim)):
        n *= x.shape[d]
    out = np.asarray(x.mean(axis=dims, keepdims=keepdim, dtype=x.dtype))
    return make(MEAN_DIM, out, (input,),
                attrs={"self_sym_sizes": x.shape, "dim": dims or tuple(range(x.ndim)), "keepdim": keepdim, "numel": n})


def _type_name(d):
    return {"int64": "Long", "int32": "Int", "bool": "Bool", "int16": "Short", "int8": "Char",
            "uint8": "Byte"}.get(d.name, d.name)


# -- max / min -------------------------------------------------------------------------


def _evenly(ctx, g):
    """Gradient of a full max/min or amax/amin: shared evenly among the tied extrema."""
    x, r = ctx.self, ctx.result
    dims, keepdim = ctx.dim, ctx.keepdim
    rr = expand_back(r, x.shape, dims, keepdim) if dims is not None else r
    mask = (x == rr).to(g.dtype)
    count = mask.sum() if dims is None else mask.sum(dims, keepdim=True)
    gg = expand_back(g, x.shape, dims, keepdim) if dims is not None else g
    if dims is not None:
        count = count.expand(tuple(x.shape))
    return (gg * mask / count,)


@op("max", "MaxBackward1", ("self",), vjp={"self": "grad * (self == result) / count(self == result)"},
    local={"self": "1/k at each of the k maxima, 0 elsewhere"})
def MAX_ALL(ctx, g):
    return _evenly(ctx, g)


@op("min", "MinBackward1", ("self",), vjp={"self": "grad * (self == result) / count(self == result)"},
    local={"self": "1/k at each of the k minima, 0 elsewhere"})
def MIN_ALL(ctx, g):
    return _evenly(ctx, g)


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


class ReturnTypes(tuple):
    """``torch.return_types.max(values=..., indices=...)``: a tuple with names."""

    _script_attrs = frozenset({"values", "indices"})
    _kind = "max"

    def __new__(cls, kind, values, indices):
        t = tuple.__new__(cls, (values, indices))
        t._kind = kind
        return t

    @property
    def values(self):
        return self[0]

    @property
    def indices(self):
        return self[1]

    def __repr__(self) -> str:
        return f"torch.return_types.{self._kind}(\nvalues={self[0]!r},\nindices={self[1]!r})"

    __str__ = __repr__


def _extreme(input, dim, keepdim, full_op, dim_op, npfn, argfn, kind, other=None):
    if other is not None and isinstance(other, Tensor):
        from .unary import maximum, minimum
        return (maximum if kind == "max" else minimum)(input, other)
    x = input._data
    if dim is None:
        if x.size == 0:
            raise RuntimeError(
                f"{kind}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument.")
        out = np.asarray(npfn(x))
        return make(full_op, out, (input,), save={"self": input, "result": RESULT},
                    attrs={"dim": None, "keepdim": False})
    d = wrap_dim(dim, x.ndim)
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
    if dim is None:
        return Tensor._make(np.asarray(np.argmax(x), dtype=np.int64))
    return Tensor._make(np.asarray(np.argmax(x, axis=wrap_dim(dim, x.ndim), keepdims=keepdim), dtype=np.int64))


@export(torch=("argmin",), tensor=("argmin",))
def argmin(input, dim=None, keepdim=False):
    x = input._data
    if dim is None:
        return Tensor._make(np.asarray(np.argmin(x), dtype=np.int64))
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
    if p == 2:
        scale = x / r
    elif p == 1:
        return (g * x.sign(),)
    else:
        scale = x * x.abs().pow(p - 2) / r.pow(p - 1)
    from .unary import where, zeros_like_grad
    return (g * where(r == 0, zeros_like_grad(scale), scale),)


@export(torch=("norm",), tensor=("norm",))
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    """Vector p-norm (LinalgVectorNormBackward0, torch 2.13). p = 2 ("fro") by default."""
    if p == "fro" or p is None:
        p = 2
    x = input._data
    dims = _dims(dim, x.ndim) if dim is not None else None
    if p == float("inf"):
        out = np.max(np.abs(x), axis=dims, keepdims=keepdim)
    elif p == 2:
        out = np.sqrt(np.sum(x * x, axis=dims, keepdims=keepdim))
    elif p == 1:
        out = np.sum(np.abs(x), axis=dims, keepdims=keepdim)
    else:
        out = np.sum(np.abs(x) ** p, axis=dims, keepdims=keepdim) ** (1.0 / p)
    return make(NORM, np.asarray(out, dtype=x.dtype), (input,), save={"self": input, "result": RESULT},
                attrs={"p": p, "dim": dims, "keepdim": keepdim})
