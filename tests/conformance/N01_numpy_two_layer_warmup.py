# The numpy warm-up of "Learning PyTorch with Examples": a two-layer ReLU network fitted
# with hand-written forward and backward passes in plain numpy, then the same net in torch
# built from the numpy data with torch.from_numpy.
import numpy as np
import torch

np.random.seed(1)
N, D_in, H, D_out = 16, 20, 8, 3
x = np.random.randn(N, D_in)
y = np.random.randn(N, D_out)
w1 = np.random.randn(D_in, H)
w2 = np.random.randn(H, D_out)

learning_rate = 1e-4
for t in range(60):
    h = x.dot(w1)
    h_relu = np.maximum(h, 0)
    y_pred = h_relu.dot(w2)
    loss = np.square(y_pred - y).sum()
    if t % 20 == 19:
        print(t, loss)
    grad_y_pred = 2.0 * (y_pred - y)
    grad_w2 = h_relu.T.dot(grad_y_pred)
    grad_h_relu = grad_y_pred.dot(w2.T)
    grad_h = grad_h_relu.copy()
    grad_h[h < 0] = 0
    grad_w1 = x.T.dot(grad_h)
    w1 -= learning_rate * grad_w1
    w2 -= learning_rate * grad_w2

final_numpy_loss = loss
xt = torch.from_numpy(x)
yt = torch.from_numpy(y)
tw1 = torch.from_numpy(w1.copy()).requires_grad_()
tw2 = torch.tensor(w2, requires_grad=True)
out = (xt @ tw1).clamp(min=0) @ tw2
tloss = (out - yt).pow(2).sum()
tloss.backward()
print(tloss.item(), float(final_numpy_loss))
print(np.allclose(tw1.grad.numpy(), x.T.dot(np.where(x.dot(w1) > 0, (2.0 * (np.maximum(x.dot(w1), 0).dot(w2) - y)).dot(w2.T), 0))))
print(tw2.grad.shape, tw2.grad.dtype, w2.dtype, w2.shape)
