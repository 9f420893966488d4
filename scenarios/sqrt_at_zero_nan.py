# sqrt at 0: the forward value is fine (0), but d sqrt(x)/dx = 1/(2 sqrt(x)) is inf at 0,
# and 0 * inf = nan further down.
import torch

x = torch.tensor([0.0, 4.0], requires_grad=True)
y = torch.sqrt(x)
loss = (y * 0.0 + y).sum()
loss.backward()
print(x.grad)
