# G01 - common misuse of operators and op arguments: Python's TypeError for operands that are
# neither tensors nor numbers (x + None, x @ 2, x += [1]), reductions over dim 0 of a 0-d
# tensor and repeated dims, bool subtraction, in-place dtype casts, x[key] = value errors
import torch

a = torch.tensor([[1.0, -2.0, 0.0], [0.5, 3.0, -1.5]], requires_grad=True)
y = a * 2
c = torch.tensor(1.5, requires_grad=True)
m = torch.tensor([[True, False, True], [False, False, True]])
i = torch.tensor([0, 2])

cases = [
    lambda: y + None, lambda: None + y, lambda: y - [1.0], lambda: y * "x", lambda: [1] * y, lambda: y / None,
    lambda: y // None, lambda: y % None, lambda: y ** None, lambda: None ** y, lambda: y @ 0, lambda: 0 @ y,
    lambda: y @ 1.5, lambda: y < None, lambda: y & None, lambda: None | m, lambda: y == None, lambda: y != "x",
    lambda: torch.matmul(y, 1), lambda: torch.maximum(y, 1), lambda: torch.ones(3).view_as(1),
    lambda: torch.ones(3).expand_as(None), lambda: torch.nn.Linear(3, 2)(None),
    lambda: torch.nn.functional.linear(torch.ones(3), None),
    lambda: c.sum(0), lambda: c.mean(-1), lambda: c.amax(0), lambda: c.std(0), lambda: c.sum(1),
    lambda: y.sum((0, 0)), lambda: y.sum((1, -1)), lambda: c.mean([0, -1]),
    lambda: m - 1, lambda: 1.5 - m, lambda: y - m, lambda: m - True, lambda: m - m,
    lambda: c[0], lambda: c[0:1],
]
for f in cases:
    try:
        r = f()
        print("ok", r.shape if isinstance(r, torch.Tensor) else r)
    except TypeError as e:
        print("TypeError", e)
    except RuntimeError as e:
        print("RuntimeError", e)
    except IndexError as e:
        print("IndexError", e)


def inplace(kind):
    t = a.detach().clone()
    b = torch.tensor([0.0, 2.0, -1.0], requires_grad=True)
    if kind == 0:
        t += None
    elif kind == 1:
        b += None
    elif kind == 2:
        t @= 2
    elif kind == 3:
        mm = m.clone()
        mm += 1
    elif kind == 4:
        mm = m.clone()
        mm -= t
    elif kind == 5:
        ii = i.clone()
        ii += 1.5
    elif kind == 6:
        ii = i.clone()
        ii += torch.ones(2, 1)
    elif kind == 7:
        b *= 2
    elif kind == 8:
        t *= 2
        return t._version


for k in range(9):
    try:
        print("ok", inplace(k))
    except TypeError as e:
        print("TypeError", e)
    except RuntimeError as e:
        print("RuntimeError", e)


def setitem(kind):
    t = a.detach().clone()
    b = torch.tensor([0.0, 2.0, -1.0], requires_grad=True)
    keys_values = [
        (t, 0, None), (t, 0, "x"), (t, 0, [1.0, 2.0]), (t, 0, torch.ones(2)), (t, 0, torch.ones(2, 3)),
        (t, "0:1", torch.ones(2, 3)), (t, m, torch.ones(2)), (t, 1.0, 0.0), (t, (0, 0, 0), 1.0),
        (t, ":, 5", 1.0), (b, 4, 1.0), (b, 0.5, 1.0), (a, 0, y), (a, m, 1.0), (c, 0, 1.0),
        (i.clone(), torch.tensor([0.0]), 1), (t, 0, torch.tensor(2.0)), (t, m, 5.0),
    ]
    x, k, v = keys_values[kind]
    if k == "0:1":
        x[0:1] = v
    elif k == ":, 5":
        x[:, 5] = v
    else:
        x[k] = v
    return x.sum().item()


for k in range(18):
    try:
        print("ok", setitem(k))
    except TypeError as e:
        print("TypeError", e)
    except RuntimeError as e:
        print("RuntimeError", e)
    except IndexError as e:
        print("IndexError", e)
