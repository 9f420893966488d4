# R15 - forward_hooks_features
#
# Source:  PyTorch forum, "How can I extract intermediate layer output (register_forward_hook)"
# Teaches: a forward hook receives (module, input, output); storing output.detach() in a dict keeps
#          the features; a pre-hook sees the input tuple; handles remove hooks; a full backward hook
#          sees grad_input / grad_output
# Covers:  register_forward_hook with a closure factory, register_forward_pre_hook, handle.remove(),
#          a hook that returns a modified output, register_full_backward_hook, activation dict shapes
# Random:  yes - torch.manual_seed(0); default init and torch.randn
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
activation = {}


def get_activation(name):
    def hook(model, input, output):
        activation[name] = output.detach()
    return hook


h1 = model[0].register_forward_hook(get_activation('fc1'))
h2 = model[1].register_forward_hook(get_activation('relu'))
x = torch.randn(2, 3)
out = model(x)
print(activation['fc1'].shape, activation['relu'])
print(activation['relu'].requires_grad, (activation['relu'] >= 0).all())


def pre(module, inputs):
    print('pre-hook', type(inputs).__name__, len(inputs), inputs[0].shape)


h3 = model[2].register_forward_pre_hook(pre)
model(x)
h1.remove()
h2.remove()
h3.remove()
activation.clear()
model(x)
print(activation)
h4 = model[2].register_forward_hook(lambda m, i, o: o * 0)
print(model(x))
h4.remove()
grads = []
h5 = model[2].register_full_backward_hook(lambda m, gin, gout: grads.append((gin[0].shape, gout[0])))
model(x).sum().backward()
print(grads)
h5.remove()
print(out)
