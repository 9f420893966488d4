# The accumulation pitfall: two training steps without zeroing the gradient.
# The second step's w.grad is the sum of both steps' gradients.
import torch

w = torch.tensor(2.0, requires_grad=True)
x = torch.tensor(3.0)
for step in range(2):
    loss = (w * x - 1.0) ** 2
    loss.backward()
    print(f"step {step}: w.grad = {w.grad}")
