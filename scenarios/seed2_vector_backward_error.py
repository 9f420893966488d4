# backward() article: backward() on a vector needs a gradient argument.
import torch

v = torch.tensor([1., 2., 3.], requires_grad=True)

y = v * 2

try:
    y.backward()
except RuntimeError as e:
    print(f"错误捕获: {e}")
