"""numpy's print options, per run: ``np.set_printoptions`` changes the script's own
options, never the process's, and printing is bounded by the sequence limit."""

from __future__ import annotations

import numpy as np

_DEFAULT = dict(precision=8, threshold=1000, edgeitems=3, linewidth=75, suppress=False)
_options = dict(_DEFAULT)


def reset() -> None:
    _options.clear()
    _options.update(_DEFAULT)


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     suppress=None, sign=None, floatmode=None):
    """numpy's ``set_printoptions`` for the options of plain numbers; sizes are bounded
    (precision and edgeitems at most 100, linewidth at most 10,000)."""
    new = dict(_options)
    for name, value, top in (("precision", precision, 100), ("threshold", threshold, None),
                             ("edgeitems", edgeitems, 100), ("linewidth", linewidth, 10_000)):
        if value is None:
            continue
        if type(value) is not int:
            raise TypeError(f"{name} must be an integer")   # numpy's message for precision
        if value < 0:
            raise ValueError(f"{name} must be >= 0")
        if top is not None and value > top:
            from .values import english
            raise ValueError(english("error.numpy_printoption", name=name, value=value, top=top))
        new[name] = value
    if suppress is not None:
        new["suppress"] = bool(suppress)
    if sign is not None:
        if sign not in ("-", "+", " "):
            raise ValueError("sign option must be one of ' ', '+', or '-'")
        new["sign"] = sign
    if floatmode is not None:
        if floatmode not in ("fixed", "unique", "maxprec", "maxprec_equal"):
            raise ValueError("floatmode option must be one of 'fixed', 'unique', 'maxprec', 'maxprec_equal'")
        new["floatmode"] = floatmode
    _options.clear()
    _options.update(new)


def get_printoptions() -> dict:
    return dict(_options)


def format_array(a: np.ndarray, how) -> str:
    """``repr(a)`` or ``str(a)`` under the run's options; an array printed whole must fit
    the sequence limit (numpy builds the text before the interpreter could count it)."""
    from ..interpreter.limits import RT, seq_limit
    shown = a.size
    if a.size > _options["threshold"]:
        shown = 1
        for d in a.shape:
            shown *= min(d, 2 * _options["edgeitems"] + 1)
    cost = shown * (_options["precision"] + 8)
    if cost > RT.max_seq:
        raise seq_limit(cost, "printing this array")
    with np.printoptions(**_options):
        return how(a)
