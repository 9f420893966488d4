# Softmax with cross-entropy by hand: p = exp(z) / sum(exp(z)), loss = -log(p[target]).
# The gradient with respect to the logits is p - onehot(target).
import torch

z = torch.tensor([2.0, 1.0, 0.1], requires_grad=True)
e = torch.exp(z)
p = e / e.sum()
loss = -torch.log(p[0])
loss.backward()
print(p)
print(z.grad)
