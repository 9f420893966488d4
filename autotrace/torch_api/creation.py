"""Tensor creation: ``torch.tensor``, ``ones``/``zeros``/``full``/``arange``/``linspace``/
``eye``, the ``*_like`` forms, and the random ones (PyTorch's CPU generator)."""

from __future__ import annotations

import numpy as np

from .. import device as _device, dtypes, resources
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
        if any(isinstance(d, Tensor) or hasattr(d, "_array") for d in data):
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
    if getattr(type(data), "_np_type", None) is not None:   # a numpy scalar (np.bool_ is no bool)
        return np.array(data._np(), dtype=dtype.np)
    raise TypeError(f"Could not infer dtype of {type(data).__name__}")


def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """``torch.tensor(data)``: a new leaf tensor; floats give float32, ints int64, bools
    bool, unless ``dtype`` is given. ``requires_grad=True`` on an integer dtype raises
    PyTorch's RuntimeError."""
    _device.check(device)
    given = dtype
    if isinstance(data, (list, tuple)) and data and hasattr(data[0], "_array"):
        from .. import diagnostics
        diagnostics.warn_once(
            "Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider converting the list "
            "to a single numpy.ndarray with numpy.array() before converting to a tensor.")
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
            elif (not isinstance(v, (bool, int, float, Tensor)) and not hasattr(v, "_array")
                  and getattr(type(v), "_np_type", None) is None):
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
    """``torch.as_tensor``: ``data`` itself when it is a tensor of ``dtype``, a tensor
    sharing a numpy array's memory when the dtype matches, else a copy as ``tensor()``."""
    if isinstance(data, Tensor) and (dtype is None or dtype is data._dtype):
        return data
    from ..numpy_api.ndarray import NDArray
    if type(data) is NDArray and (dtype is None or dtype.np == data._array.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype)


def from_numpy(ndarray):
    """``torch.from_numpy``: a tensor over the array's own memory (in-place changes on
    either side show on the other), of the array's dtype. TypeError for anything but an
    array, ValueError for negative strides, as torch."""
    from ..numpy_api.ndarray import NDArray
    if type(ndarray) is not NDArray:
        raise TypeError(f"expected np.ndarray (got {_np_type_name(ndarray)})")
    a = ndarray._array
    if any(s < 0 for s in a.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with negative "
                         "strides are not currently supported. (You can probably work around this by making a "
                         "copy of your array  with array.copy().) ")
    try:
        dt = dtypes.from_numpy(a.dtype)
    except TypeError:
        raise TypeError(f"can't convert np.ndarray of type numpy.{a.dtype}. The only supported types are: "
                        "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, "
                        "uint32, uint16, uint8, and bool.") from None
    return Tensor._make(a, dt)


def _np_type_name(x) -> str:
    from ..numpy_api.values import _NpScalar
    if isinstance(x, _NpScalar):
        return f"numpy.{x._np_type.__name__}"
    return type(x).__name__


def _size_arg(size, kw_size=None):
    """``f(2, 3)``, ``f((2, 3))``, ``f([2, 3])``, ``f(torch.Size(...))`` or ``f(size=(2, 3))``."""
    if kw_size is not None:
        if size:
            raise TypeError("argument 'size' given by name and position")
        size = (kw_size,)
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    out = []
    for i, s in enumerate(size):
        if isinstance(s, Tensor) and s._data.size == 1 and s._dtype.category != dtypes.FLOAT:
            s = int(s._data.reshape(()))
        if isinstance(s, bool) or not isinstance(s, int):
            raise TypeError(f"argument 'size' failed to unpack the object at pos {i + 1} with error "
                            f"\"type must be tuple of ints,but got {type(s).__name__}\"")
        out.append(s)
    return tuple(out)


def _check_size(shape, itemsize=8):
    """``shape`` after torch's negative-size check and the size and memory limits
    (``itemsize`` bytes an element, counting what the creation allocates on the way)."""
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: [{', '.join(map(str, shape))}]")
    resources.check_shape(shape, itemsize)
    return shape


def _factory(fill, doc):
    def factory(*size, dtype=None, requires_grad=False, device=None, layout=None, pin_memory=False,
                memory_format=None, **kw):
        _device.check(device)
        dtype = dtype or dtypes.default_float
        shape = _check_size(_size_arg(size, kw.pop("size", None)), dtype.np.itemsize)
        if kw:
            raise TypeError(f"{factory.__name__}() got an unexpected keyword argument '{next(iter(kw))}'")
        return _finish(np.full(shape, fill, dtype=dtype.np), dtype, requires_grad)
    factory.__doc__ = doc
    return factory


ones = _factory(1, "``torch.ones(*size)`` (float32 by default; ``size=``, ``device='cpu'``, ``out=`` accepted).")
ones.__name__ = "ones"
zeros = _factory(0, "``torch.zeros(*size)`` (float32 by default).")
zeros.__name__ = "zeros"
empty = _factory(0, "``torch.empty(*size)``: torch leaves the memory uninitialised; zeros here.")
empty.__name__ = "empty"


def full(size, fill_value, *, dtype=None, requires_grad=False, device=None, layout=None, pin_memory=False):
    """``torch.full(size, fill_value)``: dtype inferred from the value (float32, int64, bool)."""
    _device.check(device)
    value = _num(fill_value)
    if isinstance(value, dtypes.NumberLike):
        value = value.torch_number()
    elif getattr(type(value), "_np_type", None) is not None:
        value = value.item()      # a numpy scalar fills as the Python number it holds (np.float64 -> float32)
    if dtype is None:
        dtype = dtypes.infer(value)
    return _finish(np.full(_check_size(_size_arg((size,)), dtype.np.itemsize), value, dtype=dtype.np),
                   dtype, requires_grad)


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
    _device.check(device)
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
    _device.check(device)
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
    _device.check(device)
    dtype = dtype or dtypes.default_float
    resources.check_shape((n, m if m is not None else n))
    return _finish(np.eye(n, m if m is not None else n, dtype=dtype.np), dtype, requires_grad)


def _num(v):
    return v.item() if isinstance(v, Tensor) else v


# -- random ----------------------------------------------------------------------------


def _gen(generator=None):
    from .. import random
    if generator is not None and not isinstance(generator, random.Generator):
        raise TypeError(f"expected a torch.Generator as generator, got {type(generator).__name__}")
    return generator or random.default_generator


def manual_seed(seed):
    """``torch.manual_seed(seed)``: reseeds and returns the default generator."""
    from .. import random
    random.manual_seed(int(seed))
    return random.default_generator


def initial_seed():
    return _gen().initial_seed()


def seed():
    return _gen().seed()


def _sampler(name, sample, doc):
    def f(*size, dtype=None, requires_grad=False, generator=None, device=None, layout=None, pin_memory=False, **kw):
        _device.check(device)
        dtype = dtype or dtypes.default_float
        shape = _check_size(_size_arg(size, kw.pop("size", None)), dtype.np.itemsize)
        if kw:
            raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(kw))}'")
        if dtype.category != dtypes.FLOAT:
            raise RuntimeError(f"\"{'check_uniform_bounds' if name == 'rand' else 'normal_kernel_cpu'}\" not "
                               f"implemented for '{dtype.legacy[:-6]}'")
        return _finish(sample(_gen(generator), shape, dtype.name), dtype, requires_grad)
    f.__name__ = name
    f.__doc__ = doc
    return f


rand = _sampler("rand", lambda g, s, d: g.rand(s, d),
                "``torch.rand``: uniform [0, 1), the same numbers as PyTorch's CPU generator.")
randn = _sampler("randn", lambda g, s, d: g.randn(s, d),
                 "``torch.randn``: standard normal, the same numbers as PyTorch's CPU generator.")


def randint(*args, size=None, dtype=None, generator=None, requires_grad=False, device=None, layout=None,
            pin_memory=False, low=None, high=None):
    """``torch.randint(high, size)`` / ``randint(low, high, size)`` (int64 unless ``dtype``)."""
    _device.check(device)
    args = list(args)
    if size is None and args and isinstance(args[-1], (tuple, list)):
        size = args.pop()
    if high is not None:
        args.append(high)
    if low is not None:
        args.insert(0, low)
    if size is None or len(args) not in (1, 2):
        raise TypeError("randint() received an invalid combination of arguments")
    lo, hi = (0, _num(args[0])) if len(args) == 1 else (_num(args[0]), _num(args[1]))
    dtype = dtype or dtypes.int64
    shape = _check_size(_size_arg((size,)))
    data = _gen(generator).randint(lo, hi, shape).astype(dtype.np)
    return _finish(data, dtype, requires_grad)


def randperm(n, *, dtype=None, generator=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    """``torch.randperm(n)``: torch's CPU Fisher-Yates shuffle, int64 unless ``dtype``."""
    _device.check(device)
    dtype = dtype or dtypes.int64
    return _finish(_gen(generator).randperm(_num(n)).astype(dtype.np), dtype, requires_grad)


def rand_like(input, *, dtype=None, requires_grad=False, device=None, memory_format=None, layout=None):
    return rand(*input._data.shape, dtype=dtype or input._dtype, requires_grad=requires_grad, device=device)


def randn_like(input, *, dtype=None, requires_grad=False, device=None, memory_format=None, layout=None):
    return randn(*input._data.shape, dtype=dtype or input._dtype, requires_grad=requires_grad, device=device)


def randint_like(input, low=0, high=None, *, dtype=None, requires_grad=False, device=None, memory_format=None):
    if high is None:
        low, high = 0, low
    return randint(low, high, input._data.shape, dtype=dtype or input._dtype, requires_grad=requires_grad)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, requires_grad=False, device=None,
           layout=None, pin_memory=False):
    """``torch.normal``: ``(mean, std, size)`` with floats, or elementwise with tensor
    ``mean`` and/or ``std`` (shape of the broadcast; ``normal_(0, 1)`` scaled by ``std``
    and shifted by ``mean`` as torch's CPU kernel does, so the same numbers)."""
    _device.check(device)
    g = _gen(generator)
    mt, st = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mt and not st:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got (float, float, ), but "
                            "expected one of:\n * (Tensor mean, Tensor std, *, torch.Generator generator = None, "
                            "Tensor out = None)\n * (Tensor mean, float std = 1, *, torch.Generator generator = None, "
                            "Tensor out = None)\n * (float mean, Tensor std, *, torch.Generator generator = None, "
                            "Tensor out = None)\n * (float mean, float std, tuple of ints size, *, torch.Generator "
                            "generator = None, Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, "
                            "torch.device device = None, bool pin_memory = False, bool requires_grad = False)\n")
        dtype = dtype or dtypes.default_float
        shape = _check_size(_size_arg((size,)))
        return _finish(g.normal_(shape, float(mean), float(std), _sample_name(dtype)).astype(dtype.np), dtype,
                       requires_grad)
    if st and std._data.size and float(std._data.min()) < 0:
        raise RuntimeError(f"normal expects all elements of std >= 0.0")
    if not st and float(std) < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    ref = mean if mt else std
    shape = np.broadcast_shapes(*(t._data.shape for t in (mean, std) if isinstance(t, Tensor)))
    d = ref._dtype if not (mt and st) else dtypes.result_type([mean, std])
    z = g.normal_(shape, 0.0, 1.0, _sample_name(d)).astype(d.np)
    sd = std._data if st else d.np.type(std)
    mn = mean._data if mt else d.np.type(mean)
    return Tensor._make((z * sd + mn).astype(d.np), d)


def _sample_name(d):
    return "float64" if d is dtypes.float64 else "float32"


def _tensor_arg(fn, v, name="input", pos=1):
    if not isinstance(v, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not {type(v).__name__}")


def bernoulli(input, p=None, *, generator=None):
    """``torch.bernoulli(probs)``: 0/1 draws with the probabilities in ``input``;
    ``bernoulli(input, p)`` with one probability. Same numbers as torch's CPU kernels."""
    from ..ops.fills import _bernoulli_tensor
    _tensor_arg("bernoulli", input)
    g = _gen(generator)
    if p is not None:
        return Tensor._make(g.bernoulli(float(p), input._data.shape, "float64").astype(input._data.dtype), input._dtype)
    return Tensor._make(_bernoulli_tensor(g, input._data, input._data.dtype), input._dtype)


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """``torch.multinomial``: indices drawn by the rows' weights. Without replacement
    torch draws ``q ~ Exp(1)`` per weight and takes the top ``num_samples`` of
    ``p / q``; with replacement it inverts the cumulative distribution with one uniform
    per sample. int64 result."""
    _tensor_arg("multinomial", input)
    x = input._data
    if x.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if input._dtype.category != dtypes.FLOAT:
        raise RuntimeError("multinomial only supports floating-point dtypes for input, got: "
                           f"{input._dtype.legacy[:-6]}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n_cat = x.shape[-1]
    if not replacement and num_samples > n_cat:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if np.any(x < 0) or not np.all(np.isfinite(x)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    rows = x.reshape(-1, n_cat)
    if np.any(rows.sum(-1) == 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    g = _gen(generator)
    if not replacement:
        u = g._uniform01(rows.size, np.dtype(np.float64))
        q = (-np.log1p(-u)).astype(x.dtype).reshape(rows.shape)
        with np.errstate(divide="ignore"):
            key = rows / q
        resources.check_sort(key.size, along=key.shape[-1])
        out = np.argsort(-key, axis=-1, kind="stable")[:, :num_samples]
    else:
        out = np.empty((rows.shape[0], num_samples), dtype=np.int64)
        for r in range(rows.shape[0]):
            cum = np.cumsum(rows[r].astype(np.float64))
            cum = cum / cum[-1]
            u = g._uniform01(num_samples, np.dtype(np.float64))
            out[r] = np.minimum(np.searchsorted(cum, u, side="right"), n_cat - 1)
    return Tensor._make(out.reshape(x.shape[:-1] + (num_samples,)).astype(np.int64))


class _GeneratorType(type):
    """``torch.Generator(device='cpu')``: a new CPU generator, seeded with torch's default
    seed 67280421310721 (call ``manual_seed`` to choose one)."""

    def __call__(cls, device="cpu"):
        from .. import random
        d = _device.device(device)
        if d.type != "cpu":
            raise RuntimeError("Cannot get CUDA generator without ATen_cuda library. PyTorch splits its backend into "
                               "two shared libraries: a CPU library and a CUDA library; this error has occurred "
                               "because you are trying to use some CUDA functionality, but the CUDA library has not "
                               "been loaded by the dynamic linker for some reason.  The CUDA library MUST be loaded, "
                               "EVEN IF you don't directly use any symbols from the CUDA library! One common culprit "
                               "is a lack of -Wl,--no-as-needed in your link arguments; many dynamic linkers will "
                               "delete dynamic library dependencies if you don't depend on any of their symbols.  You "
                               "can check if this has occurred by using ldd on your binary to see if there is a "
                               "dependency on *_cuda.so library.")
        return random.Generator(random.DEFAULT_RNG_SEED)

    def __instancecheck__(cls, obj):
        from .. import random
        return isinstance(obj, random.Generator)

    def __repr__(cls):
        return "<class 'torch._C.Generator'>"


class Generator(metaclass=_GeneratorType):
    __slots__ = ()
    _script_class_attrs = frozenset()


def get_rng_state():
    """``torch.get_rng_state()``: the default generator's state, a uint8 tensor of 5056 bytes."""
    return Tensor._make(_gen().get_state())


def set_rng_state(new_state):
    _gen().set_state(new_state._data)


def set_default_dtype(d):
    """``torch.set_default_dtype(torch.float64)``: the dtype of float data, factories and
    ``torch.Tensor`` (float32 or float64 only, as torch)."""
    if not isinstance(d, dtypes.DType):
        raise TypeError(f"set_default_dtype(): argument 'd' (position 1) must be torch.dtype, not {type(d).__name__}")
    if d not in (dtypes.float32, dtypes.float64):
        raise TypeError("only floating-point types are supported as the default type")
    dtypes.default_float = d


SET_DEFAULT_TENSOR_TYPE = ("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                           "torch.set_default_dtype() and torch.set_default_device() as alternatives.")


def set_default_tensor_type(t):
    """Deprecated ``torch.set_default_tensor_type(torch.DoubleTensor)``: warns, then sets
    the default dtype ('torch.cuda.*' types raise)."""
    from . import legacy
    from .. import diagnostics
    diagnostics.warn(SET_DEFAULT_TENSOR_TYPE)
    if isinstance(t, str):
        d = next((x for x in dtypes.ALL if t == f"torch.{x.legacy}"), None)
        if d is None:
            raise TypeError(f"invalid type: '{t}'")
    else:
        d = legacy.legacy_dtype(t)
    set_default_dtype(d)


def members() -> dict:
    """The ``torch.*`` names this module and the legacy constructors provide; every
    function is wrapped to accept ``out=`` (:func:`autotrace.ops.convert.with_out`)."""
    from .. import anomaly, device as dev, grad_mode
    from ..ops.convert import with_out
    from ..ops import linalg_norm
    from ..ops.matrix import linalg_cross
    from . import legacy
    from .namespace import Namespace

    fns = {
        "tensor": tensor, "as_tensor": as_tensor, "from_numpy": from_numpy,
        "ones": ones, "zeros": zeros, "empty": empty, "full": full,
        "ones_like": ones_like, "zeros_like": zeros_like, "empty_like": empty_like, "full_like": full_like,
        "arange": arange, "linspace": linspace, "eye": eye, "rand": rand, "randn": randn, "randint": randint,
        "randperm": randperm, "rand_like": rand_like, "randn_like": randn_like, "randint_like": randint_like,
        "normal": normal, "bernoulli": bernoulli, "multinomial": multinomial,
    }
    out = {n: with_out(n, f) for n, f in fns.items()}
    out.update({
        "manual_seed": manual_seed, "initial_seed": initial_seed, "seed": seed,
        "get_rng_state": get_rng_state, "set_rng_state": set_rng_state, "Generator": Generator,
        "device": dev.device, "cuda": Namespace("torch.cuda", dev.cuda_members()),
        "linalg": Namespace("torch.linalg", {"cross": linalg_cross, "vector_norm": linalg_norm.vector_norm,
                                             "matrix_norm": linalg_norm.matrix_norm, "norm": linalg_norm.linalg_norm}),
        "is_inference_mode_enabled": grad_mode.is_inference_mode_enabled,
        "set_default_dtype": set_default_dtype, "set_default_tensor_type": set_default_tensor_type,
        "is_anomaly_enabled": anomaly.is_anomaly_enabled,
        "is_anomaly_check_nan_enabled": anomaly.is_anomaly_check_nan_enabled,
    })
    out.update(legacy.TYPED)
    return out
