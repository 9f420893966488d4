# BLAS-bound work: a 3-layer, 1024-wide MLP trained for 20 steps with SGD.
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(
    torch.nn.Linear(1024, 1024), torch.nn.ReLU(),
    torch.nn.Linear(1024, 1024), torch.nn.ReLU(),
    torch.nn.Linear(1024, 10),
)
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
x = torch.randn(256, 1024)
target = torch.randint(0, 10, (256,))
for step in range(20):
    opt.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), target)
    loss.backward()
    opt.step()
print(f"{loss.item():.4f}")
