"""Tensor creation: ``torch.tensor``, ``ones``/``zeros``/``full``/``arange``/``linspace``/
``eye``, the ``*_like`` forms, and the random ones (PyTorch's CPU generator)."""

from __future__ import annotations

import numpy as np

from .. import dtypes, resources
from ..tensor import Tensor

_INT_GRAD = "Only Tensors of floating point and complex dtype can require gradients"


def _finish(data: np.ndarray, dtype, requires_grad: bool) -> Tensor:
    t = Tensor._make(data, dtype)
    if requires_grad:
        if t._dtype.category != dtypes.FLOAT:
            raise RuntimeError(_INT_GRAD)
        t._requires_grad = True
    return t


def _nested_to_array(data, dtype):
    """Nested lists/tuples of numbers and tensors as a numpy array of ``dtype``."""
    if isinstance(data, Tensor):
        return data._data.astype(dtype.np, copy=True)
    if isinstance(data, (list, tuple)):
        if any(isinstance(d, Tensor) for d in data):
            parts = [_nested_to_array(d, dtype) for d in data]
            return np.stack(parts) if parts else np.zeros((0,), dtype=dtype.np)
        try:
            arr = np.array(data, dtype=dtype.np)
        except ValueError:
            raise ValueError(f"expected sequence of length {len(data[0]) if data and isinstance(data[0], (list, tuple)) else 0} at dim 1 (got {len(data[-1]) if isinstance(data[-1], (list, tuple)) else 0})") from None
        return arr
    if hasattr(data, "_array"):  # a ScriptArray from .numpy()
        return np.array(data._array, dtype=dtype.np)
    if isinstance(data, (bool, int, float)):
        return np.array(data, dtype=dtype.np)
    raise TypeError(f"Could not infer dtype of {type(data).__name__}")


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """``torch.tensor(data)``: a new leaf tensor; floats give float32, ints int64, bools
    bool, unless ``dtype`` is given. ``requires_grad=True`` on an integer dtype raises
    PyTorch's RuntimeError."""
    given = dtype
    try:
        if dtype is None:
            if hasattr(data, "_array"):
                dtype = dtypes.from_numpy(data._array.dtype)
            else:
                dtype = data._dtype if isinstance(data, Tensor) else dtypes.infer(data)
        arr = _nested_to_array(data, dtype)
    except Exception:
        _data_error(data, given, dtype)
        raise
    return _finish(arr, dtype, requires_grad)


def _data_error(data, given, dtype) -> None:
    """Raise the error torch.tensor() gives for ``data`` that numpy could not take
    (torch's tensor_new.cpp: infer the scalar type over every element, take the sizes
    from the first element at each level, then store element by element); return when
    none applies."""
    if given is None:
        stack = [data]
        while stack:
            v = stack.pop()
            if isinstance(v, (list, tuple)):
                stack.extend(reversed(v))
            elif isinstance(v, str):
                raise TypeError(f"new(): invalid data type '{type(v).__name__}'")
            elif not isinstance(v, (bool, int, float, Tensor)) and not hasattr(v, "_array"):
                raise RuntimeError(f"Could not infer dtype of {type(v).__name__}")
    sizes = []
    v = data
    while isinstance(v, (list, tuple)):
        sizes.append(len(v))
        if not v:
            break
        v = v[0]
    is_float = dtype is None or dtype.category == dtypes.FLOAT

    def store(v, dim):
        if dim == len(sizes):
            if isinstance(v, (list, tuple)):
                if is_float:
                    raise TypeError(f"must be real number, not {type(v).__name__}")
                raise TypeError(f"'{type(v).__name__}' object cannot be interpreted as an integer")
            return
        if not isinstance(v, (list, tuple)):
            raise TypeError("not a sequence")
        if len(v) != sizes[dim]:
            raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(v)})")
        for item in v:
            store(item, dim + 1)

    if not any(isinstance(x, Tensor) for x in (data if isinstance(data, (list, tuple)) else ())):
        store(data, 0)


def as_tensor(data, dtype=None, device=None):
    if isinstance(data, Tensor) and (dtype is None or dtype is data._dtype):
        return data
    return tensor(data, dtype=dtype)


def _size_arg(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return tuple(int(s) for s in size)


def _check_size(shape):
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: [{', '.join(map(str, shape))}]")
    resources.check_shape(shape)
    return shape


def ones(*size, dtype=None, requires_grad=False, device=None, out=None):
    """``torch.ones(*size)`` (float32 by default)."""
    dtype = dtype or dtypes.default_float
    return _finish(np.ones(_check_size(_size_arg(size)), dtype=dtype.np), dtype, requires_grad)


def zeros(*size, dtype=None, requires_grad=False, device=None, out=None):
    dtype = dtype or dtypes.default_float
    return _finish(np.zeros(_check_size(_size_arg(size)), dtype=dtype.np), dtype, requires_grad)


def empty(*size, dtype=None, requires_grad=False, device=None):
    return zeros(*size, dtype=dtype, requires_grad=requires_grad)


def full(size, fill_value, *, dtype=None, requires_grad=False, device=None):
    if dtype is None:
        dtype = dtypes.infer(fill_value)
    return _finish(np.full(_check_size(tuple(size)), fill_value, dtype=dtype.np), dtype, requires_grad)


def _like(fn):
    def like(input, *, dtype=None, requires_grad=False, device=None, memory_format=None):
        d = dtype or input._dtype
        return _finish(fn(input._data.shape, d), d, requires_grad)
    return like


ones_like = _like(lambda s, d: np.ones(s, dtype=d.np))
zeros_like = _like(lambda s, d: np.zeros(s, dtype=d.np))
empty_like = zeros_like


def full_like(input, fill_value, *, dtype=None, requires_grad=False, device=None):
    d = dtype or input._dtype
    return _finish(np.full(input._data.shape, fill_value, dtype=d.np), d, requires_grad)


def arange(start, end=None, step=1, *, dtype=None, requires_grad=False, device=None):
    """``torch.arange``: int64 for integer arguments, float32 when any is a float."""
    if end is None:
        start, end = 0, start
    args = [_num(start), _num(end), _num(step)]
    if dtype is None:
        dtype = dtypes.default_float if any(isinstance(a, float) for a in args) else dtypes.int64
    if args[2] == 0:
        raise RuntimeError("step must be nonzero")
    n = int(np.ceil((args[1] - args[0]) / args[2]))
    resources.check_shape((max(n, 0),))
    data = (args[0] + np.arange(max(n, 0), dtype=np.float64) * args[2]).astype(dtype.np)
    return _finish(data, dtype, requires_grad)


def linspace(start, end, steps, *, dtype=None, requires_grad=False, device=None):
    dtype = dtype or dtypes.default_float
    start, end = _num(start), _num(end)
    resources.check_shape((steps,))
    if dtype.np == np.float32 and steps >= 1:
        from ..ops import kernels
        with np.errstate(all="ignore"):
            return _finish(kernels.linspace(start, end, steps), dtype, requires_grad)
    if steps == 1:
        data = np.array([start], dtype=np.float64)
    else:
        step = (end - start) / (steps - 1)
        idx = np.arange(steps, dtype=np.float64)
        half = steps // 2
        # PyTorch fills the first half from start and the second half from end
        data = np.where(idx < half, start + step * idx, end - step * (steps - 1 - idx))
    return _finish(data.astype(dtype.np), dtype, requires_grad)


def eye(n, m=None, *, dtype=None, requires_grad=False, device=None):
    dtype = dtype or dtypes.default_float
    resources.check_shape((n, m if m is not None else n))
    return _finish(np.eye(n, m if m is not None else n, dtype=dtype.np), dtype, requires_grad)


def _num(v):
    return v.item() if isinstance(v, Tensor) else v


# -- random ----------------------------------------------------------------------------


def _gen(generator=None):
    from .. import random
    return generator or random.default_generator


def manual_seed(seed):
    from .. import random
    random.manual_seed(int(seed))
    return random.default_generator


def initial_seed():
    return _gen().initial_seed()


def rand(*size, dtype=None, requires_grad=False, generator=None, device=None):
    """``torch.rand``: uniform [0, 1), the same numbers as PyTorch's CPU generator."""
    dtype = dtype or dtypes.default_float
    return _finish(_gen(generator).rand(_check_size(_size_arg(size)), dtype.name), dtype, requires_grad)


def randn(*size, dtype=None, requires_grad=False, generator=None, device=None):
    """``torch.randn``: standard normal, the same numbers as PyTorch's CPU generator."""
    dtype = dtype or dtypes.default_float
    return _finish(_gen(generator).randn(_check_size(_size_arg(size)), dtype.name), dtype, requires_grad)


def randint(low, high=None, size=None, *, dtype=None, generator=None, requires_grad=False, device=None):
    if size is None:
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    dtype = dtype or dtypes.int64
    return _finish(_gen(generator).randint(low, high, tuple(size)).astype(dtype.np), dtype, requires_grad)


def randperm(n, *, dtype=None, generator=None, device=None):
    return Tensor._make(_gen(generator).randperm(n).astype(np.int64))


def rand_like(input, *, dtype=None, requires_grad=False):
    return rand(*input._data.shape, dtype=dtype or input._dtype, requires_grad=requires_grad)


def randn_like(input, *, dtype=None, requires_grad=False):
    return randn(*input._data.shape, dtype=dtype or input._dtype, requires_grad=requires_grad)
