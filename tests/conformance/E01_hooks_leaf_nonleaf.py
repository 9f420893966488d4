# E01 - register_hook on leaves and non-leaves; return value replaces grad; retain_grad order
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
seen = []
h1 = x.register_hook(lambda g: seen.append(g.tolist()))
h2 = x.register_hook(lambda g: g * 10)
y = x * 3
y.retain_grad()
hy = y.register_hook(lambda g: g + 1)
z = y.sum()
z.backward()
print(seen, x.grad, y.grad)
h2.remove()
z2 = (x * 3).sum()
z2.backward()
print(seen, x.grad)
h1.remove()
h1.remove()
x.grad = None
(x * 2).sum().backward()
print(seen, x.grad)
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 2
b.register_hook(lambda g: g * 2)
b.retain_grad()
b.register_hook(lambda g: g * 3)
b.sum().backward()
print(b.grad, a.grad)
c = torch.tensor(1.0)
try:
    c.register_hook(lambda g: g)
except RuntimeError as e:
    print(e)
w = torch.tensor(2.0, requires_grad=True)
calls = []
def hk(g):
    calls.append(float(g))
w.register_hook(hk)
for i in range(3):
    (w * (i + 1)).backward()
print(calls, w.grad)
