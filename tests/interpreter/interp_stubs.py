"""Helpers and stub objects standing in for the engine: a tensor-like class, a torch namespace,
context managers. They follow the conventions the interpreter relies on
(``_script_attrs``, ``_script_setattrs``, ``_on_bind``, ``_script_context_manager``)."""

from __future__ import annotations

import textwrap

import pytest

from autotrace import site as site_mod
from autotrace.interpreter import (Limits, ScriptRejected, make_math_module,
                                   parse_script, run_program)


def _v(o):
    return o.value if isinstance(o, FakeTensor) else o


class FakeTensor:
    """A scalar/list 'tensor' that records where it was created and its names."""

    _script_attrs = frozenset({"value", "grad", "requires_grad", "item", "sum", "backward",
                               "names", "add_", "_version", "shape", "tolist", "register_hook",
                               "site", "hooks_run", "apply"})
    _script_setattrs = frozenset({"grad", "requires_grad"})

    def __init__(self, value, requires_grad=False):
        self.value = value
        self.grad = None
        self.requires_grad = requires_grad
        self.names = []
        self._version = 0
        self.site = site_mod.current
        self._hooks = []
        self.hooks_run = 0
        self.secret = "internal"

    def _on_bind(self, name):
        self.names.append(name)

    def __repr__(self):
        return f"tensor({self.value})"

    def __format__(self, spec):
        return format(self.value, spec)

    def __bool__(self):
        return bool(self.value)

    def __len__(self):
        return len(self.value)

    def __iter__(self):
        return iter([FakeTensor(v) for v in self.value])

    def __getitem__(self, k):
        return FakeTensor(self.value[k])

    def __setitem__(self, k, v):
        self.value[k] = _v(v)
        self._version += 1

    def _bin(self, o, f):
        return FakeTensor(f(self.value, _v(o)), self.requires_grad)

    def __add__(self, o):
        return self._bin(o, lambda a, b: a + b)

    def __radd__(self, o):
        return FakeTensor(_v(o) + self.value)

    def __sub__(self, o):
        return self._bin(o, lambda a, b: a - b)

    def __mul__(self, o):
        return self._bin(o, lambda a, b: a * b)

    def __rmul__(self, o):
        return FakeTensor(_v(o) * self.value)

    def __pow__(self, o):
        return self._bin(o, lambda a, b: a ** b)

    def __neg__(self):
        return FakeTensor(-self.value)

    def __lt__(self, o):
        return self.value < _v(o)

    def __eq__(self, o):
        return self.value == _v(o)

    __hash__ = object.__hash__

    def __iadd__(self, o):
        self.value = self.value + _v(o)
        self._version += 1
        return self

    def add_(self, o):
        return self.__iadd__(o)

    def item(self):
        return self.value

    def tolist(self):
        return list(self.value) if isinstance(self.value, list) else self.value

    @property
    def shape(self):
        return (len(self.value),) if isinstance(self.value, list) else ()

    def sum(self):
        return FakeTensor(sum(self.value) if isinstance(self.value, list) else self.value)

    def register_hook(self, fn):
        self._hooks.append(fn)

    def backward(self):
        g = 1.0
        for h in self._hooks:
            r = h(g)
            self.hooks_run += 1
            if r is not None:
                g = r
        self.grad = g

    def apply(self, fn, *args):
        """Engine code calling a script function (like jacobian(f, x))."""
        return fn(self, *args)

    def hidden_method(self):
        return "should not be reachable"


class NoGrad:
    _script_context_manager = True
    active = 0
    log = []

    def __enter__(self):
        NoGrad.active += 1
        NoGrad.log.append("enter")
        return "no-grad-token"

    def __exit__(self, et, e, tb):
        NoGrad.active -= 1
        NoGrad.log.append(("exit", et.__name__ if et else None))
        return False


class Suppressor:
    _script_context_manager = True

    def __enter__(self):
        return self

    def __exit__(self, et, e, tb):
        return True


class NotAllowedCM:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


class TorchNS:
    """A namespace whose members the guard reads through the type's ``_script_getattr``
    hook (like the torch_api's); other instance attributes stay unreachable."""

    def __init__(self, name, attrs):
        self.__dict__.update(attrs)
        self._members = dict(attrs)
        self._name = name
        self.internal_helper = lambda: "leak"
        # an instance-level allow-list is never trusted by the guard
        self._script_attrs = frozenset(attrs) | {"internal_helper"}

    def _script_getattr(self, name):
        from autotrace.interpreter.classes import NOT_FOUND
        return self._members.get(name, NOT_FOUND)


def tensor(value, requires_grad=False):
    return FakeTensor(value, requires_grad)


def engine_bug():
    raise KeyError("engine internal state")


def engine_attr_bug():
    raise AttributeError("engine forgot an attribute")


def raises_runtime(msg="boom"):
    raise RuntimeError(msg)


def call_twice(fn, x):
    return fn(fn(x))


F = TorchNS("torch.nn.functional", {"relu": lambda t: FakeTensor(max(_v(t), 0))})
NN = TorchNS("torch.nn", {"functional": F})
UTILS = TorchNS("torch.nn.utils", {"clip_grad_norm_": lambda ps, max_norm: 5.0})
TORCH = TorchNS("torch", {
    "tensor": tensor, "no_grad": NoGrad, "Tensor": FakeTensor, "nn": NN,
    "suppress": Suppressor, "not_a_cm": NotAllowedCM, "engine_bug": engine_bug,
    "engine_attr_bug": engine_attr_bug, "raises_runtime": raises_runtime,
    "call_twice": call_twice, "float32": "float32",
})

MODULES = {"torch": TORCH, "torch.nn": NN, "torch.nn.functional": F,
           "torch.nn.utils": UTILS, "math": make_math_module()}
#: the same standard-library modules the CLI gives scripts (autotrace's own, engine-free)
MODULES.update({k: v for k, v in __import__("autotrace.stdlib", fromlist=["modules"]).modules().items()})


def run(src, *, predefined=None, limits=None, modules=None):
    program = parse_script(textwrap.dedent(src), "t.py")
    return run_program(program, modules=MODULES if modules is None else modules,
                       predefined=predefined, limits=limits or Limits())


def out(src, **kw):
    """stdout of a script that must succeed."""
    r = run(src, **kw)
    assert r.error is None, r.error
    return r.stdout


def err(src, **kw):
    """The run-time ScriptError of a script that must fail while running."""
    r = run(src, **kw)
    assert r.error is not None, r.stdout
    return r.error


def reject(src):
    """The parse-time ScriptError of a script that must be refused."""
    with pytest.raises(ScriptRejected) as e:
        parse_script(textwrap.dedent(src) if isinstance(src, str) else src, "t.py")
    assert e.value.error.phase == "parse"
    return e.value.error
