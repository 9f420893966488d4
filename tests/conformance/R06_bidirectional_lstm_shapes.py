# R06 - bidirectional_lstm_shapes
#
# Source:  Stack Overflow, "Understanding the output of a bidirectional LSTM in PyTorch"
# Teaches: output holds both directions concatenated on the last dim; h_n is
#          (num_layers * 2, batch, hidden); output[-1, :, :H] equals h_n[-2] (forward), output[0, :, H:]
#          equals h_n[-1] (backward)
# Covers:  nn.LSTM(num_layers=2, bidirectional=True), batch_first=True variant, named parameters with
#          _reverse suffix, torch.equal/allclose, backward into weight_ih_l0_reverse, nn.GRU
#          bidirectional, repr
# Random:  yes - torch.manual_seed(0); LSTM/GRU default init and torch.randn
import torch
import torch.nn as nn

torch.manual_seed(0)
H = 3
lstm = nn.LSTM(input_size=2, hidden_size=H, num_layers=2, bidirectional=True)
print(lstm)
print([n for n, p in lstm.named_parameters()][:8])
x = torch.randn(4, 2, 2)
output, (h_n, c_n) = lstm(x)
print(output.shape, h_n.shape, c_n.shape)
print(torch.allclose(output[-1, :, :H], h_n[-2]), torch.allclose(output[0, :, H:], h_n[-1]))
print(output.grad_fn)
output.sum().backward()
print(lstm.weight_ih_l0_reverse.grad.shape, lstm.bias_hh_l1_reverse.grad)
print(h_n)
gru = nn.GRU(2, 2, batch_first=True, bidirectional=True)
out, h = gru(x.transpose(0, 1))
print(gru, out.shape, h.shape)
print(out[:, -1])
rnn = nn.RNN(2, 2, bidirectional=True, nonlinearity='relu')
o, hh = rnn(x)
print(o[0], hh.shape)
