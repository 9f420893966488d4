# F05 - torch.tensor() on bad data: PyTorch's exception types and texts; autograd.grad on an
# unused input; in-place on a view of a leaf that requires grad
import torch

for f in (lambda: torch.tensor([1.0, [2.0]]), lambda: torch.tensor((1.0, [2.0])), lambda: torch.tensor([1.0, (2.0,)]),
          lambda: torch.tensor([1, [2]]), lambda: torch.tensor([True, [False]]),
          lambda: torch.tensor([1.0, [2.0]], dtype=torch.int64), lambda: torch.tensor([[1.0, 2.0], 3.0])):
    try:
        f()
        print("ok")
    except TypeError as e:
        print("TypeError", e)

for f in (lambda: torch.tensor("abc"), lambda: torch.tensor([1.0, "a"])):
    try:
        f()
        print("ok")
    except TypeError as e:
        print("TypeError", e)

for f in (lambda: torch.tensor([[1.0, 2.0], [3.0]]), lambda: torch.tensor([[1], [2, 3]]),
          lambda: torch.tensor([[[1, 2]], [[3]]]), lambda: torch.tensor([[1.0], []])):
    try:
        f()
        print("ok")
    except ValueError as e:
        print("ValueError", e)

for f in (lambda: torch.tensor(None), lambda: torch.tensor([1.0, None]), lambda: torch.tensor({1: 2})):
    try:
        f()
        print("ok")
    except RuntimeError as e:
        print("RuntimeError", e)

q = torch.tensor(1.0, requires_grad=True)
r = torch.tensor(2.0, requires_grad=True)
try:
    torch.autograd.grad(q * 2, [q, r])
except RuntimeError as e:
    print("RuntimeError", e)
print(torch.autograd.grad(q * 2, [q, r], allow_unused=True))

s = torch.zeros(3, requires_grad=True)
try:
    s[0] = 1.0
except RuntimeError as e:
    print("RuntimeError", e)
