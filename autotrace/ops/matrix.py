"""Comparisons and the remaining matrix/series ops of torch 2.13: ``allclose``/``isclose``/
``equal``, ``meshgrid`` (with its indexing warning), ``diff``, ``tensordot``, ``kron``,
``baddbmm``, ``cross``/``linalg.cross``, ``diag``/``diag_embed``, ``cdist``,
``logcumsumexp``, ``nan_to_num``, ``sgn``, ``erfinv``, ``fliplr``/``flipud``.

Ops that torch writes as compositions (meshgrid, diff, tensordot, kron) are compositions
here too, so their graphs carry torch's nodes.
"""

from __future__ import annotations

import math

import numpy as np

from .. import diagnostics, dtypes
from ..resources import ACCUMULATE_FACTOR, check_broadcast_size, check_work
from ..tensor import Tensor, wrap_dim
from . import tensor_params, RESULT, export, make, op
from .shape import sum_to


def _word(t: Tensor) -> str:
    return t._dtype.legacy[:-6]


def _close_args(fn, input, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"{fn}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    if input._dtype is not other._dtype:
        raise RuntimeError(f"{_word(input)} did not match {_word(other)}")
    from .errors import broadcast_shapes
    broadcast_shapes(input._data.shape, other._data.shape)


@export(torch=("isclose",), tensor=("isclose",))
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|input - other| <= atol + rtol * |other|`` elementwise (bool); dtypes must match."""
    _close_args("isclose", input, other)
    return Tensor._make(np.isclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


@export(torch=("allclose",), tensor=("allclose",))
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether :func:`isclose` holds everywhere (a Python bool)."""
    _close_args("allclose", input, other)
    return bool(np.allclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))


@export(torch=("equal",), tensor=("equal",))
def equal(input, other):
    """True when the shapes and all values are equal (values compared across dtypes)."""
    if not isinstance(other, Tensor):
        raise TypeError(f"equal(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return bool(input._data.shape == other._data.shape and np.array_equal(input._data, other._data))


MESHGRID_WARNING = "torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument."


@export(torch=("meshgrid",))
def meshgrid(*tensors, indexing=None):
    """Coordinate grids of 0- or 1-d tensors: each is viewed along its own dim and
    expanded (ExpandBackward0 over ViewBackward0). ``indexing='ij'`` (the default, with
    torch's warning when not given) or ``'xy'`` (the first two dims swapped)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        diagnostics.warn(MESHGRID_WARNING)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    n = len(tensors)
    sizes = [max(t._data.size, 1) if t.ndim else 1 for t in tensors]
    pos = list(range(n))
    if indexing == "xy" and n >= 2:
        pos[0], pos[1] = 1, 0
        sizes[0], sizes[1] = sizes[1], sizes[0]
    out = []
    for t, p in zip(tensors, pos):
        shape = [1] * n
        shape[p] = -1
        out.append(t.view(*shape).expand(*sizes))
    return tuple(out)


@export(torch=("diff",), tensor=("diff",))
@tensor_params('prepend', 'append', optional=('prepend', 'append'))
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """``n``-th forward difference along ``dim`` (SubBackward0 of two slices), after
    concatenating ``prepend``/``append``."""
    from .indexing import getitem
    from .shape import cat
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    d = wrap_dim(dim, input.ndim)
    x = input
    if prepend is not None or append is not None:
        parts = [p for p in (prepend, input, append) if p is not None]
        x = cat(parts, d)
    for _ in range(n):
        m = x.shape[d]
        lead = (slice(None),) * d
        x = getitem(x, lead + (slice(1, None),)) - getitem(x, lead + (slice(None, m - 1),))
    return x


@export(torch=("tensordot",))
@tensor_params('a', 'b')
def tensordot(a, b, dims=2):
    """Contract ``dims`` (an int: the last dims of a with the first of b; or two lists)
    by permute, reshape and mm, as torch (ViewBackward0 over MmBackward0)."""
    from .linalg import mm
    if not isinstance(b, Tensor) or not isinstance(a, Tensor):
        from ..interpreter.errors import script_visible  # torch's Python code fails on .dim()
        raise script_visible(AttributeError(
            f"'{type(b if isinstance(a, Tensor) else a).__name__}' object has no attribute 'dim'"))
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        da = list(range(a.ndim - dims, a.ndim))
        db = list(range(dims))
    else:
        da, db = dims
        da = [da] if isinstance(da, int) else list(da)
        db = [db] if isinstance(db, int) else list(db)
        if len(da) != len(db):
            raise RuntimeError("both dimension lists should have same length")
    da = [wrap_dim(d, a.ndim) for d in da]
    db = [wrap_dim(d, b.ndim) for d in db]
    for x, y in zip(da, db):
        if a.shape[x] != b.shape[y]:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {a.shape[x]} in dim {x} "
                               f"and second has size {b.shape[y]} in dim {y}")
    ra = [d for d in range(a.ndim) if d not in da]
    rb = [d for d in range(b.ndim) if d not in db]
    csize = int(np.prod([a.shape[d] for d in da], dtype=np.int64))
    asize = int(np.prod([a.shape[d] for d in ra], dtype=np.int64))
    bsize = int(np.prod([b.shape[d] for d in rb], dtype=np.int64))
    t1 = a.permute(*(ra + da)).reshape(asize, csize)
    t2 = b.permute(*(db + rb)).reshape(csize, bsize)
    return mm(t1, t2).reshape(*([a.shape[d] for d in ra] + [b.shape[d] for d in rb]))


@export(torch=("kron",), tensor=("kron",))
@tensor_params('other')
def kron(input, other):
    """Kronecker product: both viewed with interleaved unit dims, multiplied, reshaped
    (UnsafeViewBackward0 over MulBackward0)."""
    from .shape import unsafe_view
    nd = max(input.ndim, other.ndim)
    sa = (1,) * (nd - input.ndim) + tuple(input.shape)
    sb = (1,) * (nd - other.ndim) + tuple(other.shape)
    a_shape, b_shape = [], []
    for i in range(nd):
        a_shape += [sa[i], 1]
        b_shape += [1, sb[i]]
    prod = unsafe_view(input, tuple(a_shape)) * unsafe_view(other, tuple(b_shape))
    return unsafe_view(prod, tuple(sa[i] * sb[i] for i in range(nd)))


@op("baddbmm", "BaddbmmBackward0", ("self", "batch1", "batch2"),
    vjp={"self": "beta * grad (summed to self's shape)", "batch1": "alpha * grad.bmm(batch2.transpose(1, 2))",
         "batch2": "alpha * batch1.transpose(1, 2).bmm(grad)"},
    local={"self": "beta", "batch1": "alpha·batch2ᵀ per batch", "batch2": "alpha·batch1ᵀ per batch"})
def BADDBMM(ctx, g):
    from .linalg import bmm
    gs = g1 = g2 = None
    if ctx.needs(0):
        gs = sum_to(g * ctx.beta if ctx.beta != 1 else g, ctx.self_sizes)
    if ctx.needs(1):
        g1 = bmm(g, ctx.batch2.transpose(1, 2))
        g1 = g1 * ctx.alpha if ctx.alpha != 1 else g1
    if ctx.needs(2):
        g2 = bmm(ctx.batch1.transpose(1, 2), g)
        g2 = g2 * ctx.alpha if ctx.alpha != 1 else g2
    return gs, g1, g2


@export(torch=("baddbmm",), tensor=("baddbmm",))
@tensor_params('batch1', 'batch2')
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * (batch1 @ batch2)`` for 3-d batches (BaddbmmBackward0)."""
    for b in (batch1, batch2):
        if b.ndim < 3:  # torch reads size(2) first
            n = max(b.ndim, 1)
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got 2)")
    if batch1.ndim != 3 or batch2.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if batch1.ndim != 3 else "batch2 must be a 3D tensor")
    prod = np.matmul(batch1._data, batch2._data)
    dt = input._data.dtype
    out = (prod * dt.type(alpha) if alpha != 1 else prod) + (input._data * dt.type(beta) if beta != 0 else 0)
    return make(BADDBMM, np.asarray(out, dtype=dt), (input, batch1, batch2),
                save={"batch1": batch1, "batch2": batch2},
                attrs={"beta": beta, "alpha": alpha, "self_sizes": input._data.shape})


CROSS_WARNING = ("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                 "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree with "
                 "that of linalg.cross in a future release.")


@op("linalg_cross", "LinalgCrossBackward0", ("self", "other"),
    vjp={"self": "cross(other, grad)", "other": "cross(grad, self)"},
    local={"self": "v ↦ v × other", "other": "v ↦ self × v"})
def LINALG_CROSS(ctx, g):
    a, b, d = ctx.self, ctx.other, ctx.dim
    ga = sum_to(_cross(b, g, d), a._data.shape) if ctx.needs(0) else None
    gb = sum_to(_cross(g, a, d), b._data.shape) if ctx.needs(1) else None
    return ga, gb


def _cross(a, b, dim):
    return linalg_cross(a, b, dim=dim)


def linalg_cross(input, other, *, dim=-1):
    """``torch.linalg.cross``: the 3-vector cross product along ``dim`` (LinalgCrossBackward0)."""
    from .errors import broadcast_shapes
    if input.ndim != other.ndim:
        raise RuntimeError(f"linalg.cross: inputs must have the same number of dimensions.")
    d = wrap_dim(dim, input.ndim)
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} and "
                           f"{other.shape[d]}")
    broadcast_shapes(input._data.shape, other._data.shape)
    out = np.cross(input._data, other._data, axisa=d, axisb=d, axisc=d)
    return make(LINALG_CROSS, np.asarray(out, dtype=input._data.dtype), (input, other),
                save={"self": input, "other": other}, attrs={"dim": d})


@export(torch=("cross",), tensor=("cross",))
@tensor_params('other')
def cross(input, other, dim=None):
    """``torch.cross``: ``linalg.cross`` along ``dim``; without ``dim`` the first dim of
    size 3, with torch's deprecation warning."""
    if dim is None:
        diagnostics.warn(CROSS_WARNING)
        dim = next((i for i, n in enumerate(input.shape) if n == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    return linalg_cross(input, other, dim=dim)


@op("diag_embed", "DiagEmbedBackward0", ("self",), vjp={"self": "grad.diagonal(offset, dim1, dim2)"},
    local={"self": "1 on the embedded diagonal"})
def DIAG_EMBED(ctx, g):
    from .einsum import diagonal
    return (diagonal(g, ctx.offset, ctx.dim1, ctx.dim2),)


@export(torch=("diag_embed",), tensor=("diag_embed",))
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor whose (dim1, dim2) planes carry input's last dim on their ``offset``
    diagonal (DiagEmbedBackward0)."""
    x = input._data
    nd = x.ndim + 1
    for n, v in (("offset", offset), ("dim1", dim1), ("dim2", dim2)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"diag_embed(): argument '{n}' must be int, not {type(v).__name__}")
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = x.shape[-1] + abs(offset) if x.ndim else 1 + abs(offset)
    rest = list(x.shape[:-1])
    shape = []
    it = iter(rest)
    for i in range(nd):
        shape.append(n if i in (d1, d2) else next(it))
    out = np.zeros(shape, dtype=x.dtype)
    from .einsum import diagonal
    view = np.diagonal(out, offset, d1, d2)
    view.setflags(write=True)
    view[...] = x
    return make(DIAG_EMBED, out, (input,), attrs={"offset": offset, "dim1": d1, "dim2": d2})


@op("diag_copy", "DiagonalBackward0_copy", ("self",), vjp={"self": "zeros(self.sizes()) with grad on the diagonal"},
    local={"self": "1 on the diagonal"})
def DIAG_COPY(ctx, g):
    from .indexing import embed
    return (embed(g, ctx.self_sym_sizes, ctx.key),)


@export(torch=("diag",), tensor=("diag",))
def diag(input, diagonal=0):
    """1-d input: the square matrix with it on the ``diagonal`` (DiagEmbedBackward0);
    2-d input: that diagonal as a new 1-d tensor (DiagonalBackward0_copy)."""
    if input.ndim == 1:
        return diag_embed(input, diagonal, 0, 1)
    if input.ndim != 2:
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{input.ndim}D")
    from .einsum import diagonal as diag_view
    v = diag_view(input.detach(), diagonal, 0, 1)
    key = v.grad_fn.attrs["key"] if v.grad_fn is not None else _diag_key(input._data.shape, diagonal)
    return make(DIAG_COPY, v._data.copy(), (input,), attrs={"self_sym_sizes": input._data.shape, "key": key})


def _diag_key(shape, k):
    n1, n2 = shape
    n = max(0, min(n1, n2 - k)) if k >= 0 else max(0, min(n1 + k, n2))
    i = np.arange(n)
    return (i, i + k) if k >= 0 else (i - k, i)


@op("cdist", "CdistBackward0", ("x1", "x2"),
    vjp={"x1": "sum_j grad_ij · sign(x1_i − x2_j)·|x1_i − x2_j|^(p−1) / dist_ij^(p−1)", "x2": "the same, negated, summed over i"},
    local={"x1": "(x1_i − x2_j)/dist_ij for p = 2", "x2": "−(x1_i − x2_j)/dist_ij for p = 2"})
def CDIST(ctx, g):
    x1, x2, p, res = ctx.x1, ctx.x2, ctx.p, ctx.result
    diff_ = x1.unsqueeze(-2) - x2.unsqueeze(-3)            # (..., P, R, M)
    if p == 1:
        w = diff_.sign()
    elif p == 2:
        from .unary import masked_fill
        w = diff_ / masked_fill(res, res == 0, 1.0).unsqueeze(-1)
        w = masked_fill(w, (res == 0).unsqueeze(-1).expand(*diff_.shape), 0.0)
    else:
        from .unary import masked_fill
        denom = masked_fill(res, res == 0, 1.0).pow(p - 1).unsqueeze(-1)
        w = diff_.sign() * diff_.abs().pow(p - 1) / denom
        w = masked_fill(w, (res == 0).unsqueeze(-1).expand(*diff_.shape), 0.0)
    t = g.unsqueeze(-1) * w
    g1 = sum_to(t.sum(-2), x1._data.shape) if ctx.needs(0) else None
    g2 = sum_to(-t.sum(-3), x2._data.shape) if ctx.needs(1) else None
    return g1, g2


@export(torch=("cdist",))
@tensor_params('x1', 'x2')
def cdist(x1, x2, p=2.0, compute_mode=None):
    """Pairwise p-norm distances between the rows of ``x1`` (…, P, M) and ``x2`` (…, R, M)
    (CdistBackward0)."""
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X{1 if x1.ndim < 2 else 2} got: "
                           f"{x1.ndim if x1.ndim < 2 else x2.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    # the (…, P, R, M) differences are made whole: count them before numpy allocates
    check_broadcast_size(x1._data.shape[:-1] + (1,) + x1._data.shape[-1:],
                         x2._data.shape[:-2] + (1,) + x2._data.shape[-2:], itemsize=x1._data.dtype.itemsize)
    d = np.abs(x1._data[..., :, None, :] - x2._data[..., None, :, :])
    if p == 0:
        out = (d != 0).sum(-1).astype(x1._data.dtype)
    elif math.isinf(p):
        out = d.max(-1)
    else:
        out = (d ** p).sum(-1) ** (1.0 / p)
    return make(CDIST, np.asarray(out, dtype=x1._data.dtype), (x1, x2),
                save={"x1": x1, "x2": x2, "result": RESULT}, attrs={"p": p})


@op("logcumsumexp", "LogcumsumexpBackward0", ("self",),
    vjp={"self": "exp(self) · reverse-cumsum(grad · exp(−result)) along dim"},
    local={"self": "exp(self_j − result_i) for i ≥ j"})
def LOGCUMSUMEXP(ctx, g):
    x, r, d = ctx.self, ctx.result, ctx.dim
    # shift by the largest result for range: exp(x_j - m) * revcumsum(g_i * exp(m - r_i))
    m = float(np.max(r._data)) if r._data.size else 0.0
    scaled = (g * (m - r).exp()).flip(d).cumsum(d).flip(d)
    return (scaled * (x - m).exp(),)


@export(torch=("logcumsumexp",), tensor=("logcumsumexp",))
def logcumsumexp(input, dim):
    """``log(cumsum(exp(input)))`` along ``dim``, computed stably (LogcumsumexpBackward0)."""
    x = input._data if input._dtype.category == dtypes.FLOAT else input._data.astype(np.float32)
    d = wrap_dim(dim, x.ndim)
    check_work(ACCUMULATE_FACTOR * x.size, f"a running log-sum-exp of {x.size:,} elements")
    out = np.logaddexp.accumulate(x, axis=d) if x.ndim else x.copy()
    return make(LOGCUMSUMEXP, np.asarray(out, dtype=x.dtype), (input,), save={"self": input, "result": RESULT},
                attrs={"dim": d})


@op("nan_to_num", "NanToNumBackward0", ("self",), vjp={"self": "grad where self is finite, else 0"},
    local={"self": "1 where finite, 0 at nan/±inf"})
def NAN_TO_NUM(ctx, g):
    from .unary import masked_fill
    return (masked_fill(g, Tensor._make(~np.isfinite(ctx.self._data)), 0.0),)


@export(torch=("nan_to_num",), tensor=("nan_to_num",))
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """nan → ``nan``, +inf → ``posinf`` (default: the dtype's max), -inf → ``neginf``
    (its lowest) (NanToNumBackward0)."""
    x = input._data
    if x.dtype.kind != "f":
        return Tensor._make(x.copy())
    fi = np.finfo(x.dtype)
    out = np.nan_to_num(x, nan=nan, posinf=fi.max if posinf is None else posinf,
                        neginf=fi.min if neginf is None else neginf)
    return make(NAN_TO_NUM, np.asarray(out, dtype=x.dtype), (input,), save={"self": input})


@export(tensor=("nan_to_num_",))
def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
    from . import check_inplace, commit_inplace
    check_inplace(self)
    return commit_inplace(self, nan_to_num(self, nan, posinf, neginf))


@op("sgn", "SgnBackward0", ("self",), vjp={"self": "0 (real input)"}, local={"self": "0"})
def SGN(ctx, g):
    from .unary import zeros_like_grad
    return (zeros_like_grad(g),)


@export(torch=("sgn",), tensor=("sgn",))
def sgn(input):
    """``sign`` for real tensors (SgnBackward0; zero gradient)."""
    if input._dtype is dtypes.bool_:
        return Tensor._make(input._data.copy())
    return make(SGN, np.sign(input._data).astype(input._data.dtype), (input,))


def _erfinv(y: np.ndarray) -> np.ndarray:
    """Inverse error function: Giles' approximation refined by Newton steps on erf."""
    from .nn import np_erf
    y = y.astype(np.float64)
    w = -np.log((1.0 - y) * (1.0 + y))
    small = w < 5.0
    ws = w - 2.5
    ps = 2.81022636e-08
    for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503, -0.00417768164,
              0.246640727, 1.50140941):
        ps = c + ps * ws
    wl = np.sqrt(np.maximum(w, 0)) - 3.0
    pl = -0.000200214257
    for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047,
              1.00167406, 2.83297682):
        pl = c + pl * wl
    x = np.where(small, ps, pl) * y
    with np.errstate(all="ignore"):
        for _ in range(3):
            err = np_erf(x) - y
            x = x - err / (2.0 / math.sqrt(math.pi) * np.exp(-x * x))
    x = np.where(y == 1, np.inf, np.where(y == -1, -np.inf, x))
    return np.where(np.abs(y) > 1, np.nan, x)


@op("erfinv", "ErfinvBackward0", ("self",), vjp={"self": "grad · √π/2 · exp(erfinv(self)²)"},
    local={"self": "√π/2 · exp(erfinv(self)²)"})
def ERFINV(ctx, g):
    r = ctx.result
    return (g * ((r * r).exp() * (math.sqrt(math.pi) / 2)),)


@export(torch=("erfinv",), tensor=("erfinv",))
def erfinv(input):
    """Inverse of ``erf`` on (-1, 1) (±inf at ±1, nan outside) (ErfinvBackward0)."""
    x = input._data if input._dtype.category == dtypes.FLOAT else input._data.astype(np.float32)
    return make(ERFINV, np.asarray(_erfinv(x), dtype=x.dtype), (input,), save={"result": RESULT})


@export(torch=("fliplr",), tensor=("fliplr",))
def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input.flip(1)


@export(torch=("flipud",), tensor=("flipud",))
def flipud(input):
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input.flip(0)
