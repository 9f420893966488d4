# A forum-style regression: data made with np.random and np.linspace, a torch model
# trained on it, predictions printed through .numpy() and numpy reductions.
import numpy as np
import torch
import torch.nn as nn

np.random.seed(42)
torch.manual_seed(0)
X = np.linspace(0, 1, 20).reshape(-1, 1).astype(np.float32)
noise = np.random.normal(0, 0.1, size=X.shape).astype(np.float32)
Y = 2 * X + 1 + noise
print(X.dtype, Y.dtype, X.shape, Y[:3].ravel())

model = nn.Linear(1, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.5)
inputs = torch.from_numpy(X)
targets = torch.from_numpy(Y)
for epoch in range(50):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(inputs), targets)
    loss.backward()
    opt.step()
    if epoch % 10 == 9:
        print(f"epoch {epoch + 1}: loss {loss.item():.6f}")

with torch.no_grad():
    pred = model(inputs).numpy()
print(pred[:4])
print(np.round(pred.mean(), 4), pred.std() > 0, np.abs(pred - Y).max() < 1.0)
print(model.weight.detach().numpy(), model.bias.item())
idx = np.random.permutation(len(X))[:5]
print(idx, X[idx].T)
choice = np.random.choice(10, 3, replace=False)
rng = np.random.default_rng(7)
print(choice, rng.integers(0, 100, size=4), rng.random(2), rng.normal(size=2))
print(np.random.rand(2, 2), np.random.uniform(-1, 1, 3), np.random.randint(5))
print(np.array([1, 2, 3]).dtype, np.array([1.5]).dtype, np.array([True]).dtype, np.zeros(2, dtype=np.int32))
