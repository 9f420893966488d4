"""Distinct values and counts: ``unique`` (sorted, with inverse indices and counts, or
unique slices along ``dim``), ``unique_consecutive`` and ``bincount``, as torch 2.13 on
CPU. Their outputs keep a float input's history but torch defines no derivative:
backward through them raises torch's NotImplementedError (``Unique2Backward0``,
``UniqueDimBackward0``, ``UniqueConsecutiveBackward0``) or, for a weighted ``bincount``,
the RuntimeError of its NotImplemented node. NaNs are all distinct, as in torch.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes, resources
from ..tensor import Tensor, wrap_dim
from . import export, make, make_multi, op, tensor_params


def _not_implemented(name, node, what):
    def backward(ctx, g):
        raise NotImplementedError(f"the derivative for '{what}' is not implemented.")
    return op(name, node, ("self",), vjp={"self": "not implemented"}, local={"self": "-"})(backward)


UNIQUE = _not_implemented("unique", "Unique2Backward0", "_unique2")
UNIQUE_DIM = _not_implemented("unique_dim", "UniqueDimBackward0", "unique_dim")
UNIQUE_CONSECUTIVE = _not_implemented("unique_consecutive", "UniqueConsecutiveBackward0", "unique_consecutive")


@op("bincount_not_implemented", "NotImplemented", ("weights",), vjp={"weights": "not implemented"},
    local={"weights": "-"})
def BINCOUNT_NOT_IMPL(ctx, g):
    raise RuntimeError("derivative for aten::bincount is not implemented")


def _sort_key(x: np.ndarray) -> np.ndarray:
    if x.dtype.kind == "b":
        return x.astype(np.int8)
    return x


def _runs(flat: np.ndarray) -> np.ndarray:
    """Where a new value starts in ``flat`` (True at 0); NaNs never equal each other."""
    start = np.ones(flat.shape, dtype=bool)
    if flat.size > 1:
        start[1:] = flat[1:] != flat[:-1]
    return start


def _results(op_, input, out, inverse, counts, return_inverse, return_counts):
    parts = [out]
    if return_inverse:
        parts.append(inverse.astype(np.int64))
    if return_counts:
        parts.append(counts.astype(np.int64))
    ts = make_multi(op_, parts, (input,), differentiable=(True,) + (False,) * (len(parts) - 1))
    if len(ts) == 1:
        return ts[0]
    return tuple(ts)


def _unique_flat(x: np.ndarray, consecutive: bool):
    flat = x.reshape(-1)
    if consecutive:
        order = np.arange(flat.size)
        s = flat
    else:
        order = np.argsort(_sort_key(flat), kind="stable")
        s = flat[order]
    start = _runs(s)
    group = np.cumsum(start) - 1
    out = s[start]
    inverse = np.empty(flat.size, dtype=np.int64)
    inverse[order] = group
    counts = np.diff(np.append(np.flatnonzero(start), flat.size))
    return out, inverse.reshape(x.shape), counts


def _unique_dim(x: np.ndarray, d: int, consecutive: bool):
    moved = np.moveaxis(x, d, 0)
    n = moved.shape[0]
    rows = moved.reshape(n, -1)
    if consecutive:
        order = np.arange(n)
    else:
        keys = _sort_key(rows)
        order = np.lexsort(keys.T[::-1]) if rows.shape[1] else np.arange(n)
    s = rows[order]
    start = np.ones(n, dtype=bool)
    if n > 1:
        start[1:] = (s[1:] != s[:-1]).any(axis=1)
    group = np.cumsum(start) - 1
    inverse = np.empty(n, dtype=np.int64)
    inverse[order] = group
    counts = np.diff(np.append(np.flatnonzero(start), n))
    out = np.moveaxis(moved[order][start], 0, d)
    return np.ascontiguousarray(out), inverse, counts


@export(torch=("unique",), tensor=("unique",))
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct values of ``input`` in ascending order (1-d; NaNs last, each its own
    value), or with ``dim`` the distinct slices along ``dim`` in lexicographic order.
    With ``return_inverse`` also the int64 index of each element (of ``input``'s shape;
    with ``dim``, of length ``input.size(dim)``) into the result, with ``return_counts``
    the int64 count of each distinct value. torch's CPU kernel sorts even when
    ``sorted=False``."""
    x = input._data
    if dim is None:
        out, inverse, counts = _unique_flat(x, False)
        return _results(UNIQUE, input, out, inverse, counts, return_inverse, return_counts)
    d = wrap_dim(dim, max(x.ndim, 1))
    out, inverse, counts = _unique_dim(x if x.ndim else x.reshape(1), d, False)
    return _results(UNIQUE_DIM, input, out, inverse, counts, return_inverse, return_counts)


@export(torch=("unique_consecutive",), tensor=("unique_consecutive",))
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse each run of equal consecutive values (or slices along ``dim``) to one;
    inverse indices and run lengths as :func:`unique`."""
    x = input._data
    if dim is None:
        out, inverse, counts = _unique_flat(x, True)
    else:
        d = wrap_dim(dim, max(x.ndim, 1))
        out, inverse, counts = _unique_dim(x if x.ndim else x.reshape(1), d, True)
    return _results(UNIQUE_CONSECUTIVE, input, out, inverse, counts, return_inverse, return_counts)


@export(torch=("bincount",), tensor=("bincount",))
@tensor_params('weights', optional=('weights',))
def bincount(input, weights=None, minlength=0):
    """Counts of each value 0..max(input) of a 1-d non-negative integer tensor (int64;
    at least ``minlength`` bins), or the sums of ``weights`` per value (float32 for
    float32 weights, float64 otherwise)."""
    x = input._data
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input._dtype.category == dtypes.FLOAT or input._dtype is dtypes.bool_:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{input._dtype.legacy[:-6]}'")
    if x.ndim != 1 or (x.size and x.min() < 0):
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (not isinstance(weights, Tensor) or weights._data.ndim != 1
                                or weights._data.shape[0] != x.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    n = max(int(x.max()) + 1 if x.size else 0, int(minlength))
    resources.check_count(n)
    if weights is None:
        return Tensor._make(np.bincount(x.astype(np.int64), minlength=n).astype(np.int64))
    out_dtype = np.float32 if weights._dtype is dtypes.float32 else np.float64
    out = np.zeros(n, dtype=out_dtype)
    np.add.at(out, x.astype(np.int64), weights._data.astype(out_dtype))  # torch's serial sum, in order
    return make(BINCOUNT_NOT_IMPL, out, (weights,))
