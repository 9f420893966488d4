# R37 - mnist_example_dropout2d
#
# Source:  PyTorch examples repository, the classic MNIST "Net" (conv1, conv2, Dropout2d,
#          fc1, fc2, log_softmax + nll_loss), shrunk to random 1x12x12 images
# Teaches: Dropout2d zeroes whole feature maps in training and is off in eval; log_softmax +
#          nll_loss equals cross entropy; test loss summed with reduction='sum' and accuracy with
#          pred.eq(target.view_as(pred)).sum().item()
# Covers:  nn.Dropout2d(0.25) and nn.Dropout(0.5) in a Module, F.max_pool2d, torch.flatten,
#          F.log_softmax(dim=1), F.nll_loss(reduction='sum'), output.argmax(dim=1, keepdim=True),
#          view_as, model.train()/eval(), optim.Adadelta + StepLR(gamma=0.7) as in the example,
#          the print of the module
# Random:  yes - torch.manual_seed(1); default init, torch.randn images, dropout masks
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.optim.lr_scheduler import StepLR


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, 1)
        self.conv2 = nn.Conv2d(4, 8, 3, 1)
        self.dropout1 = nn.Dropout2d(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(8 * 4 * 4, 16)
        self.fc2 = nn.Linear(16, 3)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(self.conv2(x))
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = self.dropout2(x)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


torch.manual_seed(1)
model = Net()
print(model)
data = torch.randn(6, 1, 12, 12)
target = torch.tensor([0, 1, 2, 1, 0, 2])
optimizer = optim.Adadelta(model.parameters(), lr=1.0)
scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
for epoch in range(1, 4):
    model.train()
    optimizer.zero_grad()
    output = model(data)
    loss = F.nll_loss(output, target)
    loss.backward()
    optimizer.step()
    print('Train Epoch: {} \tLoss: {:.6f}'.format(epoch, loss.item()))
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        output = model(data)
        test_loss += F.nll_loss(output, target, reduction='sum').item()
        pred = output.argmax(dim=1, keepdim=True)
        correct += pred.eq(target.view_as(pred)).sum().item()
    test_loss /= len(data)
    print('Test set: Average loss: {:.4f}, Accuracy: {}/{} ({:.0f}%)'.format(
        test_loss, correct, len(data), 100. * correct / len(data)))
    scheduler.step()
print(model.dropout1, model.dropout1.training, optimizer.param_groups[0]['lr'])
