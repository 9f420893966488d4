# R08 - unique_bincount_notes_zh
#
# Source:  Chinese course notes (PyTorch 常用函数笔记: torch.unique 与 torch.bincount)
# Teaches: unique returns the sorted distinct values, optionally the inverse indices (to rebuild the
#          input) and the counts; dim=0 works on rows; bincount counts non-negative ints (with
#          weights, minlength)
# Covers:  torch.unique(sorted, return_inverse, return_counts, dim), Tensor.unique(), rebuilding with
#          the inverse, torch.bincount(weights=..., minlength=...), class-frequency weights for
#          CrossEntropyLoss, unique_consecutive
# Random:  no
import torch

labels = torch.tensor([2, 0, 2, 3, 0, 2, 1])
print(torch.unique(labels))
out, inverse = torch.unique(labels, return_inverse=True)
print(out, inverse, torch.equal(out[inverse], labels))
vals, counts = labels.unique(return_counts=True)
print(vals, counts)
print(torch.unique(labels, sorted=True, return_inverse=True, return_counts=True))
rows = torch.tensor([[1, 2], [3, 4], [1, 2], [0, 5]])
print(torch.unique(rows, dim=0))
print(torch.unique(rows, dim=0, return_inverse=True, return_counts=True))
print(torch.unique(rows, dim=1, return_counts=True))
f = torch.tensor([1.5, -0.5, 1.5, 2.0])
print(f.unique(), torch.unique(torch.tensor([True, False, True])))
print(torch.bincount(labels))
print(labels.bincount(minlength=6))
w = torch.tensor([0.5, 1.0, 0.5, 2.0, 1.0, 0.5, 3.0])
print(torch.bincount(labels, weights=w))
print(torch.bincount(torch.tensor([], dtype=torch.long)))
freq = torch.bincount(labels).float()
weights = freq.sum() / (len(freq) * freq)
print(weights)
loss_fn = torch.nn.CrossEntropyLoss(weight=weights)
logits = torch.tensor([[1.0, 0.0, 0.5, -1.0], [0.2, 0.1, 0.0, 0.3]], requires_grad=True)
loss = loss_fn(logits, torch.tensor([2, 3]))
loss.backward()
print(loss, logits.grad)
print(torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1, 1]), return_counts=True))
try:
    torch.bincount(torch.tensor([1, -1]))
except RuntimeError as e:
    print(e)
