# R01 - linear_regression_lecture_zh
#
# Source:  Chinese course notes (刘二大人-style lecture "用PyTorch实现线性回归")
# Teaches: the four steps: prepare data, design a model class, build loss and optimizer, train
#          (forward, zero_grad, backward, step)
# Covers:  class LinearModel(torch.nn.Module), torch.nn.MSELoss(reduction='sum'), torch.optim.SGD,
#          printing loss every 20 epochs, w.item()/b.item(), a test prediction
# Random:  yes - torch.manual_seed(2); nn.Linear default init
import torch

torch.manual_seed(2)
x_data = torch.tensor([[1.0], [2.0], [3.0]])
y_data = torch.tensor([[2.0], [4.0], [6.0]])


class LinearModel(torch.nn.Module):
    def __init__(self):
        super(LinearModel, self).__init__()
        self.linear = torch.nn.Linear(1, 1)

    def forward(self, x):
        y_pred = self.linear(x)
        return y_pred


model = LinearModel()
criterion = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

for epoch in range(100):
    y_pred = model(x_data)
    loss = criterion(y_pred, y_data)
    if epoch % 20 == 0:
        print(epoch, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

print('w = ', model.linear.weight.item())
print('b = ', model.linear.bias.item())
x_test = torch.tensor([[4.0]])
y_test = model(x_test)
print('y_pred = ', y_test.data)
print(model)
print(criterion, optimizer)
