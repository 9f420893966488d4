# A single linear layer with BCEWithLogitsLoss trained by SGD with momentum; the loss
# printed in full.
import torch
import torch.nn as nn

torch.manual_seed(3)
X = torch.randn(64, 5)
true_w = torch.tensor([1.5, -2.0, 0.5, 0.0, 1.0])
Y = (X @ true_w > 0).float().unsqueeze(1)
layer = nn.Linear(5, 1)
opt = torch.optim.SGD(layer.parameters(), lr=0.1, momentum=0.9)
loss_fn = nn.BCEWithLogitsLoss()
for epoch in range(30):
    opt.zero_grad()
    loss = loss_fn(layer(X), Y)
    loss.backward()
    opt.step()
    if epoch % 5 == 0 or epoch == 29:
        print(epoch, loss.item())
