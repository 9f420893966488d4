"""nan-ignoring reductions: ``nansum`` (NansumBackward0) and ``nanmean``, which torch
2.13 builds from it as ``nansum(x) / (count of non-nan elements)`` — its node is the
division's, DivBackward0, over NansumBackward0.

ATen's nansum is its sum kernel with nan read as 0 (the same cascade, so the same bits as
``sum`` of the array with nan replaced by +0); the gradient of a nan element is
``grad * 0``.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..tensor import Tensor
from . import export, make, op
from .reduce import _acc_dtype, _dims, _type_name, expand_back
from .summation import small_sum, torch_sum


@op("nansum", "NansumBackward0", ("self",),
    vjp={"self": "grad (unsqueezed at dim).expand(self.sizes()) * self.isnan().logical_not()"},
    local={"self": "1 where self is not nan, 0 at nan"})
def NANSUM(ctx, g):
    x = ctx.self
    if g._dtype is not x._dtype:
        g = g.to(x._dtype)
    return (expand_back(g, x.shape, ctx.dim, ctx.keepdim) * x.isnan().logical_not(),)


@export(torch=("nansum",), tensor=("nansum",))
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    """Sum over ``dim`` (all elements by default) with nan taken as 0 (NansumBackward0,
    also for all elements). Integer and bool input sums to int64 as ``sum``; ``dtype``
    casts first. Matches torch 2.13's values bit for bit (its sum kernel)."""
    dt = _acc_dtype(input, dtype)
    x = input._data
    if x.dtype.kind == "f":
        x = np.array(x, copy=True, order="K")   # keeps the memory order the sum follows
        x[np.isnan(x)] = 0
    dims = _dims(dim, x.ndim)
    if dims is None:
        out = small_sum(x) if x.dtype == dt.np else None
        if out is None:
            out = torch_sum(x, dtype=dt.np)
        if keepdim:
            out = np.reshape(out, (1,) * x.ndim)
    else:
        out = torch_sum(x, axis=dims, keepdims=keepdim, dtype=dt.np)
    return make(NANSUM, np.asarray(out, dtype=dt.np), (input,), save={"self": input}, dtype=dt,
                attrs={"dim": dims, "keepdim": keepdim})


@export(torch=("nanmean",), tensor=("nanmean",))
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    """Mean of the non-nan elements over ``dim`` (all by default): ``nansum / count`` as
    torch 2.13 computes it, so the node is DivBackward0 over NansumBackward0 (the count,
    an int64 tensor, needs no gradient); nan where every element is nan or there are
    none. Float input only: torch's RuntimeError otherwise (even with ``dtype``)."""
    if input._dtype.category != dtypes.FLOAT:
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but got "
                           f"{_type_name(input._dtype)}")
    from .arith import div
    count = Tensor._make(np.logical_not(np.isnan(input._data)))
    return div(nansum(input, dim, keepdim, dtype=dtype), nansum(count, dim, keepdim))
