"""Linear algebra: matmul in every rank combination with PyTorch's node names
(DotBackward0, MvBackward0, MmBackward0, BmmBackward0, and the Squeeze/UnsafeView
nodes PyTorch adds around them), mm, mv, dot, bmm, outer.
"""

from __future__ import annotations

import numpy as np

from .. import grad_mode
from ..resources import check_matmul
from ..tensor import _CPP_TYPE, Tensor
from . import kernels, mkl
from . import export, make, op


def _word(t: Tensor) -> str:
    return t._dtype.legacy[:-6]  # "Float", "Long"


def _same_dtype(a: Tensor, b: Tensor, name: str):
    if a._dtype is not b._dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_CPP_TYPE[a._dtype.name]} != "
            f"{_CPP_TYPE[b._dtype.name]}"
            if name != "dot" else
            f"dot : expected both vectors to have same dtype, but found {a._dtype.legacy[:-6]} and {b._dtype.legacy[:-6]}")


@op("dot", "DotBackward0", ("self", "tensor"),
    vjp={"self": "grad * tensor", "tensor": "grad * self"}, local={"self": "tensor", "tensor": "self"})
def DOT(ctx, g):
    return (g * ctx.tensor if ctx.needs(0) else None, g * ctx.self if ctx.needs(1) else None)


@export(torch=("dot", "inner"), tensor=("dot", "inner"))
def dot(input, tensor):
    """Inner product of two 1-d tensors (DotBackward0)."""
    if input.ndim != 1 or tensor.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {tensor.ndim}D tensors")
    _same_dtype(input, tensor, "dot")
    if input._data.shape != tensor._data.shape:
        raise RuntimeError(
            "inconsistent tensor size, expected tensor [%d] and src [%d] to have the same number of elements, but got %d and %d elements respectively"
            % (input._data.shape[0], tensor._data.shape[0], input._data.shape[0], tensor._data.shape[0]))
    check_matmul(input._data, tensor._data)
    out = np.asarray(np.dot(input._data, tensor._data), dtype=input._data.dtype)
    return make(DOT, out, (input, tensor), save={"self": input if tensor._requires_grad else None,
                                                  "tensor": tensor if input._requires_grad else None})


@op("mv", "MvBackward0", ("self", "vec"),
    vjp={"self": "grad.outer(vec)", "vec": "self.t() @ grad"}, local={"self": "vec (outer)", "vec": "selfᵀ"})
def MV(ctx, g):
    gs = outer(g, ctx.vec) if ctx.needs(0) else None
    gv = mv(ctx.self.t(), g) if ctx.needs(1) else None
    return gs, gv


@export(torch=("mv",), tensor=("mv",))
def mv(input, vec):
    """Matrix-vector product (MvBackward0)."""
    if input._data.shape[1] != vec._data.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({input._data.shape[0]}), mat ({input._data.shape[0]}x{input._data.shape[1]}), vec ({vec._data.shape[0]})")
    if input._dtype is not vec._dtype:
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {_word(vec)}, {_word(input)}, "
                           f"and {_word(vec)}")
    check_matmul(input._data, vec._data)
    out = kernels.matvec(input._data, vec._data)
    return make(MV, np.asarray(out), (input, vec), save={"self": input, "vec": vec})


@op("mm", "MmBackward0", ("self", "mat2"),
    vjp={"self": "grad @ mat2.t()", "mat2": "self.t() @ grad"},
    local={"self": "∂L/∂A = ∂L/∂Y · Bᵀ", "mat2": "∂L/∂B = Aᵀ · ∂L/∂Y"})
def MM(ctx, g):
    gs = mm(g, ctx.mat2.t()) if ctx.needs(0) else None
    gm = mm(ctx.self.t(), g) if ctx.needs(1) else None
    return gs, gm


@export(torch=("mm",), tensor=("mm",))
def mm(input, mat2):
    """Matrix product of 2-d tensors (MmBackward0)."""
    a, b = input._data, mat2._data
    if a.ndim != 2 or b.ndim != 2:
        raise RuntimeError(f"{'self' if a.ndim != 2 else 'mat2'} must be a matrix")
    if a.shape[1] != b.shape[0]:
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({a.shape[0]}x{a.shape[1]} and {b.shape[0]}x{b.shape[1]})")
    _same_dtype(input, mat2, "mm")
    check_matmul(a, b)
    return make(MM, kernels.matmul(a, b), (input, mat2), save={"self": input if mat2._requires_grad else None,
                                                  "mat2": mat2 if input._requires_grad else None})


@op("bmm", "BmmBackward0", ("self", "mat2"),
    vjp={"self": "grad @ mat2.transpose(1, 2)", "mat2": "self.transpose(1, 2) @ grad"},
    local={"self": "per batch: ∂L/∂Y · Bᵀ", "mat2": "per batch: Aᵀ · ∂L/∂Y"})
def BMM(ctx, g):
    gs = bmm(g, ctx.mat2.transpose(1, 2)) if ctx.needs(0) else None
    gm = bmm(ctx.self.transpose(1, 2), g) if ctx.needs(1) else None
    return gs, gm


@export(torch=("bmm",), tensor=("bmm",))
def bmm(input, mat2):
    """Batched matrix product of 3-d tensors (BmmBackward0)."""
    a, b = input._data, mat2._data
    if a.ndim != 3 or b.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if a.ndim != 3 else "batch2 must be a 3D tensor")
    check_matmul(a, b)
    return make(BMM, np.matmul(a, b), (input, mat2), save={"self": input, "mat2": mat2})


@export(torch=("outer", "ger"), tensor=("outer", "ger"))
def outer(input, vec2):
    """Outer product (PyTorch records it as MulBackward0 of two broadcast views)."""
    return input.reshape(-1, 1) * vec2


@export(torch=("matmul",), tensor=("matmul",))
def matmul(input, other):
    """``input @ other`` (torch.matmul) dispatched by rank as PyTorch does:
    1-d·1-d → dot; 2-d·1-d → mv; 1-d·2-d → unsqueeze, mm, squeeze; 2-d·2-d → mm;
    batched → broadcast, bmm-like (UnsafeViewBackward0 / BmmBackward0)."""
    try:
        da, db = input._data.ndim, other._data.ndim
    except AttributeError:
        for i, (n, v) in enumerate((("input", input), ("other", other))):
            if not isinstance(v, Tensor):
                raise TypeError(f"matmul(): argument '{n}' (position {i + 1}) must be Tensor, "
                                f"not {type(v).__name__}") from None
        raise
    if da == 0 or db == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    if da == 1 and db == 1:
        return dot(input, other)
    if da == 2 and db == 1:
        return mv(input, other)
    if da == 1 and db == 2:
        from .shape import squeeze_result_
        return squeeze_result_(mm(input.unsqueeze(0), other), (0,))
    if da == 2 and db == 2:
        return mm(input, other)
    if da == 3 and db == 3 and grad_mode.enabled:
        # torch 2.13 squeezes a batch-of-one operand that requires grad and folds to mm
        n1, n2 = input._data.shape[0], other._data.shape[0]
        if n2 == 1 and n1 != 1 and other._requires_grad:
            return matmul(input, other.squeeze(0))
        if n1 == 1 and n2 != 1 and input._requires_grad:
            return matmul(input.squeeze(0), other)
    if _should_fold(input, other):
        return _folded_matmul(input, other)
    return _batched_matmul(input, other)


def _should_fold(t1, t2) -> bool:
    """torch 2.13 ``should_fold``: fold the larger (≥3-d) operand's batch dims into
    rows and use mm/mv when the smaller one (≤2-d) requires grad, or when the fold
    needs no copy."""
    larger = t1.ndim >= t2.ndim
    big = t1._data if larger else np.swapaxes(t2._data, -1, -2) if t2.ndim >= 2 else t2._data
    dim_small = t2.ndim if larger else t1.ndim
    if not (big.ndim >= 3 and dim_small <= 2):
        return False
    small = t2 if larger else t1
    if small._requires_grad and grad_mode.enabled:
        return True
    if t1.ndim == 2:
        return False
    if big.size == 0:
        return True
    st, sh = big.strides, big.shape
    for i in range(big.ndim - 2):
        if st[i] != st[i + 1] * sh[i + 1]:
            return False
    return True


def _folded_matmul(tensor1, tensor2):
    from .shape import unsafe_view
    transpose = tensor2.ndim > tensor1.ndim
    t1 = tensor2.mT if transpose else tensor1
    t2 = (tensor1.t() if tensor1.ndim == 2 else tensor1) if transpose else tensor2
    sizes = t1._data.shape
    out_shape = sizes[:-1]
    folded = int(np.prod(out_shape, dtype=np.int64))
    t1f = t1.reshape(folded, sizes[-1])
    if t2.ndim == 2:
        out = unsafe_view(mm(t1f, t2), out_shape + (t2._data.shape[1],))
        return out.mT.contiguous() if transpose else out
    return unsafe_view(mv(t1f, t2), out_shape)


def _batched_matmul(tensor1, tensor2):
    """torch 2.13's broadcast-batched path: expand both to the broadcast batch, reshape
    to 3-d, bmm, then _unsafe_view to the output shape."""
    from .shape import unsafe_view
    d1, d2 = tensor1.ndim, tensor2.ndim
    s1, s2 = tensor1._data.shape, tensor2._data.shape
    n = s1[-2] if d1 > 1 else 1
    m1 = s1[-1]
    b1 = s1[:max(d1 - 2, 0)]
    m2 = s2[-2] if d2 > 1 else s2[0]
    p = s2[-1] if d2 > 1 else 1
    b2 = s2[:max(d2 - 2, 0)]
    try:
        out_shape = tuple(np.broadcast_shapes(b1, b2))
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({b1[-1]}) must match the size of tensor b ({b2[-1]}) "
                           "at non-singleton dimension 0") from None
    prod = int(np.prod(out_shape, dtype=np.int64))
    e1 = tensor1.expand(*(out_shape + (n, m1))).reshape(prod, n, m1)
    if d2 == 1:
        e2 = tensor2.expand(*(out_shape + (m2,))).reshape(prod, m2).unsqueeze(2)
    else:
        e2 = tensor2.expand(*(out_shape + (m2, p))).reshape(prod, m2, p)
    if m1 != m2:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{prod}, {m1}] "
            f"but got: [{prod}, {m2}].")
    if d1 > 1:
        out_shape = out_shape + (n,)
    if d2 > 1:
        out_shape = out_shape + (p,)
    r = bmm(e1, e2)
    if d2 == 1:
        r = r.squeeze(-1)
    return unsafe_view(r, out_shape)


@export(tensor=("__matmul__",))
def _matmul_op(self, other):
    """``x @ other``: Python's TypeError for a non-tensor ``other``, as torch's."""
    if not isinstance(other, Tensor):
        return NotImplemented
    return matmul(self, other)


@export(tensor=("__rmatmul__",))
def _rmatmul_op(self, other):
    return NotImplemented


@export(torch=("addmm",), tensor=("addmm",))
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)`` (AddmmBackward0), torch 2.13's CPU addmm:
    one gemm call accumulating into a copy of ``input`` broadcast to the result's shape,
    when MKL is available (so with K = 1 each element is one fused multiply-add)."""
    return addmm_as(input, mat1, mat2, beta, alpha, fused=True)


def addmm_as(input, mat1, mat2, beta=1, alpha=1, fused=True):
    """:func:`addmm`; ``fused=False`` rounds the product before adding ``input`` (for
    formulas torch computes outside gemm, such as the LSTM backward's recomputed gates)."""
    if mat1._dtype is not mat2._dtype or input._dtype is not mat2._dtype:
        a, b = (mat1, mat2) if mat1._dtype is not mat2._dtype else (input, mat2)
        raise RuntimeError(f"{'mat1' if a is mat1 else 'self'} and mat2 must have the same dtype, but got "
                           f"{_word(a)} and {_word(b)}")
    check_matmul(mat1._data, mat2._data)
    a, m = mat1._data, mat2._data
    if fused and a.ndim == 2 and m.ndim == 2 and a.shape[1] == m.shape[0]:
        try:
            c = np.broadcast_to(input._data, (a.shape[0], m.shape[1]))
        except ValueError:
            c = None
        # torch's addmm: the result starts as self, and gemm adds alpha·(mat1 @ mat2) into it
        fused = mkl.gemm(a, m, c, alpha, beta) if c is not None else None
        if fused is not None:
            return _addmm_result(fused, input, mat1, mat2, alpha, beta)
    try:
        out = kernels.matmul(mat1._data, mat2._data)
    except ValueError:
        a, b = mat1._data.shape, mat2._data.shape
        if len(a) != 2 or len(b) != 2:
            raise RuntimeError(f"{'mat1' if len(a) != 2 else 'mat2'} must be a matrix, got {len(a) if len(a) != 2 else len(b)}-D tensor") from None
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a[0]}x{a[1]} and {b[0]}x{b[1]})") from None
    if alpha != 1:
        out = out * alpha
    b = input._data if beta == 1 else input._data * beta
    out = np.asarray(out + b, dtype=mat1._data.dtype)
    return _addmm_result(out, input, mat1, mat2, alpha, beta)


def _addmm_result(out, input, mat1, mat2, alpha, beta):
    return make(ADDMM, out, (input, mat1, mat2),
                save={"mat1": mat1 if mat2._requires_grad else None,
                      "mat2": mat2 if mat1._requires_grad else None},
                attrs={"alpha": alpha, "beta": beta, "self_sym_sizes": input._data.shape})


@op("addmm", "AddmmBackward0", ("self", "mat1", "mat2"),
    vjp={"self": "beta * grad (summed to self's shape)", "mat1": "alpha * grad @ mat2.t()",
         "mat2": "alpha * mat1.t() @ grad"},
    local={"self": "beta", "mat1": "∂L/∂X = ∂L/∂Y · Wᵀ", "mat2": "∂L/∂W = Xᵀ · ∂L/∂Y"})
def ADDMM(ctx, g):
    alpha, beta = ctx.alpha, ctx.beta
    gs = (g if beta == 1 else g * beta) if ctx.needs(0) else None
    g1 = mm(g, ctx.mat2.t()) if ctx.needs(1) else None
    g2 = mm(ctx.mat1.t(), g) if ctx.needs(2) else None
    if alpha != 1:
        g1 = g1 * alpha if g1 is not None else None
        g2 = g2 * alpha if g2 is not None else None
    return gs, g1, g2
