"""Backward nodes that are differentiable ops themselves (TanhBackwardBackward0,
ThresholdBackwardBackward0, SoftmaxBackwardDataBackward0 ...) against torch 2.13.

For each op and generated inputs (shapes, float32/float64, values at 0 and at the
kinks): the name of ``g.grad_fn`` after ``autograd.grad(..., create_graph=True)`` and two
levels of its ``next_functions``, the values of ``g``, of the second derivatives of
``g.sum()`` with respect to the input and to the grad output, and of a third derivative.
One script per case runs under both; its printed lines are compared one by one.
"""

from __future__ import annotations

import ast
import functools

import numpy as np
import pytest

from helpers import autotrace_stdout, torch_stdout

OPS = {
    "tanh": "torch.tanh(x)",
    "sigmoid": "torch.sigmoid(x)",
    "relu": "torch.relu(x)",
    "relu_method": "x.relu()",
    "leaky_relu": "F.leaky_relu(x, 0.2)",
    "hardtanh": "F.hardtanh(x)",
    "relu6": "F.relu6(x)",
    "elu": "F.elu(x, 0.7)",
    "selu": "F.selu(x)",
    "celu": "F.celu(x, 1.3)",
    "softplus": "F.softplus(x, 2.0, 1.0)",
    "gelu": "F.gelu(x)",
    "gelu_tanh": "F.gelu(x, approximate='tanh')",
    "softmax": "F.softmax(x, -1)",
    "softmax0": "torch.softmax(x, 0)",
    "log_softmax": "F.log_softmax(x, -1)",
    "log_softmax0": "x.log_softmax(0)",
    "hardswish": "F.hardswish(x)",
    "logsigmoid": "F.logsigmoid(x)",
}

# the first-order value is bit for bit torch's for these (others: last bits, as without create_graph)
EXACT = {(name, dtype) for name in ("tanh", "sigmoid", "relu", "relu_method", "leaky_relu", "hardtanh", "relu6",
                                    "softmax", "log_softmax") for dtype in ("float32",)}

# values at each op's kinks (0, ±1, 6, the softplus threshold 1/beta)
KINKS = [0.0, -0.0, 1.0, -1.0, 6.0, 0.5, -2.0, 3.0, -3.0]


def _inputs(seed, shape, dtype):
    rng = np.random.default_rng(seed)
    x = rng.normal(0, 2, size=shape)
    flat = x.reshape(-1)
    k = rng.choice(len(KINKS), size=max(1, flat.size // 2))
    flat[: len(k)] = np.asarray(KINKS)[k]
    rng.shuffle(flat)
    go = rng.normal(1, 1, size=shape)
    cast = np.float32 if dtype == "float32" else np.float64
    return x.astype(cast).tolist(), go.astype(cast).tolist()


def _script(expr, x, go, dtype, go_grad):
    return f"""
import torch
import torch.nn.functional as F

def names(fn):
    return [None if f is None else f.name() for f, _ in fn.next_functions]

x = torch.tensor({x!r}, dtype=torch.{dtype}, requires_grad=True)
go = torch.tensor({go!r}, dtype=torch.{dtype}, requires_grad={go_grad})
y = {expr}
g, = torch.autograd.grad(y, x, go, create_graph=True)
print("node", g.grad_fn.name(), g.requires_grad)
print("next", names(g.grad_fn))
print("next2", [None if f is None else names(f) for f, _ in g.grad_fn.next_functions])
print("g", g.tolist())
wrt = [x, go] if go.requires_grad else [x]
d2 = torch.autograd.grad(g.sum(), wrt, create_graph=True, allow_unused=True)
print("d2x", None if d2[0] is None else d2[0].tolist())
if go.requires_grad:
    print("d2go", d2[1].tolist())
if d2[0] is not None and d2[0].requires_grad:
    print("d2x_node", d2[0].grad_fn.name())
    d3, = torch.autograd.grad((d2[0] * d2[0]).sum(), x, allow_unused=True)
    print("d3", None if d3 is None else d3.tolist())
"""


def _lines(out):
    got = {}
    for line in out.splitlines():
        key, _, rest = line.partition(" ")
        got[key] = rest
    return got


def _close(a, b, dtype, exact):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if exact:
        return np.array_equal(a, b)
    tol = 2e-5 if dtype == "float32" else 1e-12
    return np.allclose(a, b, rtol=tol, atol=tol)


CASES = [(name, seed, shape, dtype, go_grad)
         for name in OPS
         for seed, shape in ((1, (2, 3)), (2, (4,)), (3, (3, 1, 2)))
         for dtype in ("float32", "float64")
         for go_grad in ((False, True) if seed == 1 else (seed == 2,))]


def _case_src(case):
    name, seed, shape, dtype, go_grad = case
    x, go = _inputs(seed, shape, dtype)
    return _script(OPS[name], x, go, dtype, go_grad)


@functools.lru_cache(maxsize=None)
def _torch_outputs(name):
    """The torch output of every case of op ``name``, from one torch process (each
    script in its own function)."""
    parts = ["import torch\n"]
    for i, case in enumerate(CASES):
        if case[0] == name:
            body = "\n".join("    " + line for line in _case_src(case).splitlines())
            parts.append(f"def case{i}():\n{body}\n\nprint('@@ {i}')\ncase{i}()\n")
    out = torch_stdout("\n".join(parts))
    chunks = out.split("@@ ")[1:]
    return {int(c.split("\n", 1)[0]): c.split("\n", 1)[1] for c in chunks}


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[3]}-go{int(c[4])}")
def test_double_backward_against_torch(case):
    name, seed, shape, dtype, go_grad = case
    want = _lines(_torch_outputs(name)[CASES.index(case)])
    got = _lines(autotrace_stdout(_case_src(case)))
    assert want.keys() == got.keys(), (want, got)
    for key in ("node", "next", "next2", "d2x_node"):
        assert got.get(key) == want.get(key), key
    for key in ("g", "d2x", "d2go", "d3"):
        if key in want:
            w, a = ast.literal_eval(want[key]), ast.literal_eval(got[key])
            if w is None or a is None:
                assert w is a is None, key
            else:
                exact = key == "g" and (name, dtype) in EXACT
                assert _close(a, w, dtype, exact), (key, a, w)


SAVED = """
import torch
import torch.nn.functional as F
x = torch.tensor([-1.0, 0.0, 2.0], requires_grad=True)
y = torch.relu(x)
y.backward(torch.ones(3) * 1.5, create_graph=True)
g = x.grad
print(g.grad_fn.name(), g.requires_grad)
x.grad = None
g.sum().backward()
print(x.grad)
x = torch.tensor([[0.3, -0.2], [1.0, 0.5]], requires_grad=True)
g, = torch.autograd.grad(torch.tanh(x), x, torch.ones_like(x) * 1.5, create_graph=True)
print(g.grad_fn._saved_output, g.grad_fn._saved_grad_output)
g, = torch.autograd.grad(torch.sigmoid(x), x, torch.ones_like(x), create_graph=True)
print(g.grad_fn._saved_output, g.grad_fn._saved_grad_output)
g, = torch.autograd.grad(F.leaky_relu(x, 0.1), x, torch.ones_like(x), create_graph=True)
print(g.grad_fn._saved_self, g.grad_fn._saved_negative_slope)
g, = torch.autograd.grad(F.hardtanh(x, -0.5, 0.5), x, torch.ones_like(x), create_graph=True)
print(g.grad_fn._saved_min_val, g.grad_fn._saved_max_val, g.grad_fn._saved_self)
for f in (F.softmax, F.log_softmax):
    g, = torch.autograd.grad(f(x, 1), x, torch.ones_like(x), create_graph=True)
    print(g.grad_fn._saved_dim, g.grad_fn._saved_output, g.grad_fn._saved_grad_output)
for f in (F.elu, F.selu, F.celu):
    g, = torch.autograd.grad(f(x), x, torch.ones_like(x), create_graph=True)
    n = g.grad_fn
    print(n.name(), n._saved_alpha, n._saved_scale, n._saved_input_scale, n._saved_is_result, n._saved_self_or_result)
g, = torch.autograd.grad(F.softplus(x), x, torch.ones_like(x), create_graph=True)
print(g.grad_fn._saved_beta, g.grad_fn._saved_threshold, g.grad_fn._saved_self)
g, = torch.autograd.grad(F.softplus(x, 2.0, 3.0), x, torch.ones_like(x), create_graph=True)
print(g.grad_fn._saved_beta, g.grad_fn._saved_threshold)
g, = torch.autograd.grad(F.gelu(x, approximate="tanh"), x, torch.ones_like(x), create_graph=True)
print(g.grad_fn._saved_approximate, g.grad_fn._saved_self, g.grad_fn._saved_grad_output)
g, = torch.autograd.grad(torch.relu(x), x, torch.ones_like(x), create_graph=True)
print(g.grad_fn._saved_threshold, g.grad_fn._saved_self)
g.sum().backward()
try:
    g.grad_fn._saved_self
except RuntimeError as e:
    print("RuntimeError", e)
try:
    g.sum().backward()
except RuntimeError as e:
    print("RuntimeError", e)
print(g.grad_fn._saved_threshold)
"""


def test_saved_tensors_relu_backward_and_freed_graph_as_torch():
    """The nodes' ``_saved_*`` as torch names them (numbers as the Scalar torch keeps:
    softplus's default beta is 1, not 1.0), relu's second derivative zeros through
    ``backward(create_graph=True)``, and the errors after the graph is freed."""
    assert autotrace_stdout(SAVED) == torch_stdout(SAVED)


def test_first_order_fast_path_unchanged():
    """Without create_graph no double-backward node is built: the gradient has no
    grad_fn and the first-order kernels give the numbers."""
    src = """
import torch
import torch.nn.functional as F
x = torch.tensor([[0.3, -0.2, 0.0], [1.0, 0.5, -3.0]], requires_grad=True)
for f in (torch.tanh, torch.sigmoid, torch.relu, F.gelu, F.elu, F.softplus, F.hardtanh, F.leaky_relu):
    g, = torch.autograd.grad(f(x), x, torch.ones_like(x) * 0.7)
    print(g.grad_fn, g.requires_grad, g.tolist())
g, = torch.autograd.grad(F.softmax(x, 1), x, torch.ones_like(x) * 0.7)
print(g.grad_fn, g.requires_grad)
"""
    got = autotrace_stdout(src)
    assert "Backward" not in got
    assert got.count("None False") == 9


PADS = """import torch
import torch.nn.functional as F
for mode in ("reflect", "replicate"):
    for shape, pad in (((1, 2, 3), (1, 2)), ((2, 3), (2, 1)), ((1, 1, 3, 4), (1, 2, 2, 1)), ((1, 2, 3, 3, 3), (1, 1, 1, 0, 2, 1)), ((2, 4), (-1, 1))):
        x0 = torch.arange(float(torch.tensor(shape).prod())).reshape(shape) * 0.3 - 1
        x = x0.clone().requires_grad_()
        y = F.pad(x, pad, mode=mode)
        print(y.grad_fn.name(), y.grad_fn._saved_padding)
        go = (torch.arange(float(y.numel())).reshape(y.shape) * 0.7).requires_grad_()
        g, = torch.autograd.grad(y, x, go, create_graph=True)
        n = g.grad_fn
        print(n.name(), n._saved_padding, [None if f is None else f.name() for f, _ in n.next_functions])
        print(g.tolist())
        gg = torch.arange(float(g.numel())).reshape(g.shape) * -0.2
        a, b = torch.autograd.grad(g, [x, go], gg, create_graph=True)
        print(a.tolist(), b.tolist(), b.grad_fn)
        y2 = F.pad(x * x, pad, mode=mode)
        g, = torch.autograd.grad(y2, x, go, create_graph=True)
        a, b = torch.autograd.grad((g * g).sum(), [x, go], create_graph=True)
        print(a.tolist(), b.tolist(), b.grad_fn.name())
        c, = torch.autograd.grad((b * b).sum(), x)
        print(c.tolist())
x = torch.ones(1, 2, 3, requires_grad=True)
y = F.pad(x, (1, 1), mode="reflect")
with torch.no_grad():
    x.mul_(2)
try:
    y.sum().backward()
    print(x.grad)
except RuntimeError as e:
    print("RuntimeError", e)
"""


def test_reflection_replication_pad_double_backward_as_torch():
    """ReflectionPad1D/2D/3D and ReplicationPad1D/2D/3DBackwardBackward0: names,
    next_functions (grad output, self), ``_saved_padding`` (a negative amount as torch
    shows it, unsigned), g, second derivatives (zeros wrt self; the pad of the upstream
    wrt the grad output), a third derivative, and the in-place check of the saved input."""
    assert autotrace_stdout(PADS) == torch_stdout(PADS)


HARDSIGMOID = """import torch
import torch.nn.functional as F
x = torch.tensor([-4.0, -3.0, 0.5, 3.0, 1.0], requires_grad=True)
for rg in (False, True):
    go = torch.tensor([1.0, 2.0, -0.5, 1.5, 0.25], requires_grad=rg)
    g, = torch.autograd.grad(F.hardsigmoid(x), x, go, create_graph=True)
    print(g, g.requires_grad, [f.name() for f, _ in g.grad_fn.next_functions])
    try:
        g.sum().backward()
    except RuntimeError as e:
        print("RuntimeError", e)
g, = torch.autograd.grad(F.hardsigmoid(x), x, torch.ones(5))
print(g)
"""


def test_hardsigmoid_gradient_hangs_off_not_implemented():
    """torch 2.13 has no derivative for hardsigmoid_backward: with create_graph the
    gradient requires grad through a NotImplemented node (edges to the inputs that require
    grad only), and backward through it is torch's RuntimeError."""
    assert autotrace_stdout(HARDSIGMOID) == torch_stdout(HARDSIGMOID)
