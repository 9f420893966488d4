# legacy constructors (torch.Tensor, typed classes), Variable and .type(): values, dtypes, aliasing, errors
import torch
from torch.autograd import Variable

a = torch.Tensor([[1, 2], [3, 4]])
b = torch.Tensor(2, 3).shape  # uninitialised memory in torch: only the shape is defined
e = torch.Tensor()
f = torch.FloatTensor([1.5, 2])
d = torch.DoubleTensor([1, 2])
l = torch.LongTensor([1.7, -2.2])
i = torch.IntTensor([3, 4])
bo = torch.BoolTensor([1, 0, 2])
by = torch.ByteTensor([0, 255])
print(a, b, e, f, d, l, i, bo, by)
print(a.dtype, l.dtype, i.dtype, bo.dtype, by.dtype, f.type(), l.type(), isinstance(f, torch.FloatTensor))
src = torch.tensor([1.0, 2.0], requires_grad=True)
al = torch.Tensor(src)
print(al, al.is_leaf)
v = Variable(torch.ones(2), requires_grad=True)
w = Variable(torch.ones(2) * 3)
y = (v * w).sum()
y.backward()
print(v.grad, w.requires_grad, Variable)
q = Variable(torch.zeros(1), volatile=True)
t = f.type(torch.LongTensor)
u = f.type('torch.DoubleTensor')
n = f.new_zeros(2, 2)
o = f.new_full((3,), 7)
p = l.new_ones((2,))
print(t, u, n, o, p)
for bad in (lambda: torch.Tensor(3.5), lambda: torch.Tensor(2, 3.0), lambda: torch.Tensor([1], requires_grad=True),
            lambda: torch.FloatTensor(torch.tensor([1])), lambda: torch.ByteTensor([300]),
            lambda: Variable([1.0]), lambda: Variable(torch.tensor([1]), requires_grad=True),
            lambda: f.type('float'), lambda: torch.Tensor('a')):
    try:
        bad()
    except (TypeError, RuntimeError, ValueError) as ex:
        print(repr(ex))
nw = a.new(2, 3).shape
nl = a.new([1, 2])
ne = a.new()
ni = l.new([1.5, -2.5])
ta = a.type_as(l)
print(nw, nl, ne, ni, ta, a.type_as(a) is a, a.t().is_contiguous(), a.is_contiguous())
try:
    a.new(l)
except TypeError as ex:
    print(repr(ex))
