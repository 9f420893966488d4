# E05 - in-place on a view of a non-leaf: base's grad_fn rebased
import torch

x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
base = x * 2
v = base[1:3]
v.mul_(3)
print(base, base.grad_fn, v.grad_fn)
base.sum().backward()
print(x.grad)
x2 = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b2 = x2.clone()
b2[0] = 10
print(b2, b2.grad_fn)
(b2 * b2).sum().backward()
print(x2.grad)
x3 = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
b3 = x3 + 0
vv = b3.view(-1)
vv.exp_()
print(b3.grad_fn, vv.grad_fn)
b3.sum().backward()
print(x3.grad)
