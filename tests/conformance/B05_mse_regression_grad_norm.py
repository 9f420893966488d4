# Linear regression by hand with F.mse_loss (mean and sum), the gradient norm printed each
# step (torch.norm of the stacked per-parameter norms, as clip_grad_norm_ measures it) and
# a p=3 norm of the weights; every value printed in full.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.linspace(-2.0, 3.0, 37).reshape(-1, 1) * torch.ones(1, 3)
y = x @ torch.tensor([[1.5], [-0.7], [0.3]]) + 0.25 * torch.randn(37, 1)
w = torch.zeros(3, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
for step in range(60):
    pred = x @ w + b
    loss = F.mse_loss(pred, y) + 0.01 * F.mse_loss(pred, y, reduction="sum")
    loss.backward()
    gnorm = torch.norm(torch.stack([w.grad.norm(), b.grad.norm()]))
    with torch.no_grad():
        w -= 0.05 * w.grad
        b -= 0.05 * b.grad
    w.grad.zero_()
    b.grad.zero_()
    if step % 6 == 0 or step == 59:
        print(step, loss.item(), gnorm.item(), w.norm(p=3).item(), w.detach().norm(dim=0).item())
