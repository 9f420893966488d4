# R32 - attention_mask_masked_fill
#
# Source:  PyTorch tutorials / annotated transformer-style notes, causal mask with masked_fill and
#          softmax
# Teaches: a causal mask from torch.triu(ones, diagonal=1).bool(); masked_fill(mask, float('-inf'))
#          before softmax gives zero weight to future positions; gradients are zero there too;
#          where/nonzero pick positions
# Covers:  torch.triu/tril, .bool(), masked_fill with -inf and with -1e9, softmax(dim=-1), bmm / @ with
#          transpose(-2, -1), math.sqrt scaling, masked_fill_ in place, nonzero(as_tuple=...),
#          torch.where with a scalar, grads of the scores, F.scaled_dot_product_attention(is_causal=True)
# Random:  yes - torch.manual_seed(0); torch.randn q, k, v
import math
import torch
import torch.nn.functional as F

torch.manual_seed(0)
T, d = 4, 2
q = torch.randn(1, T, d, requires_grad=True)
k = torch.randn(1, T, d)
v = torch.randn(1, T, d)
mask = torch.triu(torch.ones(T, T), diagonal=1).bool()
print(mask)
scores = q @ k.transpose(-2, -1) / math.sqrt(d)
scores = scores.masked_fill(mask, float('-inf'))
attn = F.softmax(scores, dim=-1)
print(attn)
out = attn @ v
out.sum().backward()
print(out.grad_fn, q.grad)
ref = F.scaled_dot_product_attention(q.detach(), k, v, is_causal=True)
print(torch.allclose(ref, out.detach(), atol=1e-6))
s2 = torch.randn(T, T)
s2.masked_fill_(torch.tril(torch.ones(T, T)) == 0, -1e9)
print(s2.softmax(-1)[1])
print(mask.nonzero(), mask.nonzero(as_tuple=True))
print(torch.where(mask, 0.0, torch.ones(T, T)).sum(), torch.where(torch.tensor([1, 0, 2]) > 0))
