# A tiny CNN that ends in adaptive max pooling (any input size -> fixed head), plus the functional
# forms with return_indices, 1-d pooling, overlapping bins, nan and tie rules, and bad arguments.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.pool = nn.AdaptiveMaxPool2d((2, 2))
        self.fc = nn.Linear(16, 3)

    def forward(self, x):
        x = F.relu(self.conv(x))
        x = self.pool(x)
        return self.fc(x.flatten(1))


model = Net()
print(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
for size in [(7, 9), (5, 5), (12, 6)]:
    img = torch.randn(2, 1, *size)
    out = model(img)
    loss = F.cross_entropy(out, torch.tensor([0, 2]))
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(size, out.shape, round(loss.item(), 4))

x = torch.randn(2, 3, 5, 7, requires_grad=True)
o, idx = F.adaptive_max_pool2d(x, (3, 4), return_indices=True)
print(o.grad_fn.name(), idx.dtype, idx[1, 2])
(o * torch.arange(12.0).reshape(3, 4)).sum().backward()
print(x.grad[1, 2])
seq = torch.randn(4, 10, requires_grad=True)
p = nn.AdaptiveMaxPool1d(3)(seq)
print(p.grad_fn.name(), p.grad_fn.next_functions[0][0].name(), p)
p.sum().backward()
print(seq.grad)
print(nn.AdaptiveMaxPool1d(4, return_indices=True), nn.AdaptiveMaxPool2d((None, 3)), nn.AdaptiveMaxPool2d(5))
print(F.adaptive_max_pool2d(x, (None, 2)).shape, F.adaptive_max_pool2d(x, 9).shape, F.adaptive_max_pool2d(x, 0).shape)
t = torch.tensor([[[1.0, float("nan"), 2.0, float("nan"), 0.0, 3.0, 3.0, -1.0]]])
print(F.adaptive_max_pool1d(t, 1, return_indices=True), torch.adaptive_max_pool1d(t, 3))
print(F.adaptive_max_pool1d_with_indices(t, 2), F.adaptive_max_pool2d_with_indices(x[0], 1)[1])
for bad in [lambda: F.adaptive_max_pool2d(torch.randn(3, 4), 2), lambda: F.adaptive_max_pool2d(x, (1, 2, 3)),
            lambda: F.adaptive_max_pool2d(x, -1), lambda: F.adaptive_max_pool1d(torch.randn(4), 2),
            lambda: F.adaptive_max_pool1d(x, 2), lambda: F.adaptive_max_pool2d(torch.arange(24).reshape(2, 3, 4), 2),
            lambda: F.adaptive_max_pool2d(torch.randn(1, 0, 4), 2), lambda: F.adaptive_max_pool1d(seq, (2, 3)),
            lambda: F.adaptive_max_pool2d(x, 2.5), lambda: F.adaptive_max_pool1d(seq, None),
            lambda: F.adaptive_max_pool2d(x, (2, "a"))]:
    try:
        bad()
    except (RuntimeError, NotImplementedError, TypeError) as e:
        print(type(e).__name__, e)
