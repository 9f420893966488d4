# backward() article, both methods in one graph: the first backward must retain the graph.
import torch

v = torch.tensor([1., 2., 3.], requires_grad=True)
y = v * 2

# 方法 1：将结果求和，变成标量再反向传播
loss = y.sum()
loss.backward(retain_graph=True)   # keep the saved tensors of y = v * 2 for the second backward
print(f"Sum backward 结果 v.grad: {v.grad}")

# 清空梯度以便进行下一次实验
v.grad.zero_()

# 方法 2：传入梯度向量 (gradient argument)
print("\n使用 gradient 参数进行 backward:")
y.backward(gradient=torch.tensor([1., 1., 1.]))
print(f"传入 [1, 1, 1] 后的 v.grad: {v.grad}")
