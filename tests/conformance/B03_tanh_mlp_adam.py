# A 2-8-1 tanh network learning XOR-like targets with Adam for 50 steps: nn.Sequential,
# MSELoss, zero_grad/backward/step, loss.item() printed in full every 10 steps.
import torch
import torch.nn as nn

torch.manual_seed(42)
X = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
Y = torch.tensor([[0.0], [1.0], [1.0], [0.0]])
model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
loss_fn = nn.MSELoss()
for step in range(50):
    opt.zero_grad()
    loss = loss_fn(model(X), Y)
    loss.backward()
    opt.step()
    if step % 10 == 0 or step == 49:
        print(step, loss.item())
print(model(X).detach().squeeze().tolist())
