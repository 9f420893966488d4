"""``torch.nn.init``: in-place initialisers drawing torch 2.13's exact random numbers.

Each function writes into the tensor's data outside the graph (as torch's run under
``no_grad``), bumps its version counter and returns it. The draws come from the CPU
generator in :mod:`autotrace.random` (``uniform_``/``normal_`` bit for bit), with the
bounds computed in Python floats in torch's order, so seeded scripts print the same
weights as PyTorch.
"""

from __future__ import annotations

import math

import numpy as np

from .. import diagnostics, random, resources
from ..tensor import Tensor


def _gen(generator):
    if generator is None:
        return random.default_generator
    if isinstance(generator, random.Generator):
        return generator
    inner = getattr(generator, "_generator", None) or getattr(generator, "_gen", None)
    if isinstance(inner, random.Generator):
        return inner
    raise TypeError(f"generator must be a torch.Generator, not {type(generator).__name__}")


def _write(tensor: Tensor, data) -> Tensor:
    tensor._data[...] = np.asarray(data).reshape(tensor._data.shape).astype(tensor._data.dtype)
    tensor._version_counter.value += 1
    return tensor


def _check(tensor, name="tensor"):
    if not isinstance(tensor, Tensor):
        raise AttributeError(f"'{type(tensor).__name__}' object has no attribute 'uniform_'")


def calculate_gain(nonlinearity, param=None):
    """torch 2.13 ``calculate_gain``: 1 for linear/conv/sigmoid, 5/3 tanh, √2 relu,
    √(2/(1+slope²)) leaky_relu (slope 0.01 by default), 3/4 selu."""
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                  "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    dims = tensor.ndim
    if dims < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    shape = tensor._data.shape
    receptive = 1
    for s in shape[2:]:
        receptive *= s
    return shape[1] * receptive, shape[0] * receptive


def _fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with U(a, b) (``tensor.uniform_(a, b)``)."""
    _check(tensor)
    return _write(tensor, _gen(generator).uniform_(tensor._data.shape, a, b, tensor._data.dtype))


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with N(mean, std²) (``tensor.normal_(mean, std)``)."""
    _check(tensor)
    return _write(tensor, _gen(generator).normal_(tensor._data.shape, mean, std, tensor._data.dtype))


def constant_(tensor, val):
    _check(tensor)
    return _write(tensor, np.full(tensor._data.shape, val))


def zeros_(tensor):
    return constant_(tensor, 0)


def ones_(tensor):
    return constant_(tensor, 1)


def eye_(tensor):
    """The identity in a 2-d tensor (ValueError for other ranks, as torch)."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _write(tensor, np.eye(*tensor._data.shape))


def dirac_(tensor, groups=1):
    dims = tensor.ndim
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor._data.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per = sizes[0] // groups
    m = min(out_per, sizes[1])
    data = np.zeros(sizes)
    for g in range(groups):
        for d in range(m):
            data[(g * out_per + d, d) + tuple(s // 2 for s in sizes[2:])] = 1
    return _write(tensor, data)


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """U(−a, a) with ``a = gain·√(6 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """N(0, std²) with ``std = gain·√(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """U(−b, b) with ``b = √3 · gain / √fan`` (He et al.); a zero-element tensor warns."""
    if 0 in tensor._data.shape:
        diagnostics.warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """N(0, std²) with ``std = gain / √fan``."""
    if 0 in tensor._data.shape:
        diagnostics.warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """torch 2.13's sampler: when the kept mass ``p`` is over 0.3, draw N(mean, std²) and
    redraw (whole-tensor draws) until every value lies in [a, b]; otherwise rejection
    sampling of U(a, b) candidates against the peak of the density. The same draws as
    torch. Warns when mean is more than 2 std outside [a, b]."""
    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        diagnostics.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                         "The distribution of values may be incorrect.")
    gen = _gen(generator)
    shape = tensor._data.shape
    dt = tensor._data.dtype
    p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
    if p > 0.3:
        lo, hi = dt.type(a), dt.type(b)
        result = gen.normal_(shape, mean, std, dt)
        while True:
            mask = (result < lo) | (result > hi)
            if not mask.any():
                break
            result = np.where(mask, gen.normal_(shape, mean, std, dt), result)
        return _write(tensor, result)
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2

    def log_pdf(c):
        c = (c - dt.type(mean)) / dt.type(std)
        return (c ** 2) * dt.type(-0.5) - dt.type(log_peak)

    result = gen.uniform_(shape, a, b, dt)
    cand = log_pdf(result)
    with np.errstate(divide="ignore"):
        pending = np.log(gen.uniform_(shape, 0.0, 1.0, dt)) > cand
    while pending.any():
        c = gen.uniform_(shape, a, b, dt)
        result = np.where(pending, c, result)
        cand = log_pdf(c)
        with np.errstate(divide="ignore"):
            pending = np.where(pending, np.log(gen.uniform_(shape, 0.0, 1.0, dt)) > cand, pending)
    return _write(tensor, result)


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix from the QR of a standard-normal draw, signs fixed by
    ``diag(R)`` (torch 2.13's algorithm and draw order)."""
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor._data.shape[0]
    cols = tensor.numel() // rows
    dt = tensor._data.dtype
    m, n = max(rows, cols), min(rows, cols)
    # Householder QR of an m×n matrix, with Q formed: about 4·m·n² − 4/3·n³ operations
    resources.check_work(4.0 * m * n * n - 4.0 / 3.0 * n ** 3, f"the QR decomposition of a {rows}x{cols} matrix")
    flat = _gen(generator).normal_((rows, cols), 0.0, 1.0, dt)
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _write(tensor, (q * gain).astype(dt))


def sparse_(tensor, sparsity, std=0.01, generator=None):  # pragma: no cover - rarely used
    raise NotImplementedError("nn.init.sparse_ is not supported yet")


MEMBERS = {f.__name__: f for f in (
    calculate_gain, uniform_, normal_, constant_, zeros_, ones_, eye_, dirac_, xavier_uniform_,
    xavier_normal_, kaiming_uniform_, kaiming_normal_, trunc_normal_, orthogonal_)}
MEMBERS["_calculate_fan_in_and_fan_out"] = _calculate_fan_in_and_fan_out
