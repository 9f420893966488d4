# typing.NamedTuple classes as scripts use them for configs and batches: annotated fields with defaults,
# methods, class constants, tensors as fields, unpacking, _replace/_asdict/_make, the functional form,
# and the errors CPython gives (missing/extra arguments, non-default after default, assignment).
from typing import List, NamedTuple, Optional

import torch


class Config(NamedTuple):
    """Training settings."""
    lr: float
    epochs: int = 3
    hidden: int = 8
    name: Optional[str] = None

    SEED = 0

    def describe(self):
        return f"{self.name or 'run'}: lr={self.lr} x{self.epochs}"


class Batch(NamedTuple):
    inputs: torch.Tensor
    targets: torch.Tensor

    def size(self):
        return self.inputs.shape[0]


cfg = Config(0.1)
print(cfg, cfg.describe(), Config.SEED, cfg.SEED, len(cfg), cfg[0], cfg[-1])
cfg2 = cfg._replace(epochs=2, name="small")
print(cfg2, cfg2._asdict(), Config._fields, Config._field_defaults)
print(Config._make([0.5, 1, 4, "x"]), isinstance(cfg, tuple), isinstance(cfg, Config), type(cfg).__name__)
print(Config, cfg == (0.1, 3, 8, None), sorted([Config(0.3), Config(0.1, 5)]))

torch.manual_seed(Config.SEED)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=cfg2.lr)
batches: List[Batch] = [Batch(torch.randn(4, 2), torch.randn(4, 1)) for _ in range(2)]
for epoch in range(cfg2.epochs):
    for inputs, targets in batches:
        loss = torch.nn.functional.mse_loss(model(inputs), targets)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(epoch, batches[0].size(), round(loss.item(), 5))
b = batches[1]
print(b.inputs.shape, b.targets.dtype, b._fields)

Pair = NamedTuple("Pair", [("left", int), ("right", int)])
print(Pair(1, 2), Pair(right=3, left=4), Pair._fields)

for bad in [lambda: Config(), lambda: Config(1, 2, 3, 4, 5), lambda: Config(0.1, lr=0.2), lambda: Config(0.1, epoch=2),
            lambda: cfg._replace(foo=1), lambda: Config._make([1])]:
    try:
        bad()
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
try:
    cfg.lr = 0.5
except AttributeError as e:
    print("AttributeError:", e)
try:
    class Bad(NamedTuple):
        a: int = 1
        b: int
except TypeError as e:
    print("TypeError:", e)
