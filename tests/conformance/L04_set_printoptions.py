# torch.set_printoptions: precision, sci_mode, threshold/edgeitems, linewidth, profiles; later calls reset sci_mode
import torch

x = torch.tensor([1.123456789, 22.5, 0.0001234])
big = torch.arange(30.).reshape(5, 6) / 7
torch.set_printoptions(precision=2)
print(x, big[0])
torch.set_printoptions(sci_mode=True)
print(x)
torch.set_printoptions(precision=6)
print(x)
torch.set_printoptions(threshold=5, edgeitems=1)
print(big, torch.arange(12))
torch.set_printoptions(linewidth=30)
print(torch.arange(20.) * 1.5)
torch.set_printoptions(profile="short")
print(big)
torch.set_printoptions(profile="full")
print(torch.arange(1200)[-3:], torch.arange(1001).shape)
torch.set_printoptions(profile="default")
print(x, big)
try:
    torch.set_printoptions(precision="2")
except TypeError as e:
    print(repr(e))
