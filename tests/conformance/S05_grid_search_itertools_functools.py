# a small grid search with itertools.product, a cached helper, reduce, and typing aliases
import functools
import itertools
from functools import reduce
from typing import Callable, Iterable, List

import torch

Loss = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


@functools.lru_cache(maxsize=None)
def make_data(n: int):
    torch.manual_seed(n)
    x = torch.randn(n, 1)
    return x, 4 * x - 1


def timed(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)
    return wrapper


@timed
def fit(lr: float, momentum: float, steps: int = 25) -> float:
    x, y = make_data(20)
    w = torch.zeros(1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    opt = torch.optim.SGD([w, b], lr=lr, momentum=momentum)
    for _ in range(steps):
        opt.zero_grad()
        loss = ((x * w + b - y) ** 2).mean()
        loss.backward()
        opt.step()
    return loss.item()


results = {}
for lr, momentum in itertools.product([0.01, 0.1], [0.0, 0.9]):
    results[(lr, momentum)] = round(fit(lr, momentum), 5)
print(fit.__name__, make_data.cache_info())
best = min(results, key=results.get)
print(results, best)


def product_all(xs: Iterable[float]) -> float:
    return reduce(lambda a, b: a * b, xs, 1.0)


print(product_all([1.5, 2.0, 4.0]), list(itertools.combinations("abc", 2)))
pairs: List[tuple] = list(itertools.zip_longest([1, 2, 3], "ab", fillvalue="-"))
print(pairs, list(itertools.permutations(range(3), 2))[:4])
scale = functools.partial(torch.mul, other=2.0)
t = torch.tensor([1.0, 2.0], requires_grad=True)
s = scale(t).sum()
s.backward()
print(t.grad, s)
counter = itertools.count(start=1)
firsts = [next(counter) for _ in range(3)]
print(firsts)
