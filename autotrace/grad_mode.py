"""Grad mode: whether ops record a graph (``torch.no_grad`` / ``enable_grad`` /
``set_grad_enabled``). Matches torch 2.13: the objects are context managers, a bare
``torch.no_grad()`` call does nothing, and ``set_grad_enabled(b)`` takes effect at once
when called as a function."""

from __future__ import annotations

enabled = True
inference = False  # inside torch.inference_mode(): new tensors are inference tensors


def is_grad_enabled() -> bool:
    return enabled


class _GradModeContext:
    _script_context_manager = True
    _script_attrs = frozenset()
    _mode = True

    def __enter__(self):
        global enabled
        self._prev = enabled
        enabled = self._mode
        return None

    def __exit__(self, *exc):
        global enabled
        enabled = self._prev
        return False

    def __repr__(self) -> str:
        return f"<torch.autograd.grad_mode.{type(self).__name__} object at 0x{id(self):x}>"


class no_grad(_GradModeContext):
    """``with torch.no_grad():`` — ops inside record no graph; results have requires_grad=False."""
    _mode = False


class enable_grad(_GradModeContext):
    """``with torch.enable_grad():`` — turns recording back on inside ``no_grad``."""
    _mode = True


class set_grad_enabled(_GradModeContext):
    """``torch.set_grad_enabled(b)``: sets grad mode now; as a context manager restores it on exit."""

    def __init__(self, mode: bool):
        global enabled
        self._prev = enabled
        self._mode = bool(mode)
        enabled = self._mode

    def __enter__(self):
        return None


def is_inference_mode_enabled() -> bool:
    return inference


class inference_mode(no_grad):
    """``torch.inference_mode()``: ``no_grad`` whose new tensors are inference tensors
    (``is_inference()``); outside the mode they cannot be saved for backward, updated in
    place or made to require grad (torch 2.13's errors)."""

    def __init__(self, mode: bool = True):
        self._mode = not mode
        self._inference = bool(mode)

    def __enter__(self):
        global inference
        self._prev_inference = inference
        inference = self._inference
        return super().__enter__()

    def __exit__(self, *exc):
        global inference
        inference = self._prev_inference
        return super().__exit__(*exc)
