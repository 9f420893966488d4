"""``torch.einsum`` as torch 2.13's C++ implementation computes it (``Linear.cpp``): the
operands are aligned by diagonal / unsqueeze / permute, then contracted left to right by
``sumproduct_pair`` (permute, reshape, bmm, view, permute), and the contraction dims are
viewed (or, for one operand, summed) away. It is a composition of recorded ops, so its
graph has torch's nodes (PermuteBackward0, DiagonalBackward0, BmmBackward0, ViewBackward0,
SumBackward1, MulBackward0 ...) and needs no op of its own. Also ``diagonal`` and ``movedim``.
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor, wrap_dim
from . import export, make, op
from .shape import _view_of

_ELL = -1


def _label(c: str) -> int:
    return ord(c) - ord("A") if c <= "Z" else ord(c) - ord("a") + 26


def _sub(label: int) -> str:
    return chr(label + ord("A")) if label < 26 else chr(label - 26 + ord("a"))


@op("diagonal", "DiagonalBackward0", ("self",), vjp={"self": "zeros(self.sizes()) with grad on the diagonal"},
    local={"self": "1 on the diagonal, 0 elsewhere"})
def DIAGONAL(ctx, g):
    from .indexing import embed
    return (embed(g, ctx.self_sym_sizes, ctx.key),)


@export(torch=("diagonal",), tensor=("diagonal",))
def diagonal(input, offset=0, dim1=0, dim2=1):
    """The ``offset`` diagonal of the (dim1, dim2) planes, as the last dim (a view;
    DiagonalBackward0)."""
    x = input._data
    d1, d2 = wrap_dim(dim1, x.ndim), wrap_dim(dim2, x.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n1, n2 = x.shape[d1], x.shape[d2]
    if offset >= 0:
        n = max(0, min(n1, n2 - offset))
        i1, i2 = np.arange(n), np.arange(n) + offset
    else:
        n = max(0, min(n1 + offset, n2))
        i1, i2 = np.arange(n) - offset, np.arange(n)
    out = np.diagonal(x, offset, d1, d2)
    if x.flags.writeable:
        out.setflags(write=True)  # numpy's diagonal is read-only; torch's is written through
    # the key that writes the diagonal back: other dims broadcast, the diagonal last
    rest = [d for d in range(x.ndim) if d not in (d1, d2)]
    key = [None] * x.ndim
    for j, d in enumerate(rest):
        shape = [1] * (len(rest) + 1)
        shape[j] = x.shape[d]
        key[d] = np.arange(x.shape[d]).reshape(shape)
    key[d1] = i1.reshape([1] * len(rest) + [n])
    key[d2] = i2.reshape([1] * len(rest) + [n])
    return _view_of(input, make(DIAGONAL, out, (input,), attrs={"self_sym_sizes": x.shape, "key": tuple(key)}))


@export(torch=("movedim", "moveaxis"), tensor=("movedim", "moveaxis"))
def movedim(input, source, destination):
    """Move dims ``source`` to ``destination`` (a permute: PermuteBackward0)."""
    nd = input._data.ndim
    src = [source] if isinstance(source, int) else list(source)
    dst = [destination] if isinstance(destination, int) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) should contain the "
                           f"same number of dims as destination ({dst} dims)")
    src = [wrap_dim(s, nd) for s in src]
    dst = [wrap_dim(d, nd) for d in dst]
    order = [-1] * nd
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(nd) if d not in src)
    order = [o if o != -1 else next(rest) for o in order]
    return input.permute(*order) if nd else input.permute()


def _parse(equation: str, n_ops: int):
    eq = equation.replace(" ", "")
    arrow = eq.find("->")
    lhs = eq if arrow < 0 else eq[:arrow]
    op_labels = [[]]
    i = 0
    while i < len(lhs):
        c = lhs[i]
        if c == ".":
            if lhs[i:i + 3] != "..." or _ELL in op_labels[-1]:
                raise RuntimeError(f"einsum(): found '.' for operand {len(op_labels) - 1} that is not part of any "
                                   "ellipsis")
            op_labels[-1].append(_ELL)
            i += 3
            continue
        if c == ",":
            op_labels.append([])
            if len(op_labels) > n_ops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
        elif c.isascii() and c.isalpha():
            op_labels[-1].append(_label(c))
        else:
            raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation string, subscripts "
                               "must be in [a-zA-Z]")
        i += 1
    if len(op_labels) < n_ops:
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    return op_labels, (None if arrow < 0 else eq[arrow + 2:])


@export(torch=("einsum",))
def einsum(equation, *operands):
    """Einstein summation (torch 2.13's algorithm and node names; operands may be given
    as one list). Errors as torch's ``einsum():`` RuntimeErrors."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not isinstance(equation, str):
        raise TypeError("einsum(): must specify the equation string and at least one operand, or at least one "
                        "operand and its subscripts list")
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    for i, t in enumerate(operands):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got {type(t).__name__}")
    n_ops = len(operands)
    op_labels, out_str = _parse(equation, n_ops)
    label_count = [0] * 52
    ell_num_dim = 0
    for i, labels in enumerate(op_labels):
        ndims = operands[i].ndim
        nlabels = len(labels)
        has_ell = _ELL in labels
        if has_ell:
            nlabels -= 1
            ell_num_dim = max(ell_num_dim, ndims - nlabels)
        for lb in labels:
            if lb != _ELL:
                label_count[lb] += 1
        if (nlabels > ndims) if has_ell else (nlabels != ndims):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({nlabels}) "
                               f"{'is more than' if has_ell else 'does not match'} the number of dimensions ({ndims}) "
                               f"for operand {i}{'' if has_ell else ' and no ellipsis was given'}")
    perm_of = [-1] * 52
    perm_index = 0
    ell_index = 0
    has_ell = False
    if out_str is None:
        perm_index = ell_num_dim
        has_ell = True
        for lb in range(52):
            if label_count[lb] == 1:
                perm_of[lb] = perm_index
                perm_index += 1
    else:
        j = 0
        while j < len(out_str):
            c = out_str[j]
            if c == ".":
                if out_str[j:j + 3] != "..." or has_ell:
                    raise RuntimeError("einsum(): found '.' for output that is not part of any ellipsis in the equation")
                ell_index = perm_index
                perm_index += ell_num_dim
                has_ell = True
                j += 3
                continue
            if not (c.isascii() and c.isalpha()):
                raise RuntimeError(f"einsum(): invalid subscript given at index {len(equation.replace(' ', '')) - len(out_str) + j} "
                                   "in the equation string, subscripts must be in [a-zA-Z]")
            lb = _label(c)
            if label_count[lb] == 0:
                raise RuntimeError(f"einsum(): output subscript {c} does not appear in the equation for any input operand")
            if perm_of[lb] != -1:
                raise RuntimeError(f"einsum(): output subscript {c} appears more than once in the output")
            perm_of[lb] = perm_index
            perm_index += 1
            j += 1
    out_size = perm_index
    if not has_ell:
        ell_index = perm_index
        perm_index += ell_num_dim
    for lb in range(52):
        if label_count[lb] > 0 and perm_of[lb] == -1:
            perm_of[lb] = perm_index
            perm_index += 1

    label_size = [1] * 52
    ell_sizes = [1] * ell_num_dim
    dim_counts = [0] * perm_index
    ops = []
    for i, labels in enumerate(op_labels):
        t = operands[i]
        permutation = [-1] * perm_index
        dim = 0
        for lb in labels:
            if lb == _ELL:
                missing = ell_num_dim - (t.ndim - len(labels) + 1)
                for _ in range(missing):
                    t = t.unsqueeze(dim)
                for j in range(ell_num_dim):
                    size = t.shape[dim]
                    if size != 1:
                        if ell_sizes[j] != 1 and ell_sizes[j] != size:
                            raise RuntimeError("einsum(): operands do not broadcast with remapped shapes "
                                               "(original->remapped): " + _remapped(operands, op_labels))
                        ell_sizes[j] = size
                        dim_counts[ell_index + j] += 1
                    permutation[ell_index + j] = dim
                    dim += 1
            elif permutation[perm_of[lb]] == -1:
                size = t.shape[dim]
                if not (label_size[lb] == 1 or size == 1 or label_size[lb] == size):
                    raise RuntimeError(f"einsum(): subscript {_sub(lb)} has size {size} for operand {i} which does not "
                                       f"broadcast with previously seen size {label_size[lb]}")
                if size != 1:
                    label_size[lb] = size
                    dim_counts[perm_of[lb]] += 1
                permutation[perm_of[lb]] = dim
                dim += 1
            else:
                prev = permutation[perm_of[lb]]
                if t.shape[dim] != t.shape[prev]:
                    raise RuntimeError(f"einsum(): subscript {_sub(lb)} is repeated for operand {i} but the sizes "
                                       f"don't match, {t.shape[dim]} != {t.shape[prev]}")
                t = movedim(diagonal(t, 0, prev, dim), -1, prev)
        for k, v in enumerate(permutation):
            if v == -1:
                t = t.unsqueeze(dim)
                permutation[k] = dim
                dim += 1
        ops.append(t.permute(*permutation))

    while len(ops) > 1:
        a, b = ops[0], ops[1]
        del ops[:2]
        sum_dims, a_sum, b_sum = [], [], []
        for d in range(out_size, perm_index):
            if a.shape[d] != 1 and b.shape[d] != 1:
                dim_counts[d] -= 1
                if dim_counts[d] == 1:
                    sum_dims.append(d)
                    dim_counts[d] = 0
            elif dim_counts[d] == 1:
                if a.shape[d] != 1:
                    a_sum.append(d)
                    dim_counts[d] = 0
                elif b.shape[d] != 1:
                    b_sum.append(d)
                    dim_counts[d] = 0
        if a_sum:
            a = a.sum(a_sum, keepdim=True)
        if b_sum:
            b = b.sum(b_sum, keepdim=True)
        ops.insert(0, _sumproduct_pair(a, b, sum_dims))

    res = ops[0]
    if perm_index - out_size > 0:
        if n_ops > 1:
            return res.view(*res.shape[:out_size])
        return res.sum(list(range(out_size, perm_index)))
    return res


def _remapped(operands, op_labels) -> str:
    return " ".join(str(list(t.shape)) for t in operands)


def _sumproduct_pair(left: Tensor, right: Tensor, sum_dims):
    """torch's ``sumproduct_pair`` with keepdim: multiply, summing ``sum_dims`` by bmm."""
    if not sum_dims:
        return left * right
    nd = left.ndim
    sums = set(sum_dims)
    lro, lo, ro = [], [], []
    lro_size = lo_size = ro_size = sum_size = 1
    for i in range(nd):
        sl, sr = left.shape[i] != 1, right.shape[i] != 1
        if i in sums:
            if sl and sr:
                if left.shape[i] != right.shape[i]:
                    raise RuntimeError("non-broadcast dimensions must match")
                sum_size *= left.shape[i]
            elif sl:
                left = left.sum(i, keepdim=True)
            elif sr:
                right = right.sum(i, keepdim=True)
        elif sl and sr:
            if left.shape[i] != right.shape[i]:
                raise RuntimeError("non-broadcast dimensions must match")
            lro.append(i)
            lro_size *= left.shape[i]
        elif sl:
            lo.append(i)
            lo_size *= left.shape[i]
        else:
            ro.append(i)
            ro_size *= right.shape[i]
    out_shape = [left.shape[d] for d in lro] + [left.shape[d] for d in lo] + [1] * len(sum_dims) + \
        [right.shape[d] for d in ro]
    lperm = lro + lo + list(sum_dims) + ro
    rperm = lro + list(sum_dims) + ro + lo
    operm = [-1] * len(out_shape)
    for i, d in enumerate(lro + lo + list(sum_dims) + ro):
        operm[d] = i
    from .linalg import bmm
    lt = left.permute(*lperm).reshape(lro_size, lo_size, sum_size)
    rt = right.permute(*rperm).reshape(lro_size, sum_size, ro_size)
    return bmm(lt, rt).view(*out_shape).permute(*operm)
