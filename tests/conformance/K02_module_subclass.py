# class Net(nn.Module): registration order, traversal, state_dict, hooks, repr with
# extra_repr, train/eval, requires_grad_, zero_grad, apply, and a forward/backward.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Scale(nn.Module):
    def __init__(self, k):
        super().__init__()
        self.k = k
        self.register_buffer("calls", torch.zeros(1))
        self.register_buffer("tmp", torch.ones(2), persistent=False)

    def forward(self, x):
        self.calls += 1
        return x * self.k

    def extra_repr(self):
        return f"k={self.k}"


class Net(nn.Module):
    def __init__(self, hidden=3):
        super(Net, self).__init__()
        self.fc1 = nn.Linear(4, hidden)
        self.act = nn.ReLU()
        self.scale = Scale(0.5)
        self.head = nn.Sequential(nn.Linear(hidden, 2), nn.Tanh())
        self.bias = nn.Parameter(torch.zeros(2))
        self.note = "plain attribute"

    def forward(self, x):
        h = self.scale(self.act(self.fc1(x)))
        return self.head(h) + self.bias


torch.manual_seed(0)
model = Net()
print(model)
print([n for n, _ in model.named_parameters()])
print([n for n, _ in model.named_children()])
print([n for n, _ in model.named_modules()])
print([type(m).__name__ for m in model.modules()])
print([n for n, _ in model.named_buffers()], list(model.state_dict().keys()))
print(sum(p.numel() for p in model.parameters()), model.note, model.training)
pre_calls = []


def pre_hook(module, args):
    pre_calls.append(type(module).__name__)
    return (args[0] * 2,)


def post_hook(module, args, output):
    return output + 1


h1 = model.scale.register_forward_pre_hook(pre_hook)
h2 = model.register_forward_hook(post_hook)
x = torch.ones(2, 4)
out = model(x)
loss = out.sum()
loss.backward()
print(out, pre_calls, model.scale.calls)
print(model.fc1.weight.grad, model.bias.grad)
h1.remove()
h2.remove()
print(model(x).sum().item() < loss.item() + 10, model.scale.calls)
model.zero_grad()
print(model.fc1.weight.grad, model.bias.grad)
model.eval()
print(model.training, model.head.training, model.head[0].training)
model.train()
print(model.training, model.scale.training)
model.fc1.requires_grad_(False)
print([n for n, p in model.named_parameters() if p.requires_grad])
model.head[0].requires_grad = False
print(model.head[0].requires_grad, model.head[0].weight.requires_grad)


def init(m):
    if isinstance(m, nn.Linear):
        nn.init.constant_(m.weight, 0.1) if hasattr(nn, "init") and hasattr(nn.init, "constant_") else m.weight.data.fill_(0.1)
        m.bias.data.zero_()


model.apply(init)
print(model.fc1.weight[0], model.head[0].bias)
sd = model.state_dict()
sd["bias"].fill_(7.0)
print(model.bias)
other = Net()
print(other.load_state_dict(model.state_dict()))
print(other.bias, other.scale.calls)
try:
    other.load_state_dict({"fc1.weight": torch.zeros(3, 4), "extra": torch.zeros(1)})
except RuntimeError as err:
    print(err)
print(isinstance(model, nn.Module), isinstance(model.fc1, nn.Linear), isinstance(model.bias, nn.Parameter))
print(type(model.fc1).__name__, type(model.head), isinstance(model, Net))


class NoForward(nn.Module):
    pass


try:
    NoForward()(x)
except NotImplementedError as err:
    print(err)


class Early(nn.Module):
    def __init__(self):
        self.w = nn.Parameter(torch.ones(1))
        super().__init__()


Early()
