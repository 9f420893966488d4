# backward() article, scene 1: without backward() the gradient is never computed.
import torch

A = torch.tensor(5., requires_grad=True)
print(f"初始张量 A: {A}")

x = A**3
print(f"计算后的结果 x: {x}")

print(f"在 backward 之前，A.grad 的值: {A.grad}")
