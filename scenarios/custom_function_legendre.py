# A custom autograd Function, as in PyTorch's tutorial "Defining new autograd functions":
# P3(x) = (5x³ − 3x)/2, the Legendre polynomial of degree 3, with its own backward
# dP3/dx = 1.5·(5x² − 1). The model y = a + b·P3(c + d·x) is fitted for a few steps of
# plain gradient descent; explain shows the custom node's step with the gradients that
# backward() returned, and `explain --verify` checks them against central differences.
import math

import torch


class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)


x = torch.linspace(-math.pi, math.pi, 8, dtype=torch.float64)
y = torch.sin(x)
a = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
b = torch.tensor(-1.0, dtype=torch.float64, requires_grad=True)
c = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
d = torch.tensor(0.3, dtype=torch.float64, requires_grad=True)
P3 = LegendrePolynomial3.apply
for step in range(3):
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    print(f"step {step}: loss {loss.item():.4f}")
    loss.backward()
    with torch.no_grad():
        for p in (a, b, c, d):
            p -= 1e-3 * p.grad
            p.grad = None
print(f"y = {a.item():.4f} + {b.item():.4f} * P3({c.item():.4f} + {d.item():.4f} x)")
node = y_pred.grad_fn.next_functions[1][0].next_functions[1][0]
print(node.name(), type(node).__name__)
