"""Numbers and formula fragments as explain writes them (at most 6 significant digits,
small arrays whole, larger ones summarised)."""

from __future__ import annotations

import re

import numpy as np

from ..messages import text

SCHEMA_VERSION = 1
SMALL = 12          # tensors with at most this many elements are shown whole
MAX_PATHS = 16      # paths per leaf written out in a chain

# -- numbers -----------------------------------------------------------------------------


def fmt_num(v) -> str:
    """One number as a learner writes it, with at most 6 significant digits: 75, 0.5,
    -3.25, 0.659001, 1.82172e-9, nan, inf."""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v))
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    x = v if isinstance(v, (np.floating,)) else np.float64(v)
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"
    a = abs(float(x))
    if a >= 1e6 or a < 1e-4:
        return np.format_float_scientific(x, trim="-", unique=True, precision=5, exp_digits=1).replace("e+", "e")
    # at most 6 significant digits (float32 noise: 0.30000001 -> 0.3, 0.9900396 -> 0.99004)
    return np.format_float_positional(x, trim="-", precision=6, unique=True, fractional=False)


def fmt(a) -> str:
    """A number or an array: whole when small, else shape and a summary."""
    if a is None:
        return text("label.none")
    if not isinstance(a, np.ndarray):
        return fmt_num(a)
    if a.ndim == 0:
        return fmt_num(a[()])
    if a.size <= SMALL:
        return _nested(a)
    flat = a.reshape(-1).astype(np.float64)
    with np.errstate(all="ignore"):
        finite = flat[np.isfinite(flat)]
        lo = fmt_num(finite.min()) if finite.size else "nan"
        hi = fmt_num(finite.max()) if finite.size else "nan"
        norm = fmt_num(np.sqrt(np.sum(finite * finite)))
    preview = ", ".join(fmt_num(x) for x in a.reshape(-1)[:4])
    return f"shape {list(a.shape)} min {lo} max {hi} norm {norm} [{preview}, …]"


def _nested(a) -> str:
    if a.ndim == 1:
        return "[" + ", ".join(fmt_num(x) for x in a) + "]"
    return "[" + ", ".join(_nested(x) for x in a) + "]"


def uniform(a):
    """The single value of an array whose elements are all equal, else None."""
    if a is None:
        return None
    a = np.asarray(a)
    if a.size == 0:
        return None
    flat = a.reshape(-1)
    first = flat[0]
    if a.size <= 16 and a.dtype.kind in "fiub":
        # a few elements compared as Python numbers (== as numpy's: nan differs, -0.0 == 0.0)
        vs = flat.tolist()
        v0 = vs[0]
        return first if all(v == v0 for v in vs) else None
    if np.all(a == first):
        return first
    return None


def as_tensor_value(a):
    """JSON-ready: nested lists of floats, nan/inf as strings."""
    if a is None:
        return None
    if isinstance(a, np.ndarray):
        if a.dtype == np.bool_:
            return a.tolist()
        return _json_numbers(a.astype(np.float64).tolist())
    if isinstance(a, (float, np.floating)):
        return _json_numbers(float(a))
    return a


def _json_numbers(x):
    """Nested lists of floats with nan/inf as strings (the trace JSON's number rule)."""
    from ..render.json import _walk

    return _walk(x)


_SUP = str.maketrans("0123456789-.", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻·")


def sup(n) -> str:
    s = fmt_num(n)
    if re.fullmatch(r"-?\d+", s):
        return s.translate(_SUP)
    return f"^{s}" if re.fullmatch(r"[\w.]+", s) else f"^({s})"


def sum_to(g: np.ndarray, shape) -> np.ndarray:
    shape = tuple(shape)
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    for i, s in enumerate(shape):
        if s == 1 and g.shape[i] != 1:
            g = g.sum(axis=i, keepdims=True)
    return g


def _elide(items, keep=3):
    """A long product or flow written with its middle left out."""
    if len(items) <= 2 * keep + 1:
        return items
    return items[:keep] + [text("chain.elided", count=len(items) - 2 * keep)] + items[-keep:]


def _factor(s: str) -> str:
    """A number written as a factor of a product: negative ones in parentheses."""
    return f"({s})" if s.startswith("-") else s


def _paren(s: str) -> str:
    s = s.strip()
    if re.fullmatch(r"[\w.]+", s) or _wrapped(s):
        return s
    return f"({s})"


def _wrapped(s: str) -> bool:
    """``(…)`` whose first parenthesis closes at the end."""
    if not (s.startswith("(") and s.endswith(")")):
        return False
    depth = 0
    for k, ch in enumerate(s):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and k < len(s) - 1:
            return False
    return True


_SUBSCRIPT = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


def _sub(k: int) -> str:
    return str(k).translate(_SUBSCRIPT)


def _and_list(items) -> str:
    if len(items) <= 1:
        return "".join(items)
    return text("list.and", items=text("list.sep").join(items[:-1]), last=items[-1])

