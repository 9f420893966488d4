# A custom torch.autograd.Function whose forward has defaulted parameters: the inputs are
# the arguments apply() was given (keywords at their parameter's position), not the
# defaults, so needs_input_grad and the number of gradients backward returns follow them;
# with setup_context, torch binds the defaults and they count.
import torch


class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, k=2.0, m=1.0):
        print("forward", k, m, ctx.needs_input_grad)
        return a * k * m

    @staticmethod
    def backward(ctx, g):
        print("backward", ctx.needs_input_grad)
        return g * 2


class ScaleNone(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, k=2.0):
        print("forward", ctx.needs_input_grad)
        return a * k

    @staticmethod
    def backward(ctx, g):
        return g * 2, None


class Bound(torch.autograd.Function):
    @staticmethod
    def forward(a, k=2.0):
        return a * k

    @staticmethod
    def setup_context(ctx, inputs, output):
        print("setup_context", len(inputs), ctx.needs_input_grad)

    @staticmethod
    def backward(ctx, g):
        return g * 2, None


class Rest(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, *rest, k=1.0):
        print("rest", rest, k, ctx.needs_input_grad)
        return a * 2

    @staticmethod
    def backward(ctx, g):
        return (g * 2,) + (None,) * (len(ctx.needs_input_grad) - 1)


x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
calls = [
    ("one input", lambda: Scale.apply(x)),
    ("two inputs", lambda: Scale.apply(x, 3.0)),
    ("keyword k", lambda: Scale.apply(x, k=3.0)),
    ("keyword a", lambda: Scale.apply(a=x)),
    ("gap before m", lambda: Scale.apply(x, m=5.0)),
    ("tensor m", lambda: Scale.apply(x, m=w, k=3.0)),
    ("unknown keyword", lambda: Scale.apply(x, z=1)),
    ("a twice", lambda: Scale.apply(x, a=x)),
    ("extra None, one input", lambda: ScaleNone.apply(x)),
    ("extra None, two inputs", lambda: ScaleNone.apply(x, 3.0)),
    ("setup_context", lambda: Bound.apply(x)),
    ("varargs", lambda: Rest.apply(x, 1, 2)),
    ("keyword-only k", lambda: Rest.apply(x, 1, k=3.0)),
]
for name, call in calls:
    x.grad = None
    w.grad = None
    try:
        y = call()
        print(name, type(y.grad_fn).__name__, len(y.grad_fn.next_functions))
        y.sum().backward()
        print(name, x.grad, w.grad)
    except (RuntimeError, TypeError) as e:
        print(name, type(e).__name__, e)
