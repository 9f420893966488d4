"""``F.bilinear`` and the op behind it, ``torch._trilinear`` (TrilinearBackward0).

torch 2.13 (``aten/src/ATen/native/Linear.cpp``) computes ``bilinear(x1, x2, W, b)`` as
``_trilinear(x1.reshape(-1, in1), W, x2.reshape(-1, in2), [1, 3], [0], [1, 2], [2, 3])``
reshaped to ``x1.shape[:-1] + (out,)``, plus ``b`` (AddBackward0 over ViewBackward0 over
TrilinearBackward0). ``_trilinear`` unrolls dim 1 and reduces each slice with two
``sumproduct_pair`` calls (permute, reshape, ``bmm``); its gradients are ``_trilinear``
again with the roles of the dims swapped. The numbers here follow those steps: ``bmm`` as
ATen runs it on the CPU — a plain loop with one accumulator per output element when
``k·m·n < 400``, else MKL (gemm for one batch, and as its batched gemm for several,
whose one-column products are gemv's).
"""

from __future__ import annotations

import numpy as np

from ..resources import INT_MATMUL_FACTOR, check_work
from ..tensor import Tensor
from . import export, kernels, make, mkl, op
from .summation import torch_sum


def _naive_bmm(a, b):
    """ATen's ``baddbmm_cpu_kernel``: per output element an accumulator in the dtype
    (float for float32), adding the products in order."""
    out = np.zeros((a.shape[0], a.shape[1], b.shape[2]), a.dtype)
    with np.errstate(all="ignore"):
        for k in range(a.shape[2]):
            out = out + a[:, :, k:k + 1] * b[:, k:k + 1, :]
    return out


def _product(a, b):
    """One batch's matrix product through MKL where torch's CPU bmm uses it."""
    if b.shape[1] == 1:
        out = mkl.gemv(a, np.ascontiguousarray(b[:, 0]))
        if out is not None:
            return out.reshape(-1, 1)
    elif a.shape[0] == 1:
        out = mkl.gemv(np.ascontiguousarray(b.T), np.ascontiguousarray(a[0]))
        if out is not None:
            return out.reshape(1, -1)
    return kernels.matmul(a, b)


def _bmm(a, b):
    if a.shape[0] * a.shape[1] * b.shape[2] == 0 or a.shape[2] == 0:
        return np.zeros((a.shape[0], a.shape[1], b.shape[2]), a.dtype)
    if a.dtype.kind != "f":
        return np.matmul(a, b)       # exact (torch's integer bmm wraps around as numpy's does)
    if a.shape[2] * a.shape[1] * b.shape[2] < 400:
        return _naive_bmm(a, b)
    if a.shape[0] == 1:
        return kernels.matmul(a[0], b[0])[None]
    return np.stack([_product(a[i], b[i]) for i in range(a.shape[0])])


def _sumproduct_pair(left, right, sum_dims):
    """ATen's ``sumproduct_pair`` (keepdim): ``(left * right).sum(sum_dims)`` as one bmm
    over the dims both share, the dims only one side has summed first."""
    if not sum_dims:
        return left * right
    lro, lo, ro, sums = [], [], [], 1
    for i in range(left.ndim):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in sum_dims:
            if sl and sr:
                sums *= left.shape[i]
            elif sl:
                left = torch_sum(left, axis=i, keepdims=True)
            elif sr:
                right = torch_sum(right, axis=i, keepdims=True)
        elif sl and sr:
            lro.append(i)
        elif sl:
            lo.append(i)
        else:
            ro.append(i)
    size = lambda t, ds: int(np.prod([t.shape[d] for d in ds], dtype=np.int64))  # noqa: E731
    out_size = [left.shape[d] for d in lro + lo] + [1] * len(sum_dims) + [right.shape[d] for d in ro]
    a = np.transpose(left, lro + lo + list(sum_dims) + ro).reshape(size(left, lro), size(left, lo), sums)
    b = np.transpose(right, lro + list(sum_dims) + ro + lo).reshape(size(left, lro), sums, size(right, ro))
    operm = [0] * len(out_size)
    for i, d in enumerate(lro + lo + list(sum_dims) + ro):
        operm[d] = i
    return _bmm(a, b).reshape(out_size).transpose(operm)


def trilinear_array(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1):
    """ATen's ``_trilinear`` on numpy arrays: the product of the three inputs (each
    unsqueezed at its ``expand`` dims), summed over ``sumdim``, one slice of
    ``unroll_dim`` at a time."""
    total = i1.ndim + len(expand1)
    out_size, sum12, sum23 = [], [], []
    unroll = 0
    for i in range(total):
        s = 0
        if i in expand1:
            i1 = np.expand_dims(i1, i)
        else:
            s = i1.shape[i]
        if i in expand2:
            i2 = np.expand_dims(i2, i)
        else:
            s = i2.shape[i]
        if i in expand3:
            i3 = np.expand_dims(i3, i)
            if i in sumdim and i != unroll_dim:
                sum12.append(i)
        else:
            s = i3.shape[i]
            if i in sumdim and i != unroll_dim:
                sum23.append(i)
        out_size.append(1 if i in sumdim else s)
        if i == unroll_dim:
            unroll = s
    sizes = np.maximum.reduce([np.array(t.shape, dtype=np.float64) for t in (i1, i2, i3)])
    check_work(2.0 * float(np.prod(sizes)) * (INT_MATMUL_FACTOR if i1.dtype.kind != "f" else 1),
               f"a trilinear product of sizes {', '.join(str(int(n)) for n in sizes)}")
    out = np.zeros(out_size, i1.dtype)
    if i1.size and i2.size and i3.size:
        steps = [0 if unroll_dim in e else 1 for e in (expand1, expand2, expand3)]

        def part(x, k, step):
            return np.take(x, [k * step], axis=unroll_dim)

        with np.errstate(all="ignore"):
            for k in range(unroll):
                buf = _sumproduct_pair(part(i1, k, steps[0]), part(i2, k, steps[1]), sum12)
                buf = _sumproduct_pair(buf, part(i3, k, steps[2]), sum23)
                if unroll_dim in sumdim:
                    out = out + buf
                else:
                    idx = [slice(None)] * out.ndim
                    idx[unroll_dim] = slice(k, k + 1)
                    out[tuple(idx)] = out[tuple(idx)] + buf
    return out.reshape([n for i, n in enumerate(out_size) if i not in sumdim])


@op("trilinear", "TrilinearBackward0", ("i1", "i2", "i3"),
    vjp={"i1": "Σ_o,j grad[n,o]·i2[o,i,j]·i3[n,j]  (_trilinear(grad, i2, i3) with the dims swapped)",
         "i2": "Σ_n grad[n,o]·i1[n,i]·i3[n,j]  (_trilinear(i1, grad, i3))",
         "i3": "Σ_o,i grad[n,o]·i1[n,i]·i2[o,i,j]  (_trilinear(i1, i2, grad))"})
def TRILINEAR(ctx, g):
    i1, i2, i3 = ctx.i1, ctx.i2, ctx.i3
    e1, e2, e3, sd = ctx.expand1, ctx.expand2, ctx.expand3, ctx.sumdim
    return (trilinear(g, i2, i3, sd, e2, e3, e1) if ctx.needs(0) else None,
            trilinear(i1, g, i3, e1, sd, e3, e2) if ctx.needs(1) else None,
            trilinear(i1, i2, g, e1, e2, sd, e3) if ctx.needs(2) else None)


def trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim):
    """``torch._trilinear`` (unroll dim 1) as a recorded op (TrilinearBackward0)."""
    out = trilinear_array(i1._data, i2._data, i3._data, expand1, expand2, expand3, sumdim)
    return make(TRILINEAR, out, (i1, i2, i3), save={"i1": i1, "i2": i2, "i3": i3},
                attrs={"expand1": tuple(expand1), "expand2": tuple(expand2), "expand3": tuple(expand3),
                       "sumdim": tuple(sumdim)})


_C10_NAMES = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int", "int16": "short int",
              "int8": "signed char", "uint8": "unsigned char", "bool": "bool", "float16": "c10::Half",
              "bfloat16": "c10::BFloat16"}


def _size(t, d):
    """``t.size(d)`` with torch's IndexError for a dim ``t`` does not have."""
    n = t.ndim
    if n == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})")
    return t.shape[d]


@export(functional=("bilinear",))
def bilinear(input1, input2, weight, bias=None):
    """``y[..., o] = Σ_ij x1[..., i] · W[o, i, j] · x2[..., j] + b[o]``: ``input1``
    (*, in1) and ``input2`` (*, in2) with the same batch dims, ``weight`` (out, in1, in2),
    ``bias`` (out,); one dtype for all. Errors are torch 2.13's, checked in its order
    (dtypes, ranks, batch sizes, in1, in2, bias). The graph is torch's: AddBackward0 (with
    a bias) over ViewBackward0 over TrilinearBackward0 over the inputs' reshapes."""
    from .arith import add
    from .errors import _arg_type
    for i, (name, v) in enumerate((("input1", input1), ("input2", input2), ("weight", weight))):
        if not isinstance(v, Tensor):
            raise TypeError(f"bilinear(): argument '{name}' (position {i + 1}) must be Tensor, not {_arg_type(v)}")
    if bias is not None and not isinstance(bias, Tensor):
        raise TypeError(f"bilinear(): argument 'bias' (position 4) must be Tensor, not {_arg_type(bias)}")
    ts = (input1, input2, weight) + ((bias,) if bias is not None else ())
    if any(t._dtype is not input1._dtype for t in ts):
        names = ("input1", "input2", "weight", "bias")
        raise RuntimeError("All tensors must have the same dtype, got " +
                           ", ".join(f"{n}: {_C10_NAMES.get(t._dtype.name, t._dtype.name)}"
                                     for n, t in zip(names, ts)))
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    s1, s2 = input1.shape, input2.shape
    for i in range(input1.ndim - 1):
        if s1[i] != s2[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got {s1[i]} and {s2[i]}")
    n1, w1 = _size(input1, input1.ndim - 1 if input1.ndim else -1), _size(weight, 1)
    if n1 != w1:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {n1} but expected {w1}")
    n2, w2 = _size(input2, input2.ndim - 1), _size(weight, 2)
    if n2 != w2:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {n2} but expected {w2}")
    if bias is not None and _size(bias, 0) != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[0]} "
                           f"but expected {weight.shape[0]}")
    if weight.ndim != 3:
        raise RuntimeError("number of dimensions must match")
    out = trilinear(input1.reshape(-1, n1), weight, input2.reshape(-1, n2), (1, 3), (0,), (1, 2), (2, 3))
    out = out.reshape(tuple(s1[:-1]) + (weight.shape[0],))
    return add(out, bias) if bias is not None else out
