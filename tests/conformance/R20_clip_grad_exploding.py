# R20 - clip_grad_exploding
#
# Source:  PyTorch forum, "How to do gradient clipping in pytorch?"
# Teaches: clip_grad_norm_ rescales all grads so their joint norm is at most max_norm and returns the
#          norm before clipping; clip_grad_value_ clamps each element; call between backward and step
# Covers:  nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0), norm_type=inf,
#          torch.nn.utils.clip_grad_value_, computing the total norm by hand with torch.stack and
#          p.grad.detach().norm(2), an RNN-like loop with large weights, parameters_to_vector
# Random:  yes - torch.manual_seed(0); default init and torch.randn
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 1))
with torch.no_grad():
    model[0].weight.mul_(10)
x = torch.randn(8, 4)
loss = (model(x) * 50).pow(2).mean()
loss.backward()
manual = torch.norm(torch.stack([p.grad.detach().norm(2) for p in model.parameters()]), 2)
total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print(total, manual)
after = torch.norm(torch.stack([p.grad.norm() for p in model.parameters()]))
print(after)
loss2 = model(x).sum()
model.zero_grad()
loss2.backward()
print(nn.utils.clip_grad_norm_(model.parameters(), 0.5, norm_type=float('inf')))
print(model[2].weight.grad)
model.zero_grad()
model(x).sum().backward()
nn.utils.clip_grad_value_(model.parameters(), clip_value=0.1)
print(model[2].bias.grad, model[0].weight.grad.abs().max())
vec = nn.utils.parameters_to_vector(model.parameters())
print(vec.shape, vec.grad_fn)
print(nn.utils.clip_grad_norm_([], 1.0))
