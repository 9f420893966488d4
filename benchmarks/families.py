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

# A micrograd-style training loop: a small MLP on 64 points, hinge loss, manual SGD.
MICROGRAD = """\
import torch

torch.manual_seed(0)
X = torch.randn(64, 2)
Y = (X[:, 0] * X[:, 1] > 0).float() * 2 - 1
W1 = (torch.randn(2, 16) * 0.5).requires_grad_()
b1 = torch.zeros(16, requires_grad=True)
W2 = (torch.randn(16, 16) * 0.25).requires_grad_()
b2 = torch.zeros(16, requires_grad=True)
W3 = (torch.randn(16, 1) * 0.25).requires_grad_()
params = [W1, b1, W2, b2, W3]
for step in range({n}):
    h = torch.relu(X @ W1 + b1)
    h = torch.relu(h @ W2 + b2)
    score = (h @ W3).squeeze(1)
    loss = torch.relu(1 - Y * score).mean() + 1e-4 * (W1 * W1).sum()
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
    ("micrograd", "micrograd-style MLP training loop", MICROGRAD,
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
