"""Moments: ``var``, ``std``, and ``torch.var_mean`` / ``torch.std_mean``, which return
the mean beside them from one node (VarMeanBackward0 / StdMeanBackward0, two outputs).

Values as torch 2.13's CPU kernels (:mod:`.accumulate`): ``var``/``std`` to one element
in two passes in double, over dims by Welford per output; ``var_mean``/``std_mean`` by
Welford always (``std_var_mean_out`` has no two-pass path), its mean the Welford mean
rounded to the dtype (not ``mean()``'s float32 sum), nan for an empty input.
"""

from __future__ import annotations

import numpy as np

from .. import diagnostics, dtypes
from ..node import SavedTensor
from ..tensor import Tensor
from . import RESULT, export, make, make_multi, op
from .accumulate import var_all, var_dims
from .errors import invalid_arguments
from .reduce import _dims, _type_name, expand_back


def _reduced_numel(x, dims):
    return x.size if dims is None else int(np.prod([x.shape[d] for d in dims], dtype=np.int64))


def _var_grad(ctx, g):
    """torch 2.13's ``var_backward``, operation for operation: over all elements
    ``(2 / dof) · grad · (self − mean)``, or ``grad · where(self == mean, nan, inf)`` when
    ``dof = N − correction <= 0``; over dims ``(2 / (N − correction)) · grad · (self − mean)``
    with no such guard (inf at ``N == correction``, negative past it)."""
    x, dims, correction = ctx.self, ctx.dim, ctx.correction
    if dims is None or x.ndim == 0:
        dof = x.numel() - correction
        if dof <= 0:
            from .unary import where
            return g * where(x == x.mean(), float("nan"), float("inf"))
        return (2.0 / dof) * g * (x - x.mean())
    g = expand_back(g, x.shape, dims, ctx.keepdim)
    dof = ctx.numel - correction
    return ((2.0 / dof) if dof else float("inf")) * g * (x - x.mean(dims, keepdim=True))


def _std_grad(ctx, g, r):
    """torch's ``std_backward``: var's backward of ``grad / (2·std)`` (0 where std is 0)."""
    from .unary import where, zeros_like_grad
    gv = g / (r * 2)
    return _var_grad(ctx, where(r == 0, zeros_like_grad(gv), gv))


@op("var", "VarBackward0", ("self",),
    vjp={"self": "grad * 2 * (self - self.mean(dim, keepdim=True)) / (N - correction)"},
    local={"self": "2·(self − mean)/(N − correction)"})
def VAR(ctx, g):
    return (_var_grad(ctx, g),)


@op("std", "StdBackward0", ("self",),
    vjp={"self": "grad * (self - self.mean(dim, keepdim=True)) / ((N - correction) * result)  (0 where result = 0)"},
    local={"self": "(self − mean)/((N − correction)·std)"})
def STD(ctx, g):
    return (_std_grad(ctx, g, ctx.result),)


def _mean_grad(ctx, g):
    """torch's ``mean_backward``: the gradient spread over the reduced elements / N."""
    x, dims = ctx.self, ctx.dim
    n = ctx.numel
    return expand_back(g, x.shape, dims, ctx.keepdim) / n


def _moment_mean_grads(ctx, grads, first):
    """``var_mean_backward`` / ``std_mean_backward``: the first output's gradient plus
    the mean's, either one alone when the other output was not used."""
    g0, g1 = grads
    out = first(g0) if g0 is not None else None
    if g1 is not None:
        m = _mean_grad(ctx, g1)
        out = m if out is None else out + m
    return (out,)


@op("var_mean", "VarMeanBackward0", ("self",),
    vjp={"self": "grad_var * 2 * (self - mean) / (N - correction) + grad_mean.expand(self.sizes()) / N"},
    local={"self": "2·(self − mean)/(N − correction) for the variance, 1/N for the mean"})
def VAR_MEAN(ctx, grads):
    return _moment_mean_grads(ctx, grads, lambda g: _var_grad(ctx, g))


@op("std_mean", "StdMeanBackward0", ("self",),
    vjp={"self": "grad_std * (self - mean) / ((N - correction) * std) + grad_mean.expand(self.sizes()) / N"},
    local={"self": "(self − mean)/((N − correction)·std) for the std, 1/N for the mean"})
def STD_MEAN(ctx, grads):
    return _moment_mean_grads(ctx, grads, lambda g: _std_grad(ctx, g, ctx.result))


def _correction(unbiased, correction):
    if correction is None:
        return 1 if unbiased is None or unbiased else 0
    return correction


def _dof_warning(kind, x, outputs, correction):
    # torch 2.13's reduction factor is input numel / output numel, 0 for an empty input
    # (even where the reduced dims are not empty: zeros(0, 3).var(1) warns)
    if (x.size // outputs if outputs else 0) - correction <= 0:
        diagnostics.warn(f"{kind}(): degrees of freedom is <= 0. Correction should be strictly less than the "
                         "reduction factor (input numel divided by output numel).")


def _outputs(x, dims):
    return 1 if dims is None else int(np.prod([n_ for d, n_ in enumerate(x.shape) if d not in dims], dtype=np.int64))


def _var_impl(input, dim, unbiased, keepdim, correction, kind):
    if input._dtype.category != dtypes.FLOAT:
        raise RuntimeError(f"{kind}(): could not infer output dtype. Input dtype must be either a floating point or complex dtype. Got: {_type_name(input._dtype)}")
    correction = _correction(unbiased, correction)
    x = input._data
    dims = _dims(dim, x.ndim)
    n = _reduced_numel(x, dims)
    denom = n - correction if n > correction else 0
    outputs = _outputs(x, dims)
    if x.size and x.dtype in (np.float32, np.float64) and outputs == 1:
        out = var_all(x, correction, kind == "std")
        red = range(x.ndim) if dims is None else dims
        out = out.reshape([1 if d in red else n_ for d, n_ in enumerate(x.shape)] if keepdim
                          else [n_ for d, n_ in enumerate(x.shape) if d not in red])
    elif x.size and x.dtype in (np.float32, np.float64):
        out = var_dims(x, dims, keepdim, correction, kind == "std")
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            m = np.mean(x, axis=dims, keepdims=True, dtype=x.dtype) if x.ndim else x
            ss = np.sum((x - m) ** 2, axis=dims, keepdims=keepdim, dtype=x.dtype)
            out = ss / x.dtype.type(denom) if denom else ss / x.dtype.type(0)
            if kind == "std":
                out = np.sqrt(out)
    _dof_warning(kind, x, outputs, correction)
    out = np.asarray(out, dtype=x.dtype)
    op_ = VAR if kind == "var" else STD
    save = {"self": input} if kind == "var" else {"self": input, "result": RESULT}
    return make(op_, out, (input,), save=save,
                attrs={"dim": dims, "keepdim": keepdim, "correction": correction, "numel": n})


def _split_unbiased(dim, unbiased):
    if isinstance(dim, bool):  # torch.var(x, True) means unbiased=True
        return None, dim
    return dim, unbiased


@export(torch=("var",), tensor=("var",))
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Variance with Bessel's ``correction`` (default 1) over ``dim`` (VarBackward0)."""
    dim, unbiased = _split_unbiased(dim, unbiased)
    return _var_impl(input, dim, unbiased, keepdim, correction, "var")


@export(torch=("std",), tensor=("std",))
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """Standard deviation (StdBackward0, saves the result); the gradient is inf/nan where
    std is 0, as in torch 2.13."""
    dim, unbiased = _split_unbiased(dim, unbiased)
    return _var_impl(input, dim, unbiased, keepdim, correction, "std")


def _moment_mean(kind, input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    if input._dtype.category != dtypes.FLOAT:
        raise RuntimeError(f"{kind} only support floating point and complex dtypes")
    dim, unbiased = _split_unbiased(dim, unbiased)
    correction = _correction(unbiased, correction)
    x = input._data
    dims = _dims(dim, x.ndim)
    n = _reduced_numel(x, dims)
    red = tuple(range(x.ndim)) if dims is None else dims
    if x.size == 0:  # torch fills both results with nan
        shape = [1 if d in red else s for d, s in enumerate(x.shape)] if keepdim \
            else [s for d, s in enumerate(x.shape) if d not in red]
        out, mean = np.full(shape, np.nan, x.dtype), np.full(shape, np.nan, x.dtype)
    elif x.ndim == 0:
        out, mean = var_dims(x.reshape(1), (0,), False, correction, kind == "std_mean", with_mean=True)
    else:
        out, mean = var_dims(x, red, keepdim, correction, kind == "std_mean", with_mean=True)
    _dof_warning(kind, x, _outputs(x, dims), correction)
    std_or_var, m = make_multi(VAR_MEAN if kind == "var_mean" else STD_MEAN, (out, mean), (input,),
                               save={"self": input},
                               attrs={"dim": dims, "keepdim": keepdim, "correction": correction, "numel": n})
    if kind == "std_mean" and std_or_var.grad_fn is not None:
        std_or_var.grad_fn.saved["result"] = SavedTensor(std_or_var, is_output=True)
    return std_or_var, m


_MOMENT_SIGNATURES = ("Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False",
                      "Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False",
                      "Tensor input, bool unbiased = True")


def _moment_call(kind, args, kwargs):
    """torch's overloaded ``var_mean``/``std_mean``: anything but a tensor as the input
    is its "invalid combination of arguments" TypeError."""
    if not isinstance(args[0] if args else kwargs.get("input"), Tensor):
        raise invalid_arguments(kind, args, kwargs, _MOMENT_SIGNATURES)
    return _moment_mean(kind, *args, **kwargs)


@export(torch=("var_mean",))
def var_mean(*args, **kwargs):
    """``torch.var_mean(input, dim=None, unbiased=True, keepdim=False, *, correction=1)``:
    ``(var, mean)`` over ``dim`` (all elements by default) with Bessel's ``correction``
    (``unbiased=False`` is 0): two tensors of one VarMeanBackward0 node, as torch 2.13
    (not a Tensor method there). Float input only (RuntimeError otherwise)."""
    return _moment_call("var_mean", args, kwargs)


@export(torch=("std_mean",))
def std_mean(*args, **kwargs):
    """``(std, mean)`` as :func:`var_mean` (StdMeanBackward0, saves std: its gradient is
    inf/nan where std is 0, as torch 2.13)."""
    return _moment_call("std_mean", args, kwargs)
