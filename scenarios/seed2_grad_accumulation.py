# backward() article: gradients accumulate across backward() calls (2, 4, 6).
import torch

w = torch.tensor(1.0, requires_grad=True)

for i in range(3):
    loss = w ** 2

    print(f"\n第 {i+1} 次迭代前, w.grad = {w.grad}")

    loss.backward()

    print(f"第 {i+1} 次迭代后, w.grad = {w.grad}")
