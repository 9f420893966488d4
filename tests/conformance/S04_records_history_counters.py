# namedtuple configs, a defaultdict history, a deque moving average, Counter of predictions
from collections import Counter, OrderedDict, defaultdict, deque, namedtuple

import torch
import torch.nn as nn

Config = namedtuple("Config", ["lr", "epochs", "hidden"], defaults=[8])
cfg = Config(lr=0.1, epochs=12)
print(cfg, cfg.hidden, cfg._replace(lr=0.5), cfg._asdict())
lr, epochs, hidden = cfg

torch.manual_seed(3)
model = nn.Sequential(OrderedDict([("hidden", nn.Linear(3, cfg.hidden)), ("relu", nn.ReLU()),
                                   ("out", nn.Linear(cfg.hidden, 2))]))
print(model)
x = torch.randn(10, 3)
target = torch.tensor([0, 1, 1, 0, 1, 0, 0, 1, 1, 1])
opt = torch.optim.SGD(model.parameters(), lr=cfg.lr)
history = defaultdict(list)
window = deque(maxlen=3)
for epoch in range(cfg.epochs):
    opt.zero_grad()
    logits = model(x)
    loss = nn.functional.cross_entropy(logits, target)
    loss.backward()
    opt.step()
    window.append(loss.item())
    history["loss"].append(round(loss.item(), 4))
    history["avg"].append(round(sum(window) / len(window), 4))
print(dict(history))
print(window.maxlen, len(window))
preds = model(x).argmax(dim=1).tolist()
counts = Counter(preds)
print(counts.most_common(), sorted(counts.items()))
Pair = namedtuple("Pair", "input output")
p = Pair(x[0], model(x[:1]))
print(type(p).__name__, p.input.shape, p.output.grad_fn)
total = p.output.sum()
total.backward()
grad_first = model.hidden.weight.grad
