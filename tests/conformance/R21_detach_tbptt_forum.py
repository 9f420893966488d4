# R21 - detach_tbptt_forum
#
# Source:  PyTorch forum, "Why do we need to detach the hidden state between batches?"
# Teaches: without detach the second backward walks into the freed first graph ("Trying to backward
#          through the graph a second time"); hidden.detach() cuts the history (truncated BPTT);
#          detach shares data with the original, clone does not
# Covers:  nn.RNNCell loop over chunks, h = h.detach(), detach().requires_grad, detach() sharing
#          memory (edit visible), clone().detach(), detach_(), the second-backward RuntimeError
# Random:  yes - torch.manual_seed(0); RNNCell default init, torch.randn
import torch
import torch.nn as nn

torch.manual_seed(0)
cell = nn.RNNCell(2, 3)
opt = torch.optim.SGD(cell.parameters(), lr=0.1)
data = torch.randn(4, 2, 2)
h = torch.zeros(2, 3)
for chunk in range(2):
    h = h.detach()
    for t in range(2):
        h = cell(data[chunk * 2 + t], h)
    loss = h.pow(2).sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(chunk, round(loss.item(), 5), h.grad_fn.name())
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 2
c = b.detach()
print(c.requires_grad, c.is_leaf, c.grad_fn)
c[0] = 10
print(b)
d = b.clone().detach()
d[1] = -1
print(b, d)
e = a * 3
e.detach_()
print(e.requires_grad, e.grad_fn)
h = torch.zeros(1, 3)
h = cell(data[0][:1], h)
l1 = h.sum()
l1.backward()
h2 = cell(data[1][:1], h)
h2.sum().backward()
