# E08 - backward(inputs=...), create_graph, retain_graph semantics
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([3.0, 4.0], requires_grad=True)
z = (x * y).sum()
z.backward(inputs=[x])
print(x.grad, y.grad)
a = torch.tensor(2.0, requires_grad=True)
b = a ** 3
b.backward(create_graph=True)
print(a.grad)
ga = a.grad
a.grad = None
ga.backward()
print(a.grad)
c = torch.tensor([1.0, 2.0], requires_grad=True)
d = (c + 1).sum()
d.backward()
d.backward()
print(c.grad)
e = (c * c).sum()
e.backward()
try:
    e.backward()
except RuntimeError as err:
    print(err)
f = c.exp()
f.sum().backward()
try:
    print(f.grad_fn._saved_result)
except RuntimeError as err:
    print(err)
g = c * c
g.sum().backward(retain_graph=True)
print(g.grad_fn._saved_self)
h = c * 2.5
print(h.grad_fn._saved_other)
try:
    z.backward(inputs=[])
except RuntimeError as err:
    print(err)
