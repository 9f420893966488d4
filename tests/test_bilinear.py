"""``nn.Bilinear`` and ``F.bilinear`` against torch 2.13: the parameters a seeded
``nn.Bilinear`` draws, forward values and gradients to the bit (float32 and float64, with
and without bias, batch dims of any rank, sizes on both sides of the CPU bmm's 400 switch),
the graph (AddBackward0 / ViewBackward0 / TrilinearBackward0), double backward, errors;
and hostile sizes end at a limit."""

from __future__ import annotations

import numpy as np
import pytest

from autotrace import runner
from test_reduction_gaps import HEX, _literal, agree

TREE = """
def tree(fn):
    if fn is None:
        return 'None'
    return fn.name() + '(' + ', '.join(tree(f) + ':' + str(i) for f, i in fn.next_functions) + ')'
"""

# (batch dims, in1, in2, out): products below and above 400 in both of _trilinear's bmm steps
SIZES = [((5,), 3, 4, 2), ((), 2, 3, 4), ((2, 3), 4, 2, 3), ((1,), 1, 1, 1), ((7,), 10, 6, 3),
         ((16,), 20, 30, 4), ((2,), 5, 450, 2), ((3, 2), 33, 17, 5), ((0,), 3, 2, 2)]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("size", SIZES, ids=str)
def test_bilinear_values_graph_and_gradients_are_torchs(tmp_path, size, dtype):
    batch, n1, n2, no = size
    rng = np.random.default_rng(sum(batch) * 7 + n1 * 5 + n2 * 3 + no)
    arrays = {"x1": rng.standard_normal(batch + (n1,)), "x2": rng.standard_normal(batch + (n2,)),
              "w": rng.standard_normal((no, n1, n2)), "b": rng.standard_normal((no,))}
    src = HEX + TREE + "import torch.nn.functional as F\n"
    for name, a in arrays.items():
        src += f"{name} = torch.tensor({_literal(a)}, dtype=torch.{dtype}).reshape({a.shape}).requires_grad_()\n"
    src += ("y = F.bilinear(x1, x2, w, b)\nprint(tree(y.grad_fn))\n"
            "report('bias', y, (x1, x2, w, b))\n"
            "report('no bias', F.bilinear(x1, x2, w), (x1, x2, w, b))\n"
            "report('weight only', F.bilinear(x1.detach(), x2.detach(), w, b), (w, b))\n"
            "report('inputs only', F.bilinear(x1, x2, w.detach()), (x1, x2))\n")
    assert agree(tmp_path, src) == []


def test_double_backward_is_torchs(tmp_path):
    src = HEX + """import torch.nn.functional as F
x1 = torch.tensor([[0.5, -1.25, 2.0], [1.5, 0.25, -0.75]], requires_grad=True)
x2 = torch.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
w = torch.arange(12.0).reshape(2, 3, 2).sin().requires_grad_()
y = F.bilinear(x1, x2, w)
g1, gw = torch.autograd.grad((y * y).sum(), (x1, w), create_graph=True)
print(g1.grad_fn.name(), gw.grad_fn.name())
report('second', (g1 * gw.sum(0).sum(1)).sum() + gw.pow(2).sum(), (x1, x2, w))
"""
    assert agree(tmp_path, src) == []


@pytest.mark.parametrize("args", ["3, 4, 2", "2, 3, 4, bias=False", "5, 1, 3, dtype=torch.float64", "1, 1, 1",
                                  "2, 0, 3", "4, 2, 0", "16, 8, 4"])
def test_seeded_layer_draws_torchs_parameters(tmp_path, args):
    src = HEX + f"""import torch.nn as nn
torch.manual_seed(20131)
m = nn.Bilinear({args})
print(m, [(n, tuple(p.shape), p.dtype, hexes(p)) for n, p in m.named_parameters()], m.bias is None)
print(hexes(torch.rand(3)))      # the generator is left where torch leaves it
m.reset_parameters()
print(hexes(m.weight))
print(m.in1_features, m.in2_features, m.out_features, type(m).__name__, list(m.state_dict()))
"""
    assert agree(tmp_path, src) == []


def test_layer_in_a_training_step_is_torchs(tmp_path):
    src = HEX + """import torch.nn as nn
torch.manual_seed(7)
m = nn.Bilinear(4, 3, 2)
opt = torch.optim.SGD(m.parameters(), lr=0.1)
a, b, t = torch.randn(6, 4), torch.randn(6, 3), torch.randn(6, 2)
for step in range(3):
    opt.zero_grad()
    loss = ((m(a, b) - t) ** 2).mean()
    loss.backward()
    opt.step()
    print(step, loss.item(), hexes(m.weight.grad), hexes(m.bias))
"""
    assert agree(tmp_path, src) == []


ERRORS = [
    "F.bilinear(torch.ones(2, 3), torch.ones(2, 4).double(), W)",
    "F.bilinear(torch.ones(2, 3), torch.ones(2, 4), W, torch.ones(2, dtype=torch.long))",
    "F.bilinear(torch.ones(2, 3), torch.ones(2, 4), W.to(torch.float16))",
    "F.bilinear(torch.ones(2, 3), torch.ones(1, 2, 4), W)",
    "F.bilinear(torch.ones(2, 3), torch.ones(3, 4), W)",
    "F.bilinear(torch.ones(2, 2, 3), torch.ones(2, 5, 4), W)",
    "F.bilinear(torch.ones(2, 5), torch.ones(2, 4), W)",
    "F.bilinear(torch.ones(2, 3), torch.ones(2, 5), W)",
    "F.bilinear(torch.ones(2, 3), torch.ones(2, 4), W, torch.ones(3))",
    "F.bilinear(torch.ones(2, 3), torch.ones(2, 4), W, torch.tensor(1.0))",
    "F.bilinear(torch.ones(2, 3), torch.ones(2, 4), torch.ones(3, 4))",
    "F.bilinear(torch.ones(2, 3), torch.ones(2, 4), torch.ones(3))",
    "F.bilinear(torch.ones(2, 3), torch.ones(2, 4), torch.ones(2, 3, 4, 1))",
    "F.bilinear(torch.tensor(1.0), torch.tensor(1.0), W)",
    "F.bilinear([1.0], torch.ones(2, 4), W)",
    "F.bilinear(torch.ones(2, 3), torch.ones(2, 4), W, [1.0, 2.0])",
    "F.bilinear(torch.ones(2, 3, dtype=torch.long), torch.ones(2, 4, dtype=torch.long), W.long())",
    "F.bilinear(torch.ones(2, 3), torch.ones(2, 4), W, torch.ones(2, 2))",
    "nn.Bilinear(0, 2, 3)",
    "nn.Bilinear(-1, 2, 3)",
    "nn.Bilinear(2, 2, 3)(torch.ones(4, 2))",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_bilinear_errors_are_torchs(tmp_path, expr):
    src = ("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
           f"W = torch.ones(2, 3, 4)\ntry:\n    y = {expr}\n    print(y)\n"
           "except Exception as e:\n    print(type(e).__name__, e)\n")
    assert agree(tmp_path, src) == []


@pytest.mark.parametrize("src,etype", [
    ("m = nn.Bilinear(10**5, 10**5, 10**5)", "LimitError"),
    ("m = nn.Bilinear(1, 1, 3 * 10**8)", "LimitError"),
    ("y = F.bilinear(torch.ones(10**4, 3000), torch.ones(10**4, 3000), torch.ones(30, 3000, 3000))", "LimitError"),
    ("y = F.bilinear(torch.ones(2, 3000), torch.ones(2, 3000), torch.ones(3000, 3000, 3000))", "LimitError"),
    ("m = nn.Bilinear(2.5, 2, 3)", "TypeError"),
    ("m = nn.Bilinear(2, 2, 3, device='cuda')", None),
    ("m = nn.Bilinear(2, 2, 3)\nx = m._parameters", "AttributeError"),
    ("m = nn.Bilinear(2, 2, 3)\nx = m.forward.__func__", "AttributeError"),
    ("x = F.bilinear.__wrapped__", "AttributeError"),
])
def test_hostile_bilinear_ends_cleanly(src, etype):
    t = runner.run("import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n" + src + "\n", "h.py")
    assert t.error is not None and t.error.get("phase") != "internal", t.error
    if etype is not None:
        assert t.error["type"] == etype, t.error
