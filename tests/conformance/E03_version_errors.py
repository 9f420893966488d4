# E03 - version counter errors: outputs, inputs, views
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.exp()
y.add_(1)
try:
    y.sum().backward()
except RuntimeError as e:
    print(e)
a = torch.tensor([1.0, 2.0], requires_grad=True)
a2 = a * 1
b = a2 * a2
with torch.no_grad():
    a2.mul_(2)
try:
    b.sum().backward()
except RuntimeError as e:
    print(e)
c = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
d = c.sin()
e2 = d * d
v = d.view(-1)
v.add_(1)
print(d._version, v._version, d.grad_fn)
try:
    e2.sum().backward()
except RuntimeError as e:
    print(e)
l = torch.tensor([1.0, 2.0], requires_grad=True)
m = l * l
with torch.no_grad():
    l.mul_(2)
print(l._version)
try:
    m.sum().backward()
except RuntimeError as e:
    print(e)
s = torch.tensor([1.0, 2.0], requires_grad=True)
t = s.sigmoid()
t.mul_(2)
try:
    t.sum().backward()
except RuntimeError as e:
    print(e)
