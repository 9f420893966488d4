# torch.from_numpy and Tensor.numpy() share memory (the docs' warning), torch.tensor copies;
# dtypes come from numpy (float64 by default); .numpy() refuses a tensor that requires grad.
import numpy as np
import torch

a = np.ones(5)
b = torch.from_numpy(a)
a += 1
print(a)
print(b)
b.mul_(3)
print(a, b.dtype)

c = torch.tensor(a)
a[0] = -1.0
print(c[0].item(), b[0].item(), a[0])

t = torch.arange(6.0).reshape(2, 3)
n = t.numpy()
n[1, 1] = 100
print(t)
t.add_(1)
print(n, n.dtype, n.shape, n.ndim, n.size)

w = torch.randn(3, requires_grad=True)
try:
    w.numpy()
except RuntimeError as e:
    print("RuntimeError:", e)
print(w.detach().numpy().shape, type(w.detach().numpy().tolist()))

i = np.arange(4)
ti = torch.from_numpy(i)
f32 = torch.from_numpy(np.zeros(2, dtype=np.float32))
bools = torch.from_numpy(np.array([True, False]))
print(ti.dtype, f32.dtype, bools.dtype, torch.as_tensor(i).dtype)
shared = torch.as_tensor(i)
i[0] = 42
print(shared, torch.as_tensor(i, dtype=torch.float32))
try:
    torch.from_numpy([1, 2])
except TypeError as e:
    print("TypeError:", e)
try:
    torch.from_numpy(np.arange(3)[::-1])
except ValueError as e:
    print("ValueError:", e)
x = torch.tensor(np.array([[1, 2], [3, 4]]), dtype=torch.float32, requires_grad=True)
(x * torch.from_numpy(np.array([[0.5, 1.0], [2.0, 4.0]])).float()).sum().backward()
print(x.grad, x.grad.numpy())
