# The grad_fn article: z = sum(x * 3) built step by step, then backward.
import torch

# 创建叶子张量，必须设定 requires_grad=True
x = torch.tensor([2.0, 3.0], requires_grad=True)
print(f"X (叶子节点): {x}")
print(f"X 的 grad_fn: {x.grad_fn}\n")

# 运算操作：y = x * 3
y = x * 3
print(f"Y: {y}")
print(f"Y 的 grad_fn: {y.grad_fn}")

# 运算操作：z = y.sum() (聚合为标量)
z = y.sum()
print(f"Z: {z}")
print(f"Z 的 grad_fn: {z.grad_fn}\n")

# 触发反向传播
z.backward()
print(f"X 的梯度 (x.grad): {x.grad}")
