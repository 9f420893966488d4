"""A ``matplotlib.pyplot`` that draws nothing.

Tutorial scripts often end by plotting their loss curve. autotrace has no display and
writes no files for a script, so every pyplot call is accepted and does nothing: the
functions return an inert :class:`Inert` object that accepts any attribute, call,
index and iteration (``fig, ax = plt.subplots()``, ``axes[0, 1].plot(...)``). The run
records that the script plotted (:func:`used`), and the command line says once, on
stderr, that the plot was not drawn; nothing is added to the run's warnings, which stay
PyTorch's.
"""

from __future__ import annotations

from ..interpreter.builtins import ScriptNamespace
from ..interpreter.classes import NOT_FOUND

_used = [False]


def reset() -> None:
    _used[0] = False


def used() -> bool:
    """Whether the last run called matplotlib."""
    return _used[0]


class Inert:
    """A plot object that does nothing: attributes and calls give inert objects. One that
    stands for a sequence (the lines ``plot`` returns, ``hist``'s three results, an axes
    grid) iterates and unpacks as that many: ``n`` items, each a grid row of ``inner``."""

    __slots__ = ("_n", "_inner")
    _script_type_name = "matplotlib.figure.Figure"

    def __init__(self, n: int = 0, inner: int = 0):
        self._n = n
        self._inner = inner

    def _script_getattr(self, name):
        if name.startswith("_"):
            return NOT_FOUND
        if name in ("flat", "ravel", "flatten") and self._n:
            whole = Inert(self._n * max(self._inner, 1))
            return whole if name == "flat" else (lambda *a, **k: whole)
        if name == "shape" and self._n:
            return (self._n, self._inner) if self._inner else (self._n,)
        return Inert()

    def _script_setattr(self, name, value):
        return None

    def __call__(self, *args, **kwargs):
        _used[0] = True
        return Inert()

    def __getitem__(self, key):
        return Inert()

    def __setitem__(self, key, value):
        return None

    def __iter__(self):
        return iter([Inert(self._inner) for _ in range(self._n)])

    def __len__(self):
        return self._n

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __repr__(self):
        return "<matplotlib stand-in: autotrace draws no plots>"

    _script_context_manager = True


def accept(*args, **kwargs):
    """Any pyplot function: records the use, draws nothing."""
    _used[0] = True
    return Inert()


def _subplots(nrows=1, ncols=1, *args, **kwargs):
    """``fig, ax``; with more than one row or column ``ax`` is the array of axes
    matplotlib gives (1-D for one row or column, rows of ``ncols`` otherwise)."""
    _used[0] = True
    if not (type(nrows) is int and type(ncols) is int) or nrows * ncols <= 1:
        return Inert(), Inert()
    nrows, ncols = min(nrows, 1000), min(ncols, 1000)
    if nrows > 1 and ncols > 1:
        return Inert(), Inert(nrows, ncols)
    return Inert(), Inert(max(nrows, ncols))


def _returning(n: int):
    """A pyplot function whose result unpacks as ``n`` objects (``line, = plt.plot(...)``,
    ``counts, bins, patches = plt.hist(...)``)."""
    def f(*args, **kwargs):
        _used[0] = True
        return Inert(n)
    return f


class InertModule(ScriptNamespace):
    """``matplotlib`` and ``matplotlib.pyplot``: every public name is an :class:`Inert`
    (``plt.plot(...)``, ``plt.rcParams["figure.figsize"] = ...``, ``plt.style.use(...)``)."""

    __slots__ = ()

    def _script_getattr(self, name):
        v = self._members.get(name, NOT_FOUND)
        if v is NOT_FOUND and not name.startswith("_"):
            return Inert()
        return v

    def _script_setattr(self, name, value):
        if name.startswith("_"):
            super()._script_setattr(name, value)


def make_module() -> ScriptNamespace:
    return InertModule("matplotlib.pyplot", {"subplots": _subplots, "plot": _returning(1), "semilogy": _returning(1),
                                             "semilogx": _returning(1), "loglog": _returning(1),
                                             "hist": _returning(3)})
