"""``torch.linalg.vector_norm``, ``torch.linalg.matrix_norm`` and ``torch.linalg.norm``,
built as torch 2.13 builds them (``aten/src/ATen/native/LinearAlgebra.cpp``): every vector
norm is one LinalgVectorNormBackward0 node (:func:`autotrace.ops.reduce.norm`); the
matrix norms ``'fro'`` is a vector 2-norm over both dims, and ``1``/``-1``/``inf``/
``-inf`` a vector 1-norm down one dim followed by ``amax``/``amin`` over the other
(AmaxBackward0 / AminBackward0). ``'nuc'``, ``2`` and ``-2`` (singular values) are not
available.
"""

from __future__ import annotations

from numbers import Number

from ..tensor import Tensor
from .reduce import amax, amin, norm
from .shape import wrap_dim

_INF = float("inf")


def vector_norm(x, *args, **kwargs):
    """``torch.linalg.vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None)``: the
    ``ord``-norm of ``x`` over ``dim`` (all dims when None), a float tensor of the reduced
    shape. Raises torch's TypeError for a string ``ord`` and RuntimeError for an integer
    input."""
    return _vector_norm(x, *args, **kwargs, _positional=bool(args))


def _vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, _positional=True):
    _check_tensor(x, "linalg_vector_norm")
    if isinstance(ord, bool) or not isinstance(ord, Number):
        raise TypeError(f"linalg_vector_norm(): argument 'ord'{' (position 2)' if _positional else ''} must be "
                        f"Number, not {type(ord).__name__}")
    _no_dtype(dtype, "vector_norm")
    return norm(x, p=float(ord), dim=dim, keepdim=keepdim)


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """``torch.linalg.matrix_norm`` for ``ord`` in 'fro', 1, -1, inf, -inf over the two
    dims ``dim`` of ``A`` (at least 2-D); raises torch's errors for a 1-D input or a
    ``dim`` that is not two distinct dims."""
    _check_tensor(A, "linalg_matrix_norm")
    _no_dtype(dtype, "matrix_norm")
    if A.ndim < 2:
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if not isinstance(dim, (list, tuple)):
        raise TypeError(
            f"linalg_matrix_norm() received an invalid combination of arguments - got (Tensor, dim={type(dim).__name__}), "
            "but expected one of:\n"
            " * (Tensor input, Number ord, tuple of ints dim = {-2,-1}, bool keepdim = False, *, torch.dtype dtype = "
            "None, Tensor out = None)\n"
            " * (Tensor input, str ord = \"fro\", tuple of ints dim = {-2,-1}, bool keepdim = False, *, torch.dtype "
            "dtype = None, Tensor out = None)\n")
    dims = tuple(dim)
    if len(dims) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got " + _dim_text(dim))
    d0, d1 = wrap_dim(dims[0], A.ndim), wrap_dim(dims[1], A.ndim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dims[0]}, {dims[1]})")
    if isinstance(ord, str):
        if ord == "fro":
            return norm(A, p=2.0, dim=(d0, d1), keepdim=keepdim)
        if ord == "nuc":
            raise NotImplementedError("linalg.matrix_norm(ord='nuc') is not supported by autotrace")
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if ord in (2, -2):
        raise NotImplementedError(f"linalg.matrix_norm(ord={ord}) is not supported by autotrace")
    if ord not in (1, -1, _INF, -_INF):
        raise RuntimeError(f"linalg.matrix_norm: Order {_num(ord)} not supported.")
    if abs(ord) == _INF:
        d0, d1 = d1, d0
    if d0 < d1 and not keepdim:
        d1 -= 1
    sums = norm(A, p=1.0, dim=(d0,), keepdim=keepdim)
    return (amax if ord > 0 else amin)(sums, dim=d1, keepdim=keepdim)


def linalg_norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """``torch.linalg.norm``: a vector norm when ``dim`` is one dim (or None and ``ord``
    None: all elements, flattened), a matrix norm when ``dim`` is two dims or ``A`` is 2-D
    with ``ord`` given."""
    _check_tensor(A, "linalg_norm")
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) == 1:
            return _vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype)
        if len(dims) == 2:
            return matrix_norm(A, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
        raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dims)}")
    if ord is None:
        return _vector_norm(A, 2, None, keepdim, dtype=dtype)
    if A.ndim not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           f"Got {A.ndim}D.")
    if A.ndim == 1:
        return _vector_norm(A, ord, None, keepdim, dtype=dtype)
    return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype)


def _check_tensor(x, name):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")


def _no_dtype(dtype, name):
    if dtype is not None:
        raise NotImplementedError(f"linalg.{name}(dtype=...) is not supported by autotrace")


def _dim_text(dim) -> str:
    return "[" + ", ".join(str(d) for d in dim) + "]" if isinstance(dim, (list, tuple)) else str(dim)


def _num(v) -> str:
    return repr(float(v)) if isinstance(v, float) else str(v)
