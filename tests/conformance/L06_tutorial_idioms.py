# idioms of older tutorials: .data.normal_ weight init, one-hot by scatter_, Variable(...type(FloatTensor)),
# torch.Tensor(n).uniform_, index masks with nonzero, sort/topk for predictions
import torch
from torch.autograd import Variable

torch.manual_seed(2)
lin = torch.nn.Linear(3, 2)
lin.weight.data.normal_(0.0, 0.02)
lin.bias.data.fill_(0)
labels = torch.LongTensor([2, 0, 1])
onehot = torch.zeros(3, 4).scatter_(1, labels.unsqueeze(1), 1)
x = Variable(torch.randn(3, 3).type(torch.FloatTensor), requires_grad=True)
noise = torch.Tensor(3).uniform_(-1, 1)
out = lin(x + noise)
scores, pred = out.topk(1, dim=1)
order = out.sum(1).argsort(descending=True)
loss = (out.softmax(1).gather(1, pred) * onehot[:, :1]).sum()
loss.backward()
idx = (onehot[:, 0] == 0).nonzero().squeeze(1)
print(lin.weight, onehot, out, pred, order, idx, x.grad, sep="\n")
print(torch.any(onehot > 0, dim=0), onehot.all(), torch.equal(onehot.sum(1), torch.ones(3)))
sorted_vals, sorted_idx = torch.sort(out[:, 0], descending=True)
print(sorted_vals, sorted_idx)
