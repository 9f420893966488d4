# R33 - cnn_shapes_children
#
# Source:  CS231n-style notes / forum, "print the output shape after every layer"
# Teaches: walk a Sequential and print each layer's output shape; padding='same', stride and
#          dilation change spatial sizes; AdaptiveAvgPool2d fixes the output size; Flatten before the
#          classifier
# Covers:  nn.Conv2d(stride, padding, padding='same', dilation, groups), nn.MaxPool2d(ceil_mode),
#          nn.AvgPool2d, nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten, nn.LeakyReLU(0.1), for layer in
#          model: x = layer(x); print(layer.__class__.__name__, ...), parameter count per layer,
#          F.conv2d directly, the conv channel mismatch error
# Random:  yes - torch.manual_seed(0); default init, torch.randn
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(
    nn.Conv2d(3, 4, kernel_size=3, stride=2, padding=1),
    nn.LeakyReLU(0.1),
    nn.Conv2d(4, 4, 3, padding='same', dilation=2, groups=2),
    nn.MaxPool2d(2, ceil_mode=True),
    nn.AvgPool2d(kernel_size=2, stride=1),
    nn.AdaptiveAvgPool2d((1, 1)),
    nn.Flatten(),
    nn.Linear(4, 2),
)
x = torch.randn(1, 3, 9, 9)
for layer in model:
    x = layer(x)
    print(layer.__class__.__name__, 'output shape:\t', x.shape)
print([sum(p.numel() for p in l.parameters()) for l in model])
print(x)
x.sum().backward()
print(model[2].weight.grad.shape, model[0].bias.grad)
w = torch.ones(1, 1, 2, 2)
img = torch.arange(9.0).view(1, 1, 3, 3)
print(F.conv2d(img, w), F.conv2d(img, w, stride=2, padding=1))
try:
    model(torch.randn(1, 1, 9, 9))
except RuntimeError as e:
    print(e)
