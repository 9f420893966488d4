# Per-op overhead: a 100,000-step chain of scalar ops, then one backward through it.
import torch

x = torch.tensor(1.0, requires_grad=True)
y = x
for i in range(100000):
    y = y * 1.00001
y.backward()
print(x.grad)
