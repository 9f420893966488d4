# A squared-error loss averaged over the batch.
import torch

w = torch.tensor([0.5, -1.0], requires_grad=True)
x = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5], [2.0, 1.0]])
target = torch.tensor([1.0, 0.0, -1.0, 2.0])
loss = ((x @ w - target) ** 2).mean()
loss.backward()
print(w.grad)
