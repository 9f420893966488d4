# A bias broadcast over a batch of 4 rows: its gradient sums over the rows.
# autotrace explain bias_missing_sum.py --expect 'b.grad = 2 * (X @ W + b - Y)'
import torch

X = torch.tensor([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0], [-1.0, 1.0]])
Y = torch.tensor([[1.0, 0.0, 2.0], [0.0, 1.0, 1.0], [1.0, 1.0, 0.0], [2.0, 0.0, 1.0]])
W = torch.tensor([[0.5, -0.5, 1.0], [1.0, 0.25, -1.0]])
b = torch.tensor([0.1, -0.2, 0.3], requires_grad=True)
loss = ((X @ W + b - Y) ** 2).sum()
loss.backward()
