# Optimizers, param groups, state_dict, schedulers against torch.
import torch
import torch.nn as nn
from torch.optim.lr_scheduler import StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, LambdaLR
from torch.optim.lr_scheduler import ReduceLROnPlateau, OneCycleLR

torch.manual_seed(0)
X = torch.randn(8, 3)
Y = torch.randn(8, 1)


def train(opt_fn, steps=3):
    torch.manual_seed(1)
    m = nn.Linear(3, 1)
    opt = opt_fn(m.parameters())
    for _ in range(steps):
        opt.zero_grad()
        loss = ((m(X) - Y) ** 2).mean()
        loss.backward()
        opt.step()
    return m.weight.detach(), opt


for name, fn in [
    ("sgd", lambda p: torch.optim.SGD(p, lr=0.1)),
    ("sgd_mom", lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01)),
    ("nesterov", lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
    ("adam", lambda p: torch.optim.Adam(p, lr=0.01, weight_decay=0.1, amsgrad=True)),
    ("adamw", lambda p: torch.optim.AdamW(p, lr=0.01)),
    ("rmsprop", lambda p: torch.optim.RMSprop(p, lr=0.01)),
    ("rmsprop_c", lambda p: torch.optim.RMSprop(p, lr=0.01, momentum=0.5, centered=True, weight_decay=0.1)),
    ("adagrad", lambda p: torch.optim.Adagrad(p, lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1)),
]:
    w, opt = train(fn)
    print(name, w)
print(opt)
sd = opt.state_dict()
print(sd["param_groups"])
print(sorted(sd["state"][0].keys()), sd["state"][0]["step"])

torch.manual_seed(2)
a = nn.Linear(2, 2)
b = nn.Linear(2, 1)
opt = torch.optim.SGD([{"params": a.parameters()}, {"params": b.parameters(), "lr": 0.5}], lr=0.1, momentum=0.9)
print(opt)
print([g["lr"] for g in opt.param_groups])
extra = nn.Parameter(torch.ones(2))
opt.add_param_group({"params": [extra], "momentum": 0.0})
print(len(opt.param_groups), opt.param_groups[2]["momentum"], opt.param_groups[2]["lr"])
try:
    opt.add_param_group({"params": [extra]})
except ValueError as e:
    print("ValueError:", e)
w1 = nn.Parameter(torch.ones(2))
opt_dup = torch.optim.SGD([w1, w1], lr=0.1)
loss = (b(a(torch.ones(1, 2))) * 3).sum() + extra.sum()
loss.backward()
opt.step()
state = opt.state_dict()
opt2 = torch.optim.SGD([{"params": a.parameters()}, {"params": b.parameters()}, {"params": [extra]}], lr=1.0)
opt2.load_state_dict(state)
print([g["lr"] for g in opt2.param_groups], opt2.state_dict()["state"][0]["momentum_buffer"])

m = nn.Linear(2, 1)
opt = torch.optim.SGD(m.parameters(), lr=1.0)
sched = StepLR(opt, step_size=2, gamma=0.5)
lrs = []
for epoch in range(5):
    opt.step()
    sched.step()
    lrs.append(sched.get_last_lr()[0])
print(lrs, sched.last_epoch)
opt = torch.optim.SGD(m.parameters(), lr=1.0)
sched = MultiStepLR(opt, milestones=[1, 3, 3], gamma=0.1)
for epoch in range(4):
    opt.step()
    sched.step()
    print(epoch, opt.param_groups[0]["lr"])
opt = torch.optim.SGD(m.parameters(), lr=0.5)
sched = ExponentialLR(opt, gamma=0.9)
opt.step()
sched.step()
sched.step()
print(sched.get_last_lr())
opt = torch.optim.SGD(m.parameters(), lr=0.1)
sched = CosineAnnealingLR(opt, T_max=3, eta_min=0.01)
out = []
for i in range(8):
    opt.step()
    sched.step()
    out.append(round(sched.get_last_lr()[0], 6))
print(out)
opt = torch.optim.SGD(m.parameters(), lr=0.1)
sched = LambdaLR(opt, lr_lambda=lambda e: 0.95 ** e)
for i in range(3):
    opt.step()
    sched.step()
print(sched.get_last_lr())
opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
sched = OneCycleLR(opt, max_lr=1.0, total_steps=6)
vals = []
for i in range(6):
    opt.step()
    vals.append((round(opt.param_groups[0]["lr"], 5), round(opt.param_groups[0]["momentum"], 5)))
    if i < 5:
        sched.step()
print(vals)
opt = torch.optim.Adam(m.parameters(), lr=0.1)
sched = OneCycleLR(opt, max_lr=0.1, epochs=2, steps_per_epoch=2, anneal_strategy="linear")
print(opt.param_groups[0]["betas"], sched.get_last_lr())
opt = torch.optim.SGD(m.parameters(), lr=1.0)
sched = ReduceLROnPlateau(opt, patience=1, factor=0.5)
for metric in [1.0, 0.9, 0.95, 0.96, 0.97, 0.5, 0.6, 0.7]:
    sched.step(metric)
    print(metric, opt.param_groups[0]["lr"], sched.num_bad_epochs)
opt = torch.optim.SGD(m.parameters(), lr=1.0)
sched = StepLR(opt, 1)
sched.step()
print(sched.get_last_lr())
opt = torch.optim.SGD(m.parameters(), lr=1.0)
early = ExponentialLR(opt, gamma=0.5)
early.step()
opt.step()
early.step()
print(early.get_last_lr(), early.get_lr())
early.step(5)
print(early.get_last_lr())
try:
    torch.optim.SGD(m.parameters(), lr=-1)
except ValueError as e:
    print("ValueError:", e)
try:
    StepLR(m, 1)
except TypeError as e:
    print("TypeError:", e)
torch.optim.Adam([])
