"""The numpy values a script holds: arrays, scalars and dtypes, each an autotrace object.

Arrays are :class:`NDArray` (a real ``numpy.ndarray`` inside, never handed out); numpy
scalars become Python numbers (integers and bools as ``int``/``bool``, whose size checks
the interpreter already owns) or :class:`Float64`/:class:`Float32` (``float`` subclasses
that print and compute as ``numpy.float64``/``numpy.float32``); a dtype is a
:class:`NpDType`. Only numeric and bool dtypes exist: strings and objects, whose size a
script could choose freely, are refused. Every operation that makes a new array checks
its element count against ``--limit elements`` before numpy allocates it.
"""

from __future__ import annotations

import numpy as np

from .. import resources

#: numpy dtypes scripts may use (kinds b, i, u, f)
_KINDS = "biuf"
_NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64")


def refused(what: str) -> TypeError:
    return TypeError(f"numpy {what} is not supported in autotrace scripts")


# ---------------------------------------------------------------------------
# dtypes

class NpDType:
    """``np.float32`` (``is_type``: the scalar type, callable) or ``a.dtype`` (a dtype
    instance); both compare equal to each other, to the name and to the Python type numpy
    maps them to."""

    __slots__ = ("np", "is_type")
    _script_attrs = frozenset({"name", "kind", "itemsize", "type"})

    def __init__(self, dt, is_type: bool = False):
        self.np = np.dtype(dt)
        self.is_type = is_type

    @property
    def name(self) -> str:
        return self.np.name

    @property
    def kind(self) -> str:
        return self.np.kind

    @property
    def itemsize(self) -> int:
        return self.np.itemsize

    @property
    def type(self):
        return NpDType(self.np, True)

    def __call__(self, value=0):
        if not self.is_type:
            raise TypeError("'numpy.dtype' object is not callable")
        return wrap(self.np.type(to_numpy(value)))

    def __eq__(self, other):
        try:
            return self.np == as_dtype(other)
        except TypeError:
            return False

    def __ne__(self, other):
        return not self.__eq__(other)

    def __hash__(self):
        return hash(self.np)

    def __repr__(self) -> str:
        return f"<class 'numpy.{self.np.type.__name__}'>" if self.is_type else repr(self.np)

    def __str__(self) -> str:
        return repr(self) if self.is_type else str(self.np)


def as_dtype(d):
    """The numpy dtype a script names: an :class:`NpDType`, a name (``"float32"``) or
    ``float``/``int``/``bool``; TypeError for anything else (torch dtypes included, as numpy)."""
    if d is None:
        return None
    if isinstance(d, NpDType):
        return d.np
    if d is float:
        return np.dtype(np.float64)
    if d is int:
        return np.dtype(np.int64)
    if d is bool:
        return np.dtype(np.bool_)
    if isinstance(d, str) and len(d) < 16:
        try:
            dt = np.dtype(d)
        except TypeError:
            raise TypeError(f"data type {d!r} not understood") from None
        if dt.kind not in _KINDS or dt.byteorder not in "=|":
            raise refused(f"dtype {d!r}")
        return dt
    raise TypeError(f"Cannot interpret '{d}' as a data type")


# ---------------------------------------------------------------------------
# scalars

class _NpFloat(float):
    """A numpy float scalar as a ``float``: prints as numpy does, computes in its own
    precision with numpy's promotion, and is a float everywhere else."""

    __slots__ = ()
    _np_type = np.float64
    _script_attrs = frozenset({"item", "dtype", "shape", "ndim", "size", "tolist", "astype", "real", "imag"})

    def _np(self):
        return self._np_type(float(self))

    def item(self):
        return float(self)

    tolist = item

    @property
    def dtype(self):
        return NpDType(self._np_type)

    @property
    def shape(self):
        return ()

    @property
    def ndim(self):
        return 0

    @property
    def size(self):
        return 1

    @property
    def real(self):
        return self

    @property
    def imag(self):
        return wrap(self._np_type(0))

    def astype(self, dtype):
        return wrap(self._np().astype(as_dtype(dtype)))

    def __repr__(self) -> str:
        return repr(self._np())

    def __str__(self) -> str:
        return str(self._np())

    def __format__(self, spec: str) -> str:
        return format(self._np(), spec)

    def __hash__(self):
        return float.__hash__(self)

    def __neg__(self):
        return wrap(-self._np())

    def __pos__(self):
        return self

    def __abs__(self):
        return wrap(abs(self._np()))


def _scalar_op(name):
    def op(self, other):
        o = _operand(other)
        if o is NotImplemented:
            return NotImplemented
        if isinstance(o, np.ndarray):
            resources.check_count(o.size)
        with np.errstate(all="ignore"):
            return wrap(getattr(self._np(), name)(o))
    op.__name__ = name
    return op


for _n in ("add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "floordiv",
           "rfloordiv", "mod", "rmod", "pow", "rpow", "lt", "le", "gt", "ge", "eq", "ne"):
    setattr(_NpFloat, f"__{_n}__", _scalar_op(f"__{_n}__"))


class Float64(_NpFloat):
    __slots__ = ()
    _np_type = np.float64


class Float32(_NpFloat):
    __slots__ = ()
    _np_type = np.float32


class Float16(_NpFloat):
    __slots__ = ()
    _np_type = np.float16


for _c in (Float64, Float32, Float16):
    _c.__name__ = _c.__qualname__ = f"numpy.{_c._np_type.__name__}"

_FLOATS = {np.dtype(np.float64): Float64, np.dtype(np.float32): Float32, np.dtype(np.float16): Float16}


def wrap(v):
    """A numpy result as a script value: arrays as :class:`NDArray`, float scalars as
    :class:`Float64`/``Float32``/``Float16``, integer and bool scalars as ``int``/``bool``;
    tuples and lists element by element; other values unchanged."""
    t = type(v)
    if t is np.ndarray:
        return NDArray(v)
    if isinstance(v, np.generic):
        if isinstance(v, np.floating):
            return _FLOATS[v.dtype](float(v))
        if isinstance(v, (np.integer, np.bool_)):
            return v.item()
        raise refused(f"scalar type {v.dtype}")
    if t is tuple:
        return tuple(wrap(x) for x in v)
    if t is list:
        return [wrap(x) for x in v]
    return v


# ---------------------------------------------------------------------------
# turning script values into numpy

def _operand(x):
    """``x`` as a numpy operand for arithmetic, or NotImplemented (tensors and unknown
    objects answer with their own reflected operator)."""
    t = type(x)
    if t is NDArray:
        return x._array
    if t in (int, float, bool):
        return x
    if isinstance(x, _NpFloat):
        return x._np()
    if t in (list, tuple):
        return to_numpy(x)
    return NotImplemented


def operand(x):
    """``x`` as numpy sees an operand: Python numbers stay Python numbers (numpy 2 treats
    them as weakly typed: ``float32_array * 2.0`` stays float32), numpy scalars keep their
    type, anything else becomes an array (:func:`to_numpy`)."""
    t = type(x)
    if t is int or t is float or t is bool:
        return x
    if isinstance(x, _NpFloat):
        return x._np()
    return to_numpy(x)


def _tensor_array(t):
    if t._requires_grad:
        raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
    return t._data


def _count(x, depth=0) -> int:
    if depth > 32:
        raise ValueError("maximum supported dimension for an ndarray is currently 64, found 33")
    t = type(x)
    if t is NDArray:
        return x._array.size
    if t in (list, tuple):
        return sum(_count(v, depth + 1) for v in x) if x else 0
    from ..tensor import Tensor
    if isinstance(x, Tensor):
        return x._data.size
    return 1


def _leaf(x):
    from ..tensor import Tensor
    t = type(x)
    if t is NDArray:
        return x._array
    if t in (int, float, bool) or isinstance(x, _NpFloat):
        return x._np() if isinstance(x, _NpFloat) else x
    if isinstance(x, Tensor):
        return _tensor_array(x)
    if t in (list, tuple):
        return [_leaf(v) for v in x]
    if x is None:
        raise refused("arrays of objects (dtype=object)")
    if t is str:
        raise refused("arrays of strings")
    raise refused(f"arrays of {type(x).__name__} objects (dtype=object)")


def to_numpy(x, dtype=None, copy=None):
    """``np.asarray(x, dtype)`` for a script value (arrays, tensors, numbers, nested
    lists of them), counted against the element limit before the array is built; object
    and string arrays are refused. ``copy=True`` always copies."""
    from ..tensor import Tensor
    dt = as_dtype(dtype)
    t = type(x)
    if t is NDArray:
        a = x._array
    elif isinstance(x, Tensor):
        a = _tensor_array(x)
    elif t in (list, tuple):
        resources.check_count(_count(x))
        try:
            a = np.array(_leaf(x))
        except ValueError as e:
            raise ValueError(str(e)) from None
        if a.dtype.kind not in _KINDS:
            raise refused(f"arrays of dtype {a.dtype}")
    else:
        a = np.asarray(_leaf(x))
    if a.dtype.kind not in _KINDS:
        raise refused(f"arrays of dtype {a.dtype}")
    if dt is not None and a.dtype != dt:
        return a.astype(dt)
    return a.copy() if copy else a


#: the array class, set by :mod:`.ndarray` (which builds on the helpers here)
NDArray = None
