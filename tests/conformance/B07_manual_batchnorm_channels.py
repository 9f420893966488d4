# Batch normalisation written out on an image batch: per-channel mean and biased variance
# over dims (0, 2, 3), a learned per-channel scale and shift, squared error against a target
# and a softplus-like feature x ** 1.5 of the positive part; the loss printed in full.
import torch

torch.manual_seed(2)
images = torch.randn(8, 3, 5, 7) * 2 + 0.5
target = torch.randn(8, 3, 5, 7)
gamma = torch.ones(1, 3, 1, 1, requires_grad=True)
beta = torch.zeros(1, 3, 1, 1, requires_grad=True)
for step in range(40):
    mean = images.mean(dim=(0, 2, 3), keepdim=True)
    var = images.var(dim=(0, 2, 3), unbiased=False, keepdim=True)
    normed = (images - mean) / torch.sqrt(var + 1e-5)
    out = gamma * normed + beta
    feature = out.clamp(min=0) ** 1.5
    loss = ((out - target) ** 2).mean() + 0.1 * feature.sum(dim=(1, 3)).mean()
    loss.backward()
    with torch.no_grad():
        gamma -= 0.1 * gamma.grad
        beta -= 0.1 * beta.grad
    gamma.grad.zero_()
    beta.grad.zero_()
    if step % 8 == 0 or step == 39:
        print(step, loss.item(), images.std(dim=(1, 2)).sum().item(), out.sum(dim=(0, 2)).norm().item())
