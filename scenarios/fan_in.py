# Fan-in: x is used on two paths (x*x and + x); autograd adds the paths: dz/dx = 2x + 1.
import torch

x = torch.tensor(3.0, requires_grad=True)
y = x * x
z = y + x
z.backward()
print(x.grad)
