# A clipped update: the gradient's norm (5) is above max_norm (1), so clip_grad_norm_
# scales it by 1/5 before the SGD step moves the weight by lr times the clipped gradient.
import torch

w = torch.tensor([1.0, 2.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
loss = (w * torch.tensor([3.0, 4.0])).sum()
opt.zero_grad()
loss.backward()
total = torch.nn.utils.clip_grad_norm_([w], max_norm=1.0)
opt.step()
print(total, w.grad, w)
