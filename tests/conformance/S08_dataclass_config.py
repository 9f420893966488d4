# dataclasses as training scripts use them: a config with defaults and a default_factory, a frozen
# hyper-parameter record with a derived field set in __post_init__, an ordered record of results
# sorted to pick the best run, asdict/replace for logging and sweeps, tensors as fields, and the
# errors CPython gives (frozen assignment, a missing argument, unhashable configs).
from dataclasses import FrozenInstanceError, asdict, dataclass, field, fields, replace

import torch
import torch.nn as nn


@dataclass
class Config:
    lr: float = 0.1
    epochs: int = 3
    hidden: int = 4
    layers: list = field(default_factory=lambda: [2, 4, 1])
    name: str = "run"


@dataclass(frozen=True)
class Schedule:
    base_lr: float
    decay: float = 0.5
    steps: int = field(init=False, default=0)

    def __post_init__(self):
        object.__setattr__(self, "steps", int(1 / self.decay))


@dataclass(order=True)
class Result:
    loss: float
    name: str = field(compare=False)
    weights: torch.Tensor = field(default=None, compare=False, repr=False)


cfg = Config(lr=0.05)
print(cfg)
print(asdict(cfg), [f.name for f in fields(cfg)])
sched = Schedule(0.1)
print(sched, sched.steps, sched == Schedule(0.1))
try:
    sched.decay = 0.1
except FrozenInstanceError as e:
    print("frozen:", e)
try:
    Schedule()
except TypeError as e:
    print(e)
try:
    {cfg: 1}
except TypeError as e:
    print(e)

torch.manual_seed(0)
x = torch.linspace(-1, 1, 8).unsqueeze(1)
y = 2 * x + 1
results = []
for c in (cfg, replace(cfg, lr=0.2, name="fast"), replace(cfg, epochs=1, name="short")):
    torch.manual_seed(0)
    model = nn.Linear(1, 1)
    opt = torch.optim.SGD(model.parameters(), lr=c.lr)
    for epoch in range(c.epochs):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
    results.append(Result(round(loss.item(), 4), c.name, model.weight.detach().clone()))
best = min(results)
print(sorted(results))
print(best.name, best.loss, best.weights)
grad_of_best = model.weight.grad
