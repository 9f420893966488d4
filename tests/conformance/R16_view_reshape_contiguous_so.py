# R16 - view_reshape_contiguous_so
#
# Source:  Stack Overflow, "What's the difference between reshape and view in pytorch?"
# Teaches: view needs compatible strides (fails after transpose/permute); reshape copies when it must;
#          .contiguous().view works; view shares storage, so writes show through
# Covers:  is_contiguous, stride(), t(), permute, view(-1), reshape, contiguous, data_ptr equality via
#          untyped storage avoided (uses value checks), flatten, the view RuntimeError text, a view with
#          a wrong numel (shape '[...]' is invalid for input of size N)
# Random:  no
import torch

a = torch.arange(12).view(3, 4)
print(a.stride(), a.is_contiguous())
b = a.t()
print(b.stride(), b.is_contiguous())
c = b.reshape(-1)
print(c)
d = b.contiguous().view(-1)
print(torch.equal(c, d))
v = a.view(4, 3)
v[0, 0] = 100
print(a[0, 0])
r = a.reshape(2, 6)
r[1, 5] = -1
print(a)
p = torch.arange(24.).view(2, 3, 4).permute(2, 0, 1)
print(p.shape, p.is_contiguous(), p.flatten(1).shape)
x = torch.ones(2, 3, requires_grad=True)
y = x.t().reshape(6) * torch.arange(6.)
y.sum().backward()
print(y.grad_fn, x.grad)
try:
    a.view(5, 2)
except RuntimeError as e:
    print(e)
print(b.view(-1))
