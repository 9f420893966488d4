# exp() saves its output for backward; the script scales a copy.
import torch

x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
y = x.exp()
z = y * 2
z.sum().backward()
print(x.grad)
