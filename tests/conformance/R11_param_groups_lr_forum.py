# R11 - param_groups_lr_forum
#
# Source:  PyTorch forum, "Different learning rates for different layers (param_groups)"
# Teaches: the optimizer takes a list of dicts; options missing from a group use the defaults;
#          param_groups can be edited during training; add_param_group adds a layer later
# Covers:  optim.SGD([{'params': ...}, {'params': ..., 'lr': ...}], lr=..., momentum=...), printing the
#          optimizer, param_groups[i]['lr'] edits, add_param_group, optimizer.state_dict() keys and
#          param_groups, momentum buffers in optimizer.state
# Random:  yes - torch.manual_seed(0); default init and torch.randn
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)
backbone = nn.Linear(3, 4)
head = nn.Linear(4, 2)
extra = nn.Linear(2, 1)
optimizer = optim.SGD([
    {'params': backbone.parameters()},
    {'params': head.parameters(), 'lr': 1e-2},
], lr=1e-3, momentum=0.9)
print(optimizer)
x = torch.randn(5, 3)
for step in range(3):
    optimizer.zero_grad()
    loss = head(torch.relu(backbone(x))).pow(2).mean()
    loss.backward()
    optimizer.step()
    for g in optimizer.param_groups:
        g['lr'] = g['lr'] * 0.5
print([g['lr'] for g in optimizer.param_groups])
optimizer.add_param_group({'params': extra.parameters(), 'lr': 0.1, 'momentum': 0.0})
print(len(optimizer.param_groups), optimizer.param_groups[2]['momentum'])
sd = optimizer.state_dict()
print(sd.keys())
print(sd['param_groups'][1])
print(len(sd['state']), optimizer.state[head.bias]['momentum_buffer'])
print(head.bias)
