# Loss and activation modules/functionals against torch: values, grads, reprs, warnings, errors.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(4, 3, requires_grad=True)
t = torch.randn(4, 3)
mods = [nn.ELU(), nn.ELU(alpha=0.5), nn.SiLU(), nn.Softplus(), nn.Softplus(beta=2, threshold=1),
        nn.Hardtanh(), nn.Hardtanh(-0.5, 0.5), nn.ReLU6(), nn.GELU(), nn.GELU(approximate="tanh"),
        nn.LeakyReLU(0.2), nn.Softmax(dim=1), nn.LogSoftmax(dim=0), nn.Sigmoid(), nn.Tanh()]
for m in mods:
    y = m(x * 3)
    print(m, y.grad_fn.name(), y[0])
print(F.elu(x)[1], F.softplus(x, beta=3)[2], F.hardtanh(x, -0.2, 0.2)[0])
for loss_fn in [nn.L1Loss(), nn.SmoothL1Loss(), nn.SmoothL1Loss(beta=0.5), nn.HuberLoss(), nn.HuberLoss(delta=0.3),
                nn.MSELoss(reduction="sum"), nn.SmoothL1Loss(beta=0.0)]:
    x.grad = None
    loss = loss_fn(x, t)
    loss.backward()
    print(loss_fn, loss, x.grad[0])
p = torch.randn(4, 3).softmax(1)
lp = F.log_softmax(x, 1)
for red in ["batchmean", "sum", "none"]:
    print(red, nn.KLDivLoss(reduction=red)(lp, p))
print(F.kl_div(lp, p.log(), reduction="batchmean", log_target=True))
x.grad = None
kl = nn.KLDivLoss()(lp, p)
kl.backward()
print(kl, x.grad[1])
bce = nn.BCELoss(weight=torch.tensor([1.0, 2.0, 0.5]))
print(bce(x.sigmoid(), (t > 0).float()))
pw = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([1.0, 2.0, 3.0]), reduction="none")
print(pw(x, (t > 0).float()))
target = torch.tensor([0, 2, 1, 2])
w = torch.tensor([0.2, 1.0, 3.0])
print(nn.CrossEntropyLoss(weight=w)(x, target), nn.CrossEntropyLoss(weight=w, label_smoothing=0.2)(x, target))
print(nn.CrossEntropyLoss(ignore_index=2)(x, target), nn.NLLLoss(weight=w, reduction="sum")(lp, target))
print(nn.CrossEntropyLoss(reduction="none", label_smoothing=0.3)(x, target))
print(nn.CrossEntropyLoss()(x, p), nn.CrossEntropyLoss(label_smoothing=0.1, weight=w)(x, p))
print(F.cross_entropy(x[0], target[1]))
print(F.mse_loss(x, t[0]))
print(F.smooth_l1_loss(x, t[:, :1]))
print(F.l1_loss(x, t, reduction="none")[0])
for bad in [torch.tensor([0.5, 1.0, 2.0, 1.0]), torch.tensor([[0, 1], [1, 0], [0, 0], [1, 1]]),
            torch.tensor([0, 1, 2, 3], dtype=torch.int32)]:
    try:
        F.cross_entropy(x, bad)
    except RuntimeError as e:
        print("RuntimeError:", e)
try:
    F.cross_entropy(x, torch.tensor([0, 1, 5, 0]))
except IndexError as e:
    print("IndexError:", e)
try:
    F.binary_cross_entropy(x, t)
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    nn.CrossEntropyLoss(label_smoothing=1.5)(x, target)
except RuntimeError as e:
    print("RuntimeError:", e)
nn.BCEWithLogitsLoss()(x, t[0])
