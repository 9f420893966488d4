"""``torch.nn``: Module, Parameter, the layers tutorials use, and ``nn.utils``.

Modules are plain objects with PyTorch's observable behaviour: parameters registered
in assignment order, ``parameters()``/``named_parameters()``, ``zero_grad()``
(set_to_none=True, torch 2.13's default), ``train()``/``eval()``, ``__call__`` → forward.
"""

from __future__ import annotations

from .. import record

import math

import numpy as np

from .. import dtypes, grad_mode
from ..tensor import Parameter, Tensor


def make_parameter(data=None, requires_grad=True):
    """``nn.Parameter(tensor)``: a leaf sharing the tensor's data."""
    if data is None:
        data = Tensor._make(np.zeros((0,), dtype=np.float32))
    p = Parameter._make(data._data, data._dtype)
    if requires_grad:
        if p._dtype.category != dtypes.FLOAT:
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        p._requires_grad = True
    return p


def zero_grads(params, set_to_none=True) -> None:
    """What ``Module.zero_grad`` and ``Optimizer.zero_grad`` do to each parameter's grad:
    ``None`` (torch 2.13's default) or zeroed in place, detached from any graph."""
    for p in params:
        if p._grad is not None:
            if record.active is not None:
                record.grad_event(p, "none" if set_to_none else "zero")
            if set_to_none:
                p._grad = None
            else:
                p._grad.grad_fn = None
                p._grad._requires_grad = False
                p._grad._data[...] = 0


class Module:
    """Base of all layers. Scripts may subclass nothing (no ``class`` statement); they
    use the built-in layers and :class:`Sequential`."""

    _script_attrs = frozenset({"parameters", "named_parameters", "zero_grad", "train", "eval",
                               "training", "forward", "children", "modules", "requires_grad_",
                               "state_dict", "to", "float", "double", "apply", "cuda", "cpu"})
    _script_setattrs = frozenset({"training"})

    def __init__(self):
        object.__setattr__(self, "_params", {})
        object.__setattr__(self, "_modules", {})
        object.__setattr__(self, "training", True)

    def __setattr__(self, name, value):
        if isinstance(value, Parameter):
            self._params[name] = value
        elif isinstance(value, Module):
            self._modules[name] = value
        elif name in self._params:
            if value is not None and not isinstance(value, Parameter):
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as parameter '{name}' (torch.nn.Parameter or None expected)")
            self._params[name] = value
        object.__setattr__(self, name, value)

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def _on_bind(self, name: str) -> None:
        """Bound to a script variable: its parameters are named after it
        (``model.0.weight``), as ``named_parameters()`` would call them."""
        for pname, p in self.named_parameters():
            if p._name is None:
                p._on_bind(f"{name}.{pname}")

    def named_parameters(self, prefix="", recurse=True):
        out = []
        seen = set()
        stack = [(prefix, self)]
        while stack:
            pre, m = stack.pop(0)
            for n, p in m._params.items():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    out.append((pre + n, p))
            if recurse:
                stack[0:0] = [(pre + n + ".", c) for n, c in m._modules.items()]
        return iter(out)

    def parameters(self, recurse=True):
        return iter([p for _, p in self.named_parameters(recurse=recurse)])

    def children(self):
        return iter(list(self._modules.values()))

    def modules(self):
        out = [self]
        for c in self._modules.values():
            out.extend(c.modules())
        return iter(out)

    def zero_grad(self, set_to_none=True):
        zero_grads(self.parameters(), set_to_none)

    def train(self, mode=True):
        for m in self.modules():
            object.__setattr__(m, "training", bool(mode))
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def state_dict(self):
        return {n: p.detach() for n, p in self.named_parameters()}

    def to(self, *args, **kwargs):
        from .. import device as _device
        for a in list(args) + [kwargs.get("device")]:
            if isinstance(a, (str, _device.Device)) or (isinstance(a, int) and not isinstance(a, bool)):
                _device.check(a)  # CPU-only: 'cuda' raises torch's AssertionError
        for a in args:
            if isinstance(a, dtypes.DType):
                for p in self.parameters():
                    p._data = p._data.astype(a.np)
                    p._dtype = a
        return self

    def cuda(self, device=None):
        from .. import device as _device
        raise AssertionError(_device.NO_CUDA)

    def cpu(self):
        return self

    def float(self):
        return self.to(dtypes.float32)

    def double(self):
        return self.to(dtypes.float64)

    def apply(self, fn):
        for m in list(self.modules())[::-1]:
            fn(m)
        return self

    def _extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        name = type(self).__name__
        if not self._modules:
            return f"{name}({self._extra_repr()})"
        lines = [f"{name}("]
        for n, m in self._modules.items():
            sub = repr(m).replace("\n", "\n  ")
            lines.append(f"  ({n}): {sub}")
        lines.append(")")
        return "\n".join(lines)


class Linear(Module):
    """``nn.Linear(in_features, out_features, bias=True)``: y = x Wᵀ + b, initialised
    with the numbers PyTorch's CPU generator gives (kaiming-uniform)."""

    _script_attrs = Module._script_attrs | {"weight", "bias", "in_features", "out_features"}
    _script_setattrs = Module._script_setattrs | {"weight", "bias"}

    def __init__(self, in_features, out_features, bias=True, dtype=None, device=None):
        super().__init__()
        from .. import random
        dtype = dtype or dtypes.default_float
        w, b = random.kaiming_uniform_linear(random.default_generator, out_features, in_features, dtype.name)
        object.__setattr__(self, "in_features", in_features)
        object.__setattr__(self, "out_features", out_features)
        self.weight = make_parameter(Tensor._make(w, dtype))
        if bias:
            self.bias = make_parameter(Tensor._make(b, dtype))
        else:
            object.__setattr__(self, "bias", None)
            self._params["bias"] = None

    def forward(self, input):
        from ..ops import FUNCTIONAL
        return FUNCTIONAL["linear"](input, self.weight, self.bias)

    def _extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """``nn.utils.clip_grad_norm_``: scales the grads in place so their total norm is at
    most ``max_norm`` (by ``max_norm / (total + 1e-6)``, only when that is < 1) and
    returns the total norm *before* clipping (torch 2.13; ``tensor(0.)`` when no
    parameter has a grad)."""
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    grads = [p._grad for p in parameters if p._grad is not None]
    if not grads:
        return Tensor._make(np.array(0.0, dtype=np.float32))
    norm_type = float(norm_type)
    with _no_grad():
        if norm_type == math.inf:
            norms = [np.max(np.abs(g._data)) for g in grads]
            total = np.max(np.array(norms, dtype=grads[0]._data.dtype))
        else:
            norms = [np.sum(np.abs(g._data) ** norm_type) ** (1.0 / norm_type) for g in grads]
            total = np.sum(np.array(norms, dtype=grads[0]._data.dtype) ** norm_type) ** (1.0 / norm_type)
        total = np.asarray(total, dtype=grads[0]._data.dtype)
        if error_if_nonfinite and not np.isfinite(total):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be clipped. "
                "To disable this error and scale the gradients by the non-finite norm anyway, set `error_if_nonfinite=False`")
        coef = np.float32(max_norm) / (total + np.float32(1e-6))
        coef = min(coef, np.float32(1.0))
        for g in grads:
            g._data *= g._data.dtype.type(coef)
            g._version_counter.value += 1
    return Tensor._make(total)


def clip_grad_value_(parameters, clip_value, foreach=None):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    for p in parameters:
        if p._grad is not None:
            np.clip(p._grad._data, -clip_value, clip_value, out=p._grad._data)


class _no_grad:
    def __enter__(self):
        self.prev = grad_mode.enabled
        grad_mode.enabled = False

    def __exit__(self, *a):
        grad_mode.enabled = self.prev
