# Fan-in: one leaf used by 20,000 terms; backward sums 20,000 gradients into it.
import torch

w = torch.tensor(0.5, requires_grad=True)
total = w * 0.0
for i in range(20000):
    total = total + w * (i % 7)
total.backward()
print(w.grad)
