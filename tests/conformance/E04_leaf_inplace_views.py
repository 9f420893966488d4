# E04 - leaf in-place errors and views of leaves
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
try:
    x[0] = 1
except RuntimeError as e:
    print(e)
try:
    x.view(-1).add_(1)
except RuntimeError as e:
    print(e)
try:
    x.add_(1)
except RuntimeError as e:
    print(e)
try:
    x.zero_()
except RuntimeError as e:
    print(e)
with torch.no_grad():
    x[0] = 5
    x.view(-1).add_(1)
print(x, x._version)
v = x[1:]
print(v.grad_fn)
try:
    v.mul_(2)
except RuntimeError as e:
    print(e)
