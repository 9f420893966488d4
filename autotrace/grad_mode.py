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
    """Also a decorator, as in torch 2.13: ``@torch.no_grad()`` (an instance called with
    the function) and ``@torch.no_grad`` (the class called with it) both give a function
    that runs its body in the mode."""

    _script_context_manager = True
    _script_attrs = frozenset()
    _mode = True

    def __new__(cls, *args, **kwargs):
        if cls._bare_decorator and len(args) == 1 and not kwargs and callable(args[0]) \
                and not isinstance(args[0], bool):
            return cls()(args[0])
        return super().__new__(cls)

    _bare_decorator = True

    def __call__(self, fn):
        if not callable(fn):
            raise TypeError(f"'{type(self).__name__}' object is not callable")
        return GradModeFunction(fn, self._clone)

    def _clone(self):
        return type(self)()

    def __enter__(self):
        global enabled
        self._prev = enabled
        enabled = self._mode
        if not self._mode and self._prev:
            from . import record
            record.event("no_grad", manager=type(self).__name__)
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
    """``torch.set_grad_enabled(b)``: sets grad mode now; as a context manager restores it
    on exit; as a decorator (``@torch.set_grad_enabled(False)``) it restores the mode at
    once and runs the function in mode ``b`` (torch 2.13)."""

    _bare_decorator = False

    def __init__(self, mode: bool):
        global enabled
        self._prev = enabled
        self._mode = bool(mode)
        enabled = self._mode

    def __enter__(self):
        return None

    def __call__(self, fn):
        global enabled
        enabled = self._prev
        return super().__call__(fn)

    def _clone(self):
        ctx = object.__new__(set_grad_enabled)
        ctx._mode = self._mode
        return _Entering(ctx)


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

    def _clone(self):
        return inference_mode(not self._mode)


class _Entering:
    """A set_grad_enabled context for a decorated call: sets the mode on enter."""

    def __init__(self, ctx):
        self.ctx = ctx

    def __enter__(self):
        global enabled
        self.prev = enabled
        enabled = self.ctx._mode

    def __exit__(self, *exc):
        global enabled
        enabled = self.prev
        return False


class GradModeFunction:
    """A function decorated with a grad-mode manager: each call runs in a fresh context."""

    __slots__ = ("_fn", "_make", "__weakref__")
    _script_attrs = frozenset()
    _script_binds = True     # a method when it is a class attribute, like the function it wraps

    def __init__(self, fn, make):
        self._fn = fn
        self._make = make

    @property
    def __name__(self):
        from .interpreter.typeobj import name_of
        return name_of(self._fn) or "function"

    def __call__(self, *args, **kwargs):
        ctx = self._make()
        ctx.__enter__()
        try:
            return self._fn(*args, **kwargs)
        finally:
            ctx.__exit__(None, None, None)

    def __repr__(self):
        return f"<function {self.__name__} at 0x{id(self):x}>"
