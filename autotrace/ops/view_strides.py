"""The strides torch 2.13 gives a view: ATen's ``computeStride`` (TensorUtils.cpp).

numpy's reshape decides as torch does whether a strided array can be viewed with a new
shape, but gives size-1 dims other strides; ``x.stride()`` and the kernels that look at
strides (the flash attention check of a unit last stride) need torch's.
"""

from __future__ import annotations

import numpy as np


def compute_stride(old, stride, new):
    """ATen's ``computeStride``: the element strides of ``new`` over a tensor of shape
    ``old`` and ``stride``, or None when no view can have them (size-1 dims get the
    strides torch gives them, which numpy's reshape does not)."""
    if not old:
        return [1] * len(new)
    numel = int(np.prod(old))
    if numel == 0:
        if tuple(old) == tuple(new):
            return list(stride)
        out = [1] * len(new)
        for d in range(len(new) - 2, -1, -1):
            out[d] = max(new[d + 1], 1) * out[d + 1]
        return out
    out = [0] * len(new)
    view_d = len(new) - 1
    base = stride[-1]
    tensor_numel = view_numel = 1
    for d in range(len(old) - 1, -1, -1):
        tensor_numel *= old[d]
        if d == 0 or (old[d - 1] != 1 and stride[d - 1] != tensor_numel * base):
            while view_d >= 0 and (view_numel < tensor_numel or new[view_d] == 1):
                out[view_d] = view_numel * base
                view_numel *= new[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                base = stride[d - 1]
                tensor_numel = view_numel = 1
    return out if view_d == -1 else None
