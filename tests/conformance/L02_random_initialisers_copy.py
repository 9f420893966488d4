# in-place random initialisers and copy_: torch's CPU generator numbers, errors, CopyBackwards
import torch

torch.manual_seed(0)
u = torch.empty(3, 2).uniform_(-1, 1)
n = torch.empty(20).normal_(2.0, 0.5)
r = torch.empty(6).random_(10)
r2 = torch.zeros(4, dtype=torch.int64).random_(3, 9)
bern = torch.empty(5).bernoulli_(0.4)
ex = torch.empty(4).exponential_(2.0)
full = torch.Tensor(2, 2).fill_(1.5)
print(u, n, r, r2, bern, ex, full, sep="\n")
g = torch.Generator().manual_seed(7)
a = torch.rand(3, generator=g)
b = torch.randn(2, 2, generator=g)
c = torch.randint(0, 5, (4,), generator=g)
pm = torch.randperm(6, generator=g)
nm = torch.normal(torch.zeros(3), torch.ones(3) * 2)
bn = torch.bernoulli(torch.tensor([0.1, 0.9, 0.5]))
print(a, b, c, pm, nm, bn, sep="\n")
s = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
dst = torch.zeros(2, 3)
dst.copy_(s)
(dst * torch.arange(6.).view(2, 3)).sum().backward()
print(dst, s.grad)
z = torch.zeros(2, dtype=torch.int64).copy_(torch.tensor([1.7, -2.5]))
print(z)
w = torch.ones(3, requires_grad=True)
with torch.no_grad():
    w.uniform_(0, 1)
print(w.requires_grad, w.is_leaf)
for bad in (lambda: w.normal_(), lambda: torch.ones(2).uniform_(2, 1), lambda: torch.ones(2).random_(5, 2),
            lambda: torch.ones(2).exponential_(-1), lambda: torch.ones(2).bernoulli_(1.5),
            lambda: torch.zeros(2, 3).copy_(torch.ones(2)), lambda: torch.ones(2, dtype=torch.long).normal_()):
    try:
        bad()
    except (RuntimeError, NotImplementedError) as e:
        print(repr(e))
