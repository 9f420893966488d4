# The same training step without zero_grad(): the gradients of all steps add up.
import torch

w = torch.tensor([1.0, -2.0], requires_grad=True)
x = torch.tensor([0.5, 3.0])
opt = torch.optim.SGD([w], lr=0.1)
for step in range(3):
    loss = ((w * x).sum() - 1.0) ** 2
    loss.backward()
    opt.step()
print(w)
