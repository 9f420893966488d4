# R02 - logistic_regression_lecture_zh
#
# Source:  Chinese course notes (刘二大人-style lecture "逻辑斯蒂回归")
# Teaches: logistic regression = Linear + sigmoid, trained with binary cross entropy
# Covers:  torch.sigmoid in forward, torch.nn.BCELoss(reduction='sum'), SGD, torch.linspace
#          test points, .view((200, 1)), thresholding with >= 0.5, .sum() of a bool tensor
# Random:  yes - torch.manual_seed(0); nn.Linear default init
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x_data = torch.Tensor([[1.0], [2.0], [3.0]])
y_data = torch.Tensor([[0], [0], [1]])


class LogisticRegressionModel(torch.nn.Module):
    def __init__(self):
        super(LogisticRegressionModel, self).__init__()
        self.linear = torch.nn.Linear(1, 1)

    def forward(self, x):
        y_pred = torch.sigmoid(self.linear(x))
        return y_pred


model = LogisticRegressionModel()
criterion = torch.nn.BCELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
for epoch in range(300):
    y_pred = model(x_data)
    loss = criterion(y_pred, y_data)
    if epoch % 100 == 99:
        print(epoch, round(loss.item(), 4))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

x = torch.linspace(0, 10, 200)
x_t = x.view((200, 1))
y_t = model(x_t)
print(y_t.shape, y_t[:3].detach())
print((y_t >= 0.5).sum(), (y_t >= 0.5).dtype)
print(F.binary_cross_entropy(y_pred, y_data), y_pred.grad_fn)
print(model.linear.weight.grad)
