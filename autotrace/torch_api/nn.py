"""``torch.nn``: Module, Parameter, the layers tutorials use, and ``nn.utils``.

The Module base class lives in :mod:`.module`; here are ``nn.Parameter``, ``nn.Linear``,
``nn.Bilinear`` and the gradient clipping utilities.
"""

from __future__ import annotations

from .. import record

import math

import numpy as np

from .. import dtypes, grad_mode
from ..tensor import Parameter, Tensor
from .module import Module  # noqa: F401  (re-exported: torch.nn.Module)


def make_parameter(data=None, requires_grad=True):
    """``nn.Parameter(tensor)``: a leaf sharing the tensor's data and version counter
    (torch 2.13's ``_make_subclass`` detaches, which keeps the counter)."""
    if data is None:
        data = Tensor._make(np.zeros((0,), dtype=np.float32))
    p = Parameter._make(data._data, data._dtype)
    p._counter = data._version_counter
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
                p._grad._version_counter.value += 1   # torch's p.grad.zero_()


class Linear(Module):
    """``nn.Linear(in_features, out_features, bias=True)``: y = x Wᵀ + b, initialised
    with the numbers PyTorch's CPU generator gives (kaiming-uniform); as torch 2.13's
    ``reset_parameters``, the bias is drawn only when there is one, so ``bias=False``
    leaves the generator where the weight left it."""

    _script_attrs = Module._script_attrs | {"weight", "bias", "in_features", "out_features", "reset_parameters"}

    def __init__(self, in_features, out_features, bias=True, dtype=None, device=None):
        super().__init__()
        from .. import diagnostics, random
        dtype = dtype or dtypes.default_float
        if in_features == 0 or out_features == 0:
            diagnostics.warn("Initializing zero-element tensors is a no-op")
        w, b = random.kaiming_uniform_linear(random.default_generator, out_features, in_features, dtype.name,
                                            bias=bool(bias))
        object.__setattr__(self, "in_features", in_features)
        object.__setattr__(self, "out_features", out_features)
        self.weight = make_parameter(Tensor._make(w, dtype))
        self.register_parameter("bias", make_parameter(Tensor._make(b, dtype)) if bias else None)
        # the versions torch's in-place init leaves: kaiming_uniform_ skips a zero-element weight
        if self.weight._data.size:
            self.weight._version_counter.value += 1
        if bias:
            self.bias._version_counter.value += 1

    def reset_parameters(self):
        """Redraws the parameters as torch 2.13's ``Linear.reset_parameters``:
        ``kaiming_uniform_(weight, a=√5)``, then, when there is a bias,
        ``uniform_(bias, −1/√fan_in, 1/√fan_in)`` (bound 0 when fan_in is 0)."""
        from . import init
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        from ..ops import FUNCTIONAL
        return FUNCTIONAL["linear"](input, self.weight, self.bias)

    def _extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Bilinear(Module):
    """``nn.Bilinear(in1_features, in2_features, out_features, bias=True)``:
    ``y = x1ᵀ W x2 + b`` per output feature through ``F.bilinear``, ``weight`` (out, in1,
    in2) and ``bias`` (out,) drawn as torch 2.13's ``reset_parameters`` draws them
    (``uniform_(−1/√in1, 1/√in1)``, weight then bias, from the default generator);
    ``in1_features = 0`` is torch's ValueError, a negative size its RuntimeError."""

    _script_attrs = Module._script_attrs | {"weight", "bias", "in1_features", "in2_features", "out_features",
                                            "reset_parameters"}

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        from .. import device as _device
        from .creation import _check_size, _size_arg
        _device.check(device)
        dtype = dtype or dtypes.default_float
        shape = _check_size(_size_arg(((out_features, in1_features, in2_features),)), dtype.np.itemsize)
        object.__setattr__(self, "in1_features", in1_features)
        object.__setattr__(self, "in2_features", in2_features)
        object.__setattr__(self, "out_features", out_features)
        self.weight = make_parameter(Tensor._make(np.zeros(shape, dtype.np), dtype))
        self.register_parameter("bias", make_parameter(Tensor._make(np.zeros(shape[:1], dtype.np), dtype))
                                if bias else None)
        self.reset_parameters()

    def reset_parameters(self):
        from . import init
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features={self.in1_features})")
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        from ..ops import FUNCTIONAL
        return FUNCTIONAL["bilinear"](input1, input2, self.weight, self.bias)

    def _extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """``nn.utils.clip_grad_norm_``: scales the grads in place so their total norm is at
    most ``max_norm`` (by ``max_norm / (total + 1e-6)``, only when that is < 1) and
    returns the total norm *before* clipping (torch 2.13; ``tensor(0.)`` when no
    parameter has a grad)."""
    parameters = [parameters] if isinstance(parameters, Tensor) else list(parameters)
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
        before = [g._data.copy() for g in grads] if record.wants_events() else None
        for g in grads:
            g._data *= g._data.dtype.type(coef)
            g._version_counter.value += 1
        if before is not None:
            record.event("clip_grad_norm", max_norm=float(max_norm), norm_type=norm_type, total=float(total),
                         scale=float(coef), params=[dict(record.leaf_ref(p), before=b, after=p._grad._data.copy())
                                                    for p, b in zip([p for p in parameters if p._grad is not None],
                                                                    before)])
    return Tensor._make(total)


def clip_grad_value_(parameters, clip_value, foreach=None):
    parameters = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    log = [] if record.wants_events() else None
    for p in parameters:
        if p._grad is not None:
            before = p._grad._data.copy() if log is not None else None
            np.clip(p._grad._data, -clip_value, clip_value, out=p._grad._data)
            if log is not None:
                log.append(dict(record.leaf_ref(p), before=before, after=p._grad._data.copy()))
    if log is not None:
        record.event("clip_grad_value", clip_value=float(clip_value), params=log)


class _no_grad:
    def __enter__(self):
        self.prev = grad_mode.enabled
        grad_mode.enabled = False

    def __exit__(self, *a):
        grad_mode.enabled = self.prev


def parameters_to_vector(parameters):
    """``nn.utils.parameters_to_vector``: the parameters flattened and concatenated
    (``cat([p.view(-1) ...])``, CatBackward0 when they require grad)."""
    from ..ops.shape import cat
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    vec = [p.view(-1) for p in parameters]
    return cat(vec)


def vector_to_parameters(vec, parameters):
    """``nn.utils.vector_to_parameters``: copies slices of ``vec`` into the parameters' data."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    pointer = 0
    for p in parameters:
        n = p.numel()
        p._data[...] = vec._data[pointer:pointer + n].reshape(p._data.shape).astype(p._data.dtype)
        p._version_counter.value += 1
        pointer += n
