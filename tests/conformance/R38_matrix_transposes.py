# R38 - matrix_transposes
#
# Source:  PyTorch docs, Tensor.mT / Tensor.mH / Tensor.H / Tensor.adjoint (attention and linear-algebra code)
# Teaches: .T reverses all dims (PermuteBackward0); .mT/.mH/.H transpose the last two (TransposeBackward0);
#          on 0-D tensors they return the tensor itself with a deprecation warning
# Random:  yes - torch.randn
import torch
x = torch.randn(2, 3, requires_grad=True)
for a in ['T', 'mT', 'mH', 'H']:
    print(a, getattr(x, a).grad_fn.name(), getattr(x, a).shape)
print(x.adjoint().grad_fn.name())
y = torch.randn(2, 3, 4)
print(y.mT.shape, y.mH.shape)
(x.mT * 2).sum().backward()
print(x.grad)
for t, a in [(y, 'H'), (torch.randn(3), 'mH'), (torch.randn(3), 'H'), (torch.tensor(1.0), 'mT')]:
    try:
        getattr(t, a)
    except RuntimeError as e:
        print(e)
s = torch.tensor(2.0, requires_grad=True)
print(s.mT is s, s.mH is s, s.H is s, s.mT is s)
