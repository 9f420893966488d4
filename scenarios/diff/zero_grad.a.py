# A training step that zeroes the gradient before every backward pass.
import torch

w = torch.tensor([1.0, -2.0], requires_grad=True)
x = torch.tensor([0.5, 3.0])
opt = torch.optim.SGD([w], lr=0.1)
for step in range(3):
    opt.zero_grad()
    loss = ((w * x).sum() - 1.0) ** 2
    loss.backward()
    opt.step()
print(w)
