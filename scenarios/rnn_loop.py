# An RNN-style loop: the same weight W is used at each of 30 steps, so W's gradient is
# the sum of 30 contributions, one per use (30 paths from loss to W).
import torch

W = torch.tensor([[0.9, 0.2, 0.0], [-0.3, 0.8, 0.1], [0.1, -0.2, 1.0]], requires_grad=True)
h = torch.tensor([1.0, -0.5, 0.25])
for t in range(30):
    h = torch.tanh(W @ h)
loss = h.sum()
loss.backward()
print(W.grad)
