# Tensor.where(condition, other) is torch.where(condition, self, other)
import torch

x = torch.tensor([0.5, 2.0, -1.0], requires_grad=True)
a = torch.zeros(3)
y = x.where(x > 1, a)
print(y)
y.sum().backward()
print(x.grad)
print(x.detach().where(x.detach() < 0, 7.0))
