"""Scaling families for ``benchmarks/run.py --families``.

Each family is one script template run at several sizes (>= 3, spanning >= 100x), so a
cost that grows faster than the work shows up as a growing "µs per unit" column. The
same script text runs under ``autotrace run`` and under ``python`` with real PyTorch.

``kind`` is "vs" (timed against PyTorch), or the autotrace command for the families
PyTorch has no counterpart for ("explain", "json", "svg").
"""

from __future__ import annotations

SCALAR_CHAIN = """\
import torch

x = torch.tensor(1.0, requires_grad=True)
y = x
for i in range({n}):
    y = y * 1.000001
y.backward()
print(x.grad)
"""

FAN_IN = """\
import torch

torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
total = torch.tensor(0.0)
for i in range({n}):
    total = total + (x * i).sum()
total.backward()
print(x.grad)
"""

MATMUL = """\
import torch

torch.manual_seed(0)
a = torch.randn({n}, {n}, requires_grad=True)
b = torch.randn({n}, {n})
y = a
for i in range(4):
    y = (y @ b) * 0.05
y.sum().backward()
print(a.grad.shape)
"""

ELEMENTWISE = """\
import torch

torch.manual_seed(0)
x = torch.randn({n}, requires_grad=True)
y = torch.sigmoid(x) * x + torch.tanh(x) * 0.5 - x.exp().clamp(max=4.0)
y.sum().backward()
print(x.grad.shape)
"""

# micrograd's demo: an MLP(3, [4, 4, 1]) built from scalar (0-dim) tensors, trained on 4
# points with a squared loss and plain SGD; about 340 nodes per step.
MICROGRAD = """\
import torch

torch.manual_seed(0)


def layer(nin, nout):
    return [([torch.randn(()).requires_grad_() for _ in range(nin)], torch.zeros((), requires_grad=True))
            for _ in range(nout)]


def forward(layers, x):
    for k, neurons in enumerate(layers):
        out = []
        for ws, b in neurons:
            act = b
            for wi, xi in zip(ws, x):
                act = act + wi * xi
            out.append(act.tanh() if k < len(layers) - 1 else act)
        x = out
    return x[0]


layers = [layer(3, 4), layer(4, 4), layer(4, 1)]
params = [p for neurons in layers for ws, b in neurons for p in ws + [b]]
xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
ys = [1.0, -1.0, -1.0, 1.0]
for step in range({n}):
    loss = torch.tensor(0.0)
    for x, y in zip(xs, ys):
        loss = loss + (forward(layers, x) - y) ** 2
    for p in params:
        p.grad = None
    loss.backward()
    with torch.no_grad():
        for p in params:
            p -= 0.05 * p.grad
print(f"{{loss.item():.4f}}")
"""

# A graph of about n nodes (two per iteration) for explain, run --json and graph.
GRAPH = """\
import torch

x = torch.tensor([0.5, -0.25], requires_grad=True)
y = x
for i in range({half}):
    y = torch.tanh(y) * 1.01
z = y.sum()
z.backward()
print(x.grad)
"""

# name, what, template, sizes, unit, kind, extra autotrace options
FAMILIES = [
    ("scalar_chain", "scalar chain `y = y * c` + backward", SCALAR_CHAIN,
     [10_000, 100_000, 1_000_000], "op", "vs", []),
    ("fan_in", "fan-in `total = total + (x * i).sum()`", FAN_IN,
     [1_000, 10_000, 100_000], "term", "vs", []),
    ("matmul", "matmul chain from randn (n x n, 4 matmuls)", MATMUL,
     [128, 512, 2048], "n³ flop", "vs", []),
    ("elementwise", "elementwise + backward on randn(n)", ELEMENTWISE,
     [100_000, 1_000_000, 10_000_000], "element", "vs", []),
    ("micrograd", "micrograd-style scalar MLP training loop", MICROGRAD,
     [50, 500, 5_000], "step", "vs", []),
    ("explain", "explain on n nodes", GRAPH,
     [1_000, 10_000, 100_000], "node", "explain", []),
    ("json", "run --json on n nodes", GRAPH,
     [3_000, 30_000, 300_000], "node", "json", []),
    ("svg", "graph (SVG) of n nodes", GRAPH,
     [100, 1_000, 10_000], "node", "svg", []),
]


def script(template: str, n: int) -> str:
    return template.format(n=n, half=max(1, n // 2))


def units(name: str, n: int) -> float:
    """The amount of work at size ``n`` (the µs-per-unit column divides by it)."""
    return float(n) ** 3 if name == "matmul" else float(n)
