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


class Net(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.fc = nn.Linear(2, hidden)
        self.out = nn.Linear(hidden, 1)
        self.scale = 2.0
        self.history = []

    def forward(self, x):
        return self.out(torch.relu(self.fc(x))) * self.scale


class Tracker:
    def __init__(self):
        self.best = None
        self.scores = [1.0]


torch.manual_seed(5)
net = Net(3)
net.history.append(1)
snapshot = copy.deepcopy(net)
snapshot.history.append(2)
snapshot.scale = 3.0
with torch.no_grad():
    snapshot.fc.weight.add_(1.0)
print(type(snapshot).__name__, net.history, snapshot.history, net.scale, snapshot.scale)
print(torch.equal(net.fc.weight + 1.0, snapshot.fc.weight), isinstance(snapshot, Net))
tracker = Tracker()
tracker.best = net
t2 = copy.deepcopy(tracker)
t2.scores.append(0.5)
print(tracker.scores, t2.scores, t2.best is net, type(t2.best).__name__)
net_out = snapshot(x).mean()
net_out.backward()
snap_grad = snapshot.fc.weight.grad
net_grad_is_none = net.fc.weight.grad is None
