"""Anomaly mode (``torch.autograd.detect_anomaly`` / ``set_detect_anomaly``), as torch 2.13:
while it is on, every new graph node remembers where the script made it
(``node.metadata['traceback_']``), and a backward function that returns nan raises
``RuntimeError: Function 'XBackward0' returned nan values in its 0th output.`` after a
UserWarning naming the forward line that made the node.
"""

from __future__ import annotations

enabled = False
check_nan = True
script = "<script>"  # the script's file name, for the warning's traceback

ENABLED_WARNING = ("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                   "enabled for debugging.")


def is_anomaly_enabled() -> bool:
    return enabled


def is_anomaly_check_nan_enabled() -> bool:
    return check_nan


class _AnomalyMode:
    _script_context_manager = True
    _script_attrs = frozenset()

    def __enter__(self):
        global enabled, check_nan
        self._prev = (enabled, check_nan)
        enabled, check_nan = self._mode, self._check_nan
        return None

    def __exit__(self, *exc):
        global enabled, check_nan
        enabled, check_nan = self._prev
        return False


class detect_anomaly(_AnomalyMode):
    """``with torch.autograd.detect_anomaly():`` — warns that it slows things down."""

    def __init__(self, check_nan: bool = True):
        from . import diagnostics
        self._mode, self._check_nan = True, bool(check_nan)
        diagnostics.warn(ENABLED_WARNING)

    def __repr__(self) -> str:
        return f"<torch.autograd.anomaly_mode.detect_anomaly object at 0x{id(self):x}>"


class set_detect_anomaly(_AnomalyMode):
    """``torch.autograd.set_detect_anomaly(mode, check_nan=True)``: takes effect at once;
    as a context manager it restores the previous mode on exit."""

    def __init__(self, mode: bool, check_nan: bool = True):
        g = globals()
        self._prev = (g["enabled"], g["check_nan"])
        self._mode, self._check_nan = bool(mode), bool(check_nan)
        g["enabled"], g["check_nan"] = self._mode, self._check_nan

    def __enter__(self):
        return None

    def __repr__(self) -> str:
        return f"<torch.autograd.anomaly_mode.set_detect_anomaly object at 0x{id(self):x}>"


def forward_trace(site) -> list[str]:
    """What ``metadata['traceback_']`` holds for a node made at ``site``."""
    if site is None:
        return []
    return [f'  File "{script}", line {site.line}, in <module>\n    {site.statement.strip()}\n']


def check_outputs(fn, outs) -> None:
    """Raise torch's anomaly-mode error if a backward output of node ``fn`` has nan."""
    import numpy as np
    for i, g in enumerate(outs):
        if g is None or g._data.dtype.kind != "f":
            continue
        if np.isnan(g._data).any():
            from . import diagnostics
            name = fn.name()
            tb = "".join(fn.metadata.get("traceback_", ()))
            diagnostics.warn(f"Error detected in {name}. Traceback of forward call that caused the error:\n{tb}")
            raise RuntimeError(f"Function '{name}' returned nan values in its {i}th output.")


def reset() -> None:
    global enabled, check_nan
    enabled, check_nan = False, True
