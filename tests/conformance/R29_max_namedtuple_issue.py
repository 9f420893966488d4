# R29 - max_namedtuple_issue
#
# Source:  GitHub issue / Stack Overflow, "torch.max returns a tuple? torch.return_types.max"
# Teaches: max/min/sort/topk with a dim return a named tuple (values, indices) that unpacks and
#          prints as torch.return_types.*; without dim max returns one tensor; argmax gives only
#          indices; keepdim keeps the reduced dim
# Covers:  torch.max(x, 1), .values/.indices, tuple unpacking, [0]/[1] indexing, keepdim=True,
#          torch.max(a, b) elementwise, argmax/argmin, amax, aminmax, cummax, torch.sort namedtuple,
#          grads through max values and amax ties
# Random:  no
import torch

x = torch.tensor([[1.0, 5.0, 2.0], [4.0, 4.0, 0.0]], requires_grad=True)
res = torch.max(x, 1)
print(res)
print(type(res).__name__, res.values, res[1])
vals, idx = x.max(dim=1, keepdim=True)
print(vals.shape, idx)
print(torch.max(x), x.argmax(), x.argmax(dim=0), x.argmin(1))
print(torch.max(x, torch.full_like(x, 3.0)))
print(x.amax(dim=1), torch.aminmax(torch.tensor([3, -1, 7])))
print(torch.cummax(torch.tensor([1, 3, 2, 5, 4]), dim=0))
print(torch.sort(torch.tensor([3, 1, 2])))
res.values.sum().backward()
print(x.grad)
x.grad = None
x.amax(dim=1).sum().backward()
print(x.grad)
x.grad = None
x.max().backward()
print(x.grad)
print(torch.min(torch.tensor([[2, 8], [9, 1]]), dim=0))
