# A tiny LSTM regression: predict the next value of a noisy sine wave from a window of
# 4 past values (nn.LSTM with batch_first, the last hidden state into nn.Linear), Adam.
import math
import torch
from torch import nn

torch.manual_seed(0)
t = torch.linspace(0, 2 * math.pi, 12)
series = torch.sin(t) + 0.05 * torch.randn(12)
windows = torch.stack([series[i:i + 4] for i in range(8)]).unsqueeze(-1)   # (8, 4, 1)
targets = series[4:12].unsqueeze(-1)                                       # (8, 1)

lstm = nn.LSTM(input_size=1, hidden_size=4, batch_first=True)
head = nn.Linear(4, 1)
params = list(lstm.parameters()) + list(head.parameters())
optimizer = torch.optim.Adam(params, lr=0.1)
loss_fn = nn.MSELoss()
print(lstm, [n for n, _ in lstm.named_parameters()])

for step in range(5):
    optimizer.zero_grad()
    out, (h, c) = lstm(windows)
    pred = head(out[:, -1])
    loss = loss_fn(pred, targets)
    loss.backward()
    optimizer.step()
    print(f"step {step:2d}: loss {loss.item():.5f}")

print(out.shape, h.shape, c.shape)
print(torch.allclose(out[:, -1], h[0]))
with torch.no_grad():
    print(head(lstm(windows[:2])[0][:, -1]))
