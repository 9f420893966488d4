# A small MLP zoo of the less common activations (SELU/CELU/Mish/Hardswish/Hardsigmoid/Softsign/
# Tanhshrink/LogSigmoid): module reprs, grad_fn names, values and grads, in-place forms, bad arguments.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(4, 3, requires_grad=True)
mods = [nn.SELU(), nn.SELU(inplace=True), nn.CELU(), nn.CELU(alpha=0.5), nn.CELU(2.0, inplace=True), nn.Mish(),
        nn.Mish(inplace=True), nn.Hardswish(), nn.Hardswish(inplace=True), nn.Hardsigmoid(), nn.Softsign(),
        nn.Tanhshrink(), nn.LogSigmoid()]
for m in mods:
    x.grad = None
    y = m(x * 3)
    y.sum().backward()
    print(m, y.grad_fn.name(), y[0], x.grad[1])
print(F.selu(x)[0], F.celu(x, 0.3)[1], F.mish(x)[2], F.hardswish(x * 4)[3], F.hardsigmoid(x * 4)[0])
print(F.softsign(x)[1], F.tanhshrink(x)[2], F.logsigmoid(x * 10)[3])
print(torch.selu(x)[0], torch.celu(x, alpha=2.0)[1])
h = x * 1
torch.selu_(h)
print(h.grad_fn.name(), h[0])
g = x * 1
torch.celu_(g, 0.5)
print(g.grad_fn.name(), g.grad_fn.next_functions[0][0].name())
edges = torch.tensor([-3.0, 3.0, 0.0, -4.0, 4.0], requires_grad=True)
F.hardswish(edges).sum().backward()
print(edges.grad)
edges.grad = None
F.hardsigmoid(edges).sum().backward()
print(edges.grad)

net = nn.Sequential(nn.Linear(3, 8), nn.SELU(), nn.Linear(8, 8), nn.Mish(), nn.Linear(8, 1), nn.LogSigmoid())
print(net)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(3):
    opt.zero_grad()
    loss = -net(x.detach()).mean()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5))

for bad in [lambda: F.selu(torch.arange(3)), lambda: F.celu(torch.ones(2), alpha=0.0),
            lambda: F.mish(torch.tensor([True])), lambda: F.hardswish(torch.arange(2)),
            lambda: F.hardsigmoid(torch.arange(2)), lambda: F.logsigmoid(torch.arange(2)),
            lambda: F.softsign(torch.tensor([True])), lambda: F.selu(x, inplace=True),
            lambda: F.tanhshrink(torch.tensor([True]))]:
    try:
        bad()
    except (RuntimeError, NotImplementedError) as e:
        print(type(e).__name__, e)
print(F.softsign(torch.arange(3)), F.tanhshrink(torch.arange(3)))
