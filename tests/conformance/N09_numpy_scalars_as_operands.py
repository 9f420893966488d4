# numpy scalars as operands of tensor ops, as scripts get them from np.sum/np.mean/np.max or masks:
# np.bool_ counts as a Python float in torch (int_tensor * np.True_ is float32), numpy floats as floats,
# numpy integers as ints; reflected operators, comparisons, where/clamp/fill_/index assignment, grads.
import numpy as np
import torch

t = torch.tensor([1.5, -2.0, 3.0], requires_grad=True)
i = torch.tensor([1, 2, 3])
b = torch.tensor([True, False, True])
d = torch.tensor([1.0, 2.0], dtype=torch.float64)
flag = np.array([1, 0, 1]).any()
scale = np.mean(np.array([1.0, 2.0, 4.0]))
count = np.sum(np.array([1, 2, 3]))
half = np.float32(0.5)
for s in [flag, np.False_, scale, half, count, np.int32(2), np.uint8(3), np.float16(0.25)]:
    for x in [t, i, b, d]:
        row = [x * s, s * x, x + s, s + x, x / s if s else x, x > s, x == s, torch.mul(x, s), x.add(s),
               torch.where(x > 1, x, s), x.clamp(max=s), x ** s]
        print(type(s).__name__, x.dtype, [r.dtype for r in row], row[0], row[5], row[10])
        if x.dtype != torch.bool:
            print(x - s, s - x)
        else:
            try:
                x - s
            except RuntimeError as e:
                print("RuntimeError:", e)
y = (t * flag + t * scale * half).sum()
y.backward()
print(y, y.grad_fn.name(), t.grad)
z = torch.zeros(3)
for s in [np.True_, np.float32(1.5), np.float16(1.5)]:
    try:
        z[1] = s
    except TypeError as e:
        print("TypeError:", e)
z[0], z[2] = np.float64(1.5), np.int64(7)
print(torch.full((2,), np.float64(1.5)).dtype, torch.full((2,), np.int32(4)).dtype, torch.full((1,), np.False_))
z.fill_(np.float64(2.5)) if bool(flag) else None
print(z, torch.full((2,), np.True_), torch.tensor([1.0, 2.0]) ** np.int64(2), np.True_ ** torch.tensor([2.0, 3.0]))
w = torch.ones(2, dtype=torch.int64)
try:
    w.clamp_(max=np.float64(0.5))
except RuntimeError as e:
    print("RuntimeError:", e)
print(i.clamp(max=2.5), b.clamp(max=2), i.clamp_min(1.5))
