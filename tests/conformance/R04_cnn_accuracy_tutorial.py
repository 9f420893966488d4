# R04 - cnn_accuracy_tutorial
#
# Source:  PyTorch tutorials, "Training a Classifier" (CIFAR-10 Net) shrunk to a random 1x8x8 batch
# Teaches: conv -> relu -> pool twice, flatten, fully connected; accuracy with torch.max(outputs.data, 1)
#          and (predicted == labels).sum().item()
# Covers:  nn.Conv2d, nn.MaxPool2d, torch.flatten(x, 1), nn.CrossEntropyLoss, optim.SGD(momentum=0.9),
#          a few steps, torch.max returning (values, indices), correct/total percentage, argmax
# Random:  yes - torch.manual_seed(0); default init, torch.randn inputs, torch.randint labels
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(4, 6, 3, padding=1)
        self.fc1 = nn.Linear(6 * 2 * 2, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.fc2(x)
        return x


torch.manual_seed(0)
net = Net()
print(net)
inputs = torch.randn(6, 1, 8, 8)
labels = torch.randint(0, 3, (6,))
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
running_loss = 0.0
for i in range(5):
    optimizer.zero_grad()
    outputs = net(inputs)
    loss = criterion(outputs, labels)
    loss.backward()
    optimizer.step()
    running_loss += loss.item()
print(f'loss: {running_loss / 5:.3f}')
correct = 0
total = 0
with torch.no_grad():
    outputs = net(inputs)
    _, predicted = torch.max(outputs.data, 1)
    total += labels.size(0)
    correct += (predicted == labels).sum().item()
print(labels, predicted)
print(f'Accuracy of the network: {100 * correct // total} %')
print((outputs.argmax(dim=1) == labels).float().mean())
print(torch.max(outputs, 1))
