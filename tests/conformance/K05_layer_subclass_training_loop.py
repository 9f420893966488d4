# Subclassing a layer (super().forward, extra_repr), a @torch.no_grad() method, the old-style
# nn.Module.__init__(self) call, and a training loop over a script module with an optimizer.
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
class Scaled(nn.Linear):
    def __init__(self, i, o, k):
        super().__init__(i, o)
        self.k = k
    def forward(self, x):
        return super().forward(x) * self.k
    @torch.no_grad()
    def predict(self, x):
        return self(x)
    def extra_repr(self):
        return super().extra_repr() + f", k={self.k}"
m = Scaled(2, 3, 2.0)
print(m, m.weight.shape, m.in_features, isinstance(m, nn.Linear))
x = torch.ones(1, 2)
print(m(x).grad_fn, m.predict(x).requires_grad)
print([n for n, _ in m.named_parameters()])
class Holder:
    @torch.no_grad()
    def run(self, t):
        return t * 2
print(Holder().run(torch.ones(1, requires_grad=True)).requires_grad)
torch.manual_seed(1)

class MLP(nn.Module):
    def __init__(self, d_in, d_hidden, d_out):
        nn.Module.__init__(self)
        self.layers = nn.Sequential(nn.Linear(d_in, d_hidden), nn.ReLU(), nn.Linear(d_hidden, d_out))

    def forward(self, x):
        return self.layers(x)

model = MLP(3, 4, 2)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(5, 3)
y = torch.tensor([0, 1, 0, 1, 1])
for epoch in range(3):
    opt.zero_grad()
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    loss.backward()
    opt.step()
    print(epoch, round(loss.item(), 4))
print(model)
print(model.layers[0].weight.grad.shape, len(list(model.parameters())), model.layers[-1])
print(len(model.layers), [type(m).__name__ for m in model.layers])
for name, p in model.named_parameters():
    print(name, tuple(p.shape))
print(model.state_dict()['layers.0.bias'])
print(hasattr(model, 'layers'), hasattr(model, 'zzz'), getattr(model, 'training'))
model.flag = True
print(model.flag)
