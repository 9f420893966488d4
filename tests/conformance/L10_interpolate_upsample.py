# A tiny encoder-decoder (U-Net style) that upsamples with nn.Upsample and F.interpolate, then the
# functional modes one by one: nearest / nearest-exact / linear / bilinear / area, size or scale_factor,
# align_corners, recompute_scale_factor, the deprecated upsample* aliases and torch's errors.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class TinyUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(1, 4, 3, stride=2, padding=1)
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.mix = nn.Conv2d(5, 1, 3, padding=1)

    def forward(self, x):
        d = F.relu(self.down(x))
        u = self.up(d)
        u = F.interpolate(u, size=x.shape[-2:], mode="nearest")
        return self.mix(torch.cat([u, x], 1))


net = TinyUNet()
print(net)
opt = torch.optim.Adam(net.parameters(), lr=0.01)
img = torch.randn(2, 1, 9, 8)
target = img.flip(-1)
for step in range(3):
    opt.zero_grad()
    loss = F.mse_loss(net(img), target)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 5))

x = torch.randn(1, 2, 3, 4, requires_grad=True)
x1 = torch.randn(2, 3, 5, requires_grad=True)
for kw in [dict(scale_factor=2), dict(size=(5, 7)), dict(scale_factor=(1.5, 0.75)), dict(size=4),
           dict(scale_factor=1.3, mode="nearest-exact"), dict(scale_factor=2, mode="bilinear"),
           dict(size=(7, 3), mode="bilinear", align_corners=True), dict(scale_factor=1.7, mode="bilinear",
                                                                      recompute_scale_factor=True),
           dict(size=(2, 2), mode="area"), dict(scale_factor=0.5, mode="bilinear")]:
    x.grad = None
    y = F.interpolate(x, **kw)
    (y * y).sum().backward()
    print(kw, y.grad_fn.name(), tuple(y.shape), y[0, 1, 0], x.grad[0, 1])
for kw in [dict(scale_factor=2), dict(size=8, mode="linear"), dict(size=8, mode="linear", align_corners=True),
           dict(scale_factor=0.6, mode="linear"), dict(size=7, mode="nearest-exact")]:
    x1.grad = None
    y = F.interpolate(x1, **kw)
    y.sum().backward()
    print(kw, y.grad_fn.name(), y[1], x1.grad[1])
print(nn.Upsample(scale_factor=2), nn.Upsample(size=(3, 4), mode="bilinear"), nn.Upsample(scale_factor=(2, 1.5)))
print(nn.UpsamplingNearest2d(scale_factor=2), nn.UpsamplingBilinear2d(size=(4, 4)))
print(nn.UpsamplingBilinear2d(scale_factor=2)(x)[0, 0, 1], nn.UpsamplingNearest2d(size=(4, 5))(x).shape)
print(F.upsample(x, scale_factor=2).shape, F.upsample_nearest(x1, size=6).shape, F.upsample_bilinear(x, size=(2, 5))[0, 0])
print(F.interpolate(torch.randn(0, 2, 3, 4), scale_factor=2).shape)

for bad in [dict(size=(0, 8)), dict(size=-2), dict(scale_factor=0.1), dict(size=2, scale_factor=2), dict(),
            dict(size=(2, 3, 4)), dict(scale_factor=(2,)), dict(size=(2.5, 3)), dict(size=2.5),
            dict(scale_factor=2, align_corners=True), dict(scale_factor=2, mode="linear"), dict(scale_factor=2, mode="foo"),
            dict(size=3, recompute_scale_factor=True), dict(size=3, antialias=True), dict(scale_factor=1e20),
            dict(scale_factor="a"), dict(size=(3, 3), mode="trilinear")]:
    try:
        F.interpolate(x, **bad)
    except (RuntimeError, ValueError, TypeError, NotImplementedError) as e:
        print(type(e).__name__, e)
for inp, kw in [(x1, dict(scale_factor=2, mode="bilinear")), (torch.randn(2, 3), dict(scale_factor=2)),
                (torch.arange(12).reshape(1, 1, 3, 4), dict(scale_factor=2)), (torch.arange(5).reshape(1, 1, 5),
                dict(size=2, mode="linear")), (torch.randn(1, 0, 3, 4), dict(scale_factor=2)),
                (torch.randn(1, 1, 0, 4), dict(scale_factor=2)), (x1, dict(size=0)), (x1, dict(size=2.5, mode="linear"))]:
    try:
        F.interpolate(inp, **kw)
    except (RuntimeError, ValueError, TypeError, NotImplementedError) as e:
        print(type(e).__name__, e)
