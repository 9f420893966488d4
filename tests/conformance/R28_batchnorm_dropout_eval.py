# R28 - batchnorm_dropout_eval
#
# Source:  PyTorch forum, "model.eval() vs torch.no_grad()": BatchNorm running stats and Dropout
# Teaches: in train mode BatchNorm normalises with batch stats and updates running_mean/var (unbiased
#          var); in eval it uses the running stats; Dropout scales by 1/(1-p) in train and is identity
#          in eval; no_grad changes neither
# Covers:  nn.BatchNorm1d(momentum=0.1), running_mean, running_var, num_batches_tracked, module.train()
#          / eval() return value, .training, F.dropout(training=False), nn.Dropout(p=0.5) zero count,
#          track_running_stats=False, affine=False repr
# Random:  yes - torch.manual_seed(0); torch.randn and dropout masks
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
bn = nn.BatchNorm1d(3)
x = torch.randn(4, 3) * 2 + 1
y = bn(x)
print(y.mean(0), bn.running_mean, bn.running_var, bn.num_batches_tracked)
bn.eval()
print(bn(x))
with torch.no_grad():
    bn.train()
    bn(x)
print(bn.num_batches_tracked, bn.training)
print(nn.BatchNorm1d(2, affine=False, track_running_stats=False), nn.BatchNorm2d(4, eps=1e-3, momentum=None))
drop = nn.Dropout(p=0.5)
ones = torch.ones(2, 8)
d = drop(ones)
print(d, (d == 0).sum())
print(drop.eval()(ones).equal(ones), F.dropout(ones, 0.5, training=False).sum())
m = nn.Sequential(nn.Linear(3, 3), nn.BatchNorm1d(3), nn.Dropout(0.3))
print(m.eval() is m, [c.training for c in m.children()])
m.train()
out = m(x)
out.sum().backward()
print(m[1].weight.grad, out.grad_fn)
