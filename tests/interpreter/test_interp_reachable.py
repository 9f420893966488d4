"""Walk every object a script can reach from the real torch namespaces and from the
objects a script makes (tensors, layers, its own classes and modules, custom Functions,
nodes, hooks), through the guard, and check that no private, dunder or callable-internal
attribute is reachable and that ``type()`` never hands out an internal class. The guard's
allow-lists live on types: nothing stored on an instance (a crafted ``nn.Sequential``
key, an attribute named ``_script_attrs``) widens them."""

from __future__ import annotations

import pytest

from autotrace.interpreter import parse_script, run_program
from autotrace.interpreter.classes import READABLE_DUNDERS, ScriptClass
from autotrace.interpreter.guard import get_attr, policy
from autotrace.interpreter.typeobj import EXPOSED, TypeName, type_of

torch_api = pytest.importorskip("autotrace.torch_api")

SCRIPT = """
import torch
import torch.nn as nn
import torch.nn.functional as F

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.register_buffer("b", torch.zeros(1))
        self.plain = [1, 2]
    def forward(self, x):
        return self.fc(x)

class Sq(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        ctx.k = 2
        return x * x
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 2 * x

class Plain:
    def m(self):
        return 1
    @property
    def p(self):
        return 2

net = Net()
seq = nn.Sequential(nn.Linear(2, 2), nn.ReLU())
x = torch.ones(2, requires_grad=True)
y = Sq.apply(x)
z = net(y).sum()
h = x.register_hook(lambda g: g)
z.backward()
node = z.grad_fn
plain = Plain()
bound = plain.m
sd = net.state_dict()
keys = net.load_state_dict(sd)
nograd = torch.no_grad()

import numpy as np
arr = np.ones((2, 2))
total = arr.sum()
f32 = np.float32(1.5)
i64 = np.int64(3)
anyb = (arr > 0).any()
rs = np.random.RandomState(0)
rng = np.random.default_rng(0)
dt = arr.dtype
shared = x.detach().numpy()

import warnings
catcher = warnings.catch_warnings(record=True)
with catcher as caught:
    warnings.warn("walked")
caught_one = caught[0]
"""

#: private names scripts may read (torch's own public-by-convention attributes)
ALLOWED_PRIVATE = ("_version", "_saved_", "_sequence_nr", "_base", "_is_view", "_grad_fn", "_backward_hooks", "_output_nr",
                   # torch's own underscore names that tutorials call (nn.init's fan helper, the
                   # scheduler base's old alias): plain functions/classes of the namespace
                   "_calculate_fan_in_and_fan_out", "_LRScheduler")
PROBES = ["__dict__", "__class__", "__globals__", "__code__", "__closure__", "__self__", "__func__",
          "__subclasses__", "__bases__", "__mro__", "__init__", "__getattribute__", "__reduce__",
          "_params", "_modules", "_buffers", "_sdict", "_cls", "_members", "_script_attrs", "_code",
          "_env", "_exc", "_obj", "_impl", "_f", "_self", "_fn", "_node", "_saved", "_data", "_grad",
          "op", "ns", "mro", "lib_base", "f", "fget", "cls", "gi_frame", "tb_frame", "f_globals"]


def _names(o):
    p = policy(type(o))
    names = set(p.read) | set(p.lib_read) | set(p.props) | set(p.methods)
    for reg in ("_members", "_params", "_buffers", "_modules", "_sdict"):
        try:
            d = object.__getattribute__(o, reg)
        except Exception:
            continue
        if isinstance(d, dict):
            names |= set(d)
    return names | set(PROBES)


def _objects():
    r = run_program(parse_script(SCRIPT, "walk.py"), modules=torch_api.modules())
    assert r.error is None, r.error
    return list(torch_api.modules().values()) + list(r.globals.values())


def _allowed_type(t) -> bool:
    return type(t) in (ScriptClass, TypeName) or t in EXPOSED or getattr(t, "__module__", "") == "builtins"


def test_no_private_dunder_or_internal_attribute_is_reachable():
    seen = set()
    frontier = _objects()
    visited = 0
    for depth in range(3):
        nxt = []
        for o in frontier:
            if id(o) in seen or isinstance(o, (int, float, str, bool)) or o is None:
                continue
            seen.add(id(o))
            visited += 1
            assert _allowed_type(type_of(o)), (o, type_of(o))
            for name in sorted(_names(o)):
                try:
                    v = get_attr(o, name)
                except (AttributeError, RuntimeError, TypeError, ValueError, LookupError):
                    continue
                dunder = name.startswith("__") and name.endswith("__")
                if dunder:
                    assert name in READABLE_DUNDERS, (type(o), name)
                elif name.startswith("_"):
                    in_registry = any(name in (getattr(o, "__dict__", {}).get(reg) or {})
                                      for reg in ("_params", "_buffers", "_modules", "_sdict"))
                    assert name.startswith(ALLOWED_PRIVATE) or in_registry, (type(o), name)
                assert type(v).__name__ not in ("module", "frame", "code", "traceback", "cell", "mappingproxy"), \
                    (type(o), name, type(v))
                if type(v) is type:
                    assert _allowed_type(v), (type(o), name, v)
                nxt.append(v)
        frontier = nxt
    assert visited > 200


@pytest.mark.parametrize("src, message", [
    ("import torch.nn as nn\ns = nn.Sequential({'_script_attrs': nn.ReLU()})", "attribute '_script_attrs' already exists"),
    ("import torch.nn as nn\ns = nn.Sequential({'_modules': nn.ReLU()})", "attribute '_modules' already exists"),
    ("import torch.nn as nn\ns = nn.Sequential({'forward': nn.ReLU()})", "attribute 'forward' already exists"),
    ("import torch.nn as nn\ns = nn.Sequential({'a.b': nn.ReLU()})", 'contain ".", got: a.b'),
    ("import torch.nn as nn\ns = nn.Sequential({'': nn.ReLU()})", 'be empty string ""'),
    ("import torch.nn as nn\ns = nn.Sequential({1: nn.ReLU()})", "module name should be a string. Got int"),
])
def test_sequential_dict_keys_cannot_become_attributes(src, message):
    r = run_program(parse_script(src, "t.py"), modules=torch_api.modules())
    assert r.error is not None and message in r.error.message, r.error


def test_instance_attributes_never_widen_the_allow_list():
    src = ("import torch.nn as nn\nm = nn.Linear(1, 1)\nm._script_attrs = {'_params'}\n"
           "m._params = {}\nw = m.weight\nk = m._params\np = m._modules")
    r = run_program(parse_script(src, "t.py"), modules=torch_api.modules())
    assert r.error is not None and r.error.type == "AttributeError" and "'_modules'" in r.error.message
    g = r.globals
    assert g["k"] == {} and g["w"] is g["m"]._params["weight"]   # the script's own attribute, not the registry
