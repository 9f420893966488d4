# Evaluation under torch.no_grad(): the test loss is computed without a graph, so it has
# no grad_fn and calling backward() on it would fail; the training pass before it is
# explained as usual.
import torch

w = torch.tensor([0.5, -1.0], requires_grad=True)
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
y = torch.tensor([1.0, 0.0])
loss = ((x @ w - y) ** 2).mean()
loss.backward()
with torch.no_grad():
    w -= 0.1 * w.grad
    test_loss = ((x @ w - y) ** 2).mean()
print(loss, test_loss, test_loss.requires_grad, w.grad)
