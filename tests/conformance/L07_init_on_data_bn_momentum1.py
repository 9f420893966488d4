# The non-class parts of two tutorial patterns: BatchNorm2d(momentum=1.0) train vs eval
# (running_var is the unbiased batch variance), and in-place init through .data.
import torch
from torch import nn
import torch.nn.functional as F

torch.manual_seed(0)
bn = torch.nn.BatchNorm2d(2, momentum=1.0)
bn.train()
inp = 10 * torch.randn(1, 2, 4, 4)
output1 = bn(inp)
bn.eval()
output2 = bn(inp)
print("max abs diff = %.4f" % (output1 - output2).abs().max().item())
print(bn.running_mean)
print(bn.running_var)
bn.running_var.mul_(15 / 16.)
output3 = bn(inp)
print("after undoing Bessel: %.6f" % (output1 - output3).abs().max().item())
print(bn.num_batches_tracked, output2.requires_grad)

torch.manual_seed(0)
conv1 = nn.Conv2d(1, 2, 3)
bn2 = nn.BatchNorm2d(2)
fc1 = nn.Linear(8, 3)
nn.init.xavier_normal_(conv1.weight.data)
conv1.bias.data.zero_()
bn2.weight.data.fill_(1)
bn2.bias.data.zero_()
nn.init.normal_(fc1.weight.data, 0, 0.01)
fc1.bias.data.zero_()
x = F.max_pool2d(F.relu(bn2(conv1(torch.randn(2, 1, 6, 6)))), 2)
out = fc1(x.view(x.size(0), -1))
out.sum().backward()
print(out, conv1.bias, fc1.bias.grad)
