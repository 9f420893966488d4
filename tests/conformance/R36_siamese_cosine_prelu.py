# R36 - siamese_cosine_prelu
#
# Source:  PyTorch forum, "Siamese network with cosine similarity: embeddings normalised with
#          F.normalize" (plus the PReLU activation question from the same thread)
# Teaches: F.normalize makes unit-length embeddings, so their dot product equals
#          F.cosine_similarity; PReLU learns its negative slope (weight starts at 0.25)
# Covers:  nn.PReLU() and nn.PReLU(num_parameters=C) in a Sequential, print of the model and of the
#          PReLU weight, F.normalize(p=2, dim=1), (a * b).sum(1) vs F.cosine_similarity, nn.CosineSimilarity,
#          a cosine embedding style loss with clamp, SGD steps, the PReLU weight gradient
# Random:  yes - torch.manual_seed(0); Linear default init and torch.randn pairs
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(4, 6), nn.PReLU(), nn.Linear(6, 3))
print(encoder)
print(encoder[1].weight)
x1 = torch.randn(5, 4)
x2 = x1 + 0.3 * torch.randn(5, 4)
same = torch.tensor([1.0, 1.0, 0.0, 1.0, 0.0])
opt = torch.optim.SGD(encoder.parameters(), lr=0.1)
for step in range(3):
    e1 = F.normalize(encoder(x1), p=2, dim=1)
    e2 = F.normalize(encoder(x2), p=2, dim=1)
    cos = (e1 * e2).sum(dim=1)
    loss = (same * (1 - cos) + (1 - same) * cos.clamp(min=0)).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5))
print(e1.norm(dim=1))
print(torch.allclose(cos, F.cosine_similarity(encoder(x1), encoder(x2)).detach(), atol=1e-6) or cos.grad_fn)
print(nn.CosineSimilarity(dim=1)(e1, e2))
print(encoder[1].weight, encoder[1].weight.grad)
act = nn.PReLU(num_parameters=3, init=0.1)
feat = torch.randn(2, 3, 2, requires_grad=True)
out = act(feat)
out.sum().backward()
print(act, out.grad_fn, act.weight.grad)
print(F.cosine_similarity(torch.tensor([1.0, 0.0]), torch.tensor([0.0, 0.0]), dim=0))
