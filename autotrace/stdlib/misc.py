"""``typing``, ``time``, ``__future__`` and a drawing-free ``matplotlib.pyplot``.

* ``typing``: the names scripts annotate with. Annotations are never evaluated by the
  interpreter; where a script evaluates one (``Vec = List[float]``, ``cast(...)``) it
  gets a :class:`TypingForm` whose repr is CPython's (``typing.List[float]``).
* ``time``: the clocks (``time``, ``perf_counter``, ``monotonic``, ``process_time`` and
  their ``_ns`` forms) and ``sleep``, which waits in short slices and ends at the run's
  time limit like any other statement.
* ``__future__``: every feature CPython 3.11 knows, accepted as a no-op (Python already
  behaves that way; ``annotations`` changes nothing because annotations are not
  evaluated).
* ``matplotlib`` / ``matplotlib.pyplot``: see :mod:`autotrace.stdlib.pyplot`.
"""

from __future__ import annotations

import time as _time

from ..interpreter.builtins import ScriptNamespace
from ..interpreter.limits import RT
from .collections_ import NAMED_TUPLE

_FUTURE = ("nested_scopes", "generators", "division", "absolute_import", "with_statement",
           "print_function", "unicode_literals", "barry_as_FLUFL", "generator_stop", "annotations")


_BUILTIN_ALIASES = frozenset({"List", "Dict", "Tuple", "Set", "FrozenSet"})


class TypingForm:
    """A ``typing`` special form or alias (``List``, ``Optional[torch.Tensor]``): a name,
    subscriptable, printable, nothing else (``cast`` and annotations accept anything)."""

    __slots__ = ("_text",)
    _script_attrs = frozenset()
    _script_type_name = "typing._SpecialForm"

    def __init__(self, text: str):
        self._text = text

    def __getitem__(self, args):
        if type(args) is not tuple:
            args = (args,)
        if len(args) > 64:
            raise TypeError("Too many arguments for a typing form in an autotrace script")
        return TypingForm(f"{self._text}[{', '.join(_type_repr(a) for a in args)}]")

    def __call__(self, *args, **kwargs):
        base = self._text.split("[", 1)[0]
        short = base.rsplit(".", 1)[-1]
        if short in _BUILTIN_ALIASES:
            raise TypeError(f"Type {short} cannot be instantiated; use {short.lower()}() instead")
        if short == "Any":
            raise TypeError("Any cannot be instantiated")
        raise TypeError(f"Cannot instantiate {base}")

    def __eq__(self, other):
        return type(other) is TypingForm and other._text == self._text

    def __hash__(self):
        return hash(self._text)

    def __or__(self, other):
        return TypingForm(f"{self._text} | {_type_repr(other)}")

    def __ror__(self, other):
        return TypingForm(f"{_type_repr(other)} | {self._text}")

    def __repr__(self):
        return self._text


def _type_repr(a) -> str:
    from ..interpreter import typeobj
    from ..interpreter.typeobj import name_of
    from ..interpreter.ops import safe_repr
    if a is None or a is type(None):
        return "None"
    if a is Ellipsis:
        return "..."
    if type(a) is list:
        return "[" + ", ".join(_type_repr(x) for x in a[:64]) + "]"
    if type(a) is TypingForm:
        return a._text
    if isinstance(a, type):
        q = typeobj.QUALIFIED.get(a)
        if q is not None:
            return q
        r = repr(a)
        if r.startswith("<class '") and r.endswith("'>"):
            r = r[8:-2]
            return r[9:] if r.startswith("builtins.") else r
    n = name_of(a)
    if n is not None:
        return n
    return safe_repr(a)


def _cast(typ, val, /):
    return val


def _identity_decorator(f, /):
    return f


def _typevar(name, *constraints, bound=None, covariant=False, contravariant=False):
    if type(name) is not str:
        raise TypeError("TypeVar name must be a string")
    return TypingForm(f"~{name}")


_TYPING_FORMS = ("List", "Dict", "Tuple", "Set", "FrozenSet", "Optional", "Union", "Any", "Callable",
                 "Sequence", "Iterable", "Iterator", "Mapping", "MutableMapping", "MutableSequence",
                 "Type", "Generator", "Literal", "Final", "ClassVar", "NoReturn", "Deque", "DefaultDict",
                 "OrderedDict", "Counter", "Hashable", "Sized", "Collection", "Container", "Reversible",
                 "SupportsFloat", "SupportsInt", "SupportsAbs", "Annotated", "Generic", "Protocol")


def make_typing() -> ScriptNamespace:
    members = {n: TypingForm(f"typing.{n}") for n in _TYPING_FORMS}
    members.update(TYPE_CHECKING=False, cast=_cast, overload=_identity_decorator,
                   no_type_check=_identity_decorator, final=_identity_decorator, TypeVar=_typevar,
                   Text=str, AnyStr=TypingForm("~AnyStr"), NamedTuple=NAMED_TUPLE)
    return ScriptNamespace("typing", members)


def _sleep(secs, /):
    """``time.sleep``: Python's argument errors; the wait ends at the run's deadline."""
    if type(secs) not in (int, float, bool):
        raise TypeError(f"'{type(secs).__name__}' object cannot be interpreted as an integer")
    if secs != secs:
        raise ValueError("Invalid value NaN (not a number)")
    if secs < 0:
        raise ValueError("sleep length must be non-negative")
    end = _time.monotonic() + min(float(secs), 1e9)
    while True:
        left = end - _time.monotonic()
        if left <= 0:
            return None
        _time.sleep(min(left, 0.05))
        RT.tick()


def make_time() -> ScriptNamespace:
    members = {n: getattr(_time, n) for n in ("time", "perf_counter", "monotonic", "process_time",
                                               "time_ns", "perf_counter_ns", "monotonic_ns",
                                               "process_time_ns")}
    members["sleep"] = _sleep
    return ScriptNamespace("time", members)


class _Feature:
    """A ``__future__`` feature: accepted, changes nothing."""

    __slots__ = ("_name",)
    _script_attrs = frozenset()
    _script_type_name = "__future__._Feature"

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"_Feature({self._name!r})"


def modules() -> dict:
    from . import pyplot
    plt = pyplot.make_module()
    return {
        "typing": make_typing(),
        "time": make_time(),
        "__future__": ScriptNamespace("__future__", {n: _Feature(n) for n in _FUTURE}),
        "matplotlib.pyplot": plt,
        "matplotlib": pyplot.InertModule("matplotlib", {"pyplot": plt, "use": pyplot.accept}),
    }
