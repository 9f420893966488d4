"""The ``np.*`` functions scripts may call: creation, math, reductions, shape and
comparison functions, computed by numpy on unwrapped arrays. Each checks the size of its
result (and a product's work) before numpy allocates it; keyword arguments are numpy's,
restricted to the ones listed."""

from __future__ import annotations

import math
import operator

import numpy as np

from .. import resources
from ..tensor import Tensor
from .ndarray import NDArray, _axis, _check_matmul, as_tensor_result, dot_check
from .values import as_dtype, english, numpy_warnings, operand, to_numpy, wrap


def _dim(s) -> int:
    if type(s) is int:
        return s
    if isinstance(s, (float, str)) or not hasattr(type(s), "__index__"):
        raise TypeError(f"'{_type_name(s)}' object cannot be interpreted as an integer")
    return operator.index(s)      # an integer tensor or 0-d array, as numpy takes it


def _type_name(x) -> str:
    n = type(x).__name__
    return n[6:] if n.startswith("numpy.") else n


def _shape(shape):
    """A numpy shape argument (an int or a sequence of ints) as a tuple, checked against
    the element limit."""
    if type(shape) in (tuple, list):
        if len(shape) > 64:
            raise ValueError(f"maximum supported dimension for an ndarray is currently 64, found {len(shape)}")
        shape = tuple(_dim(s) for s in shape)
    else:
        shape = (_dim(shape),)
    if any(s < 0 for s in shape):
        raise ValueError("negative dimensions are not allowed")
    resources.check_shape(shape)
    return shape


def _like_inputs(out, args):
    """A ufunc's result: a tensor when an input was one (torch's ``__array_wrap__``)."""
    if isinstance(out, np.ndarray) and any(isinstance(a, Tensor) for a in args):
        return as_tensor_result(out)
    return wrap(out)


# -- creation -------------------------------------------------------------------------

def _copy_warning(*args):
    from .. import diagnostics
    from .ndarray import ARRAY_COPY
    for a in args:
        if isinstance(a, Tensor):
            diagnostics.warn(ARRAY_COPY, "DeprecationWarning")


def array(object, dtype=None, copy=True, ndmin=0):
    a = to_numpy(object, dtype, copy=bool(copy))
    _copy_warning(object)
    if ndmin:
        a = np.array(a, copy=None, ndmin=min(int(ndmin), 64))
    return NDArray(a)


def asarray(a, dtype=None):
    return NDArray(to_numpy(a, dtype))


def zeros(shape, dtype=float):
    return NDArray(np.zeros(_shape(shape), as_dtype(dtype)))


def ones(shape, dtype=None):
    return NDArray(np.ones(_shape(shape), as_dtype(dtype)))


#: ``np.empty`` gives zeros: uninitialised memory would show the process's old data
empty = zeros


def full(shape, fill_value, dtype=None):
    return NDArray(np.full(_shape(shape), operand(fill_value), as_dtype(dtype)))


def zeros_like(a, dtype=None):
    return NDArray(np.zeros_like(to_numpy(a), as_dtype(dtype)))


def ones_like(a, dtype=None):
    return NDArray(np.ones_like(to_numpy(a), as_dtype(dtype)))


empty_like = zeros_like


def full_like(a, fill_value, dtype=None):
    return NDArray(np.full_like(to_numpy(a), operand(fill_value), as_dtype(dtype)))


def _real(x, name):
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        raise TypeError(f"{name} must be a real number, not {type(x).__name__}")
    return x


def arange(start, stop=None, step=None, dtype=None):
    if stop is None:
        start, stop = 0, start
    for x, n in ((start, "start"), (stop, "stop"), (step, "step")):
        if x is not None:
            _real(x, n)
    st = 1 if step is None else step
    if st == 0:
        raise ZeroDivisionError("division by zero")
    n = math.ceil((stop - start) / st) if math.isfinite((stop - start) / st) else None
    if n is None:
        raise ValueError("Maximum allowed size exceeded")
    resources.check_count(max(n, 0))
    return NDArray(np.arange(start, stop, st, dtype=as_dtype(dtype)))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None):
    _real(start, "start")
    _real(stop, "stop")
    if type(num) is not int:
        raise TypeError(f"'{type(num).__name__}' object cannot be interpreted as an integer")
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    resources.check_count(num)
    return wrap(np.linspace(start, stop, num, endpoint=bool(endpoint), retstep=bool(retstep), dtype=as_dtype(dtype)))


def eye(N, M=None, k=0, dtype=float):
    _shape((N, N if M is None else M))
    return NDArray(np.eye(N, M, k, dtype=as_dtype(dtype)))


def identity(n, dtype=None):
    _shape((n, n))
    return NDArray(np.identity(n, dtype=as_dtype(dtype)))


# -- elementwise ------------------------------------------------------------------------

def _ufunc(name, nin):
    fn = getattr(np, name)

    def f(*args, dtype=None):
        if len(args) != nin:
            raise TypeError(f"{name}() takes from {nin} to {nin + 1} positional arguments but {len(args)} were given")
        xs = [operand(a) for a in args]
        if nin > 1:
            resources.check_broadcast_size(*(np.shape(x) for x in xs))
        with numpy_warnings():
            out = fn(*xs, dtype=as_dtype(dtype)) if dtype is not None else fn(*xs)
        return _like_inputs(out, args)
    f.__name__ = name
    return f


UNARY = ("exp", "log", "log2", "log10", "log1p", "expm1", "sqrt", "sin", "cos", "tan", "arcsin",
         "arccos", "arctan", "sinh", "cosh", "tanh", "abs", "absolute", "fabs", "sign", "floor",
         "ceil", "trunc", "rint", "square", "negative", "reciprocal", "isnan", "isinf", "isfinite",
         "logical_not", "exp2", "cbrt", "deg2rad", "rad2deg", "signbit")
BINARY = ("add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "power", "mod",
          "remainder", "maximum", "minimum", "fmax", "fmin", "equal", "not_equal", "less",
          "less_equal", "greater", "greater_equal", "logical_and", "logical_or", "logical_xor",
          "arctan2", "hypot", "float_power")


def where(condition, x=None, y=None):
    c = to_numpy(condition)
    if x is None and y is None:
        return wrap(np.where(c))
    if x is None or y is None:
        raise ValueError("either both or neither of x and y should be given")
    a, b = operand(x), operand(y)
    resources.check_broadcast_size(c.shape, np.shape(a), np.shape(b))
    return wrap(np.where(c, a, b))


def clip(a, a_min=None, a_max=None):
    arr = to_numpy(a)
    lo = None if a_min is None else operand(a_min)
    hi = None if a_max is None else operand(a_max)
    resources.check_broadcast_size(arr.shape, *(np.shape(b) for b in (lo, hi) if b is not None))
    return _like_inputs(np.clip(arr, lo, hi), (a,))


def round(a, decimals=0):
    return wrap(np.round(to_numpy(a), decimals))


around = round


def dot(a, b):
    x, y = to_numpy(a), to_numpy(b)
    _copy_warning(a, b)
    dot_check(x, y)
    return wrap(np.dot(x, y))


def matmul(a, b):
    x, y = to_numpy(a), to_numpy(b)
    if x.ndim == 0 or y.ndim == 0:
        raise ValueError("matmul: Input operand 0 does not have enough dimensions "
                         "(has 0, gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)")
    _check_matmul(x, y)
    return _like_inputs(np.matmul(x, y), (a, b))


def outer(a, b):
    x, y = to_numpy(a), to_numpy(b)
    resources.check_shape((x.size, y.size))
    return wrap(np.outer(x, y))


# -- reductions -------------------------------------------------------------------------

def _reduction(name, extra=()):
    method = name

    def f(a, axis=None, *, keepdims=False, **kw):
        for k in kw:
            if k not in extra:
                raise TypeError(f"{name}() got an unexpected keyword argument '{k}'")
        if "dtype" in kw:
            kw["dtype"] = as_dtype(kw["dtype"])
        if isinstance(a, Tensor):
            _tensor_reduction(name, a)
        with numpy_warnings():
            out = getattr(np, method)(to_numpy(a), axis=_axis(axis), keepdims=keepdims, **kw)
        return as_tensor_result(out) if isinstance(a, Tensor) else wrap(out)
    f.__name__ = name
    return f


def _tensor_reduction(name, t):
    """numpy hands a reduction of a tensor to the tensor's own method with numpy's keywords,
    which torch's ``sum``/``mean``/``max``/``min`` refuse."""
    if name in ("sum", "mean", "prod"):
        raise TypeError(f"{name}() got an unexpected keyword argument 'axis'")
    if name in ("max", "min", "amax", "amin"):
        raise TypeError(f"{name.lstrip('a')}(): argument 'dim' must be int, not NoneType")


REDUCTIONS = {
    "sum": ("dtype",), "mean": ("dtype",), "prod": ("dtype",), "max": (), "min": (), "amax": (),
    "amin": (), "argmax": (), "argmin": (), "std": ("dtype", "ddof"), "var": ("dtype", "ddof"),
    "any": (), "all": (), "median": (), "count_nonzero": (),
}


def cumsum(a, axis=None, dtype=None):
    return wrap(np.cumsum(to_numpy(a), axis=_axis(axis), dtype=as_dtype(dtype)))


def cumprod(a, axis=None, dtype=None):
    return wrap(np.cumprod(to_numpy(a), axis=_axis(axis), dtype=as_dtype(dtype)))


def sort(a, axis=-1):
    x = to_numpy(a)
    resources.check_sort(x.size)
    return wrap(np.sort(x, axis=_axis(axis)))


def argsort(a, axis=-1):
    x = to_numpy(a)
    resources.check_sort(x.size, "an argsort")
    return wrap(np.argsort(x, axis=_axis(axis)))


def unique(ar, return_counts=False):
    x = to_numpy(ar)
    resources.check_sort(x.size, "unique")
    return wrap(np.unique(x, return_counts=bool(return_counts)))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    x, y = to_numpy(a), to_numpy(b)
    resources.check_broadcast_size(x.shape, y.shape)
    return bool(np.allclose(x, y, rtol, atol, bool(equal_nan)))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    x, y = to_numpy(a), to_numpy(b)
    resources.check_broadcast_size(x.shape, y.shape)
    return wrap(np.isclose(x, y, rtol, atol, bool(equal_nan)))


def array_equal(a1, a2):
    return bool(np.array_equal(to_numpy(a1), to_numpy(a2)))


# -- shape ----------------------------------------------------------------------------

def reshape(a, shape):
    return wrap(np.reshape(to_numpy(a), shape if type(shape) is int else _shape_ints(shape)))


def _shape_ints(shape):
    if type(shape) not in (tuple, list) or any(type(s) is not int for s in shape):
        raise TypeError("'shape' must be an int or a sequence of ints")
    return tuple(shape)


def transpose(a, axes=None):
    return wrap(np.transpose(to_numpy(a), None if axes is None else _shape_ints(axes)))


def ravel(a):
    return wrap(np.ravel(to_numpy(a)))


def squeeze(a, axis=None):
    return wrap(np.squeeze(to_numpy(a), axis=_axis(axis)))


def expand_dims(a, axis):
    return wrap(np.expand_dims(to_numpy(a), _axis(axis)))


def _arrays(seq):
    if type(seq) not in (list, tuple):
        if type(seq) is NDArray:
            seq = list(seq)
        else:
            raise TypeError("arrays to stack must be passed as a \"sequence\" type such as list or tuple.")
    xs = [to_numpy(a) for a in seq]
    resources.check_count(sum(x.size for x in xs))
    return xs


def concatenate(arrays, axis=0):
    return wrap(np.concatenate(_arrays(arrays), axis=_axis(axis)))


def stack(arrays, axis=0):
    return wrap(np.stack(_arrays(arrays), axis=_axis(axis)))


def vstack(tup):
    return wrap(np.vstack(_arrays(tup)))


def hstack(tup):
    return wrap(np.hstack(_arrays(tup)))


def column_stack(tup):
    return wrap(np.column_stack(_arrays(tup)))


def repeat(a, repeats, axis=None):
    x = to_numpy(a)
    r = to_numpy(repeats)
    if r.dtype.kind not in "biu":
        raise TypeError("Cannot cast array data from dtype('float64') to dtype('int64') according to the rule 'safe'")
    if r.size and r.min() < 0:
        raise ValueError("repeats may not contain negative values.")
    along = x.size if axis is None else (x.shape[axis] if x.ndim else 1)
    total = int(r.sum()) * (x.size // along if along else 0) if r.size > 1 else int(r.reshape(-1)[0] if r.size else 0) * x.size
    resources.check_count(total)
    return wrap(np.repeat(x, r, axis=_axis(axis)))


def tile(A, reps):
    x = to_numpy(A)
    reps = (reps,) if type(reps) is int else _shape_ints(reps)
    if any(r < 0 for r in reps):
        raise ValueError("negative dimensions are not allowed")
    n = x.size
    for r in reps:
        n *= r
    resources.check_count(n)
    return wrap(np.tile(x, reps))


def shape(a):
    return tuple(to_numpy(a).shape)


def ndim(a):
    return to_numpy(a).ndim


def size(a):
    return int(to_numpy(a).size)


def diag(v, k=0):
    x = to_numpy(v)
    if x.ndim == 1:
        n = x.size + abs(int(k))
        resources.check_shape((n, n))
    return wrap(np.diag(x, k))


def trace(a):
    return wrap(np.trace(to_numpy(a)))


def meshgrid(*xi, indexing="xy"):
    xs = [to_numpy(x) for x in xi]
    n = 1
    for x in xs:
        n *= x.size
    resources.check_count(n * max(len(xs), 1))
    return wrap(list(np.meshgrid(*xs, indexing=indexing)))


def argwhere(a):
    return wrap(np.argwhere(to_numpy(a)))


def nonzero(a):
    return wrap(np.nonzero(to_numpy(a)))


def _refuse(name, key):
    def f(*args, **kwargs):
        raise TypeError(english(key, name=f"np.{name}"))
    f.__name__ = name
    return f


#: numpy functions that reach files, memory or Python internals: refused with a reason
REFUSED = {n: _refuse(n, "error.numpy_files")
           for n in ("load", "save", "savez", "savez_compressed", "loadtxt", "savetxt", "genfromtxt",
                     "fromfile", "memmap", "fromregex")}
REFUSED.update({n: _refuse(n, "error.numpy_internals")
                for n in ("frombuffer", "frompyfunc", "vectorize", "fromiter", "from_dlpack")})


def members() -> dict:
    out = {n: _ufunc(n, 1) for n in UNARY}
    out.update({n: _ufunc(n, 2) for n in BINARY})
    out.update({n: _reduction(n, extra) for n, extra in REDUCTIONS.items()})
    for f in (array, asarray, zeros, ones, full, zeros_like, ones_like, full_like, arange, linspace,
              eye, identity, where, clip, round, dot, matmul, outer, cumsum, cumprod, sort, argsort,
              unique, allclose, isclose, array_equal, reshape, transpose, ravel, squeeze, expand_dims,
              concatenate, stack, vstack, hstack, column_stack, repeat, tile, shape, ndim, size, diag,
              trace, meshgrid, argwhere, nonzero):
        out[f.__name__] = f
    out.update(empty=empty, empty_like=empty_like, around=around)
    out.update(REFUSED)
    return out


# -- np.linalg ------------------------------------------------------------------------

def _square_work(x, what):
    """O(n³) factorisations against the work budget (batches included)."""
    if x.ndim >= 2:
        n = x.shape[-1]
        batch = x.size // max(n * n, 1)
        resources.check_work(float(batch) * n ** 3 * 2, what)


def norm(x, ord=None, axis=None, keepdims=False):
    a = to_numpy(x)
    if ord in (2, -2, "nuc") and a.ndim >= 2 and (axis is None or type(axis) is tuple):
        _square_work(a, "a matrix norm")
    with numpy_warnings():
        return wrap(np.linalg.norm(a, ord, _axis(axis), bool(keepdims)))


def inv(a):
    x = to_numpy(a)
    _square_work(x, "a matrix inverse")
    return wrap(np.linalg.inv(x))


def det(a):
    x = to_numpy(a)
    _square_work(x, "a determinant")
    return wrap(np.linalg.det(x))


def solve(a, b):
    x, y = to_numpy(a), to_numpy(b)
    _square_work(x, "a linear solve")
    resources.check_count(y.size)
    return wrap(np.linalg.solve(x, y))


def linalg_members() -> dict:
    return {"norm": norm, "inv": inv, "det": det, "solve": solve}
