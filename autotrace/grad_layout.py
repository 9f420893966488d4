"""The gradient layout contract: how torch 2.13 lays out a leaf's ``.grad``.

AccumulateGrad (torch/csrc/autograd/functions/accumulate_grad.h, grad_layout_contract.h)
keeps a first gradient's own strides when they match the leaf's, else gives it the leaf's
strides (a non-overlapping and dense leaf) or makes it contiguous; a sum built under
create_graph or for retain_grad is laid out as TensorIterator lays out ``a + b``. Scripts
see the result through ``.grad.stride()``, ``is_contiguous()`` and whether ``.grad.view(-1)``
works. Every layout here is made by copying, so the values are the gradient's bit for bit.
"""

from __future__ import annotations

import numpy as np

from .tensor import Tensor


LAYOUT_WARNING = (
    "grad and param do not obey the gradient layout contract. This is not an error, but may impair "
    "performance.\ngrad.sizes() = [{g_sizes}], strides() = [{g_strides}]\nparam.sizes() = [{p_sizes}], "
    "strides() = [{p_strides}]")


def first_grad(g, t, create_graph):
    """The first ``.grad`` of leaf ``t`` from the gradient ``g`` that reached it, by torch
    2.13's gradient layout contract (AccumulateGrad's ``obeys_layout_contract`` and
    ``clone_obey_contract``): ``g``'s own layout when it obeys (torch steals it; here a copy
    of that layout), else ``t``'s strides when ``t`` is non-overlapping and dense, else
    contiguous. Under create_graph it is always such a copy, CopyBackwards (t dense) or
    CloneBackward0. A contiguous gradient of a contiguous leaf is the plain copy."""
    d, v = g._data, t._data
    if create_graph:
        from .ops import make
        from .ops.shape import CLONE, copy_for_grad
        if is_dense(v):
            return copy_for_grad(g, copy_strided(d, v.strides))
        return make(CLONE, np.array(d, order="C", copy=True), (g,))
    if d.flags.c_contiguous and v.flags.c_contiguous:
        return Tensor._make(np.array(d, copy=True))
    if obeys_contract(d, v):
        return Tensor._make(copy_strided(d, d.strides))
    if is_dense(v):
        return Tensor._make(copy_strided(d, v.strides))
    return Tensor._make(np.array(d, order="C", copy=True))


def is_dense(a) -> bool:
    """torch's ``is_non_overlapping_and_dense`` of an array's layout: its dims longer than
    one, ordered by stride, tile the elements without gap or overlap."""
    if a.flags.c_contiguous:
        return True
    shape, strides, need = a.shape, a.strides, a.itemsize
    for i in sorted((i for i in range(a.ndim) if shape[i] > 1), key=strides.__getitem__):
        if strides[i] != need:
            return False
        need *= shape[i]
    return True


def obeys_contract(d, v) -> bool:
    """torch 2.13's ``obeys_layout_contract(grad, variable)`` on their arrays: for a
    non-overlapping and dense variable the gradient has its strides on every dim longer than
    one and no 0 stride on the others; otherwise the gradient is contiguous."""
    if not is_dense(v):
        return bool(d.flags.c_contiguous)
    di, vi = d.itemsize, v.itemsize
    for n, a, b in zip(d.shape, d.strides, v.strides):
        if n != 1:
            if a // di != b // vi:
                return False
        elif a == 0:
            return False
    return True


def check_contract(d, v, site_):
    """torch's ``CHECK_RESULT`` after an accumulation: a ``.grad`` out of the layout contract
    warns (``TORCH_WARN_ONCE``: once per run for each of its two places, in place and sum)."""
    if d.flags.c_contiguous and v.flags.c_contiguous and 0 not in d.strides:
        return
    if not obeys_contract(d, v):
        from . import diagnostics

        def dims(values, item=1):
            return ", ".join(str(x // item) for x in values)
        diagnostics.warn_once(LAYOUT_WARNING.format(
            g_sizes=dims(d.shape), g_strides=dims(d.strides, d.itemsize),
            p_sizes=dims(v.shape), p_strides=dims(v.strides, v.itemsize)), key="grad layout " + site_)


def copy_strided(d, strides):
    """A copy of array ``d`` with exactly these byte strides (torch's ``empty_strided`` and
    ``copy_``): ``strides`` of a dense layout of ``d``'s shape, as :func:`is_dense` accepts;
    the values are ``d``'s bit for bit."""
    item = d.itemsize
    shape = d.shape
    if any(s < 0 for n, s in zip(shape, strides) if n > 1):
        return np.array(d, order="C", copy=True)
    span = 1 + sum((n - 1) * (s // item) for n, s in zip(shape, strides)) if d.size else 0
    out = np.lib.stride_tricks.as_strided(np.empty(span, dtype=d.dtype), shape,
                                         tuple(s // item * item for s in strides))
    np.copyto(out, d)
    return out


def sum_layout(res, a, b):
    """``res``, the Tensor ``a + b`` of two arrays of one shape, laid out as torch 2.13's
    TensorIterator lays out that sum (numpy picks its own): contiguous when both are, the
    strides of both when they are dense alike, channels-last when both are (4 dims), else
    the dims ordered by the operands' strides — ``a``'s first, ``b``'s where ``a``'s tie,
    size-1 dims included (reorder_dimensions) — with dense strides in that order. The values are kept."""
    if a.flags.c_contiguous and b.flags.c_contiguous and res._data.flags.c_contiguous:
        return res
    strides = iter_strides(a, b)
    r = res._data
    item = r.itemsize
    if tuple(s // item for s in r.strides) != strides:
        res._data = copy_strided(r, tuple(s * item for s in strides))
    return res


def iter_strides(a, b) -> tuple:
    """The element strides TensorIterator gives the result of a binary op on arrays ``a``
    and ``b`` of one shape (torch 2.13's fast setup, then reorder_dimensions and
    compatible strides)."""
    shape = a.shape
    nd = len(shape)

    def contiguous(order):
        out, st = [0] * nd, 1
        for d in order:
            out[d] = st
            st *= max(shape[d], 1) if order is c_order else shape[d]
        return tuple(out)

    c_order = range(nd - 1, -1, -1)
    if a.flags.c_contiguous and b.flags.c_contiguous:
        return contiguous(c_order)
    sa = tuple(s // a.itemsize for s in a.strides)
    sb = tuple(s // b.itemsize for s in b.strides)
    if nd == 4 and _channels_last(shape, sa) and _channels_last(shape, sb):
        out, st = [0] * 4, 1
        for d in (1, 3, 2, 0):
            out[d] = st
            st *= max(shape[d], 1)
        return tuple(out)
    if sa == sb and is_dense(a) and is_dense(b):
        return sa
    ops_ = (sa, sb)  # of one shape: no broadcast dim, whose stride TensorIterator takes as 0

    def should_swap(d0, d1):
        for st in ops_:
            s0, s1 = st[d0], st[d1]
            if s0 == 0 or s1 == 0:
                continue
            if s0 < s1:
                return -1
            if s0 > s1:
                return 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = list(c_order)
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = should_swap(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    if perm == list(c_order):
        return contiguous(c_order)
    return contiguous(perm)


def _channels_last(shape, strides) -> bool:
    """torch's channels-last contiguity of a 4-dim layout (size-1 dims ignored)."""
    expected = 1
    for d in (1, 3, 2, 0):
        if shape[d] != 1:
            if strides[d] != expected:
                return False
            expected *= shape[d]
    return True
