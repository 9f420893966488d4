# G02 - backward() and autograd.grad() given the wrong kind of argument: a number as the
# gradient, non-tensor outputs or inputs, counts that do not match, outputs that do not
# require grad (checked before the inputs), empty inputs
import torch

c = torch.tensor(1.5, requires_grad=True)
b = torch.tensor([0.0, 2.0, -1.0], requires_grad=True)
m = torch.tensor([True, False])
y = b * 2

cases = [
    lambda: (c * 2).backward(1), lambda: (c * 2).backward(1.0), lambda: (c * 2).backward("x"),
    lambda: (c * 2).backward(inputs=1), lambda: (c * 2).backward(inputs=[1]), lambda: (c * 2).backward(inputs=[]),
    lambda: torch.autograd.backward(1), lambda: torch.autograd.backward([c * 2, 1]),
    lambda: torch.autograd.backward(c * 2, 1), lambda: torch.autograd.backward([c * 2], [1.0]),
    lambda: torch.autograd.grad(c * 2, 1), lambda: torch.autograd.grad(1, c), lambda: torch.autograd.grad(c * 2, "x"),
    lambda: torch.autograd.grad(c * 2, [c, 1]), lambda: torch.autograd.grad([c * 2, None], c),
    lambda: torch.autograd.grad(c * 2, []), lambda: torch.autograd.grad(c * 2, c, [1]),
    lambda: torch.autograd.grad(c * 2, c, []), lambda: torch.autograd.grad([c * 2, c * 3], c, 1),
    lambda: torch.autograd.grad(m, m), lambda: torch.autograd.grad(m.sum(), m), lambda: torch.autograd.grad(y, m),
    lambda: torch.autograd.grad(y.sum(), [b, m]),
]
for f in cases:
    try:
        r = f()
        print("ok", r)
    except TypeError as e:
        print("TypeError", e)
    except RuntimeError as e:
        print("RuntimeError", e)
    except AssertionError as e:
        print("AssertionError", e)

z = (c * 3).sum()
z.backward(torch.tensor(2.0))
print(c.grad)
(b * b).sum().backward(None)
print(b.grad)
