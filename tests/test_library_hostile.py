"""The library objects scripts now reach (legacy tensor classes, Variable, Generator,
device, torch.cuda, torch.return_types) expose only their PyTorch surface: internals are
refused with a clean script error, and the PyTorch names work."""

from __future__ import annotations

import pytest

from autotrace import runner

HOSTILE = [
    ("g = torch.Generator()\ne = g._engine", "attribute '_engine' of 'Generator' objects is not available"),
    ("g = torch.manual_seed(0)\ns = g.get_state()", "attribute 'get_state' of 'Generator' objects is not available"),
    ("d = torch.FloatTensor._dtype", "attribute '_dtype' of type object 'FloatTensor' is not available"),
    ("m = torch.autograd.Variable.mro()", "attribute 'mro' of type object 'Variable' is not available"),
    ("d = torch.device('cpu')\nd.type = 'cuda'", "attribute 'type' of 'Device' objects is not writable"),
    ("torch.cuda.is_available = lambda: True", "attribute 'is_available' of 'Namespace' objects is not writable"),
    ("m = torch.tensor([1., 2]).sort()._make", "attribute '_make' of 'sort' objects is not available"),
    ("m = torch.tensor([1., 2]).topk(1)._asdict()", "attribute '_asdict' of 'topk' objects is not available"),
    ("x = torch.ones(1)\nx._inference = True", "attribute '_inference' of 'Tensor' objects is not available"),
    ("x = torch.Tensor(1)._data", "attribute '_data' of 'Tensor' objects is not available"),
    ("c = torch.cuda._members", "attribute '_members' of 'Namespace' objects is not available"),
    ("x = torch.FloatTensor.__call__", "'__call__' of type object 'FloatTensor' is not available"),
]


@pytest.mark.parametrize("src,message", HOSTILE)
def test_internals_refused(src, message):
    t = runner.run("import torch\n" + src + "\n", "h.py")
    assert t.error is not None and t.error["type"] == "AttributeError"
    assert message in t.error["message"]


def test_public_surface_works():
    src = """import torch
from torch.autograd import Variable
v = Variable(torch.ones(2), requires_grad=True)
r = torch.tensor([3., 1, 2]).sort()
g = torch.Generator().manual_seed(1)
print(isinstance(v, Variable), isinstance(torch.ones(1, dtype=torch.int64), torch.LongTensor))
print(r.values, r.indices, g.initial_seed(), torch.device('cuda:0').index, torch.cuda.is_available())
print(torch.FloatTensor, Variable, torch.Generator)
"""
    t = runner.run(src, "ok.py")
    assert t.error is None, t.error
    assert t.stdout == ("True True\ntensor([1., 2., 3.]) tensor([1, 2, 0]) 1 0 False\n"
                        "<class 'torch.FloatTensor'> <class 'torch.autograd.variable.Variable'> "
                        "<class 'torch._C.Generator'>\n")


def test_verify_reruns_share_one_deadline_in_the_library():
    """Every ±h re-run spins; they share one ``timeout`` instead of getting one each."""
    import time

    import autotrace
    src = ("import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\ny.backward()\n"
           "while x.sum().item() != 2.0:\n    pass\n")
    r = autotrace.run(src, timeout=2)
    assert r.error is None
    start = time.monotonic()
    r.explain(verify=True)
    assert time.monotonic() - start < 2 + 2.5     # four re-runs of 2 s each before
