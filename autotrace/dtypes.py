"""Tensor dtypes and PyTorch's type-promotion rules.

A :class:`DType` wraps a numpy dtype and prints like PyTorch (``torch.float32``).
Promotion follows torch 2.13 ``torch.result_type``: the highest category wins
(bool < integer < floating); within that category, dimensioned tensors outrank
0-dim tensors, which outrank Python scalars, and a Python scalar alone in the highest
category yields the default dtype (float32, int64).
"""

from __future__ import annotations

import numpy as np

BOOL, INT, FLOAT = 0, 1, 2


class NumberLike:
    """Base of the non-Python scalars torch takes as a Python number in tensor ops:
    ``numpy.bool_`` becomes a Python float there (torch 2.13: ``int_tensor * np.True_``
    is float32). :meth:`torch_number` gives that number."""

    __slots__ = ()

    def torch_number(self):
        raise NotImplementedError


class DType:
    """A tensor element type. ``name`` is PyTorch's (``"float32"``), ``np`` numpy's."""

    __slots__ = ("name", "np", "category", "itemsize", "legacy")
    _script_attrs = frozenset({"is_floating_point", "itemsize"})

    def __init__(self, name: str, np_dtype, category: int, legacy: str):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.category = category
        self.itemsize = self.np.itemsize
        self.legacy = legacy  # the legacy type name PyTorch prints in errors: "FloatTensor"

    @property
    def is_floating_point(self) -> bool:
        return self.category == FLOAT

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    __str__ = __repr__

    def __reduce__(self):  # dtypes are singletons
        return (by_name, (self.name,))


float16 = DType("float16", np.float16, FLOAT, "HalfTensor")
float32 = DType("float32", np.float32, FLOAT, "FloatTensor")
float64 = DType("float64", np.float64, FLOAT, "DoubleTensor")
uint8 = DType("uint8", np.uint8, INT, "ByteTensor")
int8 = DType("int8", np.int8, INT, "CharTensor")
int16 = DType("int16", np.int16, INT, "ShortTensor")
int32 = DType("int32", np.int32, INT, "IntTensor")
int64 = DType("int64", np.int64, INT, "LongTensor")
bool_ = DType("bool", np.bool_, BOOL, "BoolTensor")

ALL = (float16, float32, float64, uint8, int8, int16, int32, int64, bool_)
_BY_NAME = {d.name: d for d in ALL}
_BY_NP = {d.np: d for d in ALL}

# The names scripts can use: torch.float, torch.double, torch.long, ...
ALIASES = {
    "float16": float16, "half": float16,
    "float32": float32, "float": float32,
    "float64": float64, "double": float64,
    "uint8": uint8, "int8": int8,
    "int16": int16, "short": int16,
    "int32": int32, "int": int32,
    "int64": int64, "long": int64,
    "bool": bool_,
}

default_float = float32


def by_name(name: str) -> DType:
    return _BY_NAME[name]


def from_numpy(np_dtype) -> DType:
    """The DType of a numpy dtype; raises TypeError for dtypes autotrace has no tensor for."""
    try:
        return _BY_NP[np.dtype(np_dtype)]
    except KeyError:
        raise TypeError(f"can't convert np.ndarray of type numpy.{np.dtype(np_dtype)}.") from None


def _promote_pair(a: DType, b: DType) -> DType:
    """torch.promote_types: a higher category wins outright (float32 with int64 is
    float32, not numpy's float64); within a category the wider type wins."""
    if a is b:
        return a
    if a.category != b.category:
        return a if a.category > b.category else b
    return from_numpy(np.promote_types(a.np, b.np))


def scalar_category(value) -> int:
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT
    return FLOAT


def result_type(tensors, scalars=()) -> DType:
    """The dtype of an op over ``tensors`` (objects with ``.dtype`` and ``.ndim``) and
    Python ``scalars``; matches torch 2.13 ``torch.result_type``."""
    dim_best = zero_best = None
    for t in tensors:
        d = t.dtype
        if t.ndim:
            dim_best = d if dim_best is None else _promote_pair(dim_best, d)
        else:
            zero_best = d if zero_best is None else _promote_pair(zero_best, d)
    scalar_cat = max((scalar_category(s) for s in scalars), default=-1)
    cats = [c for c in (dim_best and dim_best.category, zero_best and zero_best.category) if c is not None]
    top = max(cats + [scalar_cat])
    if dim_best is not None and dim_best.category == top:
        if zero_best is not None and zero_best.category == top:
            # a 0-dim tensor of the same category does not widen a dimensioned one
            return dim_best
        return dim_best
    if zero_best is not None and zero_best.category == top:
        return zero_best
    if top == FLOAT:
        return default_float
    if top == INT:
        return int64
    return bool_


def infer(value) -> DType:
    """The dtype torch.tensor() infers from nested Python data (float32 for floats; a
    numpy float scalar keeps its own dtype, as in torch)."""
    np_type = getattr(type(value), "_np_type", None)
    if np_type is not None:
        return from_numpy(np_type)
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return default_float
    cat = -1
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(reversed(v))
        elif getattr(type(v), "_np_type", None) is not None:
            return from_numpy(v._np_type)
        elif hasattr(v, "_array"):      # a numpy array keeps its dtype, as in torch
            d = from_numpy(v._array.dtype)
            if d.category == FLOAT:
                return d
            cat = max(cat, d.category)
        elif hasattr(v, "dtype") and hasattr(v, "_data"):
            c = v.dtype.category
            if c == FLOAT:
                return v.dtype if v.dtype is not float64 else float64
            cat = max(cat, c)
        else:
            if not isinstance(v, (int, float)) and not hasattr(v, "_array"):
                # torch's infer_scalar_type errors
                if isinstance(v, str):
                    raise TypeError(f"new(): invalid data type '{type(v).__name__}'")
                raise RuntimeError(f"Could not infer dtype of {type(v).__name__}")
            cat = max(cat, scalar_category(v))
    return {FLOAT: default_float, INT: int64, BOOL: bool_}.get(cat, default_float)
