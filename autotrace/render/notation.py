"""One notation for every view (graph labels, run's tables and tree, Mermaid): shapes as
``[2, 3]`` (``[]`` for a 0-d tensor, as ``list(t.shape)`` prints), small tensors in
PyTorch's printed numbers, large ones as their shape and a summary to 4 significant
digits, and a test for the values that must never look "good" (nan, inf)."""

from __future__ import annotations

import numpy as np

WHOLE = 8          # elements of a tensor shown whole


def shape_text(shape) -> str:
    """``[2, 3]``; ``[]`` for a 0-d tensor; ``?`` when unknown."""
    if shape is None:
        return "?"
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def _num(v: float) -> str:
    return f"{v:.4g}"


def array_text(a, dtype: str | None = None, whole: int = WHOLE) -> str:
    """PyTorch's printed numbers for arrays of up to ``whole`` elements (``15.``,
    ``[3., 3.]``); else ``[1000] min -1 max 1 norm 3.162``. None is ``None``."""
    if a is None:
        return "None"
    a = np.asarray(a)
    if a.size <= whole:
        from ..printing import one_line
        kind = a.dtype.kind
        name = dtype or ("bool" if kind == "b" else ("int64" if kind in "iu" else
                                                     ("float64" if a.dtype == np.float64 else "float32")))
        return one_line(a, name)
    flat = a.reshape(-1).astype(np.float64)
    with np.errstate(all="ignore"):
        from ..messages import text
        return f"{shape_text(a.shape)} " + text("run.stats", min=_num(np.nanmin(flat)), max=_num(np.nanmax(flat)),
                                                norm=_num(np.sqrt(np.nansum(flat * flat))))


def summary_text(shape, summary: dict) -> str:
    """A tensor the record keeps only as a summary (min/max/norm)."""
    s = summary or {}

    def f(k):
        v = s.get(k)
        return "?" if v is None else _num(v)
    from ..messages import text
    return f"{shape_text(shape)} " + text("run.stats", min=f("min"), max=f("max"), norm=f("norm"))


def non_finite(a) -> bool:
    """True when ``a`` (an array, a summary dict or None) holds a nan or an inf."""
    if a is None:
        return False
    if isinstance(a, dict):
        return any(isinstance(v, float) and not np.isfinite(v) for v in a.values())
    a = np.asarray(a)
    if a.dtype.kind not in "fc":
        return False
    with np.errstate(all="ignore"):
        return not bool(np.isfinite(a).all())
