"""What ``tensor.numpy()`` gives a script: a read-only array view that prints like a
numpy array and can be indexed, iterated and converted, but exposes none of numpy's
file, buffer or ctypes methods."""

from __future__ import annotations

import numpy as np


class ScriptArray:
    __slots__ = ("_array",)
    _script_attrs = frozenset({"shape", "dtype", "ndim", "size", "tolist", "item", "sum", "mean",
                               "max", "min", "copy", "reshape", "T", "astype", "flatten"})

    def __init__(self, array: np.ndarray):
        self._array = array

    def _wrap(self, v):
        return ScriptArray(v) if isinstance(v, np.ndarray) else (v.item() if isinstance(v, np.generic) else v)

    @property
    def shape(self):
        return tuple(self._array.shape)

    @property
    def dtype(self):
        return str(self._array.dtype)

    @property
    def ndim(self):
        return self._array.ndim

    @property
    def size(self):
        return int(self._array.size)

    @property
    def T(self):
        return ScriptArray(self._array.T)

    def tolist(self):
        from ..interpreter.limits import RT, seq_limit
        if self._array.size > RT.max_seq:
            raise seq_limit(self._array.size, "tolist()")
        return self._array.tolist()

    def item(self):
        return self._array.item()

    def sum(self, axis=None):
        return self._wrap(self._array.sum(axis=axis))

    def mean(self, axis=None):
        return self._wrap(self._array.mean(axis=axis))

    def max(self, axis=None):
        return self._wrap(self._array.max(axis=axis))

    def min(self, axis=None):
        return self._wrap(self._array.min(axis=axis))

    def copy(self):
        return ScriptArray(self._array.copy())

    def flatten(self):
        return ScriptArray(self._array.flatten())

    def reshape(self, *shape):
        return ScriptArray(self._array.reshape(*shape))

    def astype(self, dtype):
        """A numeric or bool dtype only (no strings, objects or records, whose size a
        script could choose)."""
        try:
            d = np.dtype(str(dtype))
        except TypeError:
            raise TypeError(f"data type {str(dtype)!r} not understood") from None
        if d.kind not in "biuf":
            raise TypeError(f"astype(): autotrace arrays hold numbers; {str(dtype)!r} is not supported")
        return ScriptArray(self._array.astype(d))

    def __getitem__(self, key):
        if isinstance(key, ScriptArray):
            key = key._array
        return self._wrap(self._array[key])

    def __len__(self):
        return len(self._array)

    def __iter__(self):
        return (self._wrap(v) for v in self._array)

    def __float__(self):
        return float(self._array)

    def __repr__(self) -> str:
        return repr(self._array)

    def __str__(self) -> str:
        return str(self._array)

    def _binop(self, other, fn):
        o = other._array if isinstance(other, ScriptArray) else other
        if isinstance(o, np.ndarray) and o.shape != self._array.shape:
            from ..resources import check_broadcast_size
            check_broadcast_size(self._array.shape, o.shape)   # before numpy allocates
        return self._wrap(fn(self._array, o))

    def __add__(self, o): return self._binop(o, np.add)
    def __radd__(self, o): return self._binop(o, lambda a, b: b + a)
    def __sub__(self, o): return self._binop(o, np.subtract)
    def __rsub__(self, o): return self._binop(o, lambda a, b: b - a)
    def __mul__(self, o): return self._binop(o, np.multiply)
    def __rmul__(self, o): return self._binop(o, np.multiply)
    def __truediv__(self, o): return self._binop(o, np.true_divide)
    def __eq__(self, o): return self._binop(o, np.equal)
    def __lt__(self, o): return self._binop(o, np.less)
    def __gt__(self, o): return self._binop(o, np.greater)
    __hash__ = None
