# R10 - topk_ties_issue
#
# Source:  GitHub issue, "topk / kthvalue / median: which index is returned for equal values?"
# Teaches: with repeated values, the returned indices follow the CPU kernel's order; gradients go to
#          exactly the returned indices
# Covers:  torch.topk (largest, smallest, sorted), kthvalue, median (global and dim), mode, sort
#          (stable), argsort, max/min with dim, gradients through topk and median values
# Random:  no
import torch

t = torch.tensor([1.0, 3.0, 3.0, 2.0, 3.0, 1.0])
print(torch.topk(t, 2))
print(torch.topk(t, 3, largest=False))
print(t.topk(4, sorted=True).indices)
print(torch.kthvalue(t, 2), torch.kthvalue(t, 4))
print(torch.median(t), t.median(dim=0))
m = torch.tensor([[2.0, 1.0, 2.0, 1.0], [5.0, 5.0, 5.0, 0.0]])
print(m.median(dim=1))
print(m.kthvalue(2, dim=1))
print(m.topk(2, dim=1))
print(torch.mode(torch.tensor([3, 1, 3, 1, 2])))
print(torch.sort(t, stable=True), torch.sort(t, descending=True, stable=True).indices)
print(torch.argsort(t))
print(m.max(dim=1), m.min(dim=0))
x = torch.tensor([0.5, 2.0, 2.0, -1.0, 2.0], requires_grad=True)
v, i = x.topk(2)
v.sum().backward()
print(i, x.grad)
x.grad = None
x.median().backward()
print(x.grad)
y = torch.tensor([[4.0, 4.0, 1.0, 4.0, 0.0, 4.0, 4.0, 2.0]])
print(y.topk(3), y.median(1), y.kthvalue(5, 1))
