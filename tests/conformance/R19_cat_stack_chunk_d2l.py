# R19 - cat_stack_chunk_d2l
#
# Source:  d2l (Dive into Deep Learning), "Data Manipulation" + "Indexing and Slicing"
# Teaches: cat joins along an existing dim, stack makes a new one; chunk/split cut tensors; boolean
#          masks select and assign; gather picks per-row entries; gradients flow back through all of
#          them
# Covers:  torch.cat((X, Y), dim=0/1), torch.stack, X == Y, X.sum(), broadcasting, X[-1], X[1:3],
#          X[0:2, :] = 12, chunk, split with sizes, unbind, masked assignment, masked_select, gather,
#          CatBackward0/StackBackward0/SplitBackward0 grad_fns, id-based before/after (Y = Y + X vs
#          Y += X) shown with is-identity instead
# Random:  no
import torch

X = torch.arange(12, dtype=torch.float32).reshape((3, 4))
Y = torch.tensor([[2.0, 1, 4, 3], [1, 2, 3, 4], [4, 3, 2, 1]])
print(torch.cat((X, Y), dim=0), torch.cat((X, Y), dim=1))
print(X == Y, X.sum())
a = torch.arange(3).reshape((3, 1))
b = torch.arange(2).reshape((1, 2))
print(a + b)
print(X[-1], X[1:3])
X[1, 2] = 9
X[0:2, :] = 12
print(X)
before = Y
Y = Y + X
print(Y is before)
Z = torch.zeros_like(Y)
alias = Z
Z[:] = X + Y
print(Z is alias)
print(torch.stack([X[0], Y[0]]), torch.stack([X[0], Y[0]], dim=1).shape)
w = torch.arange(10.0, requires_grad=True)
parts = w.chunk(3)
print(parts)
s1, s2 = w.split([4, 6])
print(s1, s2.grad_fn)
(parts[0].sum() * 2 + s2.prod() * 0 + torch.stack([w[1], w[9]]).sum()).backward()
print(w.grad)
u = torch.unbind(torch.arange(6).view(2, 3), dim=1)
print(u)
mask = X > 10
print(mask.sum(), X[mask].shape, torch.masked_select(Y, Y > 20))
Y[Y > 20] = 0
print(Y)
idx = torch.tensor([[0], [3], [1]])
print(X.gather(1, idx))
print(torch.cat([torch.ones(1, 2), torch.zeros(2, 2)]).shape)
try:
    torch.cat([torch.ones(2, 2), torch.ones(2, 3)])
except RuntimeError as e:
    print(e)
try:
    torch.stack([torch.ones(2), torch.ones(3)])
except RuntimeError as e:
    print(e)
