# keep the best model with copy.deepcopy during training (a common forum idiom)
import copy

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
x = torch.randn(16, 2)
y = (x[:, :1] - 2 * x[:, 1:]).clone()

best_loss = float("inf")
best_model = None
best_state = None
for epoch in range(30):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    if loss.item() < best_loss:
        best_loss = loss.item()
        best_model = copy.deepcopy(model)
        best_state = copy.deepcopy(model.state_dict())

print(round(best_loss, 5), type(best_model), type(best_state))
print(best_model[0].weight is model[0].weight, best_model[0].weight.requires_grad)
print(best_model[0].weight.grad is None, torch.equal(best_state["0.weight"], best_model[0].weight))
opt_copy = copy.deepcopy(opt)
print(opt_copy.param_groups[0]["lr"], len(opt_copy.state))

leaf = torch.tensor([1.0, 2.0], requires_grad=True)
(leaf * leaf).sum().backward()
leaf_copy = copy.deepcopy(leaf)
print(leaf_copy, leaf_copy.grad, leaf_copy.is_leaf)
shallow = copy.copy([leaf, leaf_copy])
print(shallow[0] is leaf)
params = copy.deepcopy(list(model.parameters()))
print(len(params), params[0].is_leaf)
pred = model(x)
try:
    copy.deepcopy(pred)
except RuntimeError as e:
    print("RuntimeError:", e)
final = best_model(x).sum()
final.backward()
g = best_model[2].bias.grad
