# clamp with tensor bounds: ClampBackward0 and gradients for self, min and max
import torch

x = torch.tensor([0.0, 1.0, 2.0, 0.5], requires_grad=True)
lo = torch.tensor([0.0, 0.0, 0.0, 1.0], requires_grad=True)
hi = torch.tensor([1.0, 1.0, 1.0, 0.2], requires_grad=True)
y = torch.clamp(x, lo, hi)
print(y, y.grad_fn)
y.backward(torch.tensor([1.0, 2.0, 3.0, 4.0]))
print(x.grad, lo.grad, hi.grad)
x.grad = None
lo.grad = None
z = torch.clamp(x, min=lo)
print(len(z.grad_fn.next_functions), z.grad_fn.next_functions[2])
z.sum().backward()
print(x.grad, lo.grad)
w = x.clamp(max=torch.tensor(0.75))
print(w, w.grad_fn)
