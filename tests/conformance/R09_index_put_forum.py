# R09 - index_put_forum
#
# Source:  PyTorch forum, "How to set values at given indices of a tensor (index_put_ / index_copy_)"
# Teaches: index_put_ writes values at (row, col) index tuples, accumulate=True adds duplicates;
#          put_ uses flat indices; index_copy_ copies whole rows; gradients flow to the written values
# Covers:  Tensor.index_put_ with a tuple of LongTensors, accumulate, torch.index_put (out of place,
#          IndexPutBackward0), put_, index_copy_ / index_copy, index_add_, index_fill_, grads of the
#          source and of the destination
# Random:  no
import torch

x = torch.zeros(3, 4)
rows = torch.tensor([0, 2, 2])
cols = torch.tensor([1, 3, 3])
x.index_put_((rows, cols), torch.tensor([1.0, 2.0, 5.0]))
print(x)
y = torch.zeros(3, 4)
y.index_put_((rows, cols), torch.tensor([1.0, 2.0, 5.0]), accumulate=True)
print(y)
z = torch.zeros(5)
z.put_(torch.tensor([0, 4]), torch.tensor([9.0, 7.0]))
print(z)
m = torch.arange(6.0).view(2, 3)
m.put_(torch.tensor([1, 5, 1]), torch.tensor([10.0, 20.0, 30.0]), accumulate=True)
print(m)
src = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
base = torch.ones(4, 3, requires_grad=True)
out = base.index_copy(0, torch.tensor([3, 1]), src)
print(out)
(out * torch.arange(12.0).view(4, 3)).sum().backward()
print(src.grad)
print(base.grad)
vals = torch.tensor([1.0, 2.0], requires_grad=True)
dst = torch.zeros(2, 2, requires_grad=True)
r = torch.index_put(dst, (torch.tensor([0, 1]), torch.tensor([1, 1])), vals)
print(r)
(r * torch.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
print(vals.grad, dst.grad)
t = torch.zeros(3, 2)
t.index_copy_(0, torch.tensor([2, 0]), torch.tensor([[1.0, 1.0], [2.0, 2.0]]))
print(t)
t.index_add_(0, torch.tensor([1, 1]), torch.tensor([[0.5, 0.5], [1.0, 1.0]]))
t.index_fill_(1, torch.tensor([0]), -1.0)
print(t)
a = torch.zeros(2, 2)
a[torch.tensor([0, 1]), torch.tensor([1, 0])] = torch.tensor([3.0, 4.0])
print(a)
try:
    torch.zeros(3).put_(torch.tensor([3]), torch.tensor([1.0]))
except (RuntimeError, IndexError) as e:
    print(type(e).__name__, e)
