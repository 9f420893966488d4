# R34 - adam_state_zero_grad
#
# Source:  PyTorch docs / forum, "optimizer.zero_grad(set_to_none=True)" and "what is in Adam's
#          state?"
# Teaches: zero_grad sets grads to None by default (since 2.0), set_to_none=False keeps zero tensors;
#          Adam keeps step, exp_avg, exp_avg_sq per parameter; weight_decay vs AdamW
# Covers:  optim.Adam / AdamW / RMSprop / Adagrad single steps on the same problem, optimizer.state
#          keys, state_dict()['state'][0] keys and step value, zero_grad(set_to_none=False), p.grad is
#          None, the printed optimizer reprs (defaults shown), betas
# Random:  yes - torch.manual_seed(0); default init
import torch
import torch.nn as nn
import torch.optim as optim

torch.manual_seed(0)
base = nn.Linear(2, 1)
x = torch.tensor([[1.0, 2.0], [0.5, -1.0]])
y = torch.tensor([[1.0], [0.0]])
results = {}
for name, make in [('Adam', lambda p: optim.Adam(p, lr=0.1, weight_decay=0.01)),
                   ('AdamW', lambda p: optim.AdamW(p, lr=0.1, weight_decay=0.01)),
                   ('RMSprop', lambda p: optim.RMSprop(p, lr=0.01)),
                   ('Adagrad', lambda p: optim.Adagrad(p, lr=0.1))]:
    model = nn.Linear(2, 1)
    model.load_state_dict(base.state_dict())
    opt = make(model.parameters())
    for _ in range(3):
        opt.zero_grad()
        nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    results[name] = model.weight.detach().clone()
    print(name, sorted(opt.state[model.weight].keys()))
for k, v in results.items():
    print(k, v)
print(opt)
opt = optim.Adam(base.parameters(), lr=1e-3, betas=(0.9, 0.99))
nn.functional.mse_loss(base(x), y).backward()
opt.step()
sd = opt.state_dict()
print(sd['state'][0]['step'], sd['state'][1]['exp_avg'], sd['param_groups'][0]['betas'])
opt.zero_grad()
print(base.weight.grad)
nn.functional.mse_loss(base(x), y).backward()
opt.zero_grad(set_to_none=False)
print(base.weight.grad, base.bias.grad)
print(opt)
