# a tutorial-style script: typed helpers, nn.Sequential(OrderedDict(...)), a main() behind the guard
from __future__ import annotations

from collections import OrderedDict
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn as nn

print(torch.__version__)


def make_model(sizes: List[int], act: Optional[nn.Module] = None) -> nn.Sequential:
    layers: "OrderedDict[str, nn.Module]" = OrderedDict()
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers[f"fc{i}"] = nn.Linear(n_in, n_out)
        if i < len(sizes) - 2:
            layers[f"act{i}"] = act if act is not None else nn.Tanh()
    return nn.Sequential(layers)


def batch() -> Tuple[torch.Tensor, torch.Tensor]:
    x = torch.linspace(-1, 1, 8).unsqueeze(1)
    return x, 3 * x ** 2 - 1


def train(model: nn.Module, steps: int = 20, lr: float = 0.1) -> Dict[str, float]:
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    x, y = batch()
    history: Dict[str, float] = {}
    for step in range(steps):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        if step % 5 == 0:
            history[f"step{step}"] = round(loss.item(), 4)
    return history


def main() -> None:
    torch.manual_seed(0)
    model = make_model([1, 6, 1])
    print(model)
    sd = model.state_dict()
    print(type(sd), list(sd.keys()))
    print(model.fc0.weight.shape, model[2].bias.shape)
    print(train(model))


if __name__ == "__main__":
    main()

torch.manual_seed(1)
net = make_model([2, 3, 1], nn.ReLU())
out = net(torch.ones(1, 2)).sum()
out.backward()
w = net.fc0.weight
print(__name__, isinstance(net.state_dict(), dict), w.grad)
