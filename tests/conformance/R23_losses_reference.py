# R23 - losses_reference
#
# Source:  PyTorch docs, torch.nn loss functions (CrossEntropyLoss weight / ignore_index /
#          label_smoothing, NLLLoss, KLDivLoss batchmean, SmoothL1Loss, HuberLoss, MarginRankingLoss)
# Teaches: CrossEntropyLoss = log_softmax + NLLLoss; ignore_index drops targets from the mean;
#          label_smoothing mixes in the uniform distribution; KLDivLoss expects log-probabilities
# Covers:  the loss classes and their functional forms, reduction='none'/'sum', grads of logits,
#          class-probability targets for cross_entropy, loss module reprs
# Random:  no
import torch
import torch.nn as nn
import torch.nn.functional as F

logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3], [1.0, -1.0, 0.0], [0.0, 0.0, 3.0]], requires_grad=True)
target = torch.tensor([0, 2, -100, 1])
ce = nn.CrossEntropyLoss()
loss = ce(logits, target)
print(ce, loss)
loss.backward()
print(logits.grad)
print(F.nll_loss(F.log_softmax(logits, dim=1), target), F.log_softmax(logits, 1).grad_fn)
w = torch.tensor([1.0, 2.0, 0.5])
print(nn.CrossEntropyLoss(weight=w, ignore_index=2)(logits, torch.tensor([0, 2, 1, 1])))
print(nn.CrossEntropyLoss(label_smoothing=0.1)(logits, torch.tensor([0, 2, 1, 1])))
print(F.cross_entropy(logits, torch.tensor([0, 2, 1, 1]), reduction='none'))
probs = torch.tensor([[0.7, 0.2, 0.1], [0.0, 0.5, 0.5], [1.0, 0.0, 0.0], [0.2, 0.2, 0.6]])
print(F.cross_entropy(logits, probs))
p = F.log_softmax(torch.tensor([[1.0, 2.0, 3.0]]), dim=1)
q = torch.tensor([[0.2, 0.3, 0.5]])
kl = nn.KLDivLoss(reduction='batchmean')
print(kl, kl(p, q))
a = torch.tensor([0.0, 1.0, 3.0], requires_grad=True)
b = torch.tensor([0.5, 1.0, 0.0])
print(nn.SmoothL1Loss()(a, b), nn.HuberLoss(delta=2.0)(a, b), nn.L1Loss(reduction='sum')(a, b))
nn.SmoothL1Loss(beta=0.5)(a, b).backward()
print(a.grad)
x1 = torch.tensor([0.5, 0.2])
x2 = torch.tensor([0.1, 0.4])
print(nn.MarginRankingLoss(margin=0.1)(x1, x2, torch.tensor([1.0, 1.0])))
print(F.mse_loss(a, b, reduction='none'), nn.BCELoss(weight=torch.tensor([1.0, 2.0]))(torch.tensor([0.3, 0.9]), torch.tensor([0.0, 1.0])))
