# backward() article, checking leaves: only leaves keep .grad; a non-leaf keeps it after
# retain_grad(). h = 3w, loss = h², so ∂loss/∂h = 2h = 6 and ∂loss/∂w = 6 · 3 = 18 at w = 1.
import torch

w = torch.tensor(1.0, requires_grad=True)
h = w * 3                     # 非叶子节点
loss = h ** 2
loss.backward(retain_graph=True)
print(f"h.is_leaf: {h.is_leaf}, h.grad: {h.grad}")

h.retain_grad()
w.grad = None
loss.backward()
print(f"retain_grad() 之后 h.grad: {h.grad}, w.grad: {w.grad}")
