# A linear layer written out: y = X @ W.T + b, loss = mean squared error.
# dL/dW = (dL/dy)^T X, dL/db = dL/dy summed over the batch.
import torch

X = torch.tensor([[1.0, 2.0], [3.0, -1.0]])
W = torch.tensor([[0.5, -0.5]], requires_grad=True)
b = torch.tensor([0.1], requires_grad=True)
target = torch.tensor([[1.0], [0.0]])
y = X @ W.T + b
loss = ((y - target) ** 2).mean()
loss.backward()
print(W.grad)
print(b.grad)
