"""``F.normalize`` and ``F.cosine_similarity``, composed of recorded ops as torch 2.13
composes them, so values and ``grad_fn`` chains agree: normalize is
``input / input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)`` (torch's
Python code); cosine_similarity is ATen's ``(x1 / ‖x1‖) · (x2 / ‖x2‖)`` summed over
``dim``, each norm cloned and clamped to ``eps`` in place without recording.
"""

from __future__ import annotations

from .. import grad_mode
from ..tensor import Tensor
from . import export


@export(functional=("normalize",))
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input`` divided by its ``p``-norm along ``dim`` (at least ``eps``): unit rows for
    p=2, dim=1. Same shape and dtype as ``input``."""
    if not isinstance(input, Tensor):
        raise TypeError(f"normalize(): argument 'input' must be Tensor, not {type(input).__name__}")
    if out is not None:
        raise NotImplementedError("normalize(out=...) is not supported by autotrace")
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return input / denom


@export(torch=("cosine_similarity",), functional=("cosine_similarity",))
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """``Σ_dim (x1/max(‖x1‖, eps)) · (x2/max(‖x2‖, eps))``: inputs broadcast together,
    the result has their broadcast shape without ``dim``."""
    for name, t in (("x1", x1), ("x2", x2)):
        if not isinstance(t, Tensor):
            raise TypeError(f"cosine_similarity(): argument '{name}' (position {1 if name == 'x1' else 2}) "
                            f"must be Tensor, not {type(t).__name__}")
    from .errors import broadcast_shapes
    shape = broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
    a = x1 if tuple(x1.shape) == tuple(shape) else x1.expand(*shape)
    b = x2 if tuple(x2.shape) == tuple(shape) else x2.expand(*shape)
    norms = []
    for t in (a, b):
        n = t.norm(2, dim, keepdim=True).clone()
        was = grad_mode.enabled
        grad_mode.enabled = False
        try:
            n.clamp_min_(eps)
        finally:
            grad_mode.enabled = was
        norms.append(n)
    return ((a / norms[0]) * (b / norms[1])).sum(dim)

