"""The ``torch``-shaped namespace scripts see.

:func:`modules` returns the importable namespaces (``torch``, ``torch.nn``,
``torch.nn.functional``, ``torch.autograd``, ``torch.optim``, ``torch.nn.utils``,
``math``), built once from the op table (:mod:`autotrace.ops`) and the modules here.
"""

from __future__ import annotations

import math as _math

_cache = None

# Arguments that must be tensors in PyTorch's signatures (``other`` is often a Number,
# so it is left to the ops); functions that take a Number in these places are exempt.
_TENSOR_PARAMS = frozenset({"input", "target", "mat1", "mat2", "vec", "tensor", "batch1", "batch2"})
_NUMBER_OK = frozenset({"pow", "float_power", "where", "result_type", "add", "sub",
                        "subtract", "mul", "multiply", "div", "divide", "true_divide", "remainder",
                        "floor_divide"})


# torch.nn.functional functions written in Python in torch 2.13 fail on a non-tensor the
# way their first use of it does: ``input.softmax(dim)`` (an AttributeError), the loss
# functions' ``target.size()``; others reach a C++ op under another name.
_F_ATTR = {"softmax": "softmax", "log_softmax": "log_softmax", "sigmoid": "sigmoid", "tanh": "tanh"}
_F_SIZE = frozenset({"mse_loss", "l1_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits"})
_F_CPP_NAME = {"cross_entropy": "cross_entropy_loss", "nll_loss": "nll_loss_nd"}
_F_PARAM_NAME = {("one_hot", "tensor"): "input"}


#: functions whose ``other`` must be a tensor too
_TENSOR_OTHER = frozenset({"allclose", "isclose", "equal"})
#: tensor arguments that may also be None (``weight=None``)
_OPTIONAL_TENSOR_PARAMS = frozenset({"weight", "bias", "pos_weight"})


def _checked(name, fn, functional=False):
    """``fn`` with PyTorch's TypeError when a tensor argument is given something else
    (``relu(): argument 'input' (position 1) must be Tensor, not int``) or ``dtype`` is
    not a dtype (``zeros(): argument 'dtype' must be torch.dtype, not str``) instead of
    an AttributeError deep in the engine."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return fn
    names = code.co_varnames[:code.co_argcount]
    every = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    tensor_params = _TENSOR_PARAMS | {"other"} if name in _TENSOR_OTHER else _TENSOR_PARAMS
    checks = () if name in _NUMBER_OK else tuple((i, n) for i, n in enumerate(names) if n in tensor_params)
    optional = tuple((i if i < len(names) else None, n) for i, n in enumerate(every) if n in _OPTIONAL_TENSOR_PARAMS)
    dtype_at = every.index("dtype") if "dtype" in every else None
    if dtype_at is not None and dtype_at >= len(names):
        dtype_at = -1          # keyword-only
    if not checks and not optional and dtype_at is None:
        return fn
    from ..dtypes import DType
    from ..tensor import Tensor

    if functional and name in _F_SIZE:  # target.size() is the first use, then input.size()
        checks = tuple(sorted(checks, key=lambda c: c[1] != "target"))
    cpp = _F_CPP_NAME.get(name, name) if functional else name

    def checked(*args, **kwargs):
        for i, n in checks:
            v = args[i] if i < len(args) else kwargs.get(n, Tensor)
            if not isinstance(v, Tensor) and v is not Tensor:
                if functional:
                    _functional_error(name, i, n, v)
                raise TypeError(f"{name}(): argument '{n}' (position {i + 1}) must be Tensor, "
                                f"not {type(v).__name__}")
        for i, n in optional:
            v = args[i] if i is not None and i < len(args) else kwargs.get(n)
            if v is not None and not isinstance(v, Tensor):
                where = f" (position {i + 1})" if i is not None else ""
                raise TypeError(f"{cpp}(): argument '{n}'{where} must be Tensor, not {type(v).__name__}")
        if dtype_at is not None:
            v = args[dtype_at] if 0 <= dtype_at < len(args) else kwargs.get("dtype")
            if v is not None and not isinstance(v, DType):
                raise TypeError(f"{cpp}(): argument 'dtype' must be torch.dtype, not {type(v).__name__}")
        return fn(*args, **kwargs)

    checked.__name__ = getattr(fn, "__name__", name)
    checked.__doc__ = fn.__doc__
    checked.__wrapped__ = fn
    return checked


def _functional_error(name, i, n, v):
    """Raise what torch.nn.functional.``name`` raises for the non-tensor ``v``."""
    from ..interpreter.errors import script_visible
    if name in _F_ATTR and n == "input":
        raise script_visible(AttributeError(f"'{type(v).__name__}' object has no attribute '{_F_ATTR[name]}'"))
    if name in _F_SIZE:
        raise script_visible(AttributeError(f"'{type(v).__name__}' object has no attribute 'size'"))
    cpp = _F_CPP_NAME.get(name, name)
    n = _F_PARAM_NAME.get((name, n), n)
    raise TypeError(f"{cpp}(): argument '{n}' (position {i + 1}) must be Tensor, not {type(v).__name__}")


def modules() -> dict:
    """Importable name → :class:`~autotrace.torch_api.namespace.Namespace`."""
    global _cache
    if _cache is not None:
        return _cache
    import numpy as np

    from .. import dtypes, engine, grad_mode, ops, printing
    from ..tensor import Tensor, Size
    from . import creation, nn as nn_mod
    from .namespace import Namespace

    ops.load()

    def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return bool(np.allclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))

    def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
        return Tensor._make(np.isclose(input._data, other._data, rtol=rtol, atol=atol, equal_nan=equal_nan))

    def equal(input, other):
        return bool(input._data.shape == other._data.shape and np.array_equal(input._data, other._data))

    def is_tensor(obj):
        return isinstance(obj, Tensor)

    def numel(input):
        return input.numel()

    def get_default_dtype():
        return dtypes.default_float

    torch_members = {n: _checked(n, f) for n, f in ops.TORCH.items()}
    torch_members.update({
        "tensor": creation.tensor, "as_tensor": creation.as_tensor, "from_numpy": creation.as_tensor,
        "ones": creation.ones, "zeros": creation.zeros, "empty": creation.empty, "full": creation.full,
        "ones_like": creation.ones_like, "zeros_like": creation.zeros_like, "empty_like": creation.empty_like,
        "full_like": creation.full_like, "arange": creation.arange, "linspace": creation.linspace,
        "eye": creation.eye, "rand": creation.rand, "randn": creation.randn, "randint": creation.randint,
        "randperm": creation.randperm, "rand_like": creation.rand_like, "randn_like": creation.randn_like,
        "manual_seed": creation.manual_seed, "initial_seed": creation.initial_seed, "seed": creation.initial_seed,
        "no_grad": grad_mode.no_grad, "enable_grad": grad_mode.enable_grad,
        "set_grad_enabled": grad_mode.set_grad_enabled, "is_grad_enabled": grad_mode.is_grad_enabled,
        "inference_mode": grad_mode.inference_mode,
        "allclose": allclose, "isclose": isclose, "equal": equal, "is_tensor": is_tensor, "numel": numel,
        "set_printoptions": printing.set_printoptions, "get_default_dtype": get_default_dtype,
        "Tensor": Tensor, "Size": Size, "pi": _math.pi, "inf": _math.inf, "nan": _math.nan, "e": _math.e,
    })
    for n in ("tensor", "as_tensor", "ones", "zeros", "empty", "full", "ones_like", "zeros_like", "empty_like",
              "full_like", "arange", "linspace", "eye", "rand", "randn", "randint", "randperm", "rand_like",
              "randn_like", "allclose", "isclose", "equal"):
        if n in torch_members:
            torch_members[n] = _checked(n, torch_members[n])
    for alias, d in dtypes.ALIASES.items():
        torch_members[alias] = d

    functional = Namespace("torch.nn.functional", {n: _checked(n, f, functional=True) for n, f in ops.FUNCTIONAL.items()})
    utils = Namespace("torch.nn.utils", {
        "clip_grad_norm_": nn_mod.clip_grad_norm_, "clip_grad_value_": nn_mod.clip_grad_value_,
    })
    nn_members = {"Module": nn_mod.Module, "Parameter": nn_mod.make_parameter, "Linear": nn_mod.Linear,
                  "functional": functional, "utils": utils}
    try:
        from . import layers
        nn_members.update(layers.MEMBERS)
    except ImportError:
        pass
    nn = Namespace("torch.nn", nn_members)

    autograd_functional_members = {}
    try:
        from . import autograd_functional
        autograd_functional_members = autograd_functional.MEMBERS
    except ImportError:
        pass
    autograd_functional_ns = Namespace("torch.autograd.functional", autograd_functional_members)
    autograd = Namespace("torch.autograd", {
        "grad": engine.grad, "backward": engine.backward, "functional": autograd_functional_ns,
        "no_grad": grad_mode.no_grad, "enable_grad": grad_mode.enable_grad,
        "set_grad_enabled": grad_mode.set_grad_enabled,
    })
    optim_members = {}
    try:
        from . import optim as optim_mod
        optim_members = optim_mod.MEMBERS
    except ImportError:
        pass
    optim = Namespace("torch.optim", optim_members)

    torch_members.update({"nn": nn, "autograd": autograd, "optim": optim})
    torch = Namespace("torch", torch_members)

    from ..interpreter import make_math_module

    math = make_math_module()  # size-checked factorial/comb/prod/fsum: no hang in C code

    _cache = {
        "torch": torch, "torch.nn": nn, "torch.nn.functional": functional, "torch.nn.utils": utils,
        "torch.autograd": autograd, "torch.autograd.functional": autograd_functional_ns,
        "torch.optim": optim, "math": math,
    }
    return _cache
