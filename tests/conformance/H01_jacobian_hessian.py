# torch.autograd.functional.jacobian and hessian on small functions
import torch
from torch.autograd.functional import hessian, jacobian


def f(x):
    return x ** 2 * torch.tensor([1.0, 2.0, 3.0])


def g(x):
    return (x ** 3).sum() + x[0] * x[1]


x = torch.tensor([1.0, -2.0, 0.5])
J = jacobian(f, x)
print(J)
H = hessian(g, x)
print(H)
J2 = jacobian(lambda a: a.exp().sum(0), torch.tensor([[0.0, 1.0], [2.0, -1.0]]))
print(J2.shape, J2)
