# Custom torch.autograd.Function subclasses: save_for_backward, needs_input_grad,
# non-tensor arguments, several outputs, mark_non_differentiable, materialized grads,
# names of their nodes, and torch's error for a wrong number of gradients.
import torch


class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return input.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[input < 0] = 0
        return grad_input


class ScaleBy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k, shift=0.0):
        ctx.k = k
        print("needs", ctx.needs_input_grad)
        return x * k + shift

    @staticmethod
    def backward(ctx, g):
        return g * ctx.k, None, None


class SplitTwo(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        idx = x.argmax()
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(x)
        return x * 2, x.exp(), idx

    @staticmethod
    def backward(ctx, g_double, g_exp, g_idx):
        x, = ctx.saved_tensors
        print("grads", g_double, g_exp, g_idx)
        return g_double * 2 + g_exp * x.exp()


class Lazy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x + 1, x - 1

    @staticmethod
    def backward(ctx, ga, gb):
        print("lazy", ga, gb)
        return ga if gb is None else ga + gb


x = torch.tensor([-1.0, 2.0, 3.0], requires_grad=True)
relu = MyReLU.apply
y = relu(x)
print(y, y.grad_fn.name(), type(y.grad_fn).__name__, len(y.grad_fn.next_functions))
y.sum().backward()
print(x.grad)
x.grad = None
z = ScaleBy.apply(x, 3.0, shift=1.0)
z.sum().backward()
print(z, x.grad)
x.grad = None
d, e, i = SplitTwo.apply(x)
print(d.grad_fn.name(), e.grad_fn is d.grad_fn, i.requires_grad, i)
(d.sum() + e.sum()).backward()
print(x.grad)
x.grad = None
a, b = Lazy.apply(x)
a.sum().backward()
print(x.grad)
w = torch.tensor([1.0, 2.0])
print(MyReLU.apply(w).requires_grad, MyReLU.apply(w).grad_fn)
with torch.no_grad():
    print(MyReLU.apply(x).grad_fn)
q = torch.tensor([1.5], requires_grad=True)
r = MyReLU.apply(q) * MyReLU.apply(q * 2)
r.backward()
print(q.grad, r.grad_fn.next_functions[0][0].name())


class Wrong(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        return a * b

    @staticmethod
    def backward(ctx, g):
        return g


Wrong.apply(x, x).sum().backward()
