# R22 - eval_accuracy_loop
#
# Source:  PyTorch tutorials, "Optimizing Model Parameters" (train_loop / test_loop)
# Teaches: train_loop with model.train(), test_loop with model.eval() and torch.no_grad(); accuracy
#          counted with (pred.argmax(1) == y).type(torch.float).sum().item(); dropout is off in eval
# Covers:  TensorDataset + DataLoader(batch_size=5, shuffle=True) with a seeded generator, nn.Flatten,
#          nn.Dropout, model.training flags, size = len(dataloader.dataset), num_batches, f-strings with
#          :>0.1f and :>8f, loss.item() * len(X)
# Random:  yes - torch.manual_seed(0); default init, torch.randn data, shuffled batches
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
X_all = torch.randn(20, 2, 2)
y_all = (X_all.sum(dim=(1, 2)) > 0).long()
ds = TensorDataset(X_all, y_all)
g = torch.Generator()
g.manual_seed(7)
train_dataloader = DataLoader(ds, batch_size=5, shuffle=True, generator=g)
test_dataloader = DataLoader(ds, batch_size=8)


class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.2), nn.Linear(8, 2))

    def forward(self, x):
        return self.linear_relu_stack(self.flatten(x))


model = NeuralNetwork()
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.5)


def train_loop(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if batch % 2 == 0:
            loss, current = loss.item(), batch * 5 + len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")


def test_loop(dataloader, model, loss_fn):
    model.eval()
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")


for t in range(3):
    print(f"Epoch {t+1}\n-------------------------------")
    train_loop(train_dataloader, model, loss_fn, optimizer)
    test_loop(test_dataloader, model, loss_fn)
print(model.training, model.linear_relu_stack[2].training)
print("Done!")
