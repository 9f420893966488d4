# A d2l-style training loop: a tiny CNN (Conv2d + BatchNorm2d + MaxPool + Linear) on a
# seeded synthetic dataset, a shuffling DataLoader, SGD with momentum and StepLR.
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
X = torch.randn(8, 1, 4, 4)
y = (X.mean(dim=(1, 2, 3)) > 0).long()
loader = DataLoader(TensorDataset(X, y), batch_size=4, shuffle=True)

net = nn.Sequential(
    nn.Conv2d(1, 2, kernel_size=3, padding=1), nn.BatchNorm2d(2), nn.ReLU(),
    nn.MaxPool2d(2), nn.Flatten(), nn.Linear(2 * 2 * 2, 2))
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=1, gamma=0.5)
print(net)

for epoch in range(3):
    net.train()
    total, correct = 0.0, 0
    for xb, yb in loader:
        optimizer.zero_grad()
        out = net(xb)
        loss = loss_fn(out, yb)
        loss.backward()
        optimizer.step()
        total += loss.item() * xb.shape[0]
        correct += (out.argmax(1) == yb).sum().item()
    scheduler.step()
    print(f"epoch {epoch + 1}: loss {total / len(X):.4f}, acc {correct / len(X):.3f}, "
          f"lr {scheduler.get_last_lr()[0]:.4f}")

net.eval()
with torch.no_grad():
    test_acc = (net(X).argmax(1) == y).float().mean()
print(f"eval accuracy {test_acc:.3f}")
print(net[1].running_mean, net[1].num_batches_tracked)
