# E11 - in-place op on a view of a non-leaf: CopySlices wraps the op; mul_ keeps the original self
import torch
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
y = torch.tensor([5.0, 6.0], requires_grad=True)
base = x * 2
v = base[1:3]
v.mul_(y)
print(base.grad_fn.next_functions[0][0].name(), base.grad_fn.next_functions[1][0].name(), v.grad_fn.next_functions[0][0].name())
(base * base).sum().backward()
print(x.grad, y.grad)
b2 = x.exp()
w = b2.view(2, 2)[:, 1]
w.pow_(2)
(b2 * 1).sum().backward()
print(x.grad)
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([5.0, 6.0], requires_grad=True)
b = x * 2
b.mul_(y)
b.sum().backward()
print(x.grad, y.grad)
