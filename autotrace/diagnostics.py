"""Warnings a script triggers, recorded as PyTorch would emit them.

The engine calls :func:`warn`; the run collects them into the trace record (every
emission, as ``warnings.simplefilter("always")`` would show them) and the console shows
them on stderr.
"""

from __future__ import annotations

warnings: list[dict] = []


def warn(message: str, category: str = "UserWarning") -> None:
    from . import site

    here = site.current
    warnings.append({
        "category": category,
        "message": message,
        "line": here.line if here is not None else None,
    })
    from . import record
    record.event("warning", category=category, message=message)


_once: set[str] = set()


def warn_once(message: str, category: str = "UserWarning") -> None:
    """PyTorch's ``TORCH_WARN_ONCE``: the first emission in a run only."""
    if message not in _once:
        _once.add(message)
        warn(message, category)


def reset() -> None:
    warnings.clear()
    _once.clear()


NON_LEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)

T_NOT_2D = (
    "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it "
    "will throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
    "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.")
T_0D = "Tensor.T is deprecated on 0-D tensors. This function is the identity in these cases."
