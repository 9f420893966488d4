# A 2,000-node graph for explain and graph.
import torch

x = torch.tensor([0.5, -0.25], requires_grad=True)
y = x
for i in range(1000):
    y = torch.tanh(y) * 1.01
z = y.sum()
z.backward()
print(x.grad)
