"""``type(x)``, ``x.__class__``, ``__name__``, ``isinstance`` and ``issubclass`` for scripts.

``type(x)`` never hands a script a Python class it could not already name:

* builtin value types (``int``, ``str``, ``list``, ...) and the exception classes are the
  real ones (they are script builtins; calls are redirected to the size-limited
  constructors);
* classes the torch namespace exposes (``torch.Tensor``, ``nn.Linear``, ``nn.Parameter``)
  are the exposed objects themselves, so ``type(x) is torch.Tensor`` holds;
* a script instance's type is its :class:`~autotrace.interpreter.classes.ScriptClass`;
* anything else (a script function, a bound method, a grad_fn node, a hook handle, a
  namespace) gets a :class:`TypeName`: an opaque object with a ``__name__`` and torch's
  or Python's repr, that cannot be called, subclassed or looked into.
"""

from __future__ import annotations

import builtins as _py

from .classes import BoundMethod, ScriptClass, ScriptObject, StaticMethod, ClassMethod, Property, Super
from .values import BoundBuiltin, CaughtException, ScriptFunction, ScriptGenerator
from .generators import GeneratorObject

_BUILTIN_TYPES = frozenset({int, float, bool, str, list, tuple, dict, set, frozenset, complex,
                            range, type(None), slice, object, type})

#: Python classes scripts may get back from type(): filled from the namespaces each run
EXPOSED: set = set()

#: torch's module path of the classes autotrace exposes, for ``<class '...'>``
QUALIFIED: dict = {}

_DISPLAY = {ScriptFunction: "function", ScriptGenerator: "generator", GeneratorObject: "generator",
            BoundBuiltin: "builtin_function_or_method",
            BoundMethod: "method", StaticMethod: "staticmethod", ClassMethod: "classmethod",
            Property: "property", Super: "super", CaughtException: None}


class TypeName:
    """The type of a value whose Python class is internal: a name and a repr only
    (scripts see it as a ``type``)."""

    __slots__ = ("name", "qualified")
    _script_attrs = frozenset()

    def __init__(self, name: str, qualified: str):
        self.name = name
        self.qualified = qualified

    def __call__(self, *args, **kwargs):
        raise TypeError(f"cannot create '{self.qualified}' instances")

    def __repr__(self):
        return f"<class '{self.qualified}'>"


_NAMES: dict = {}
_FUNCTION = type(lambda: 0)


def _type_name(key, name: str, qualified: str | None = None) -> TypeName:
    t = _NAMES.get(key)
    if t is None:
        t = _NAMES[key] = TypeName(name, qualified or name)
    return t


def type_of(x):
    """What ``type(x)`` returns in a script (see the module docstring)."""
    if isinstance(x, ScriptObject):
        return x._cls
    tx = type(x)
    if tx is CaughtException:
        return type_of(x._exc)
    if tx in _BUILTIN_TYPES or tx in EXPOSED:
        return tx
    if isinstance(x, BaseException):
        b = getattr(_py, tx.__name__, None)     # the interpreter's NameError, the engine's TypeError
        if isinstance(b, type) and issubclass(tx, b):
            return b
        q = getattr(tx, "_script_type_name", None) or tx.__name__
        return _type_name(tx, q.rsplit(".", 1)[-1], q)
    if tx is ScriptClass or isinstance(x, type) or tx is TypeName:
        return type
    disp = _DISPLAY.get(tx)
    if disp is not None:
        # generator functions' and generator expressions' results share one type
        return _type_name(ScriptGenerator if tx is GeneratorObject else tx, disp)
    if tx is _FUNCTION and getattr(x, "__module__", None) == "autotrace.interpreter.builtins":
        return _type_name("builtin", "builtin_function_or_method")
    node = getattr(tx, "_script_node_type", None)
    if node is not None:
        n = node(x)
        return _type_name(("node", n), n, n)
    q = QUALIFIED.get(tx)
    if q is None:
        q = getattr(tx, "_script_type_name", None)
    if q is None:
        if callable(x) and tx.__module__ != "builtins" and not hasattr(tx, "_script_attrs"):
            return _type_name("function", "function")
        q = tx.__name__
    short = q.rsplit(".", 1)[-1]
    return _type_name(tx, short, q)


def name_of(o):
    """``o.__name__`` for scripts: the names of functions and classes; None otherwise."""
    to = type(o)
    if to is ScriptFunction:
        return o._code.name
    if to is ScriptClass:
        return o.name
    if to is TypeName:
        return o.name
    if to is BoundMethod:
        return name_of(o._f)
    if to is BoundBuiltin:
        return o._name
    if isinstance(o, type):
        if o in _BUILTIN_TYPES or o in EXPOSED or issubclass(o, BaseException):
            q = QUALIFIED.get(o) or getattr(o, "_script_type_name", None) or o.__name__
            return q.rsplit(".", 1)[-1]
        return None
    if callable(o) and not isinstance(o, ScriptObject):
        n = getattr(o, "__name__", None)
        if type(n) is str:
            return n
    return None


def lib_init(cls):
    """``Base.__init__`` for an allowed library base class (``nn.Module.__init__``)."""
    from .classes import _LibInit
    if cls in EXPOSED and allowed_base(cls):
        return _LibInit(cls)
    return None


def allowed_base(b) -> bool:
    """Library classes a script class may derive from: those that declare
    ``_script_subclassable = True`` (Module and its layers, autograd.Function) and the
    exception classes."""
    if b is object:
        return True
    if not isinstance(b, type):
        return False
    if issubclass(b, Exception) and b.__module__ == "builtins":
        return True
    return b.__dict__.get("_script_subclassable", getattr(b, "_script_subclassable", False)) is True


def _flatten(ci):
    from .ops import deep_check
    if type(ci) is tuple:
        deep_check(ci)
        out = []
        stack = list(reversed(ci))
        while stack:
            c = stack.pop()
            if type(c) is tuple:
                stack.extend(reversed(c))
            else:
                out.append(c)
        return out
    return [ci]


def _check_class(c, fn: str):
    if type(c) in (ScriptClass, TypeName) or isinstance(c, type):
        return
    raise TypeError(f"{fn}() arg 2 must be a type, a tuple of types, or a union")


def isinstance_(obj, classinfo, /):
    """``isinstance`` over script classes, exposed classes and type names."""
    if type(obj) is CaughtException:
        obj = obj._exc
    for c in _flatten(classinfo):
        _check_class(c, "isinstance")
        tc = type(c)
        if tc is ScriptClass:
            if isinstance(obj, ScriptObject) and c in obj._cls.mro:
                return True
        elif tc is TypeName:
            if type_of(obj) is c:
                return True
        elif c is type:
            if isinstance(obj, type) or type(obj) in (ScriptClass, TypeName):
                return True
        elif _py.isinstance(obj, c):
            return True
    return False


def issubclass_(cls, classinfo, /):
    if not (type(cls) in (ScriptClass, TypeName) or isinstance(cls, type)):
        raise TypeError("issubclass() arg 1 must be a class")
    for c in _flatten(classinfo):
        _check_class(c, "issubclass")
        if type(cls) is ScriptClass:
            if cls.is_subclass(c):
                return True
        elif type(cls) is TypeName:
            if cls is c or c is object:
                return True
        elif type(c) is ScriptClass or type(c) is TypeName:
            continue
        elif _py.issubclass(cls, c):
            return True
    return False


def type_repr(t) -> str | None:
    """``<class 'torch.Tensor'>`` for exposed classes (None: use Python's repr)."""
    if isinstance(t, type):
        q = QUALIFIED.get(t) or t.__dict__.get("_script_type_name")
        if q is not None:
            return f"<class '{q}'>"
    return None


def _register():
    from .values import DISPLAY_NAMES
    DISPLAY_NAMES[TypeName] = "type"


_register()
