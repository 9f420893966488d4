# R05 - char_rnn_hello_zh
#
# Source:  Chinese course notes (刘二大人-style lecture "循环神经网络基础": "hello" -> "ohlol")
# Teaches: an RNN learns a sequence-to-sequence character mapping; inputs are one-hot vectors,
#          the loss is cross entropy over every time step
# Covers:  F.one_hot on an index tensor, .float(), torch.nn.RNN(batch_first=False), hidden init with
#          torch.zeros, output.view(-1, hidden), CrossEntropyLoss, Adam(lr=0.05), argmax decoding with
#          ''.join of idx2char
# Random:  yes - torch.manual_seed(1); RNN default init
import torch
import torch.nn.functional as F

torch.manual_seed(1)
idx2char = ['e', 'h', 'l', 'o']
x_data = [1, 0, 2, 2, 3]
y_data = [3, 1, 2, 3, 2]
input_size, hidden_size, batch_size, seq_len, num_layers = 4, 4, 1, 5, 1
inputs = F.one_hot(torch.tensor(x_data), num_classes=input_size).float().view(seq_len, batch_size, input_size)
labels = torch.LongTensor(y_data)
print(inputs.shape, inputs[0])


class Model(torch.nn.Module):
    def __init__(self):
        super(Model, self).__init__()
        self.rnn = torch.nn.RNN(input_size=input_size, hidden_size=hidden_size, num_layers=num_layers)

    def forward(self, x):
        hidden = torch.zeros(num_layers, batch_size, hidden_size)
        out, _ = self.rnn(x, hidden)
        return out.view(-1, hidden_size)


net = Model()
print(net)
criterion = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(net.parameters(), lr=0.05)
for epoch in range(15):
    optimizer.zero_grad()
    outputs = net(inputs)
    loss = criterion(outputs, labels)
    loss.backward()
    optimizer.step()
    _, idx = outputs.max(dim=1)
    idx = idx.tolist()
    if epoch % 5 == 4:
        print('Predicted: ', ''.join([idx2char[x] for x in idx]), end='')
        print(', Epoch [%d/15] loss = %.3f' % (epoch + 1, loss.item()))
print(F.one_hot(torch.tensor([[0, 2], [3, 1]])))
print(F.one_hot(torch.arange(0, 5) % 3))
