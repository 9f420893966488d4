# nll_loss / cross_entropy gradients are +0 away from the targets (printed as 0., not -0.)
import torch
import torch.nn.functional as F

x = torch.tensor([[0.5, 1.0], [2.0, 3.0]], requires_grad=True)
F.nll_loss(x, torch.tensor([0, 1])).backward()
print(x.grad)
x.grad = None
F.nll_loss(x, torch.tensor([0, 1]), reduction="sum").backward()
print(x.grad)
x.grad = None
F.nll_loss(x, torch.tensor([0, 1]), reduction="none").backward(torch.tensor([1.0, -2.0]))
print(x.grad)
y = torch.tensor([[0.5, 1.0, 0.0], [2.0, 3.0, 1.0]], requires_grad=True)
F.cross_entropy(y, torch.tensor([2, 1]), ignore_index=2).backward()
print(y.grad)
y.grad = None
F.nll_loss(y, torch.tensor([2, 1]), weight=torch.tensor([1.0, 2.0, 0.5])).backward()
print(y.grad)
