"""PyTorch-identical printing of tensors, sizes and dtypes.

Everything here reproduces, character for character, what PyTorch 2.13 prints for a
dense CPU tensor (the rules of ``torch/_tensor_str.py``, re-implemented independently):

* ``tensor_repr`` is ``repr(t)`` / ``str(t)``, including PyTorch's element formatting
  (shared width, ``2.`` for integer-valued floats, fixed or scientific notation),
  line wrapping at ``linewidth``, summarisation with ``...`` past ``threshold``
  elements, and the ``size=`` / ``dtype=`` / ``grad_fn=`` / ``requires_grad=`` suffixes.
* ``format_number_for_fstring`` is ``Tensor.__format__`` (what ``f"{t:.2f}"`` gives).
* ``size_repr`` and ``dtype_repr`` are ``repr(t.shape)`` and ``repr(t.dtype)``.
* ``options`` / ``set_printoptions`` mirror ``torch._tensor_str.PRINT_OPTS`` and
  ``torch.set_printoptions``; every call reads ``options`` at call time.

The module imports only the standard library: the numpy arrays it receives are
handled through their own methods, so numpy is never imported here.
"""

from __future__ import annotations

import math

TYPE_CHECKING = False  # avoid importing typing at run time
if TYPE_CHECKING:  # pragma: no cover - typing only
    from typing import Any

    import numpy as np

__all__ = [
    "PrintOptions",
    "options",
    "set_printoptions",
    "get_printoptions",
    "tensor_repr",
    "format_number_for_fstring",
    "size_repr",
    "dtype_repr",
]

_PREFIX = "tensor("
_INDENT = len(_PREFIX)

_FLOAT_DTYPES = frozenset({"float16", "float32", "float64"})
# Dtypes whose name PyTorch leaves out of a non-empty tensor's repr: the default
# float dtype, the default complex dtype, int64 and bool.
_IMPLICIT_DTYPES = frozenset({"float32", "complex64", "int64", "bool"})
# An empty tensor has no elements to guess its kind from: only float32 is implicit.
_DEFAULT_DTYPE = "float32"


class PrintOptions:
    """Printing settings; the fields and defaults of ``torch._tensor_str.PRINT_OPTS``.

    ``threshold`` may be ``math.inf`` (profile ``"full"``); ``sci_mode`` ``None`` lets
    the formatter choose scientific notation, ``True``/``False`` forces it.
    (A plain class rather than a dataclass: ``dataclasses`` would import ``inspect``.)
    """

    _FIELDS = ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None

    def __init__(
        self,
        precision: int = 4,
        threshold: float = 1000,
        edgeitems: int = 3,
        linewidth: int = 80,
        sci_mode: bool | None = None,
    ) -> None:
        self.precision = precision
        self.threshold = threshold
        self.edgeitems = edgeitems
        self.linewidth = linewidth
        self.sci_mode = sci_mode

    def as_dict(self) -> dict[str, Any]:
        """The options as keyword arguments for ``set_printoptions``."""
        return {name: getattr(self, name) for name in self._FIELDS}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PrintOptions):
            return NotImplemented
        return self.as_dict() == other.as_dict()

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self.as_dict().items())
        return f"PrintOptions({fields})"


options = PrintOptions()

_PROFILES = {
    "default": {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80},
    "short": {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80},
    "full": {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80},
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Change ``options`` exactly as ``torch.set_printoptions`` changes PRINT_OPTS.

    A ``profile`` ("default", "short" or "full"; anything else is ignored) is applied
    first and explicit arguments override it. As in PyTorch, ``sci_mode`` is always
    assigned, so any call without ``sci_mode`` resets it to automatic (``None``).
    """
    if profile is not None and profile in _PROFILES:
        for name, value in _PROFILES[profile].items():
            setattr(options, name, value)
    if precision is not None:
        options.precision = precision
    if threshold is not None:
        options.threshold = threshold
    if edgeitems is not None:
        options.edgeitems = edgeitems
    if linewidth is not None:
        options.linewidth = linewidth
    options.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current options as keyword arguments for ``set_printoptions``."""
    return options.as_dict()


def dtype_repr(dtype_name: str) -> str:
    """``repr(dtype)``: ``"float32"`` -> ``"torch.float32"``."""
    return "torch." + dtype_name


def size_repr(shape: tuple[int, ...]) -> str:
    """``repr(t.shape)``: ``(2, 1)`` -> ``"torch.Size([2, 1])"``, ``()`` -> ``"torch.Size([])"``."""
    return "torch.Size([" + ", ".join(str(int(n)) for n in shape) + "])"


def _shape_tuple_str(shape: tuple[int, ...]) -> str:
    """``str(tuple(t.shape))`` with plain ints: ``"(0, 3)"``, ``"(0,)"``, ``"()"``."""
    return str(tuple(int(n) for n in shape))


# ---------------------------------------------------------------------------
# element formatting (torch._tensor_str._Formatter)
# ---------------------------------------------------------------------------


def _format_floats(values: list[float], precision: int, sci_opt: bool | None) -> tuple[list[str], int]:
    """Format float elements like PyTorch's ``_Formatter``; return (strings, width).

    The mode is decided from the nonzero finite values only (zeros, nan and inf do
    not count, and do not widen the column):

    * none at all: integer mode, never scientific, width 1;
    * scientific when forced, or automatically when max/min > 1000, max > 1e8 or
      min < 1e-4 (magnitudes, compared in double precision);
    * integer mode (``2.``) when every such value is integer-valued.

    Every string is right-aligned to the width of the widest nonzero finite value;
    longer strings (``-inf`` in a narrow column) are left as they are.
    """
    isfinite = math.isfinite
    finite = [v for v in values if v != 0.0 and isfinite(v)]
    if not finite:
        # PyTorch's formatter gives up early: integer mode and width 1, never
        # scientific, whatever ``sci_opt`` says.
        return [f"{v:.0f}." if isfinite(v) else f"{v:.0f}" for v in values], 1

    lo = min(map(abs, finite))
    hi = max(map(abs, finite))
    if sci_opt is None:
        sci = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
    else:
        sci = bool(sci_opt)

    if sci:
        spec = f".{precision}e"
        strs = [format(v, spec) for v in values]
    elif all(v.is_integer() for v in finite):
        strs = [f"{v:.0f}." if isfinite(v) else f"{v:.0f}" for v in values]
    else:
        spec = f".{precision}f"
        strs = [format(v, spec) for v in values]
    # The column width is that of the widest nonzero finite value only.
    if len(finite) == len(values):
        width = max(map(len, strs))
    else:
        width = max(len(s) for s, v in zip(strs, values) if v != 0.0 and isfinite(v))
    return _pad(strs, width), width


def _pad(strs: list[str], width: int) -> list[str]:
    """Right-align every string to ``width`` (longer ones are left as they are)."""
    if min(map(len, strs), default=width) >= width:
        return strs
    return [s.rjust(width) for s in strs]


def _format_others(values: list[Any]) -> tuple[list[str], int]:
    """Integer and bool elements: ``str(value)`` right-aligned to the widest one."""
    strs = list(map(str, values))
    width = max(1, max(map(len, strs), default=1))
    return _pad(strs, width), width


def _format_elements(flat: list[Any], dtype_name: str) -> tuple[list[str], int]:
    if dtype_name in _FLOAT_DTYPES:
        return _format_floats(flat, options.precision, options.sci_mode)
    return _format_others(flat)


# ---------------------------------------------------------------------------
# layout (torch._tensor_str._tensor_str_with_formatter / _vector_str)
# ---------------------------------------------------------------------------


def _summarize(data: "np.ndarray", edge: int) -> tuple["np.ndarray", list[bool]]:
    """Keep ``edge`` items at each end of every axis longer than ``2 * edge``.

    Returns the reduced array and, per axis, whether that axis was cut (so ``...``
    must be shown there). This is the data PyTorch both formats and measures.
    """
    cut = []
    for axis, n in enumerate(data.shape):
        if n > 2 * edge:
            keep = list(range(edge)) + list(range(n - edge, n))
            data = data.take(keep, axis=axis)
            cut.append(True)
        else:
            cut.append(False)
    return data, cut


def _layout(
    strs: list[str],
    shape: tuple[int, ...],
    cut: list[bool],
    width: int,
    edge: int,
    linewidth: int,
) -> str:
    """Nest the formatted elements into PyTorch's bracketed, wrapped text."""
    ndim = len(shape)
    # Elements are consumed in C order; ``pos`` is the next one to use.
    pos = 0

    def block(dim: int, indent: int) -> str:
        nonlocal pos
        n = shape[dim]
        if dim == ndim - 1:
            items = strs[pos : pos + n]
            pos += n
            if cut[dim]:
                items = items[:edge] + [" ..."] + items[edge:]
            per_line = max(1, (linewidth - indent) // (width + 2))
            if len(items) <= per_line:
                return "[" + ", ".join(items) + "]"
            lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
            return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
        parts = [block(dim + 1, indent + 1) for _ in range(n)]
        if cut[dim]:
            parts = parts[:edge] + ["..."] + parts[edge:]
        sep = "," + "\n" * (ndim - dim - 1) + " " * (indent + 1)
        return "[" + sep.join(parts) + "]"

    return block(0, _INDENT)


def _contents(data: "np.ndarray", dtype_name: str) -> str:
    """The bracketed body of a non-empty tensor (``_tensor_str``)."""
    edge = options.edgeitems
    summarize = data.size > options.threshold
    if data.ndim == 0:
        strs, _ = _format_elements([data.item()], dtype_name)
        return strs[0]
    if summarize and not edge:
        # PyTorch prints nothing but an ellipsis (and adds a size= suffix).
        return "[...]"
    shown, cut = _summarize(data, edge) if summarize else (data, [False] * data.ndim)
    strs, width = _format_elements(shown.ravel().tolist(), dtype_name)
    return _layout(strs, shown.shape, cut, width, edge, options.linewidth)


def _add_suffixes(body: str, suffixes: list[str]) -> str:
    """Append ``, suffix`` items, moving one to a new indented line when it won't fit.

    PyTorch measures the last line as two characters longer than it is; kept here.
    """
    out = [body]
    last_len = len(body) - body.rfind("\n") + 1
    for suffix in suffixes:
        if last_len + len(suffix) + 2 > options.linewidth:
            out.append(",\n" + " " * _INDENT + suffix)
            last_len = _INDENT + len(suffix)
        else:
            out.append(", " + suffix)
            last_len += len(suffix) + 2
    out.append(")")
    return "".join(out)


def tensor_repr(
    data: "np.ndarray",
    dtype_name: str,
    *,
    requires_grad: bool = False,
    grad_fn_name: str | None = None,
) -> str:
    """``repr(t)`` (= ``str(t)``) of a dense CPU tensor holding ``data`` as ``dtype_name``.

    Matches torch 2.13 ``torch._tensor_str._str`` under the current ``options``.
    ``grad_fn_name`` (e.g. ``"MulBackward0"``) adds ``grad_fn=<...>``; otherwise
    ``requires_grad`` adds ``requires_grad=True``.
    """
    suffixes = []
    if data.size == 0:
        body = "[]"
        if data.ndim != 1:
            suffixes.append("size=" + _shape_tuple_str(data.shape))
        if dtype_name != _DEFAULT_DTYPE:
            suffixes.append("dtype=" + dtype_repr(dtype_name))
    else:
        body = _contents(data, dtype_name)
        if not options.edgeitems:
            suffixes.append("size=" + _shape_tuple_str(data.shape))
        if dtype_name not in _IMPLICIT_DTYPES:
            suffixes.append("dtype=" + dtype_repr(dtype_name))
    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    return _add_suffixes(_PREFIX + body, suffixes)


def format_number_for_fstring(data: "np.ndarray", dtype_name: str, spec: str) -> str:
    """``format(t, spec)`` as ``Tensor.__format__`` does it.

    A 0-dim tensor formats its Python number (``.item()``: float for float dtypes,
    taken from the stored, e.g. float32, value; int for integer dtypes; bool for
    bool), so ``f"{t}"`` is ``5.0`` and ``f"{t:.2f}"`` is ``5.00``; an unsuitable
    spec raises the same error the Python number would. For any other tensor an
    empty spec gives ``str(t)`` (without autograd suffixes: callers that have them
    should use ``tensor_repr``) and a non-empty spec raises ``TypeError``.
    """
    if data.ndim == 0:
        return format(data.item(), spec)
    if spec:
        raise TypeError("unsupported format string passed to Tensor.__format__")
    return tensor_repr(data, dtype_name)


def one_line(data, dtype_name: str) -> str:
    """The numbers of ``tensor_repr`` on one line, without ``tensor(...)`` around them
    (``[3., 3.]``, ``15.``): how tables and graph labels show small tensors."""
    text = tensor_repr(data, dtype_name)
    if text.startswith("tensor("):
        text = text[len("tensor("):-1]
    return " ".join(text.split())
