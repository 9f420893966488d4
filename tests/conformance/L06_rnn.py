# RNN cells and RNN/LSTM/GRU layers against torch: init draws, reprs, grad_fn chains, values, grads.
import torch
import torch.nn as nn

torch.manual_seed(0)
cell = nn.RNNCell(3, 4)
print(cell, [n for n, _ in cell.named_parameters()])
x = torch.randn(5, 2, 3)
h = None
for t in range(5):
    h = cell(x[t], h)
print(h, h.grad_fn.next_functions[0][0].name())
h.sum().backward()
print(cell.weight_hh.grad[0], cell.bias_ih.grad)
relu_cell = nn.RNNCell(3, 2, nonlinearity="relu", bias=False)
print(relu_cell, relu_cell(x[0]))
lc = nn.LSTMCell(3, 2)
hx, cx = lc(x[0])
hx, cx = lc(x[1], (hx, cx))
print(lc, hx, cx)
(hx.sum() + cx.sum()).backward()
print(lc.weight_ih.grad)
gc = nn.GRUCell(3, 2)
g1 = gc(x[0])
g2 = gc(x[1], g1)
print(gc, g2)
g2.pow(2).sum().backward()
print(gc.bias_hh.grad)
print(gc(x[0, 0]).shape)
rnn = nn.RNN(3, 4, num_layers=2)
out, hn = rnn(x)
print(rnn, out.shape, hn.shape, out.grad_fn, hn.grad_fn)
print(out[-1], hn)
out.sum().backward()
print(rnn.weight_ih_l1.grad[0], rnn.bias_hh_l0.grad)
gru = nn.GRU(3, 2, batch_first=True)
o, h = gru(x.transpose(0, 1), torch.zeros(1, 5, 2) + 0.1)
print(gru, o.shape, h)
lstm = nn.LSTM(3, 2, num_layers=2)
o, (h, c) = lstm(x)
print(lstm, o[2], h, c, o.grad_fn, o.grad_fn.next_functions[0][0].name())
(o.sum() + c.sum()).backward()
print(lstm.weight_hh_l1.grad, lstm.bias_ih_l0.grad)
o, (h, c) = lstm(x[:, 0])
print(o.shape, h.shape)
try:
    rnn(torch.randn(5, 2, 4))
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    nn.LSTMCell(3, 2)(torch.randn(2, 5))
except RuntimeError as e:
    print("RuntimeError:", e)
nn.GRU(3, 2, dropout=0.5)
