# Memory: 200 layers of tanh on a 1000x2000 tensor, then backward.
# Peak memory is what backward needs saved (each tanh saves its output).
import torch

x = torch.ones(1000, 2000, requires_grad=True)
y = x * 0.5
for i in range(200):
    y = torch.tanh(y)
y.sum().backward()
print(x.grad.sum())
