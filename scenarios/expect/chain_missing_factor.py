# The chain rule through a power: d/dx (3x + 1)^2 = 2 * (3x + 1) * 3; a formula that drops the 3.
# autotrace explain chain_missing_factor.py --expect 'x.grad = 2 * (3 * x + 1)'
import torch

x = torch.tensor([0.5, -1.0], requires_grad=True)
u = 3 * x + 1
loss = (u ** 2).sum()
loss.backward()
