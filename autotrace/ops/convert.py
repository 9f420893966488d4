"""Conversion and construction methods of Tensor: ``.to(device / dtype / other)``,
``.type(...)``, ``.cuda()`` (torch 2.13 CPU-only errors), ``is_cuda``/``is_cpu``/
``get_device()``, ``new_tensor``/``new_zeros``/``new_ones``/``new_full``/``new_empty``,
and the ``out=`` keyword of ``torch.*`` functions.
"""

from __future__ import annotations

import numpy as np

from .. import device as _dev, diagnostics, dtypes, grad_mode
from ..tensor import Tensor, wrap_dim
from . import _type_word, export
from .shape import TO_COPY, clone, make

_TO_SIGNATURES = (
    " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n")


def _tname(v) -> str:
    if isinstance(v, Tensor):
        return "Tensor"
    if isinstance(v, dtypes.DType):
        return "torch.dtype"
    if isinstance(v, _dev.Device):
        return "torch.device"
    return type(v).__name__


def _to_error(args, kwargs):
    got = ", ".join([_tname(a) for a in args] + [f"{k}={_tname(v)}" for k, v in kwargs.items()])
    if not args:
        got += ", "
    return TypeError(f"to() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     + _TO_SIGNATURES)


@export(tensor=("to",))
def to(input, *args, **kwargs):
    """``x.to(dtype)``, ``x.to(device, dtype)``, ``x.to(other)``, with ``non_blocking``,
    ``copy`` and ``memory_format``: ToCopyBackward0 when the dtype changes, the same tensor
    when nothing does (a CloneBackward0 copy with ``copy=True``). The only device is the
    CPU: ``'cuda'`` raises ``AssertionError: Torch not compiled with CUDA enabled``."""
    dtype = kwargs.pop("dtype", None)
    dev = kwargs.pop("device", None)
    copy = kwargs.pop("copy", False)
    kwargs.pop("non_blocking", None)
    kwargs.pop("memory_format", None)
    if kwargs:
        raise _to_error(args, kwargs)
    rest = list(args)
    if rest:
        a = rest[0]
        if isinstance(a, dtypes.DType):
            dtype = rest.pop(0)
        elif isinstance(a, Tensor):
            dtype = rest.pop(0)._dtype
        elif isinstance(a, (str, _dev.Device)) or (isinstance(a, int) and not isinstance(a, bool)):
            dev = rest.pop(0)
            if rest and isinstance(rest[0], dtypes.DType):
                dtype = rest.pop(0)
            elif rest and not isinstance(rest[0], bool):
                raise _to_error(args, {})
        elif a is None:
            rest.pop(0)
        else:
            raise _to_error(args, {})
    if rest:  # non_blocking, copy
        if len(rest) > 2 or not all(isinstance(r, bool) for r in rest):
            raise _to_error(args, {})
        if len(rest) == 2:
            copy = rest[1]
    _dev.check(dev)
    if dtype is None or dtype is input._dtype:
        return clone(input) if copy else input
    out = input._data.astype(dtype.np)
    return make(TO_COPY, out, (input,), attrs={"self_dtype": input._dtype}, dtype=dtype)


_NO_CUDA_LIB = (
    "Cannot initialize CUDA without ATen_cuda library. PyTorch splits its backend into two shared libraries: a CPU "
    "library and a CUDA library; this error has occurred because you are trying to use some CUDA functionality, but "
    "the CUDA library has not been loaded by the dynamic linker for some reason.  The CUDA library MUST be loaded, "
    "EVEN IF you don't directly use any symbols from the CUDA library! One common culprit is a lack of "
    "-Wl,--no-as-needed in your link arguments; many dynamic linkers will delete dynamic library dependencies if you "
    "don't depend on any of their symbols.  You can check if this has occurred by using ldd on your binary to see if "
    "there is a dependency on *_cuda.so library.")


@export(tensor=("type",), name="tensor_type")
def type_(input, dtype=None, non_blocking=False, **kwargs):
    """``x.type()``: the legacy type name (``'torch.FloatTensor'``); ``x.type(t)`` with a
    dtype, a typed class (``torch.LongTensor``) or its name converts (the same tensor when
    the type does not change). ``'torch.cuda.*'`` raises torch's CUDA-library error,
    other strings ``ValueError: invalid type``."""
    from ..torch_api.legacy import legacy_dtype
    if dtype is None:
        return f"torch.{input._dtype.legacy}"
    if isinstance(dtype, str):
        if dtype.startswith("torch.cuda."):
            raise RuntimeError(_NO_CUDA_LIB)
        d = next((x for x in dtypes.ALL if dtype == f"torch.{x.legacy}"), None)
        if d is None:
            raise ValueError(f"invalid type: '{dtype}'")
    else:
        d = legacy_dtype(dtype)
        if d is None:
            raise TypeError(f"type() received an invalid combination of arguments - got ({_tname(dtype)}), "
                            "but expected one of:\n * (torch.dtype dtype = None, bool non_blocking = False, *, "
                            "torch.memory_format memory_format = None)\n"
                            " * (str dtype = None, bool non_blocking = False, *, torch.memory_format memory_format = None)\n")
    return to(input, d)


@export(tensor=("cuda",))
def cuda(input, device=None, non_blocking=False, memory_format=None):
    """``x.cuda()``: a CPU-only torch 2.13 raises ``AssertionError: Torch not compiled with
    CUDA enabled`` (``x.cuda(0)``: no accelerator device)."""
    if isinstance(device, int) and not isinstance(device, bool):
        raise RuntimeError(_dev.NO_ACCELERATOR)
    raise AssertionError(_dev.NO_CUDA)


export(tensor=("is_cuda",), name="is_cuda")(property(lambda self: False, doc="False: only the CPU exists."))
export(tensor=("is_cpu",), name="is_cpu")(property(lambda self: True, doc="True: only the CPU exists."))


@export(tensor=("get_device",))
def get_device(input):
    """-1 (a CPU tensor)."""
    return -1


# -- new_* ---------------------------------------------------------------------------------


NEW_TENSOR_COPY = ("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() or "
                   "sourceTensor.detach().clone().requires_grad_(True), rather than tensor.new_tensor(sourceTensor).")


@export(tensor=("new_tensor",))
def new_tensor(input, data, *, dtype=None, device=None, requires_grad=False, **kwargs):
    """A new leaf with ``data`` in ``input``'s dtype (unless ``dtype``); warns as torch when
    ``data`` is a tensor."""
    from ..torch_api import creation
    _dev.check(device)
    if isinstance(data, Tensor):
        diagnostics.warn(NEW_TENSOR_COPY)
    return creation.tensor(data, dtype=dtype or input._dtype, requires_grad=requires_grad)


def _new_filled(fill):
    def new(input, *size, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
        from ..torch_api import creation
        _dev.check(device)
        d = dtype or input._dtype
        shape = creation._check_size(creation._size_arg(size))
        return creation._finish(np.full(shape, fill, dtype=d.np), d, requires_grad)
    return new


export(tensor=("new_zeros",), name="new_zeros")(_new_filled(0))
export(tensor=("new_ones",), name="new_ones")(_new_filled(1))
export(tensor=("new_empty",), name="new_empty")(_new_filled(0))


@export(tensor=("new_full",))
def new_full(input, size, fill_value, *, dtype=None, device=None, requires_grad=False, layout=None, pin_memory=False):
    from ..torch_api import creation
    _dev.check(device)
    d = dtype or input._dtype
    shape = creation._check_size(creation._size_arg((size,)))
    return creation._finish(np.full(shape, fill_value, dtype=d.np), d, requires_grad)


# -- out= --------------------------------------------------------------------------------

OUT_AUTOGRAD = "{name}(): functions with out=... arguments don't support automatic differentiation, but one of the arguments requires grad."
RESIZED = ("An output with one or more elements was resized since it had shape [{old}], which does not match the "
           "required output shape [{new}]. This behavior is deprecated, and in a future PyTorch release outputs will "
           "not be resized unless they have zero elements. You can explicitly reuse an out tensor t by resizing it, "
           "inplace, to zero elements with t.resize_(0).")
FACTORIES = frozenset({"zeros", "ones", "full", "arange", "linspace", "eye", "rand", "randint", "randperm", "tensor",
                       "normal", "bernoulli", "multinomial", "randn", "empty"})
_RESIZE_FIRST = frozenset({"randn", "empty"})


def with_out(name, fn):
    """``fn`` accepting ``out=``: the result is written into ``out`` (resized, with
    torch's deprecation warning, when its shape differs; cast when its dtype is wider)
    and ``out`` is returned. Under grad mode with an argument or ``out`` requiring grad it
    raises torch's ``functions with out=... arguments don't support automatic
    differentiation`` RuntimeError."""

    def call(*args, **kwargs):
        if "out" not in kwargs:
            return fn(*args, **kwargs)
        out = kwargs.pop("out")
        if out is None:
            return fn(*args, **kwargs)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        for o in outs:
            if not isinstance(o, Tensor):
                raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(o).__name__}")
        if grad_mode.enabled:
            inputs = [a for a in args if isinstance(a, Tensor)] + [v for v in kwargs.values() if isinstance(v, Tensor)]
            for a in args:
                if isinstance(a, (list, tuple)):
                    inputs.extend(x for x in a if isinstance(x, Tensor))
            if any(t._requires_grad for t in list(outs) + inputs):
                if name in _RESIZE_FIRST:
                    raise RuntimeError("cannot resize variables that require grad")
                prefix = "aten::" if name in FACTORIES else ""
                raise RuntimeError(OUT_AUTOGRAD.format(name=prefix + name))
        if name in FACTORIES and "dtype" not in kwargs and len(outs) == 1 and name not in ("arange", "randperm", "tensor"):
            kwargs["dtype"] = outs[0]._dtype
        prev = grad_mode.enabled
        grad_mode.enabled = False
        try:
            res = fn(*args, **kwargs)
        finally:
            grad_mode.enabled = prev
        ress = res if isinstance(res, (tuple, list)) else (res,)
        for o, r in zip(outs, ress):
            _write_out(o, r)
        return out
    call.__name__ = getattr(fn, "__name__", name)
    call.__doc__ = fn.__doc__
    call.__wrapped__ = fn
    call.__wrapped__ = fn
    return call


def _write_out(o: Tensor, r: Tensor) -> None:
    data = r._data
    if data.dtype != o._data.dtype:
        if o._dtype.category < r._dtype.category:
            raise RuntimeError(f"result type {_type_word(r._dtype)} can't be cast to the desired output type "
                               f"{_type_word(o._dtype)}")
        data = data.astype(o._data.dtype)
    if o._data.shape != data.shape:
        if o._data.size:
            diagnostics.warn(RESIZED.format(old=", ".join(map(str, o._data.shape)),
                                            new=", ".join(map(str, data.shape))))
        o._data = np.array(data, copy=True)
    else:
        np.copyto(o._data, data)
    o._version_counter.value += 1


@export(tensor=("new",), name="tensor_new")
def new(input, *args, **kwargs):
    """The legacy ``x.new(...)``: ``torch.Tensor(...)``'s forms in ``x``'s dtype."""
    from ..torch_api.legacy import legacy_new
    return legacy_new(input._dtype, args, kwargs)


@export(tensor=("type_as",))
def type_as(input, other):
    """``x.to(other.dtype)`` (the same tensor when the dtypes agree)."""
    if not isinstance(other, Tensor):
        raise TypeError(f"type_as(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
    return to(input, other._dtype)


@export(tensor=("stride",))
def stride(input, dim=None):
    """Element strides of ``input``'s layout (tuple, or one int for ``dim``); views,
    transposes and expands share torch's strides (0 along expanded dims)."""
    st = tuple(s // input._data.itemsize for s in input._data.strides)
    if dim is None:
        return st
    if not st:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return st[wrap_dim(dim, len(st))]


@export(tensor=("is_contiguous",))
def is_contiguous(input, memory_format=None):
    """Whether the elements are laid out in row-major order (size-1 dims ignored, as torch)."""
    return bool(input._data.flags.c_contiguous)
