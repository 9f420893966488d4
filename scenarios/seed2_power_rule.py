# backward() article, scene 2: x = A**3, dx/dA = 3*A**2 = 75 at A = 5.
import torch

A = torch.tensor(5., requires_grad=True)
print(f"Tensor A: {A}")

x = A**3
print(f"运算结果 x: {x}")

x.backward()

print(f"计算后的梯度 A.grad: {A.grad}")
