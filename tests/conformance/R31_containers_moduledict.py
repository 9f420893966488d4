# R31 - containers_moduledict
#
# Source:  PyTorch docs, nn.ModuleList / nn.ModuleDict / nn.ParameterList / Sequential.add_module
# Teaches: plain Python lists hide layers from .parameters(); ModuleList/ModuleDict register them;
#          ParameterList registers raw parameters; Sequential supports indexing, slicing, len, append
# Covers:  nn.ModuleList comprehension, nn.ModuleDict choice by key, nn.ParameterList, add_module,
#          Sequential slicing model[:2], len(), append, insert? (not used), named_parameters of each,
#          the repr of ModuleDict/ParameterList, parameter count differences, register_buffer, buffers()
# Random:  yes - torch.manual_seed(0); default init, torch.randn
import torch
import torch.nn as nn

torch.manual_seed(0)


class Hidden(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = [nn.Linear(2, 2) for _ in range(2)]


class Registered(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(2, 2) for _ in range(2)])
        self.acts = nn.ModuleDict({'relu': nn.ReLU(), 'tanh': nn.Tanh()})
        self.scales = nn.ParameterList([nn.Parameter(torch.ones(2)) for _ in range(2)])
        self.register_buffer('offset', torch.tensor([0.5, -0.5]))

    def forward(self, x, act='relu'):
        for i, l in enumerate(self.layers):
            x = self.acts[act](l(x)) * self.scales[i]
        return x + self.offset


print(len(list(Hidden().parameters())))
m = Registered()
print(m)
print([n for n, _ in m.named_parameters()])
print([n for n, _ in m.named_buffers()], len(list(m.buffers())))
x = torch.randn(3, 2)
out = m(x, 'tanh')
out.sum().backward()
print(out, m.scales[1].grad)
print('relu' in m.acts, m.acts.keys())
seq = nn.Sequential()
seq.add_module('fc', nn.Linear(2, 3))
seq.add_module('act', nn.Sigmoid())
seq.append(nn.Linear(3, 1))
print(seq, len(seq), seq[:2], seq.fc)
print(seq(x).shape, m.state_dict().keys())
