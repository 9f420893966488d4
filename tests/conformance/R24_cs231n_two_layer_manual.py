# R24 - cs231n_two_layer_manual
#
# Source:  CS231n-style notes, "two-layer network: forward, softmax loss, backward by hand, check
#          against autograd"
# Teaches: the hand-derived gradients of a ReLU two-layer net with softmax loss and L2 regularisation
#          equal autograd's; relative error check
# Covers:  torch.mm, clamp(min=0), max(dim=1, keepdim=True) stabilisation, exp/sum/log, arange
#          fancy indexing scores[range(N), y], hand backward (dscores, dW2, db2, dh, dW1), rel_error
#          with torch.max(torch.abs(...)), torch.float64 leaves, grad comparison
# Random:  yes - torch.manual_seed(0); torch.randn weights and data
import torch

torch.manual_seed(0)
N, D, H, C = 5, 4, 6, 3
X = torch.randn(N, D, dtype=torch.float64)
y = torch.tensor([0, 1, 2, 2, 1])
W1 = (1e-1 * torch.randn(D, H, dtype=torch.float64)).requires_grad_()
b1 = torch.zeros(H, dtype=torch.float64, requires_grad=True)
W2 = (1e-1 * torch.randn(H, C, dtype=torch.float64)).requires_grad_()
b2 = torch.zeros(C, dtype=torch.float64, requires_grad=True)
reg = 0.05

h = (X.mm(W1) + b1).clamp(min=0)
scores = h.mm(W2) + b2
shifted = scores - scores.max(dim=1, keepdim=True)[0]
probs = shifted.exp() / shifted.exp().sum(dim=1, keepdim=True)
data_loss = -probs[torch.arange(N), y].log().mean()
loss = data_loss + reg * ((W1 * W1).sum() + (W2 * W2).sum())
loss.backward()
print(loss.item())

with torch.no_grad():
    dscores = probs.clone()
    dscores[range(N), y] -= 1
    dscores /= N
    dW2 = h.t().mm(dscores) + 2 * reg * W2
    db2 = dscores.sum(0)
    dh = dscores.mm(W2.t())
    dh[h <= 0] = 0
    dW1 = X.t().mm(dh) + 2 * reg * W1
    db1 = dh.sum(0)


def rel_error(x, y):
    return torch.max(torch.abs(x - y) / torch.clamp(torch.abs(x) + torch.abs(y), min=1e-8)).item()


for name, mine, auto in [('W1', dW1, W1.grad), ('b1', db1, b1.grad), ('W2', dW2, W2.grad), ('b2', db2, b2.grad)]:
    print(name, rel_error(mine, auto) < 1e-8)
print(probs.sum(1), probs.grad_fn)
print(W2.grad)
