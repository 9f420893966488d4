"""Warnings a script triggers, recorded as PyTorch would emit them.

The engine calls :func:`warn`; the run collects them into the trace record (every
emission, as ``warnings.simplefilter("always")`` would show them) and the console shows
them on stderr.
"""

from __future__ import annotations

warnings: list[dict] = []

#: distinct warnings kept per run; later ones are only counted (``suppressed``)
MAX_WARNINGS = 1000

#: the same warning from the same line is recorded this many times (every emission, as
#: ``simplefilter("always")`` shows them, for the usual few); a loop reading a non-leaf
#: ``.grad`` a million times adds to the last record's ``count`` instead
MAX_REPEATS = 10

#: (category, message, line) -> [records of it]
_seen: dict = {}
suppressed = 0


def warn(message: str, category: str = "UserWarning") -> None:
    """Record a warning. Each distinct one counts its text against the script's output
    limit (``--limit output=N``), since it is output the script caused."""
    global suppressed
    from . import site
    from .stdlib import warnings_

    here = site.current
    line = here.line if here is not None else None
    if not warnings_.decide(category, message, line) or warnings_.capture(category, message, line):
        return                           # a script's warnings filter or catch_warnings took it
    key = (category, message, line)
    recs = _seen.get(key)
    if recs is not None and len(recs) >= MAX_REPEATS:
        recs[-1]["count"] += 1
        return
    if len(warnings) >= MAX_WARNINGS:
        suppressed += 1
        return
    from .interpreter.limits import RT, limit_error
    if RT.active:
        RT.out_len += len(message)
        if RT.out_len > RT.max_out:
            raise limit_error("max_output")
    rec = {"category": category, "message": message, "line": line, "count": 1}
    _seen.setdefault(key, []).append(rec)
    warnings.append(rec)
    from . import record
    record.event("warning", category=category, message=message)


_once: set[str] = set()


def warn_once(message: str, category: str = "UserWarning", key: str | None = None) -> None:
    """PyTorch's ``TORCH_WARN_ONCE``: the first emission in a run only — of this message,
    or of any message with the same ``key`` (one place in torch's source, whose text varies)."""
    key = message if key is None else key
    if key not in _once:
        _once.add(key)
        warn(message, category)


def reset() -> None:
    global suppressed
    warnings.clear()
    _once.clear()
    _seen.clear()
    suppressed = 0


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
MT_0D = "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases."
CONJ_0D = "Tensor.{attr} is deprecated on 0-D tensors. Consider using x.conj()."
