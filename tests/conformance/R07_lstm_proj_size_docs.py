# R07 - lstm_proj_size_docs
#
# Source:  PyTorch docs, torch.nn.LSTM ("If proj_size > 0 is specified, LSTM with projections will be
#          used")
# Teaches: with projections the hidden state h is projected to proj_size, so output and h_n have
#          proj_size features while c_n keeps hidden_size; a weight_hr_l{k} parameter appears
# Covers:  nn.LSTM(proj_size=...), parameter shapes, the repr, h0/c0 of the right shapes, the error when
#          proj_size >= hidden_size, batch_first, backward into weight_hr_l0
# Random:  yes - torch.manual_seed(0); LSTM default init and torch.randn
import torch
import torch.nn as nn

torch.manual_seed(0)
rnn = nn.LSTM(10, 20, 2, proj_size=5)
print(rnn)
for name, p in rnn.named_parameters():
    print(name, tuple(p.shape))
inp = torch.randn(5, 3, 10)
h0 = torch.randn(2, 3, 5)
c0 = torch.randn(2, 3, 20)
output, (hn, cn) = rnn(inp, (h0, c0))
print(output.shape, hn.shape, cn.shape)
print(output[-1, 0])
output.mean().backward()
print(rnn.weight_hr_l0.grad[0])
small = nn.LSTM(3, 4, proj_size=2, batch_first=True, bidirectional=True)
o, (h, c) = small(torch.randn(2, 3, 3))
print(o.shape, h.shape, c.shape)
try:
    nn.LSTM(3, 4, proj_size=4)
except ValueError as e:
    print(type(e).__name__, e)
