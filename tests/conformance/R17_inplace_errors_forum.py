# R17 - inplace_errors_forum
#
# Source:  PyTorch forum, "RuntimeError: a leaf Variable that requires grad is being used in an
#          in-place operation" and "one of the variables needed for gradient computation has been
#          modified by an inplace operation"
# Teaches: leaves that require grad cannot be modified in place outside no_grad; sigmoid saves its
#          output, so sigmoid_()-style edits of it break backward; nn.ReLU(inplace=True) after Linear is
#          fine; with torch.no_grad() is the fix for manual updates
# Covers:  w += 1 on a leaf (error caught), with torch.no_grad(): w -= lr * w.grad, w.grad.zero_(),
#          nn.ReLU(inplace=True) grad_fn ReluBackward0, out.sigmoid() then mul_ -> version error at
#          backward, _version
# Random:  yes - torch.manual_seed(0); default init, torch.randn
import torch
import torch.nn as nn

w = torch.tensor([1.0, 2.0], requires_grad=True)
try:
    w += 1
except RuntimeError as e:
    print(e)
loss = (w * w).sum()
loss.backward()
with torch.no_grad():
    w -= 0.1 * w.grad
w.grad.zero_()
print(w, w.grad, w._version)
torch.manual_seed(0)
net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(inplace=True), nn.Linear(3, 1))
print(net)
h = net[1](net[0](torch.randn(4, 2)))
print(h.grad_fn)
net(torch.randn(4, 2)).sum().backward()
print(net[0].bias.grad)
x = torch.randn(3, requires_grad=True)
s = x.sigmoid()
print(s._version)
s.mul_(2)
print(s._version, s.grad_fn)
s.sum().backward()
