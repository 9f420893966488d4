# F02 - pow gradients at base 0 / exponent 0 (torch 2.13 pow_backward_self and
# pow_backward_exponent: masked where exponent == 0, and where base == 0 and exponent >= 0)
import torch

p = torch.tensor([0.0, 2.0], requires_grad=True)
(p ** p).sum().backward()
print("p**p", p.grad)

p = torch.tensor([0.0, 2.0], requires_grad=True)
y = p.pow(torch.tensor([0.0, 0.0]))
y.sum().backward()
print("pow(tensor 0)", p.grad, y.grad_fn.name())

p = torch.tensor([0.0, 2.0], requires_grad=True)
p.pow(0).sum().backward()
print("pow(0)", p.grad)

p = torch.tensor([0.0, 2.0, -1.0], requires_grad=True)
p.pow(0.5).sum().backward()
print("pow(0.5)", p.grad)

b = torch.tensor([0.0, 0.0, 0.0, 2.0, -2.0], requires_grad=True)
e = torch.tensor([0.0, 1.0, -1.0, 0.0, 0.5], requires_grad=True)
(b ** e).sum().backward()
print("tensor**tensor", b.grad, e.grad)

b = torch.tensor([0.0, 0.0, 3.0], requires_grad=True)
e = torch.tensor([0.0, 2.0, 0.0], requires_grad=True)
((b ** e) * float("inf")).sum().backward()
print("inf upstream", b.grad, e.grad)

for base in (0.0, 2.0, -2.0):
    e = torch.tensor([0.0, 2.0, -1.0, 0.5], requires_grad=True)
    y = torch.pow(base, e)
    y.sum().backward()
    print("scalar base", base, y, e.grad, y.grad_fn.name())

e = torch.tensor([0.0, 2.0, -1.0], requires_grad=True)
y = 0.0 ** e
(y * float("inf")).sum().backward()
print("0**e inf upstream", e.grad)
