import torch
import torch.nn as nn

torch.manual_seed(0)
cell = nn.Linear(3, 3)
inp = nn.Linear(2, 3)
xs = torch.randn(30, 4, 2)
h = torch.zeros(4, 3)
for t in range(30):
    h = torch.tanh(cell(h) + inp(xs[t]))
loss = h.sum()
loss.backward()
print(f"loss {loss.item():.4f}")
