# R30 - regression_net_mofan_zh
#
# Source:  Chinese tutorial (莫烦Python-style "关系拟合 (回归)")
# Teaches: a one-hidden-layer net fits y = x^2 + noise; unsqueeze makes column data; Net defined with
#          hidden/predict layers; the loss drops over training
# Covers:  torch.unsqueeze(torch.linspace(-1, 1, 100), dim=1), x.pow(2) + 0.2 * torch.rand(x.size()),
#          class Net(torch.nn.Module) with n_feature/n_hidden/n_output, F.relu, torch.optim.SGD(lr=0.2),
#          torch.nn.MSELoss(), printing the net, loss.data.numpy() replaced by loss.data, the
#          prediction shape
# Random:  yes - torch.manual_seed(1); torch.rand noise and default init
import torch
import torch.nn.functional as F

torch.manual_seed(1)
x = torch.unsqueeze(torch.linspace(-1, 1, 100), dim=1)
y = x.pow(2) + 0.2 * torch.rand(x.size())
print(x.shape, y.shape, x[:2])


class Net(torch.nn.Module):
    def __init__(self, n_feature, n_hidden, n_output):
        super(Net, self).__init__()
        self.hidden = torch.nn.Linear(n_feature, n_hidden)
        self.predict = torch.nn.Linear(n_hidden, n_output)

    def forward(self, x):
        x = F.relu(self.hidden(x))
        x = self.predict(x)
        return x


net = Net(n_feature=1, n_hidden=10, n_output=1)
print(net)
optimizer = torch.optim.SGD(net.parameters(), lr=0.2)
loss_func = torch.nn.MSELoss()
for t in range(100):
    prediction = net(x)
    loss = loss_func(prediction, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if t % 25 == 0:
        print('Loss=%.4f' % loss.data)
print(prediction.shape, loss.data, loss)
net2 = torch.nn.Sequential(
    torch.nn.Linear(1, 10),
    torch.nn.ReLU(),
    torch.nn.Linear(10, 1)
)
print(net2)
