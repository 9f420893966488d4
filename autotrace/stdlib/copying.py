"""``copy.copy`` and ``copy.deepcopy`` for scripts, over the values scripts can hold.

``deepcopy`` copies builtin containers (and collections' classes, namedtuple records),
script instances, ``nn.Module``s (script subclasses included), optimizers and LR
schedulers attribute by attribute with a memo (shared objects stay shared, cycles
close), and tensors through ``Tensor.__deepcopy__``: a new leaf with copied data and
grad, or PyTorch's RuntimeError for a non-leaf. Functions, classes, modules, dtypes and
other immutable or opaque objects are returned as they are; generators raise
CPython's TypeError (CPython copies functions
and classes atomically too). Depth is bounded by Python's recursion limit (a
LimitError), size by the work counted per copied element.
"""

from __future__ import annotations

from collections import Counter, OrderedDict, defaultdict, deque

from ..interpreter.builtins import ScriptNamespace
from ..interpreter.classes import ScriptInstance
from ..interpreter.generators import GeneratorObject
from ..interpreter.limits import RT

_ATOMIC = frozenset({int, float, bool, complex, str, type(None), range, slice, type(Ellipsis)})
#: generators cannot be copied (CPython: TypeError, "cannot pickle 'generator' object")
_GENERATORS = (GeneratorObject,)


def _copyable_object(x) -> bool:
    from ..torch_api.module import Module
    from ..torch_api.optim import Optimizer
    if isinstance(x, (Module, Optimizer)):
        return True
    try:
        from ..torch_api.lr_scheduler import LRScheduler
    except ImportError:  # pragma: no cover
        return False
    return isinstance(x, LRScheduler)


def _tensor_type():
    from ..tensor import Tensor
    return Tensor


def deepcopy(x, memo=None):
    """``copy.deepcopy(x)`` (see the module docstring)."""
    if memo is None:
        memo = {}
    elif type(memo) is not dict:
        raise TypeError("memo must be a dict")
    keep = []
    return _deep(x, memo, keep)


def _deep(x, memo, keep):
    t = type(x)
    if t in _ATOMIC:
        return x
    i = id(x)
    if i in memo:
        return memo[i]
    RT.charge(1)
    keep.append(x)
    if t is list:
        y = []
        memo[i] = y
        y.extend(_deep(v, memo, keep) for v in x)
        return y
    if t is tuple or (isinstance(x, tuple) and hasattr(t, "_fields")):
        items = [_deep(v, memo, keep) for v in x]
        if i in memo:       # a cycle through a list inside the tuple
            return memo[i]
        if all(a is b for a, b in zip(items, x)):
            y = x
        else:
            y = tuple(items) if t is tuple else tuple.__new__(t, items)
        memo[i] = y
        return y
    if t in (dict, OrderedDict, Counter, defaultdict):
        y = defaultdict(x.default_factory) if t is defaultdict else t()
        memo[i] = y
        for k, v in x.items():
            y[_deep(k, memo, keep)] = _deep(v, memo, keep)
        return y
    if t is set or t is frozenset:
        items = [_deep(v, memo, keep) for v in x]
        y = t(items)
        memo[i] = y
        return y
    if t is deque:
        y = deque(maxlen=x.maxlen)
        memo[i] = y
        y.extend(_deep(v, memo, keep) for v in x)
        return y
    if isinstance(x, _tensor_type()):
        y = x.__deepcopy__(memo)
        memo[i] = y
        return y
    if t is ScriptInstance:
        y = ScriptInstance(x._cls)
        memo[i] = y
        y._sdict = _deep(x._sdict, memo, keep)
        return y
    if isinstance(x, ScriptNamespace):
        raise TypeError("cannot pickle 'module' object")
    if t in _GENERATORS:
        raise TypeError("cannot pickle 'generator' object")
    if _copyable_object(x):
        y = object.__new__(t)
        memo[i] = y
        d = object.__getattribute__(x, "__dict__")
        yd = object.__getattribute__(y, "__dict__")
        for k, v in d.items():
            yd[k] = _deep(v, memo, keep)
        return y
    return x


def copy(x):
    """``copy.copy(x)``: a shallow copy of containers, script instances and library objects."""
    t = type(x)
    if t in _ATOMIC or t is tuple or t is frozenset:
        return x
    if t is list:
        RT.charge(len(x))
        return list(x)
    if t in (dict, OrderedDict, Counter, set, deque):
        RT.charge(len(x))
        return x.copy()
    if t is defaultdict:
        RT.charge(len(x))
        return defaultdict(x.default_factory, x)
    if t is ScriptInstance:
        y = ScriptInstance(x._cls)
        y._sdict = dict(x._sdict)
        return y
    if isinstance(x, _tensor_type()):
        return x.__deepcopy__({})
    if t in _GENERATORS:
        raise TypeError("cannot pickle 'generator' object")
    if _copyable_object(x):
        return _shallow_object(x)
    return x


def _shallow_object(x):
    t = type(x)
    y = object.__new__(t)
    try:
        d = object.__getattribute__(x, "__dict__")
        object.__getattribute__(y, "__dict__").update(d)
    except AttributeError:  # pragma: no cover - the copyable library objects have a __dict__
        pass
    return y


def make_module() -> ScriptNamespace:
    """The ``copy`` namespace."""
    return ScriptNamespace("copy", {"copy": copy, "deepcopy": deepcopy})
