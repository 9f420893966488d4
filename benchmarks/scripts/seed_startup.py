# Start-up: the seed article's z = (x*3).sum() example, as small as a script gets.
import torch

x = torch.tensor([2.0, 3.0], requires_grad=True)
y = x * 3
z = y.sum()
z.backward()
print(x.grad)
