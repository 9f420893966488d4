"""The softmax family (``softmax``, ``log_softmax``) with torch 2.13's kernels, node names
(SoftmaxBackward0, LogSoftmaxBackward0) and its deprecated implicit-dim choice; their
backward under create_graph is one node (:mod:`.double_backward`)."""

from __future__ import annotations

import numpy as np

from .. import diagnostics, dtypes, grad_mode
from ..tensor import Tensor, wrap_dim
from . import RESULT, double_backward, export, kernels, make, op


def _word(d):
    """How torch's kernel errors name a dtype (``Float``, ``Long``)."""
    return {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool",
            "int32": "Int"}.get(d.name, d.name)


def _softmax_dim(name, ndim, dim, stacklevel=None):
    if dim is None:
        diagnostics.warn(f"Implicit dimension choice for {name} has been deprecated. "
                         "Change the call to include dim=X as an argument.")
        dim = 0 if ndim in (0, 1, 3) else 1
    return wrap_dim(dim, ndim)


def _int_softmax_error(name, input, dim):
    kernel = "lastdim_kernel_impl" if dim >= input.ndim - 1 else "kernel_impl"
    raise NotImplementedError(f'"{name}_{kernel}" not implemented for \'{_word(input._dtype)}\'')


def _np_log_softmax(x, axis):
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    s = x - m
    with np.errstate(divide="ignore"):
        return s - np.log(np.sum(np.exp(s), axis=axis, keepdims=True))


@op("softmax", "SoftmaxBackward0", ("self",),
    vjp={"self": "result * (grad - (grad * result).sum(dim, keepdim=True))"},
    local={"self": "diag(s) − s·sᵀ along dim"})
def SOFTMAX(ctx, g):
    r = ctx.result
    if r.ndim == 0:
        return (g * 0,)
    if grad_mode.enabled:
        return (double_backward.softmax_backward_data(g, r, ctx.dim),)
    return (softmax_grad(g, r, ctx.dim),)


def softmax_grad(g, r, dim):
    exact = kernels.softmax_backward(g._data, r._data, dim)
    if exact is not None:
        return Tensor._make(exact)
    return r * (g - (g * r).sum(dim, keepdim=True))


@export(torch=("softmax",), tensor=("softmax",), functional=("softmax",))
def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``exp(x) / exp(x).sum(dim)`` computed stably (SoftmaxBackward0, saves the result).
    ``dim=None`` warns and picks torch's legacy dim (0 for 0-, 1- and 3-d input, else 1)."""
    dim = _softmax_dim("softmax", input.ndim, dim)
    if dtype is not None:
        input = input.to(dtype)
    if input._dtype.category != dtypes.FLOAT and input._data.size:  # torch returns an empty input unchecked
        _int_softmax_error("softmax", input, dim)
    x = input._data
    if x.ndim == 0 or x.size == 0:
        out = np.ones_like(x)
    else:
        out = kernels.softmax(x, dim)
        if out is None:
            with np.errstate(invalid="ignore"):
                e = np.exp(x - np.max(x, axis=dim, keepdims=True))
                out = e / np.sum(e, axis=dim, keepdims=True)
    return make(SOFTMAX, np.asarray(out, dtype=x.dtype), (input,), save={"result": RESULT}, attrs={"dim": dim})


@op("log_softmax", "LogSoftmaxBackward0", ("self",),
    vjp={"self": "grad - exp(result) * grad.sum(dim, keepdim=True)"},
    local={"self": "I − softmax(self) along dim"})
def LOG_SOFTMAX(ctx, g):
    r = ctx.result
    if r.ndim == 0:
        return (g * 0,)
    if grad_mode.enabled:
        return (double_backward.log_softmax_backward_data(g, r, ctx.dim),)
    return (log_softmax_grad(g, r, ctx.dim),)


def log_softmax_grad(g, r, dim):
    exact = kernels.log_softmax_backward(g._data, r._data, dim)
    if exact is not None:
        return Tensor._make(exact)
    return g - r.exp() * g.sum(dim, keepdim=True)


@export(torch=("log_softmax",), tensor=("log_softmax",), functional=("log_softmax",))
def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``x - logsumexp(x, dim)`` (LogSoftmaxBackward0, saves the result)."""
    dim = _softmax_dim("log_softmax", input.ndim, dim)
    if dtype is not None:
        input = input.to(dtype)
    if input._dtype.category != dtypes.FLOAT and input._data.size:  # torch returns an empty input unchecked
        _int_softmax_error("log_softmax", input, dim)
    x = input._data
    out = np.zeros_like(x) if x.ndim == 0 or x.size == 0 else kernels.log_softmax(x, dim)
    if out is None:
        out = _np_log_softmax(x, dim)
    return make(LOG_SOFTMAX, np.asarray(out, dtype=x.dtype), (input,), save={"result": RESULT},
                attrs={"dim": dim})
