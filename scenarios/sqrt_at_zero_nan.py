# A nan from sqrt at 0: the length of a zero vector. The forward value is fine (0), but
# d sqrt(s)/ds = 1/(2 sqrt(s)) is inf at s = 0, and inf * 2x with x = 0 is nan.
import torch

x = torch.tensor([0.0, 0.0], requires_grad=True)
s = (x ** 2).sum()
length = torch.sqrt(s)
length.backward()
print(length, x.grad)
