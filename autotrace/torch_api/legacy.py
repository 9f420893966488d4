"""The legacy constructors: ``torch.Tensor(...)``, ``torch.FloatTensor(...)`` and the other
typed tensor classes, and ``torch.autograd.Variable``, as torch 2.13 still accepts them.

``torch.Tensor(2, 3)`` takes sizes (the memory is uninitialised in torch; zeros here),
``torch.Tensor([[1, 2]])`` data (always float32), ``torch.Tensor(t)`` aliases ``t`` (same
storage; AliasBackward0 when ``t`` requires grad). The typed classes do the same in their
dtype and refuse a tensor of another dtype. ``Variable(t)`` is a detached alias of ``t``
that requires grad when asked to.
"""

from __future__ import annotations

import numpy as np

from .. import diagnostics, dtypes
from ..device import Device, device as _device
from ..tensor import Size, Tensor

_CPP = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int", "int16": "short int",
        "int8": "signed char", "uint8": "unsigned char", "bool": "bool", "float16": "c10::Half"}

_SIGNATURES = (" * (*, torch.device device = None)\n{why} * (torch.Storage storage)\n * (Tensor other)\n"
               " * (tuple of ints size, *, torch.device device = None)\n * (object data, *, torch.device device = None)\n")


def _type_name(v) -> str:
    if isinstance(v, Tensor):
        return "Tensor"
    if isinstance(v, dtypes.DType):
        return "torch.dtype"
    if isinstance(v, Device):
        return "torch.device"
    return type(v).__name__


def _bad_kwargs(args, kwargs):
    got = ", ".join([_type_name(a) for a in args] + [f"{k}={_type_name(v)}" for k, v in kwargs.items()])
    if not args:
        got += ", "
    bad = ", ".join(k for k in kwargs if k != "device")
    why = f"      didn't match because some of the keywords were incorrect: {bad}\n"
    return TypeError(f"new() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     + _SIGNATURES.format(why=why))


def _options(d) -> str:
    return (f"TensorOptions(dtype={_CPP[d.name]}, device=cpu, layout=Strided, requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt))")


def legacy_new(dtype, args, kwargs):
    """``torch.Tensor(*args)`` (``dtype`` None: float32, any dtype for an aliased tensor)
    or ``torch.<Type>Tensor(*args)``. Raises torch's TypeError/RuntimeError for keywords
    other than ``device``, a non-CPU device, floats among sizes, a scalar float, strings
    and a tensor of another dtype."""
    from .creation import _check_size, tensor as make_tensor

    if any(k != "device" for k in kwargs):
        raise _bad_kwargs(args, kwargs)
    dev = kwargs.get("device")
    if dev is not None:
        d = _device(dev)
        if d.type != "cpu":
            raise RuntimeError(f"legacy constructor expects device type: cpu but device type: {d.type} was passed")
    want = dtype or dtypes.default_float
    if not args:
        return Tensor._make(np.zeros((0,), dtype=want.np), want)
    first = args[0]
    if len(args) == 1 and isinstance(first, Tensor):
        if dtype is not None and first._dtype is not dtype:
            raise TypeError(f"expected {_options(dtype)} (got {_options(first._dtype)})")
        from ..ops.indexing import ALIAS
        from ..ops import make
        from ..ops.shape import _view_of
        return _view_of(first, make(ALIAS, first._data, (first,)))
    if isinstance(first, int) and not isinstance(first, bool) or isinstance(first, Size):
        sizes = tuple(first) if isinstance(first, Size) else args
        if isinstance(first, Size) and len(args) > 1:
            raise TypeError("new(): argument 'size' must be tuple of ints, but found element of type torch.Size")
        for i, s in enumerate(sizes):
            if isinstance(s, bool) or not isinstance(s, int):
                raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                                f"\"type must be tuple of ints,but got {_type_name(s)}\"")
        return Tensor._make(np.zeros(_check_size(tuple(sizes)), dtype=want.np), want)
    if len(args) > 1:
        raise TypeError(f"new(): argument 'size' must be tuple of ints, but found element of type "
                        f"{_type_name(first)} at pos 0")
    if isinstance(first, str):
        raise TypeError(f"new(): invalid data type '{type(first).__name__}'")
    if isinstance(first, (float, bool)):
        raise TypeError(f"new(): data must be a sequence (got {type(first).__name__})")
    if not isinstance(first, (list, tuple)) and not hasattr(first, "_array"):
        raise TypeError(f"new(): data must be a sequence (got {_type_name(first)})")
    if want.category == dtypes.INT and want is not dtypes.int64:
        _check_fits(first, want)
    return make_tensor(first, dtype=want)


def _check_fits(data, d) -> None:
    info = np.iinfo(d.np)
    stack = [data]
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple)):
            stack.extend(v)
        elif isinstance(v, (int, float)) and not isinstance(v, bool) and not info.min <= v <= info.max:
            raise RuntimeError(f"value cannot be converted to type {d.name} without overflow")


class _LegacyType(type):
    """The metaclass of ``torch.FloatTensor`` and its kin: calling one runs the legacy
    constructor in its dtype; ``isinstance(t, torch.FloatTensor)`` checks the dtype."""

    def __call__(cls, *args, **kwargs):
        return legacy_new(cls._dtype, args, kwargs)

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor) and obj._dtype is cls._dtype

    def __repr__(cls):
        return f"<class 'torch.{cls._dtype.legacy}'>"


def _typed(d):
    return _LegacyType(d.legacy, (), {"_dtype": d, "_script_class_attrs": frozenset(), "__slots__": ()})


TYPED = {d.legacy: _typed(d) for d in (dtypes.float32, dtypes.float64, dtypes.float16, dtypes.int64, dtypes.int32,
                                      dtypes.int16, dtypes.int8, dtypes.uint8, dtypes.bool_)}


class _CudaType(type):
    """``torch.cuda.FloatTensor`` and kin on a CPU-only torch: they exist, but building one
    raises TypeError and converting to one RuntimeError (no CUDA library)."""

    def __call__(cls, *args, **kwargs):
        raise TypeError(f"type torch.cuda.{cls._dtype.legacy} not available. Torch not compiled with CUDA enabled.")

    def __instancecheck__(cls, obj):
        return False

    def __repr__(cls):
        return f"<class 'torch.cuda.{cls._dtype.legacy}'>"


CUDA_TYPED = {n: _CudaType(n, (), {"_dtype": t._dtype, "_script_class_attrs": frozenset(), "__slots__": ()})
              for n, t in TYPED.items()}


def legacy_dtype(obj):
    """The dtype a ``.type(...)`` argument names: a typed class, ``torch.Tensor`` or a
    dtype; None when ``obj`` is none of them."""
    if isinstance(obj, dtypes.DType):
        return obj
    if obj is Tensor:
        return dtypes.float32
    if isinstance(obj, _CudaType):
        from ..ops.convert import _NO_CUDA_LIB
        raise RuntimeError(_NO_CUDA_LIB)
    d = getattr(obj, "_dtype", None) if isinstance(obj, _LegacyType) else None
    return d


VOLATILE = "volatile was removed and now has no effect. Use `with torch.no_grad():` instead."


class _VariableMeta(type):
    def __call__(cls, data=None, requires_grad=False, volatile=None):
        if volatile is not None:
            diagnostics.warn(VOLATILE)
        if data is None:
            return Tensor._make(np.zeros((0,), dtype=np.float32))
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {_type_name(data)}")
        if requires_grad and data._dtype.category != dtypes.FLOAT:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        t = data.detach()
        t._requires_grad = bool(requires_grad)
        return t

    def __instancecheck__(cls, obj):
        return isinstance(obj, Tensor)

    def __repr__(cls):
        return "<class 'torch.autograd.variable.Variable'>"


class Variable(metaclass=_VariableMeta):
    """``torch.autograd.Variable(data, requires_grad=False, volatile=None)``: the old
    wrapper, now a detached alias of ``data`` (a Tensor) with ``requires_grad`` set;
    ``volatile`` only warns (torch 2.13). TypeError for non-tensor data."""

    __slots__ = ()
    _script_class_attrs = frozenset()
