# backward() article, as printed there: the second backward through y = v * 2 fails in PyTorch 2.13
# (MulBackward0 saved the scalar 2 and the first backward freed it). See seed2_vector_backward_retain.py.
import torch

v = torch.tensor([1., 2., 3.], requires_grad=True)
y = v * 2

# 方法 1：将结果求和，变成标量再反向传播
loss = y.sum()
loss.backward()
print(f"Sum backward 结果 v.grad: {v.grad}")

# 清空梯度以便进行下一次实验
v.grad.zero_()

# 方法 2：传入梯度向量 (gradient argument)
print("\n使用 gradient 参数进行 backward:")
y.backward(gradient=torch.tensor([1., 1., 1.]))
print(f"传入 [1, 1, 1] 后的 v.grad: {v.grad}")
