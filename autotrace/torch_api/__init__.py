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


# Library modules imported on first use of one of their names (start-up stays fast);
# tests/test_nn_library.py checks these lists against each module's MEMBERS.
LAZY_NN = {
    "conv_layers": ("Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "MaxPool1d", "MaxPool2d",
                    "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool2d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d"),
    "norm_layers": ("BatchNorm1d", "BatchNorm2d", "LayerNorm", "GroupNorm", "Embedding"),
    "containers": ("ModuleList", "ModuleDict", "ParameterList", "ParameterDict", "Unflatten"),
    "activation_layers": ("SELU", "CELU", "Mish", "Hardswish", "Hardsigmoid", "Softsign", "Tanhshrink",
                          "LogSigmoid"),
    "upsample_layers": ("Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"),
    "rnn": ("RNNCell", "LSTMCell", "GRUCell", "RNN", "LSTM", "GRU"),
    "attention_layers": ("MultiheadAttention",),
    "bag_layers": ("EmbeddingBag",),
    "loss_layers": ("TripletMarginLoss", "HingeEmbeddingLoss", "PoissonNLLLoss", "GaussianNLLLoss",
                    "PairwiseDistance"),
    "padding_layers": tuple(f"{k}Pad{n}d" for k in ("Reflection", "Replication", "Circular", "Zero", "Constant")
                           for n in (1, 2, 3)),
}
LAZY_INIT = ("calculate_gain", "uniform_", "normal_", "constant_", "zeros_", "ones_", "eye_", "dirac_",
             "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "trunc_normal_",
             "orthogonal_", "_calculate_fan_in_and_fan_out")
LAZY_SCHEDULERS = ("LRScheduler", "LambdaLR", "StepLR", "MultiStepLR", "ExponentialLR", "CosineAnnealingLR",
                   "CosineAnnealingWarmRestarts",
                   "OneCycleLR", "ReduceLROnPlateau", "_LRScheduler")
LAZY_DATA = ("Dataset", "TensorDataset", "Subset", "DataLoader", "random_split", "default_collate", "default_convert")


def _lazy(module: str, names) -> dict:
    from importlib import import_module

    from .namespace import Lazy

    def loader(name):
        return Lazy(lambda: import_module(f"{__name__}.{module}").MEMBERS[name])

    return {n: loader(n) for n in names}


#: torch's module of each exposed layer class (for ``<class 'torch.nn.modules.linear.Linear'>``)
_LAYER_FILES = {
    "Linear": "linear", "Identity": "linear", "Bilinear": "linear", "Sequential": "container",
    "ModuleList": "container", "ModuleDict": "container", "ParameterList": "container",
    "Dropout": "dropout", "Dropout1d": "dropout", "Dropout2d": "dropout", "Flatten": "flatten", "Unflatten": "flatten",
    "MSELoss": "loss", "L1Loss": "loss", "CrossEntropyLoss": "loss", "NLLLoss": "loss", "BCELoss": "loss",
    "BCEWithLogitsLoss": "loss", "SmoothL1Loss": "loss", "HuberLoss": "loss", "KLDivLoss": "loss",
    "MarginRankingLoss": "loss", "TripletMarginLoss": "loss", "HingeEmbeddingLoss": "loss",
    "PoissonNLLLoss": "loss", "GaussianNLLLoss": "loss", "PairwiseDistance": "distance", "EmbeddingBag": "sparse", "PReLU": "activation", "CosineSimilarity": "distance",
    "Conv1d": "conv", "Conv2d": "conv", "ConvTranspose2d": "conv", "BatchNorm1d": "batchnorm",
    "BatchNorm2d": "batchnorm", "LayerNorm": "normalization", "GroupNorm": "normalization",
    "Embedding": "sparse", "MaxPool2d": "pooling", "AvgPool2d": "pooling", "AdaptiveAvgPool2d": "pooling",
    "RNNCell": "rnn", "LSTMCell": "rnn", "GRUCell": "rnn", "RNN": "rnn", "LSTM": "rnn", "GRU": "rnn",
    "MultiheadAttention": "activation", **{f"{k}Pad{n}d": "padding" for k in ("Reflection", "Replication", "Circular", "Zero", "Constant")
                                           for n in (1, 2, 3)}, "NonDynamicallyQuantizableLinear": "linear", "Module": "module",
}


def _gradcheck():
    from .gradcheck import gradcheck
    return gradcheck


def _expose(namespaces) -> None:
    """Tell the interpreter which classes scripts may get back from ``type(x)`` and the
    names torch prints for them (``<class 'torch.Tensor'>``)."""
    from ..interpreter import typeobj
    from ..interpreter.ops import SAFE_CTORS
    from ..tensor import Parameter, Size, Tensor
    from .. import dtypes, grad_mode
    from .nn import make_parameter
    from .module import Module
    q = typeobj.QUALIFIED
    from .function import Function
    q.update({Tensor: "torch.Tensor", Parameter: "torch.nn.parameter.Parameter", Size: "torch.Size",
              dtypes.DType: "torch.dtype", Function: "torch.autograd.function.Function"})
    from ..ops.storage import UntypedStorage
    q[UntypedStorage] = "torch.storage.UntypedStorage"
    for c in (grad_mode.no_grad, grad_mode.enable_grad, grad_mode.set_grad_enabled, grad_mode.inference_mode):
        q[c] = f"torch.autograd.grad_mode.{c.__name__}"
    members = []
    for ns in namespaces:
        members += list(object.__getattribute__(ns, "_members").values())
    for v in members:
        _expose_class(v)
    typeobj.EXPOSED.update({Tensor, Parameter, Size, dtypes.DType})
    SAFE_CTORS[Parameter] = make_parameter
    from . import namespace
    namespace.ON_LOAD = _expose_class       # members loaded on first use (layers, init, data)


def _expose_class(v) -> None:
    from ..interpreter import typeobj
    from .module import Module

    if isinstance(v, type):
        typeobj.EXPOSED.add(v)
        if issubclass(v, Module) and v not in typeobj.QUALIFIED:
            f = _LAYER_FILES.get(v.__name__)
            typeobj.QUALIFIED[v] = f"torch.nn.modules.{f}.{v.__name__}" if f else f"torch.nn.{v.__name__}"


def modules() -> dict:
    """Importable name → :class:`~autotrace.torch_api.namespace.Namespace`."""
    global _cache
    if _cache is not None:
        return _cache
    import numpy as np

    from .. import anomaly, dtypes, engine, grad_mode, ops, printing
    from ..tensor import Tensor, Size
    from . import creation, legacy, nn as nn_mod
    from .namespace import Namespace

    ops.load()

    def is_tensor(obj):
        return isinstance(obj, Tensor)

    def numel(input):
        return input.numel()

    def get_default_dtype():
        return dtypes.default_float

    def is_floating_point(input):
        return input.is_floating_point()

    def is_complex(input):
        return input.is_complex()

    def is_nonzero(input):
        n = input.numel()
        if n != 1:
            raise RuntimeError(f"Boolean value of Tensor with {'no values' if n == 0 else 'more than one value'} "
                               "is ambiguous")
        return bool(input.item())

    from ..ops.convert import with_out
    torch_members = {n: with_out(n, _checked(n, f)) for n, f in ops.TORCH.items()}
    torch_members.update({
        "no_grad": grad_mode.no_grad, "enable_grad": grad_mode.enable_grad,
        "set_grad_enabled": grad_mode.set_grad_enabled, "is_grad_enabled": grad_mode.is_grad_enabled,
        "inference_mode": grad_mode.inference_mode,
        "is_tensor": is_tensor, "numel": numel,
        "is_floating_point": _checked("is_floating_point", is_floating_point),
        "is_complex": _checked("is_complex", is_complex), "is_nonzero": _checked("is_nonzero", is_nonzero),
        "set_printoptions": printing.set_printoptions, "get_default_dtype": get_default_dtype,
        "Tensor": Tensor, "Size": Size, "pi": _math.pi, "inf": _math.inf, "nan": _math.nan, "e": _math.e,
    })
    for alias, d in dtypes.ALIASES.items():
        torch_members[alias] = d
    torch_members.update(creation.members())
    for n in ("tensor", "as_tensor", "ones", "zeros", "empty", "full", "ones_like", "zeros_like", "empty_like",
              "full_like", "arange", "linspace", "eye", "rand", "randn", "randint", "randperm", "rand_like",
              "randn_like", "allclose", "isclose", "equal"):
        if n in torch_members:
            f = torch_members[n]
            base = getattr(f, "__wrapped__", None)     # with_out(...) around the function
            torch_members[n] = with_out(n, _checked(n, base)) if base is not None else _checked(n, f)

    functional = Namespace("torch.nn.functional", {n: _checked(n, f, functional=True) for n, f in ops.FUNCTIONAL.items()})
    rnn_utils = Namespace("torch.nn.utils.rnn", _lazy("rnn_utils", (
        "pad_sequence", "PackedSequence", "pack_padded_sequence", "pad_packed_sequence", "pack_sequence",
        "unpad_sequence", "unpack_sequence")))
    utils = Namespace("torch.nn.utils", {
        "clip_grad_norm_": nn_mod.clip_grad_norm_, "clip_grad_value_": nn_mod.clip_grad_value_,
        "parameters_to_vector": nn_mod.parameters_to_vector, "vector_to_parameters": nn_mod.vector_to_parameters,
        "rnn": rnn_utils,
    })
    from ..tensor import Parameter
    nn_members = {"Module": nn_mod.Module, "Parameter": Parameter, "Linear": nn_mod.Linear,
                  "Bilinear": nn_mod.Bilinear,
                  "functional": functional, "utils": utils}
    try:
        from . import layers
        nn_members.update(layers.MEMBERS)
    except ImportError:
        pass
    for mod, names in LAZY_NN.items():
        nn_members.update(_lazy(mod, names))
    init_ns = Namespace("torch.nn.init", _lazy("init", LAZY_INIT))
    nn_members["init"] = init_ns
    nn = Namespace("torch.nn", nn_members)

    autograd_functional_members = {}
    try:
        from . import autograd_functional
        autograd_functional_members = autograd_functional.MEMBERS
    except ImportError:
        pass
    autograd_functional_ns = Namespace("torch.autograd.functional", autograd_functional_members)
    from .function import Function, FunctionCtx, once_differentiable
    autograd_function_ns = Namespace("torch.autograd.function", {
        "Function": Function, "FunctionCtx": FunctionCtx, "once_differentiable": once_differentiable})
    autograd = Namespace("torch.autograd", {
        "grad": engine.grad, "backward": engine.backward, "functional": autograd_functional_ns,
        "Function": Function, "function": autograd_function_ns, "gradcheck": _gradcheck(),
        "no_grad": grad_mode.no_grad, "enable_grad": grad_mode.enable_grad,
        "set_grad_enabled": grad_mode.set_grad_enabled, "Variable": legacy.Variable,
        "detect_anomaly": anomaly.detect_anomaly, "set_detect_anomaly": anomaly.set_detect_anomaly,
        "inference_mode": grad_mode.inference_mode,
    })
    optim_members = {}
    try:
        from . import optim as optim_mod
        optim_members = optim_mod.MEMBERS
    except ImportError:
        pass
    lr_scheduler = Namespace("torch.optim.lr_scheduler", _lazy("lr_scheduler", LAZY_SCHEDULERS))
    optim_members = dict(optim_members, lr_scheduler=lr_scheduler)
    optim = Namespace("torch.optim", optim_members)
    data = Namespace("torch.utils.data", _lazy("data", LAZY_DATA))
    torch_utils = Namespace("torch.utils", {"data": data})

    torch_members.update({"nn": nn, "autograd": autograd, "optim": optim, "utils": torch_utils})
    torch = Namespace("torch", torch_members)

    from ..interpreter import make_math_module

    math = make_math_module()  # size-checked factorial/comb/prod/fsum: no hang in C code

    _cache = {
        "torch": torch, "torch.nn": nn, "torch.nn.functional": functional, "torch.nn.utils": utils,
        "torch.nn.utils.rnn": rnn_utils,
        "torch.nn.init": init_ns,
        "torch.autograd": autograd, "torch.autograd.functional": autograd_functional_ns,
        "torch.autograd.function": autograd_function_ns,
        "torch.optim": optim, "torch.optim.lr_scheduler": lr_scheduler, "torch.utils": torch_utils,
        "torch.utils.data": data, "math": math,
    }
    _expose([v for k, v in _cache.items() if k != "math"])
    from .. import stdlib
    _cache.update(stdlib.modules())
    from ..numpy_api import namespaces as numpy_namespaces
    _cache.update(numpy_namespaces())
    return _cache
