# backward() article, scene 3: only tensors with requires_grad=True get a gradient.
import torch

A = torch.tensor(2., requires_grad=True)
print(f"张量 A (requires_grad=True): {A}")

B = torch.tensor(5., requires_grad=False)
print(f"张量 B (requires_grad=False): {B}")

x = A * B
print(f"运算结果 x: {x}")

x.backward()

print(f"A 的梯度: {A.grad}")
print(f"B 的梯度: {B.grad}")
