# Broadcasting: b (shape [3]) is added to every row of a [2, 3] matrix, so its gradient
# is summed back over the rows.
import torch

X = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
b = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
y = X + b
loss = (y * y).sum()
loss.backward()
print(b.grad)
