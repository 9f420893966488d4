# R14 - apply_init_fn_zh
#
# Source:  Chinese blog (CSDN-style, "PyTorch 权重初始化: model.apply(weights_init)")
# Teaches: model.apply(fn) visits every submodule (children first, then the module itself); fn
#          checks the type and initialises weights with nn.init
# Covers:  def weights_init(m) with isinstance / classname.find('Conv'), nn.init.xavier_uniform_,
#          kaiming_normal_(mode='fan_out', nonlinearity='relu'), constant_, zeros_, normal_,
#          named_modules() names and types, children(), modules() count, apply order
# Random:  yes - torch.manual_seed(0); nn.init draws
import torch
import torch.nn as nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU())
        self.classifier = nn.Linear(2, 3)

    def forward(self, x):
        x = self.features(x).mean(dim=(2, 3))
        return self.classifier(x)


visited = []


def weights_init(m):
    classname = m.__class__.__name__
    visited.append(classname)
    if classname.find('Conv') != -1:
        nn.init.kaiming_normal_(m.weight, mode='fan_out', nonlinearity='relu')
        nn.init.zeros_(m.bias)
    elif classname.find('BatchNorm') != -1:
        nn.init.normal_(m.weight, 1.0, 0.02)
        nn.init.constant_(m.bias, 0)
    elif isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)
        m.bias.data.fill_(0.01)


net = Net()
ret = net.apply(weights_init)
print(ret is net, visited)
print(net.features[0].weight[0, 0])
print(net.features[1].weight, net.classifier.bias)
print(net.classifier.weight)
for name, m in net.named_modules():
    print(repr(name), type(m).__name__)
print([type(c).__name__ for c in net.children()], len(list(net.modules())))
out = net(torch.randn(2, 1, 4, 4))
print(out.shape, out.grad_fn)
