# R13 - freeze_finetune_forum
#
# Source:  PyTorch forum, "How to freeze some layers and fine-tune the rest"
# Teaches: requires_grad_(False) on the backbone keeps its grads None and its weights fixed; pass only
#          trainable parameters to the optimizer; count trainable parameters
# Covers:  nn.Sequential backbone + head, for p in m.parameters(): p.requires_grad = False,
#          requires_grad_(False) on a module, filter(lambda p: p.requires_grad, ...),
#          sum(p.numel() ...), torch.equal before/after step, unfreezing, .clone() snapshot
# Random:  yes - torch.manual_seed(3); default init, torch.randn
import torch
import torch.nn as nn

torch.manual_seed(3)
backbone = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU())
head = nn.Linear(8, 2)
model = nn.Sequential(backbone, head)
for p in backbone.parameters():
    p.requires_grad = False
total = sum(p.numel() for p in model.parameters())
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(total, trainable)
opt = torch.optim.SGD(filter(lambda p: p.requires_grad, model.parameters()), lr=0.1)
before = backbone[0].weight.clone()
x = torch.randn(3, 4)
y = torch.tensor([0, 1, 1])
loss = nn.functional.cross_entropy(model(x), y)
loss.backward()
opt.step()
print(backbone[0].weight.grad, head.weight.grad.shape)
print(torch.equal(before, backbone[0].weight), loss.grad_fn)
print([n for n, p in model.named_parameters() if p.requires_grad])
backbone.requires_grad_(True)
model[0][2].requires_grad_(False)
print([(n, p.requires_grad) for n, p in model.named_parameters()])
out = model(x)
print(out.requires_grad, backbone(x).requires_grad)
with torch.no_grad():
    feats = backbone(x)
print(feats.requires_grad, head(feats).grad_fn)
