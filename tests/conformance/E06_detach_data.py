# E06 - detach shares the version counter; detach_; requires_grad_; .data
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
d = x.detach()
print(d.requires_grad, d.is_leaf, d.grad_fn, x._version, d._version)
d.add_(1)
print(x, x._version, d._version)
y = x * 2
y.detach_()
print(y.requires_grad, y.is_leaf, y.grad_fn)
z = x * 3
try:
    z.requires_grad_(False)
except RuntimeError as e:
    print(e)
z.requires_grad_(True)
print(z.requires_grad)
try:
    z.requires_grad = False
except RuntimeError as e:
    print(e)
k = torch.tensor([1, 2])
try:
    k.requires_grad_()
except RuntimeError as e:
    print(e)
try:
    torch.tensor([1], requires_grad=True)
except RuntimeError as e:
    print(e)
try:
    x.long().requires_grad_()
except RuntimeError as e:
    print(e)
p = torch.tensor([1.0, 2.0], requires_grad=True)
q = p * p
p.data.mul_(2)
print(p._version, p.data._version)
q.sum().backward()
print(p.grad, p)
r = torch.tensor([3.0], requires_grad=True)
r.data = torch.tensor([5.0])
print(r, r.requires_grad)
w = x.view(2)
try:
    w.detach_()
except RuntimeError as e:
    print(e)
