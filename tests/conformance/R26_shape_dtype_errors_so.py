# R26 - shape_dtype_errors_so
#
# Source:  Stack Overflow, the common first-model errors: "mat1 and mat2 shapes cannot be multiplied",
#          "expected scalar type Long but found Float", "0D or 1D target tensor expected, multi-target
#          not supported", "Target 3 is out of bounds"
# Teaches: what each message means and the usual fix (flatten before Linear, .long() targets, squeeze
#          the target, num_classes)
# Covers:  nn.Linear with a 4-D input, CrossEntropyLoss with float class indices, (N, 1) targets,
#          out-of-range targets, MSELoss broadcast warning, the fixes
# Random:  yes - torch.manual_seed(0); default init, torch.randn
import torch
import torch.nn as nn

torch.manual_seed(0)
fc = nn.Linear(12, 3)
imgs = torch.randn(2, 3, 2, 2)
try:
    fc(imgs.view(2, 3, 4))
except RuntimeError as e:
    print(e)
out = fc(imgs.view(imgs.size(0), -1))
print(out.shape)
ce = nn.CrossEntropyLoss()
tgt = torch.tensor([[1], [2]])
try:
    ce(out, tgt)
except RuntimeError as e:
    print(e)
print(ce(out, tgt.squeeze(1)))
try:
    ce(out, torch.tensor([1, 3]))
except IndexError as e:
    print(type(e).__name__, e)
print(ce(out, torch.tensor([1.0, 2.0]).long()))
pred = torch.randn(4, 1)
y = torch.randn(4)
print(nn.MSELoss()(pred, y))
try:
    nn.NLLLoss()(out.log_softmax(1), torch.tensor([1.0, 2.0]))
except RuntimeError as e:
    print(e)
