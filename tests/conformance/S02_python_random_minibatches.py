# data made with Python's random module, shuffled minibatches with itertools, a partial loss
import functools
import itertools
import random
import time

import torch
import torch.nn.functional as F

random.seed(1234)
torch.manual_seed(1234)

N = 24
xs = [random.uniform(-2.0, 2.0) for _ in range(N)]
ys = [2.0 * x + 0.5 + random.gauss(0, 0.1) for x in xs]
print(round(sum(xs), 6), round(random.random(), 6), random.randint(0, 100), random.choice("abc"))

w = torch.zeros(1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
loss_fn = functools.partial(F.mse_loss, reduction="mean")


def minibatches(indices, size):
    it = iter(indices)
    out = []
    while True:
        chunk = list(itertools.islice(it, size))
        if not chunk:
            return out
        out.append(chunk)


def seconds_since(t0):
    return time.perf_counter() - t0


start = time.perf_counter()
for epoch in range(15):
    idx = list(range(N))
    random.shuffle(idx)
    for chunk in minibatches(idx, 8):
        xb = torch.tensor([xs[i] for i in chunk])
        yb = torch.tensor([ys[i] for i in chunk])
        loss = loss_fn(w * xb + b, yb)
        loss.backward()
        with torch.no_grad():
            w -= 0.1 * w.grad
            b -= 0.1 * b.grad
        w.grad.zero_()
        b.grad.zero_()
    if epoch % 5 == 0:
        print(epoch, round(loss.item(), 5))
elapsed_ok = seconds_since(start) >= 0
del start
print(w, b, elapsed_ok)
sample = random.sample(range(100), 4)
picks = random.choices(["a", "b", "c"], weights=[5, 1, 1], k=6)
print(sample, picks)
grid = list(itertools.product([0.1, 0.01], [True, False]))
print(grid, list(itertools.accumulate([1, 2, 3, 4])), list(itertools.chain(sample, [0])))
