# E09 - .grad assignment errors, zero_ on grad, grad=None, numpy/item/bool/non-scalar errors
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
(x * 2).sum().backward()
x.grad.zero_()
print(x.grad)
x.grad = None
print(x.grad)
try:
    x.grad = torch.tensor([1.0, 2.0, 3.0])
except RuntimeError as e:
    print(e)
try:
    x.grad = torch.tensor([1, 2])
except RuntimeError as e:
    print(e)
try:
    x.grad = torch.tensor([1.0, 2.0], dtype=torch.float64)
except RuntimeError as e:
    print(e)
x.grad = torch.tensor([5.0, 6.0])
(x * 2).sum().backward()
print(x.grad)
try:
    x.numpy()
except RuntimeError as e:
    print(e)
try:
    x.item()
except RuntimeError as e:
    print(e)
try:
    bool(x)
except RuntimeError as e:
    print(e)
try:
    if x:
        print("yes")
except RuntimeError as e:
    print(e)
try:
    (x * 2).backward()
except RuntimeError as e:
    print(e)
try:
    torch.tensor([1.0, 2.0]).sum().backward()
except RuntimeError as e:
    print(e)
try:
    (x * 2).backward(torch.ones(3))
except RuntimeError as e:
    print(e)
try:
    torch.tensor([]).item()
except RuntimeError as e:
    print(e)
y = x * 2
g = y.grad
print(g)
y.retain_grad()
print(y.grad)
