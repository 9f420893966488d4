# torch 2's setup_context style, once_differentiable, gradcheck of a right and a wrong
# hand-written backward, and the generators Module's iterators return.
import torch
from torch.autograd.function import once_differentiable
class Cube(torch.autograd.Function):
    @staticmethod
    def forward(x, k):
        return x ** 3 * k
    @staticmethod
    def setup_context(ctx, inputs, output):
        x, k = inputs
        ctx.save_for_backward(x)
        ctx.k = k
    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * 3 * x ** 2 * ctx.k, None
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = Cube.apply(x, 2.0)
y.sum().backward()
print(y, x.grad)
m = torch.nn.Linear(1, 1)
print(type(m.parameters()).__name__, str(m.parameters())[:35])
class Good(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin()
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * x.cos()
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 2
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return g * x
x = torch.tensor([0.5, 1.0, -2.0], dtype=torch.float64, requires_grad=True)
print(torch.autograd.gradcheck(Good.apply, (x,), eps=1e-6, atol=1e-4))
print(torch.autograd.gradcheck(Bad.apply, (x,), raise_exception=False))
try:
    torch.autograd.gradcheck(Bad.apply, (x,))
except RuntimeError as e:
    print(type(e).__name__)
    print(e)
