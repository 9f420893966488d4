# One sigmoid neuron trained by hand on four points, in float32 and again in float64:
# forward sigmoid(w.x + b), squared error, autograd, w -= lr * grad; the loss printed in full.
import torch

for dtype in (torch.float32, torch.float64):
    X = torch.tensor([[0.5, 1.5], [1.0, -0.5], [-1.5, 0.25], [2.0, 1.0]], dtype=dtype)
    y = torch.tensor([1.0, 0.0, 0.0, 1.0], dtype=dtype)
    w = torch.tensor([0.1, -0.2], dtype=dtype, requires_grad=True)
    b = torch.tensor(0.05, dtype=dtype, requires_grad=True)
    lr = 0.5
    for step in range(200):
        p = torch.sigmoid(X @ w + b)
        loss = ((p - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
        if step % 40 == 0 or step == 199:
            print(dtype, step, loss.item())
    print(w.tolist(), b.item())
