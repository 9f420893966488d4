# The output of exp() scaled in place: backward needs it and refuses.
import torch

x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
y = x.exp()
y *= 2
y.sum().backward()
print(x.grad)
