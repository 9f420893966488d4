# E07 - torch.autograd.grad variations
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([3.0, 4.0], requires_grad=True)
u = torch.tensor(5.0, requires_grad=True)
z = (x * y).sum()
gx, gy = torch.autograd.grad(z, [x, y], retain_graph=True)
print(gx, gy, x.grad)
try:
    torch.autograd.grad(z, [x, u], retain_graph=True)
except RuntimeError as e:
    print(e)
r = torch.autograd.grad(z, [x, u], allow_unused=True, retain_graph=True)
print(r)
r = torch.autograd.grad(z, [x, u], allow_unused=True, materialize_grads=True, retain_graph=True)
print(r)
r = torch.autograd.grad(z, [u, x], materialize_grads=True, retain_graph=True)
print(r)
o = x * y
r = torch.autograd.grad(o, x, grad_outputs=torch.tensor([1.0, 10.0]))
print(r)
o1 = x * 2
o2 = x ** 2
r = torch.autograd.grad([o1.sum(), o2.sum()], x)
print(r)
m = x * 3
n = (m * m).sum()
r = torch.autograd.grad(n, m)
print(r)
a = torch.tensor(3.0, requires_grad=True)
b = a ** 3
g, = torch.autograd.grad(b, a, create_graph=True)
print(g)
g2, = torch.autograd.grad(g, a)
print(g2)
try:
    torch.autograd.grad(o1.sum(), torch.tensor(1.0))
except RuntimeError as e:
    print(e)
try:
    torch.autograd.grad(x * 2, x)
except RuntimeError as e:
    print(e)
try:
    torch.autograd.grad((x * 2).sum(), x, grad_outputs=torch.ones(3))
except RuntimeError as e:
    print(e)
