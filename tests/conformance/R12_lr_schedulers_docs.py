# R12 - lr_schedulers_docs
#
# Source:  PyTorch docs, "How to adjust learning rate" (torch.optim.lr_scheduler)
# Teaches: scheduler.step() after optimizer.step() once per epoch; get_last_lr(); chaining two
#          schedulers; the warning when scheduler.step() comes first
# Covers:  StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, LambdaLR, ReduceLROnPlateau,
#          get_last_lr, optimizer.param_groups[0]['lr'], the order warning
# Random:  yes - torch.manual_seed(0); default init
import torch
from torch import nn, optim
from torch.optim.lr_scheduler import StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, LambdaLR

torch.manual_seed(0)
model = nn.Linear(2, 1)


def run(make, epochs=6):
    opt = optim.SGD(model.parameters(), lr=0.1)
    sched = make(opt)
    lrs = []
    for epoch in range(epochs):
        opt.step()
        sched.step()
        lrs.append(round(sched.get_last_lr()[0], 6))
    return lrs


print(run(lambda o: StepLR(o, step_size=2, gamma=0.5)))
print(run(lambda o: MultiStepLR(o, milestones=[1, 4], gamma=0.1)))
print(run(lambda o: ExponentialLR(o, gamma=0.9)))
print(run(lambda o: CosineAnnealingLR(o, T_max=4)))
print(run(lambda o: LambdaLR(o, lr_lambda=lambda epoch: 0.95 ** epoch)))
opt = optim.Adam(model.parameters(), lr=0.01)
plateau = optim.lr_scheduler.ReduceLROnPlateau(opt, mode='min', factor=0.5, patience=1)
for val_loss in [1.0, 0.9, 0.95, 0.96, 0.97, 0.98]:
    plateau.step(val_loss)
print(opt.param_groups[0]['lr'])
opt = optim.SGD(model.parameters(), lr=1.0)
s = StepLR(opt, step_size=1, gamma=0.1)
s.step()
opt.step()
print(opt.param_groups[0]['lr'], s.last_epoch)
