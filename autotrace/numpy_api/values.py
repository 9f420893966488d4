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

import warnings

import numpy as np

from .. import dtypes, resources

#: numpy dtypes scripts may use (kinds b, i, u, f)
_KINDS = "biuf"
_NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64")


def english(key: str, **values) -> str:
    """An autotrace sentence in English, as runs record errors (shown translated later)."""
    from ..messages import EN
    return EN[key].format(**values)


class numpy_warnings:
    """Around a numpy computation: numpy's own RuntimeWarnings (``overflow encountered in
    square``, ``divide by zero encountered in log``), under numpy's default error state,
    recorded as the script's warnings. Runs otherwise compute with warnings off."""

    __slots__ = ("_catch", "_err", "_caught")

    def __enter__(self):
        self._catch = warnings.catch_warnings(record=True)
        self._caught = self._catch.__enter__()
        warnings.simplefilter("always")
        self._err = np.errstate(divide="warn", over="warn", invalid="warn", under="ignore")
        self._err.__enter__()
        return self

    def __exit__(self, *exc):
        self._err.__exit__(*exc)
        self._catch.__exit__(*exc)
        if self._caught:
            from .. import diagnostics
            for w in self._caught:
                diagnostics.warn(str(w.message), w.category.__name__)
        return False


def refused(dtype) -> TypeError:
    """The error for an array of a dtype scripts cannot have (strings, objects, ...)."""
    return TypeError(english("error.numpy_dtype", dtype=dtype))


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
            raise refused(d)
        return dt
    raise TypeError(f"Cannot interpret '{d}' as a data type")


# ---------------------------------------------------------------------------
# scalars

class _NpScalar:
    """What numpy scalars share: numpy's printing, numpy's arithmetic (its precision,
    promotion and integer wrap-around, results wrapped again) and the scalar attributes."""

    __slots__ = ()
    _np_type = np.float64
    _script_attrs = frozenset({"item", "dtype", "shape", "ndim", "size", "tolist", "astype", "real", "imag"})

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

    def __neg__(self):
        with np.errstate(all="ignore"):
            return wrap(-self._np())

    def __pos__(self):
        return self

    def __abs__(self):
        with np.errstate(all="ignore"):
            return wrap(abs(self._np()))


class _NpFloat(_NpScalar, float):
    """A numpy float scalar as a ``float`` (``isinstance(x, float)`` holds, as for
    ``numpy.float64``)."""

    __slots__ = ()

    def _np(self):
        return self._np_type(float(self))

    def item(self):
        return float(self)

    tolist = item

    def __hash__(self):
        return float.__hash__(self)


class _NpInt(_NpScalar, int):
    """A numpy integer scalar as an ``int`` subclass with numpy's fixed-width arithmetic;
    the interpreter's size checks read it through ``__index__``."""

    __slots__ = ()
    _np_type = np.int64

    def _np(self):
        return self._np_type(int(self))

    def item(self):
        return int(self)

    tolist = item

    def __hash__(self):
        return int.__hash__(self)

    def __invert__(self):
        return wrap(~self._np())


class NpBool(_NpScalar, dtypes.NumberLike):
    """``numpy.bool_`` (``np.True_``): truthy as a bool but not a ``bool`` (as in numpy),
    with numpy's arithmetic (``np.True_ + 1`` is ``np.int64(2)``)."""

    __slots__ = ("_v",)
    _np_type = np.bool_

    def __init__(self, v: bool):
        self._v = bool(v)

    def _np(self):
        return np.bool_(self._v)

    def item(self):
        return self._v

    tolist = item

    def __bool__(self):
        return self._v

    def __int__(self):
        return int(self._v)

    def __float__(self):
        return float(self._v)

    def __hash__(self):
        return hash(self._v)

    def __invert__(self):
        return NpBool(not self._v)

    def torch_number(self):
        return float(self._v)


NpBool.__name__ = NpBool.__qualname__ = "numpy.bool"


def _scalar_op(name):
    def op(self, other):
        o = _operand(other)
        if o is NotImplemented:
            return NotImplemented
        if isinstance(o, np.ndarray):
            resources.check_count(o.size)
        with numpy_warnings():
            r = getattr(self._np(), name)(o)
        return NotImplemented if r is NotImplemented else wrap(r)
    op.__name__ = name
    return op


for _n in ("add", "radd", "sub", "rsub", "mul", "rmul", "truediv", "rtruediv", "floordiv",
           "rfloordiv", "mod", "rmod", "pow", "rpow", "lt", "le", "gt", "ge", "eq", "ne",
           "divmod", "rdivmod"):
    setattr(_NpScalar, f"__{_n}__", _scalar_op(f"__{_n}__"))
for _n in ("lshift", "rlshift", "rshift", "rrshift", "and", "rand", "or", "ror", "xor", "rxor"):
    setattr(_NpInt, f"__{_n}__", _scalar_op(f"__{_n}__"))
for _n in ("and", "rand", "or", "ror", "xor", "rxor"):
    setattr(NpBool, f"__{_n}__", _scalar_op(f"__{_n}__"))


class Float64(_NpFloat):
    __slots__ = ()
    _np_type = np.float64


class Float32(_NpFloat):
    __slots__ = ()
    _np_type = np.float32


class Float16(_NpFloat):
    __slots__ = ()
    _np_type = np.float16


_INT_TYPES = {}
for _t in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64):
    _INT_TYPES[np.dtype(_t)] = type(_t.__name__.capitalize(), (_NpInt,), {"__slots__": (), "_np_type": _t})

for _c in (Float64, Float32, Float16, *_INT_TYPES.values()):
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
        if isinstance(v, np.integer):
            return _INT_TYPES[v.dtype](int(v))
        if isinstance(v, np.bool_):
            return NpBool(v)
        raise refused(v.dtype)
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
    if t is int or t is float or t is bool:
        return x
    if isinstance(x, _NpScalar):
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
    if isinstance(x, _NpScalar):
        return x._np()
    return to_numpy(x)


def _tensor_array(t):
    if t._requires_grad:
        raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
    return t._data


def _count(x, depth=0) -> int:
    if depth > 64:
        raise ValueError("maximum supported dimension for an ndarray is currently 64, found 65")
    t = type(x)
    if t is NDArray:
        return x._array.size
    if t in (list, tuple):
        if _plain(x):
            return len(x)
        return sum(_count(v, depth + 1) for v in x) if x else 0
    from ..tensor import Tensor
    if isinstance(x, Tensor):
        return x._data.size
    if t is range:
        return len(x)
    return 1


_NUMBERS = frozenset({int, float, bool})


def _plain(seq) -> bool:
    """A flat list/tuple of Python numbers (numpy reads it as is, at C speed)."""
    return set(map(type, seq)) <= _NUMBERS


def _leaf(x):
    from ..tensor import Tensor
    t = type(x)
    if (t is list or t is tuple) and _plain(x):
        return x
    if t is NDArray:
        return x._array
    if t in (int, float, bool) or isinstance(x, _NpScalar):
        return x._np() if isinstance(x, _NpScalar) else x
    if isinstance(x, Tensor):
        return _tensor_array(x)
    if t in (list, tuple):
        return [_leaf(v) for v in x]
    if t is range:
        resources.check_count(len(x))
        return np.arange(x.start, x.stop, x.step)
    if t is str:
        raise refused("str")
    raise refused("object")


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
    else:
        a = np.asarray(_leaf(x))
    if a.dtype.kind not in _KINDS:
        raise refused(a.dtype)
    if dt is not None and a.dtype != dt:
        return a.astype(dt)
    return a.copy() if copy else a


#: the array class, set by :mod:`.ndarray` (which builds on the helpers here)
NDArray = None
