# F04 - split/chunk/unbind node names (SplitWithSizesBackward0 for a list of sizes), their
# errors, and x.T's deprecation warnings (each emitted once per process, as TORCH_WARN_ONCE)
import torch

x = torch.arange(8.0).reshape(2, 4).requires_grad_()
a, b = x.split([1, 3], dim=1)
print(a.grad_fn.name(), b.grad_fn.name())
print(x.split(2, dim=1)[0].grad_fn.name(), torch.split(x, [1, 1])[1].grad_fn.name())
print(x.split((2, 2), 1)[1].grad_fn.name(), x.chunk(2, 1)[0].grad_fn.name(), x.chunk(3, 1)[0].grad_fn.name())
print(x.unbind(1)[2].grad_fn.name())
(a.sum() * 2 + b.pow(2).sum()).backward()
print(x.grad)
for f in (lambda: x.split([1, 2], dim=1), lambda: x.chunk(0), lambda: x.split(0, 1)):
    try:
        f()
    except RuntimeError as e:
        print("RuntimeError", e)

v = torch.ones(3, requires_grad=True)
print(v.T.grad_fn.name())
print(torch.ones(2, 3, 4).T.shape)
print(torch.ones(2, 3).T.shape)
print(torch.tensor(2.0, requires_grad=True).T)
print(torch.tensor(2.0).T)
print(torch.ones(2).T)
