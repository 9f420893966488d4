# F01 - masking ops' backward with an inf/nan gradient coming from above: PyTorch selects
# (where(mask, grad, 0)) instead of multiplying by a 0/1 mask, so inf*0 does not give nan.
import torch
import torch.nn.functional as F

fns = {
    "relu": torch.relu,
    "F.relu": F.relu,
    "clamp(min=0)": lambda v: v.clamp(min=0),
    "clamp_min": lambda v: torch.clamp_min(v, 0),
    "clamp(max=0)": lambda v: v.clamp(max=0),
    "clamp_max": lambda v: torch.clamp_max(v, 0),
    "clamp(-.5,.5)": lambda v: torch.clamp(v, -.5, .5),
    "hardtanh": lambda v: F.hardtanh(v, -.5, .5),
    "hardtanh()": F.hardtanh,
    "relu6": F.relu6,
    "leaky_relu": F.leaky_relu,
    "maximum": lambda v: torch.maximum(v, torch.zeros(3)),
    "minimum": lambda v: torch.minimum(v, torch.zeros(3)),
    "abs": torch.abs,
    "where": lambda v: torch.where(v > 0, v, torch.zeros(3)),
    "masked_fill": lambda v: v.masked_fill(v < 0, 0.0),
    "amax": lambda v: torch.stack([v.amax(), v.amax()]),
    "max": lambda v: v.max().expand(3),
    "max(dim)": lambda v: v.max(0)[0].expand(3),
}
for name, f in fns.items():
    x = torch.tensor([-1.0, 0.0, 4.0], requires_grad=True)
    y = f(x)
    torch.sqrt(y).sum().backward()
    print(name, x.grad, y.grad_fn.name())

inf, nan = float("inf"), float("nan")
for name, f in (("maximum", torch.maximum), ("minimum", torch.minimum)):
    a = torch.tensor([0.0, 1.0, 2.0, 5.0], requires_grad=True)
    b = torch.tensor([0.0, 0.0, 3.0, 5.0], requires_grad=True)
    (f(a, b) * torch.tensor([inf, nan, inf, -inf])).sum().backward()
    print(name, "ties", a.grad, b.grad)

for name, f in (("amax", lambda v: v.amax()), ("max", lambda v: v.max()), ("amin", lambda v: v.amin()),
                ("min", lambda v: v.min()), ("max0", lambda v: v.max(0)[0]), ("amax0", lambda v: v.amax(0))):
    x = torch.tensor([[1.0, 3.0], [3.0, 2.0]], requires_grad=True)
    (f(x) * inf).sum().backward()
    print(name, x.grad)

z = torch.zeros(3, requires_grad=True)
n = z.norm()
(n * inf).backward()
print("norm at 0 inf", z.grad)
z = torch.zeros(3, requires_grad=True)
torch.sqrt(z.norm()).backward()
print("sqrt norm at 0", z.grad)
z = torch.tensor([0.0, 1.0], requires_grad=True)
(torch.nn.functional.dropout(z, 0.0) * inf).sum().backward()
print("dropout p=0", z.grad)
s = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
c = s * 1
c[0] = 5.0
(c * torch.tensor([inf, 1.0, 1.0])).sum().backward()
print("copyslices", s.grad)

a = torch.tensor([nan, 1.0, 2.0], requires_grad=True)
b = torch.tensor([1.0, nan, 2.0], requires_grad=True)
torch.maximum(a, b).sum().backward()
print("maximum nan", a.grad, b.grad)
x = torch.tensor([1.0, nan, 3.0, nan], requires_grad=True)
x.max().backward()
print("max nan", x.grad)
x = torch.tensor([1.0, nan, 3.0, nan], requires_grad=True)
x.amax().backward()
print("amax nan", x.grad)
x = torch.tensor([-2.0, 0.0, 3.0], requires_grad=True)
(F.leaky_relu(x, 0.0) * inf).sum().backward()
print("leaky_relu slope 0", x.grad)
