# A training loop: 50 Adam steps on a two-layer MLP (XOR-like data). Every iteration
# builds a new graph of the same shape, so explain explains one pass in full and then
# shows the numbers that change per iteration; --pass N expands pass N.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
X = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
y = torch.tensor([[0.0], [1.0], [1.0], [0.0]])
for step in range(50):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(X), y)
    loss.backward()
    opt.step()
print(loss)
