"""Channel-wise dropout: ``F.dropout1d`` / ``dropout2d`` / ``dropout3d`` (and
``torch.feature_dropout``) as torch 2.13: one Bernoulli(1 − p) draw per (sample, channel)
on a ``(N, C, 1, ...)`` noise tensor from the CPU generator, scaled by ``1/(1 − p)``, then
``input * noise`` (MulBackward0). The deprecation warnings of torch's Python wrappers for
unexpected ranks are given verbatim.
"""

from __future__ import annotations

import numpy as np

from .. import diagnostics
from ..tensor import Tensor
from . import check_inplace, commit_inplace, export


@export(torch=("feature_dropout",))
def feature_dropout(input, p, train):
    """Zero whole channels (dim 1) of ``input`` with probability ``p`` in training."""
    if not train or p == 0:
        return input
    from .. import random
    from .arith import mul
    from .nn import _const
    x = input._data
    shape = x.shape[:2] + (1,) * (x.ndim - 2)
    if p == 1:
        noise = np.zeros((), dtype=x.dtype)
    else:
        noise = random.default_generator.bernoulli(1 - p, shape, x.dtype) * x.dtype.type(1 / (1 - p))
    return mul(input, _const(np.asarray(noise, dtype=x.dtype)))


def _check(input, p, name):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' must be Tensor, not {type(input).__name__}")


@export(functional=("dropout2d",))
def dropout2d(input, p=0.5, training=True, inplace=False):
    """Channel-wise dropout for ``(N, C, H, W)`` input (a 3-d input is taken as ``(N, C, L)``,
    with torch's warning)."""
    _check(input, p, "dropout2d")
    d = input.ndim
    if d not in (3, 4):
        diagnostics.warn(
            f"dropout2d: Received a {d}-D input to dropout2d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout2d "
            "exists to provide channel-wise dropout on inputs with 2 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).")
    if d == 3:
        diagnostics.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
            "1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.")
    return _apply(input, p, training, inplace)


@export(functional=("dropout1d",))
def dropout1d(input, p=0.5, training=True, inplace=False):
    """Channel-wise dropout for ``(N, C, L)`` or unbatched ``(C, L)`` input."""
    _check(input, p, "dropout1d")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    if input.ndim == 2:
        return _apply(input.unsqueeze(0), p, training, inplace).squeeze(0)
    return _apply(input, p, training, inplace)


def _apply(input, p, training, inplace):
    res = feature_dropout(input, p, training)
    if inplace and res is not input:
        check_inplace(input)
        return commit_inplace(input, res)
    return res
