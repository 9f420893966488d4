# "Learning PyTorch with Examples", numpy version of the sin(x) fit: a third-order
# polynomial fitted by hand-derived gradients, then the coefficients moved into torch.
import math

import numpy as np
import torch

x = np.linspace(-math.pi, math.pi, 200)
y = np.sin(x)

np.random.seed(0)
a = np.random.randn()
b = np.random.randn()
c = np.random.randn()
d = np.random.randn()

learning_rate = 1e-5
for t in range(500):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = np.square(y_pred - y).sum()
    if t % 100 == 99:
        print(t, loss)
    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum()
    grad_b = (grad_y_pred * x).sum()
    grad_c = (grad_y_pred * x ** 2).sum()
    grad_d = (grad_y_pred * x ** 3).sum()
    a -= learning_rate * grad_a
    b -= learning_rate * grad_b
    c -= learning_rate * grad_c
    d -= learning_rate * grad_d

print(f'Result: y = {a} + {b} x + {c} x^2 + {d} x^3')
print(repr(a), type(a) is float, isinstance(a, float))
coeffs = torch.tensor([a, b, c, d], requires_grad=True)
xs = torch.from_numpy(x)
p = torch.stack([xs ** 0, xs, xs ** 2, xs ** 3], 1)
pred = p @ coeffs.double()
err = (pred - torch.from_numpy(y)).pow(2).sum()
err.backward()
print(coeffs.dtype, err.dtype, coeffs.grad)
