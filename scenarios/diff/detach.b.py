# The hidden layer's output detached: the graph is cut, w1 gets no gradient.
import torch

w1 = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
w2 = torch.tensor([1.5, -0.5], requires_grad=True)
x = torch.tensor([1.0, 2.0])
h = torch.tanh(w1 @ x).detach()
y = (w2 * h).sum()
y.backward()
print(w1.grad, w2.grad)
