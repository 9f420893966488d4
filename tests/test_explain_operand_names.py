"""explain names a two-input function's operands as the script does: ``torch.atan2(y, x)``
gives ``∂a/∂y = x/(y² + x²)``, not the op table's ``other``; so do hypot, xlogy, fmod,
remainder, maximum/minimum and pow with a tensor exponent (English and Chinese), and the
gradient rule of ops explained by their vjp names every input (mse_loss's target, lerp's
end and weight, addcmul's tensors). The local derivatives shown are checked against
torch 2.13's gradients on generated inputs."""

from __future__ import annotations

import random

import numpy as np
import pytest

from autotrace import explain as E
from autotrace import messages
from helpers import require_torch

# function call, rule for the first operand, rule for the second
FUNCTIONS = {
    "torch.atan2(y, x)": ("x/(y² + x²)", "−y/(y² + x²)"),
    "torch.hypot(y, x)": ("y/a", "x/a"),
    "torch.xlogy(y, x)": ("log(x)  (0 where y = 0 and x ≤ 0)", "y/x"),
    "torch.fmod(y, x)": ("1", "-trunc(y/x)"),
    "torch.remainder(y, x)": ("1", "-floor(y/x)"),
    "torch.maximum(y, x)": ("1 if y > x, ½ if equal, else 0", "1 if x > y, ½ if equal, else 0"),
    "torch.minimum(y, x)": ("1 if y < x, ½ if equal, else 0", "1 if x < y, ½ if equal, else 0"),
    "torch.pow(y, x)": ("x·y^(x−1)  (0 where x = 0)", "y^x·ln(y)  (0 where y = 0 and x ≥ 0)"),
    "y ** x": ("x·y^(x−1)  (0 where x = 0)", "y^x·ln(y)  (0 where y = 0 and x ≥ 0)"),
    "y * x": ("x", "y"),
}


def _values(seed, n, positive):
    rng = random.Random(seed)
    return [round(rng.uniform(0.2 if positive else -3, 3), 2) for _ in range(n)]


def _script(call, yv, xv):
    return ("import torch\n"
            f"y = torch.tensor({yv}, requires_grad=True)\n"
            f"x = torch.tensor({xv}, requires_grad=True)\n"
            f"a = {call}\n"
            "a.sum().backward()\n")


def _torch_grads(src):
    torch = require_torch()
    ns = {"torch": torch}
    exec(src, ns)
    return ns["y"].grad.numpy(), ns["x"].grad.numpy()


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("call", sorted(FUNCTIONS))
def test_two_input_functions_name_their_operands(call, seed):
    positive = "pow" in call or "**" in call or "xlogy" in call
    n = 1 + seed  # a 0-d-like single value, then vectors
    yv, xv = _values(seed, n, positive), _values(seed + 100, n, positive)
    src = _script(call, yv, xv)
    ex = E.explain(E.run(src, "t.py"))
    step = next(s for s in ex.passes[0].steps if s.edges and s.output == "a")
    by_target = {e.target: e for e in step.edges}
    want_y, want_x = FUNCTIONS[call]
    assert by_target["y"].rule == f"∂a/∂y = {want_y}"
    assert by_target["x"].rule == f"∂a/∂x = {want_x}"
    gy, gx = _torch_grads(src)
    # the upstream gradient is 1, so the local derivative shown is the gradient itself
    for e, g in ((by_target["y"], gy), (by_target["x"], gx)):
        assert e.local is not None
        np.testing.assert_allclose(np.broadcast_to(e.local, g.shape), g, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(e.grad, g, rtol=1e-6, atol=1e-7)
    messages.set_language("zh")  # the rule is a formula: the same in Chinese
    try:
        text = _render(E.explain(E.run(src, "t.py")))
    finally:
        messages.set_language("en")
    assert f"局部导数：∂a/∂y = {want_y}" in text and f"局部导数：∂a/∂x = {want_x}" in text


def _render(ex) -> str:
    import os

    from rich.console import Console

    from autotrace.render import explain_console
    con = Console(no_color=True, width=300, highlight=False, record=True, file=open(os.devnull, "w"))
    explain_console.render(ex, con)
    return con.export_text()


def test_negative_numbers_are_parenthesised_before_a_square():
    ex = E.explain(E.run(_script("torch.atan2(y, x)", 1.0, -1.5), "t.py"))
    text = _render(ex)
    assert "with numbers: -1.5/(1² + (-1.5)²) = -0.461538" in text
    assert "∂a/∂x = −y/(y² + x²)" in text


def test_an_expression_operand_is_not_parenthesised_twice():
    src = ("import torch\ny = torch.tensor([1.0, 2.0], requires_grad=True)\nx = torch.tensor([3.0, -1.5], requires_grad=True)\n"
           "a = torch.xlogy(y, x.abs())\nb = torch.tanh(x * y)\n(a + b).sum().backward()\n")
    text = _render(E.explain(E.run(src, "t.py")))
    assert "∂a/∂y = log(x.abs())" in text
    assert "∂b/∂(x * y) = 1 − tanh²(x * y)" in text


VJP_RULES = {
    "torch.nn.functional.mse_loss(p, t)": ("p", "∂(a.sum())/∂p = 2 * (p - t) * ∂(a.sum())/∂a (/ numel for mean)"),
    "torch.lerp(p, t, w)": ("w", "∂(a.sum())/∂w = ∂(a.sum())/∂a * (t - p)"),
    "torch.addcmul(p, t, w)": ("t", "∂(a.sum())/∂t = ∂(a.sum())/∂a * w * value"),
    "torch.clamp(p, t, w)": ("p", "∂(a.sum())/∂p = where(t <= p <= w, ∂(a.sum())/∂a, 0)"),
}


@pytest.mark.parametrize("call", sorted(VJP_RULES))
def test_gradient_rules_name_every_input(call):
    src = ("import torch\np = torch.tensor([0.5, -1.0], requires_grad=True)\n"
           "t = torch.tensor([1.0, 2.0], requires_grad=True)\nw = torch.tensor([0.25, 3.0], requires_grad=True)\n"
           f"a = {call}\na.sum().backward()\n")
    ex = E.explain(E.run(src, "t.py"))
    target, rule = VJP_RULES[call]
    step = next(s for s in ex.passes[0].steps if s.edges and s.output == "a")
    edge = next(e for e in step.edges if e.target == target)
    assert edge.rule.split("   (")[0] == rule
    torch = require_torch()
    ns = {"torch": torch}
    exec(src, ns)
    np.testing.assert_allclose(edge.grad, ns[target].grad.numpy(), rtol=1e-6)
