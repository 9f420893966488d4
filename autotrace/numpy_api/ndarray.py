""":class:`NDArray`: a numpy array as scripts see it (``np.zeros(3)``, ``t.numpy()``).

It holds a real ``numpy.ndarray`` (shared with a tensor after ``torch.from_numpy`` or
``t.numpy()``, as in PyTorch) and exposes numpy's numeric methods and operators with
numpy's own results and printing; no buffer, file, ctypes or ``base`` attribute exists.
New arrays are counted against ``--limit elements`` and matrix products against
``--limit flops`` before numpy runs.
"""

from __future__ import annotations

import operator

import numpy as np

from .. import resources
from . import printopts
from ..tensor import Tensor
from . import values
from .values import NpDType, _operand, _tensor_array, as_dtype, numpy_warnings, operand, to_numpy, wrap


def _axis(axis):
    if axis is None or type(axis) is int:
        return axis
    if type(axis) in (tuple, list) and all(type(a) is int for a in axis):
        return tuple(axis)
    raise TypeError(f"'{type(axis).__name__}' object cannot be interpreted as an integer")


def _shape_args(args):
    """``reshape(2, 3)``/``reshape((2, 3))``/``reshape([2, 3])`` as a tuple of ints."""
    if len(args) == 1 and type(args[0]) in (tuple, list):
        args = tuple(args[0])
    for a in args:
        if type(a) is not int:
            raise TypeError(f"'{type(a).__name__}' object cannot be interpreted as an integer")
    return tuple(args)


def _index(key):
    """A script subscript as a numpy index (arrays, tensors, slices, ints, None, ...)."""
    from ..tensor import Tensor
    t = type(key)
    if t is NDArray:
        return key._array
    if isinstance(key, Tensor):
        return key._data
    if t is tuple:
        return tuple(_index(k) for k in key)
    if t is list:
        return to_numpy(key)
    if isinstance(key, values._NpScalar):
        return key._np()
    return key


#: numpy 2 warns so whenever it hands a result back through torch 2.13's ``__array_wrap__``
ARRAY_WRAP = ("__array_wrap__ must accept context and return_scalar arguments (positionally) in the future. "
              "(Deprecated NumPy 2.0)")
#: and so when ``np.array(t)``/``np.dot(t, ...)`` asks torch's ``__array__`` for a copy
ARRAY_COPY = ("__array__ implementation doesn't accept a copy keyword, so passing copy=False failed. "
              "__array__ must implement 'dtype' and 'copy' keyword arguments. To learn more, see the migration "
              "guide https://numpy.org/devdocs/numpy_2_0_migration_guide.html#adapting-to-changes-in-the-copy-keyword")


def as_tensor_result(out, warn=True):
    """A numpy result as torch's ``Tensor.__array_wrap__`` gives it back: a new tensor
    without history (a 0-d result too), with numpy's DeprecationWarning about it."""
    if warn:
        from .. import diagnostics
        diagnostics.warn(ARRAY_WRAP, "DeprecationWarning")
    return Tensor._make(np.asarray(out))


def _with_tensor(fn, x, y, warn=True):
    """``fn`` over a tensor operand and an array, as numpy computes it when torch hands a
    mixed operation to the array (the tensor read as ``t.numpy()``), returned as a tensor."""
    x = _tensor_array(x) if isinstance(x, Tensor) else x
    y = _tensor_array(y) if isinstance(y, Tensor) else y
    resources.check_broadcast_size(np.shape(x), np.shape(y))
    with numpy_warnings():
        out = fn(x, y)
    return as_tensor_result(out, warn)


#: ``array + tensor`` fails in torch with numpy's sequence-concatenation error
_CONCAT = ("Concatenation operation is not implemented for NumPy arrays, use np.concatenate() instead. "
           "Please do not rely on this error; it may not be given on all Python implementations.")


def _check_fancy(shape, key) -> None:
    """Before advanced indexing: an upper bound of the result's size (the broadcast index
    arrays times the dimensions they do not consume) against the element limit."""
    key = key if type(key) is tuple else (key,)
    arrays = [k for k in key if isinstance(k, np.ndarray) and k.ndim]
    if not arrays:
        return
    explicit = sum(k.ndim if isinstance(k, np.ndarray) and k.dtype == np.bool_ else 1
                   for k in key if k is not None and k is not Ellipsis)
    consumed, p, shapes = set(), 0, []
    for k in key:
        if k is None:
            continue
        if k is Ellipsis:
            p += max(len(shape) - explicit, 0)
            continue
        if isinstance(k, np.ndarray) and k.ndim:
            if k.dtype == np.bool_:
                consumed.update(range(p, p + k.ndim))
                shapes.append((int(np.count_nonzero(k)),))
                p += k.ndim
                continue
            consumed.add(p)
            shapes.append(k.shape)
        p += 1
    try:
        n = 1
        for s in np.broadcast_shapes(*shapes):
            n *= s
    except ValueError:
        return      # numpy reports the shape mismatch
    for d, s in enumerate(shape):
        if d not in consumed:
            n *= s
    resources.check_count(n)


def _binary(fn, with_tensor=None):
    """``array op other``; with a tensor on the right, torch's outcomes: a tensor for
    ``==``/``!=``/``/`` (``with_tensor``), Python's TypeError for the rest."""
    def op(self, other):
        o = _operand(other)
        if o is NotImplemented:
            if with_tensor is not None and isinstance(other, Tensor):
                return with_tensor(self._array, other)
            return NotImplemented
        resources.check_broadcast_size(self._array.shape, np.shape(o))
        with numpy_warnings():
            return wrap(fn(self._array, o))
    return op


def _reflected(fn):
    """``other op array``: a tensor on the left gives numpy's result as a tensor (torch
    passes the operation on to the array)."""
    def op(self, other):
        o = _operand(other)
        if o is NotImplemented:
            if isinstance(other, Tensor):
                return _with_tensor(fn, other, self._array)
            return NotImplemented
        resources.check_broadcast_size(self._array.shape, np.shape(o))
        with numpy_warnings():
            return wrap(fn(o, self._array))
    return op


def _add_tensor(a, t):
    raise TypeError(_CONCAT)


def _div_tensor(a, t):
    """``array / tensor``: torch's ``__rtruediv__`` is ``reciprocal(t) * array``."""
    r = _tensor_array(t)
    with np.errstate(all="ignore"):
        r = np.reciprocal(r) if r.dtype.kind == "f" else np.reciprocal(r.astype(np.float32))
    return _with_tensor(np.multiply, a, r)


def _inplace(fn):
    def op(self, other):
        o = _operand(other)
        if o is NotImplemented:
            return NotImplemented
        resources.check_broadcast_size(self._array.shape, np.shape(o))
        with numpy_warnings():
            fn(self._array, o)
        return self
    return op


def _check_matmul(a, b):
    resources.check_matmul(np.atleast_2d(a) if np.ndim(a) == 1 else a, np.atleast_1d(b))
    sa, sb = np.shape(a), np.shape(b)
    if len(sa) >= 1 and len(sb) >= 1:
        try:
            out = np.broadcast_shapes(sa[:-2], sb[:-2]) + sa[-2:-1] + sb[-1:] if len(sb) >= 2 else sa[:-1]
        except ValueError:
            return
        resources.check_shape(out)


def dot_check(a, b):
    """Before ``np.dot(a, b)``: the result's size and the work, as for a matmul."""
    if np.ndim(a) == 0 or np.ndim(b) == 0:
        resources.check_broadcast_size(np.shape(a), np.shape(b))
        return
    k = np.shape(a)[-1]
    out = np.shape(a)[:-1] + np.shape(b)[:-2] + np.shape(b)[-1:] if np.ndim(b) >= 2 else np.shape(a)[:-1]
    resources.check_shape(out)
    n = 1
    for s in out:
        n *= s
    kind = {np.asarray(a).dtype.kind, np.asarray(b).dtype.kind}
    resources.check_work(2.0 * n * k * (resources.INT_MATMUL_FACTOR if kind & set("biu") else 1),
                         "a dot product")


def _matmul(a, b):
    _check_matmul(a, b)
    return np.matmul(a, b)


class NDArray:
    __slots__ = ("_array",)
    __array_ufunc__ = None          # numpy scalars defer to NDArray's reflected operators
    _script_attrs = frozenset({
        "shape", "dtype", "ndim", "size", "itemsize", "nbytes", "T", "tolist", "item", "copy",
        "reshape", "transpose", "astype", "flatten", "ravel", "squeeze", "sum", "mean", "max", "min",
        "argmax", "argmin", "std", "var", "prod", "cumsum", "cumprod", "dot", "clip", "round", "any",
        "all", "fill", "swapaxes", "argsort", "sort", "repeat", "nonzero",
    })

    def __init__(self, array: np.ndarray):
        if type(array) is not np.ndarray:
            raise TypeError(values.english("error.numpy_ndarray"))
        self._array = array

    # -- attributes ----------------------------------------------------------------------

    @property
    def shape(self):
        return tuple(self._array.shape)

    @property
    def dtype(self):
        return NpDType(self._array.dtype)

    @property
    def ndim(self):
        return self._array.ndim

    @property
    def size(self):
        return int(self._array.size)

    @property
    def itemsize(self):
        return self._array.itemsize

    @property
    def nbytes(self):
        return int(self._array.nbytes)

    @property
    def T(self):
        return NDArray(self._array.T)

    # -- conversions ----------------------------------------------------------------------

    def tolist(self):
        from ..interpreter.limits import RT, seq_limit
        if self._array.size > RT.max_seq:
            raise seq_limit(self._array.size, "tolist()")
        return self._array.tolist()

    def item(self, *args):
        return self._array.item(*args)

    def copy(self):
        return NDArray(self._array.copy())

    def astype(self, dtype):
        return NDArray(self._array.astype(as_dtype(dtype)))

    def fill(self, value):
        self._array.fill(to_numpy(value))

    # -- shape ----------------------------------------------------------------------------

    def reshape(self, *shape):
        return NDArray(self._array.reshape(_shape_args(shape)))

    def transpose(self, *axes):
        return NDArray(self._array.transpose(*(_shape_args(axes) if axes else ())))

    def swapaxes(self, a, b):
        return NDArray(self._array.swapaxes(a, b))

    def flatten(self):
        return NDArray(self._array.flatten())

    def ravel(self):
        return NDArray(self._array.ravel())

    def squeeze(self, axis=None):
        return NDArray(self._array.squeeze(axis=_axis(axis)))

    def repeat(self, repeats, axis=None):
        from .functions import repeat
        return repeat(self, repeats, axis)

    # -- reductions -------------------------------------------------------------------------

    def sum(self, axis=None, dtype=None, keepdims=False):
        with numpy_warnings():
            return wrap(self._array.sum(axis=_axis(axis), dtype=as_dtype(dtype), keepdims=keepdims))

    def mean(self, axis=None, dtype=None, keepdims=False):
        with numpy_warnings():
            return wrap(self._array.mean(axis=_axis(axis), dtype=as_dtype(dtype), keepdims=keepdims))

    def prod(self, axis=None, dtype=None, keepdims=False):
        with numpy_warnings():
            return wrap(self._array.prod(axis=_axis(axis), dtype=as_dtype(dtype), keepdims=keepdims))

    def max(self, axis=None, keepdims=False):
        return wrap(self._array.max(axis=_axis(axis), keepdims=keepdims))

    def min(self, axis=None, keepdims=False):
        return wrap(self._array.min(axis=_axis(axis), keepdims=keepdims))

    def argmax(self, axis=None, keepdims=False):
        return wrap(self._array.argmax(axis=_axis(axis), keepdims=keepdims))

    def argmin(self, axis=None, keepdims=False):
        return wrap(self._array.argmin(axis=_axis(axis), keepdims=keepdims))

    def std(self, axis=None, dtype=None, ddof=0, keepdims=False):
        with numpy_warnings():
            return wrap(self._array.std(axis=_axis(axis), dtype=as_dtype(dtype), ddof=ddof, keepdims=keepdims))

    def var(self, axis=None, dtype=None, ddof=0, keepdims=False):
        with numpy_warnings():
            return wrap(self._array.var(axis=_axis(axis), dtype=as_dtype(dtype), ddof=ddof, keepdims=keepdims))

    def any(self, axis=None, keepdims=False):
        return wrap(self._array.any(axis=_axis(axis), keepdims=keepdims))

    def all(self, axis=None, keepdims=False):
        return wrap(self._array.all(axis=_axis(axis), keepdims=keepdims))

    def cumsum(self, axis=None, dtype=None):
        return wrap(self._array.cumsum(axis=_axis(axis), dtype=as_dtype(dtype)))

    def cumprod(self, axis=None, dtype=None):
        return wrap(self._array.cumprod(axis=_axis(axis), dtype=as_dtype(dtype)))

    def argsort(self, axis=-1):
        resources.check_sort(self._array.size, "an argsort")
        return wrap(self._array.argsort(axis=_axis(axis)))

    def sort(self, axis=-1):
        resources.check_sort(self._array.size)
        self._array.sort(axis=_axis(axis))

    def nonzero(self):
        return wrap(self._array.nonzero())

    # -- math -----------------------------------------------------------------------------

    def dot(self, other):
        o = to_numpy(other)
        dot_check(self._array, o)
        return wrap(np.dot(self._array, o))

    def clip(self, min=None, max=None):
        lo = None if min is None else operand(min)
        hi = None if max is None else operand(max)
        for b in (lo, hi):
            if b is not None:
                resources.check_broadcast_size(self._array.shape, np.shape(b))
        return wrap(self._array.clip(lo, hi))

    def round(self, decimals=0):
        return wrap(self._array.round(decimals))

    # -- indexing -------------------------------------------------------------------------

    def __getitem__(self, key):
        key = _index(key)
        _check_fancy(self._array.shape, key)
        return wrap(self._array[key])

    def __setitem__(self, key, value):
        self._array[_index(key)] = operand(value)

    def __len__(self):
        return len(self._array)

    def __iter__(self):
        if self._array.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (wrap(v) for v in self._array)

    def __contains__(self, value):
        return bool((self._array == to_numpy(value)).any())

    def __bool__(self):
        return bool(self._array)

    def __float__(self):
        return float(self._array)

    def __int__(self):
        return int(self._array)

    def __index__(self):
        return operator.index(self._array)

    # -- printing -------------------------------------------------------------------------

    def __repr__(self) -> str:
        return printopts.format_array(self._array, repr)

    def __str__(self) -> str:
        return printopts.format_array(self._array, str)

    def __format__(self, spec: str) -> str:
        if self._array.ndim == 0:
            return format(wrap(self._array[()]), spec)
        if spec:
            raise TypeError("unsupported format string passed to numpy.ndarray.__format__")
        return str(self)

    __hash__ = None

    # -- operators ------------------------------------------------------------------------

    __add__ = _binary(operator.add, _add_tensor)
    __radd__ = _reflected(operator.add)
    __iadd__ = _inplace(operator.iadd)
    __sub__ = _binary(operator.sub)
    __rsub__ = _reflected(operator.sub)
    __isub__ = _inplace(operator.isub)
    __mul__ = _binary(operator.mul)
    __rmul__ = _reflected(operator.mul)
    __imul__ = _inplace(operator.imul)
    __truediv__ = _binary(operator.truediv, _div_tensor)
    __rtruediv__ = _reflected(operator.truediv)
    __itruediv__ = _inplace(operator.itruediv)
    __floordiv__ = _binary(operator.floordiv)
    __rfloordiv__ = _reflected(operator.floordiv)
    __ifloordiv__ = _inplace(operator.ifloordiv)
    __mod__ = _binary(operator.mod)
    __rmod__ = _reflected(operator.mod)
    __pow__ = _binary(operator.pow)
    __rpow__ = _reflected(operator.pow)
    __ipow__ = _inplace(operator.ipow)
    __matmul__ = _binary(_matmul)
    __rmatmul__ = _reflected(_matmul)
    __and__ = _binary(operator.and_)
    __rand__ = _reflected(operator.and_)
    __or__ = _binary(operator.or_)
    __ror__ = _reflected(operator.or_)
    __xor__ = _binary(operator.xor)
    __rxor__ = _reflected(operator.xor)
    __eq__ = _binary(operator.eq, lambda a, t: _with_tensor(operator.eq, a, t, False))
    __ne__ = _binary(operator.ne, lambda a, t: _with_tensor(operator.ne, a, t, False))
    __lt__ = _binary(operator.lt)
    __le__ = _binary(operator.le)
    __gt__ = _binary(operator.gt)
    __ge__ = _binary(operator.ge)

    def __neg__(self):
        return NDArray(-self._array)

    def __pos__(self):
        return NDArray(+self._array)

    def __abs__(self):
        return NDArray(np.abs(self._array))

    def __invert__(self):
        return NDArray(~self._array)


NDArray.__name__ = NDArray.__qualname__ = "numpy.ndarray"   # Python's operator errors name it so
values.NDArray = NDArray
