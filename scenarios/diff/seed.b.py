# A random linear layer, seeded.
import torch

torch.manual_seed(1)
w = torch.randn(3, requires_grad=True)
x = torch.tensor([1.0, 2.0, 3.0])
loss = torch.sigmoid(w @ x)
loss.backward()
print(w.grad)
