# Decorators (grad mode, script decorators, stacked), type()/isinstance/issubclass with
# torch classes, getattr/setattr/hasattr, global/nonlocal, with over a script class,
# try/except/else/finally, comprehensions and builtins.
import torch
import torch.nn as nn

x = torch.tensor([1.0, 2.0], requires_grad=True)


@torch.no_grad()
def f1(t):
    return t * 2


@torch.no_grad
def f2(t):
    return t * 2


@torch.inference_mode()
def f3(t):
    return t * 2


@torch.enable_grad()
def f4(t):
    return t * 2


@torch.set_grad_enabled(False)
def f5(t):
    return t * 2


print(f1(x).requires_grad, f2(x).requires_grad, f3(x).requires_grad, f5(x).requires_grad, torch.is_grad_enabled())
with torch.no_grad():
    print(f4(x).requires_grad, (x * 2).requires_grad)
print(f1.__name__, f5.__name__)
calls = []


def log_calls(prefix):
    def deco(fn):
        def wrapper(*args, **kwargs):
            calls.append(f"{prefix}:{fn.__name__}")
            return fn(*args, **kwargs)
        return wrapper
    return deco


def twice(fn):
    def wrapper(*args):
        return fn(fn(*args))
    return wrapper


@log_calls("outer")
@twice
def inc(v, *, step=1):
    return v + step


print(inc(1), inc(x).grad_fn.name(), calls, inc.__name__)
counter = 0


def bump(n=1):
    global counter
    counter += n
    return counter


def make_acc():
    total = 0

    def add(v):
        nonlocal total
        total += v
        return total
    return add


bump()
bump(5)
acc = make_acc()
acc(2)
print(counter, acc(3))
t = torch.ones(2)
p = nn.Parameter(torch.ones(1))
lin = nn.Linear(2, 1)
print(type(t), type(t) is torch.Tensor, type(p).__name__, type(lin).__name__, type(lin))
print(isinstance(p, torch.Tensor), isinstance(t, nn.Parameter), isinstance(lin, (nn.Module, int)))
print(issubclass(nn.Linear, nn.Module), issubclass(type(p), torch.Tensor), type(3).__name__, type([]) is list)
print(type(x.sum().grad_fn).__name__, (x * 2).grad_fn.__class__.__name__, type(None).__name__)
print(hasattr(lin, "weight"), hasattr(lin, "nothing"), getattr(lin, "in_features"), getattr(t, "shape"))


class Timer:
    def __init__(self, name):
        self.name = name
        self.log = []

    def __enter__(self):
        self.log.append("enter " + self.name)
        return self

    def __exit__(self, exc_type, exc, tb):
        self.log.append(f"exit {exc_type.__name__ if exc_type else None}")
        return exc_type is KeyError


with Timer("a") as tm:
    y = x * 3
with Timer("b") as tm2:
    raise KeyError("swallowed")
print(tm.log, tm2.log, y.grad_fn.name())
try:
    with Timer("c"):
        raise ValueError("kept")
except ValueError as err:
    print("caught", err)
else:
    print("no error")
finally:
    print("finally")
sq = {k: k * k for k in range(4)}
ev = {k % 3 for k in range(10)}
print(sq, ev, sorted(ev, reverse=True), list(reversed([1, 2, 3])), divmod(17, 5))
print(list(map(lambda v: v * 2, [1, 2])), list(filter(None, [0, 1, 2])), any([]), all([]))
print(f"{'x'!r:>6}|{3.14159:.2f}|{x.sum():.1f}", "%d-%s-%.3f" % (3, "a", 2.0))
