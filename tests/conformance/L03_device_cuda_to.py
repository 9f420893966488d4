# a CPU-only torch: torch.device, .to(device/dtype/other), .cpu(), .cuda() and its AssertionError
import torch

dev = torch.device('cuda' if torch.cuda.is_available() else 'cpu')
x = torch.tensor([1.0, 2.0], requires_grad=True).to(dev)
y = x.to(torch.float64)
z = x.to('cpu', torch.float64)
k = x.to(torch.zeros(1, dtype=torch.int32))
c = x.cpu()
print(dev, repr(dev), x.device, y, z, k, c is x, x.is_cuda, torch.cuda.device_count())
print(torch.device('cuda:1'), torch.device('cpu') == torch.device('cpu'), torch.device('cpu', 0))
with torch.inference_mode():
    inf = torch.ones(2) * 2
print(inf.is_inference(), x.is_inference())
for bad in (lambda: x.cuda(), lambda: x.to('cuda'), lambda: torch.zeros(2, device='cuda'),
            lambda: torch.device('gpu'), lambda: torch.ones(2, out=x), lambda: torch.add(x, 1, out=torch.empty(2)),
            lambda: inf.add_(1), lambda: inf.fill_(7), lambda: (x * inf).sum()):
    try:
        bad()
    except (AssertionError, RuntimeError) as e:
        print(repr(e))
o = torch.empty(2)
res = torch.exp(torch.ones(2), out=o)
print(res is o, o)
net = torch.nn.Linear(2, 1).to(dev)
net.cpu()
for bad in (lambda: net.cuda(), lambda: net.to('cuda'), lambda: torch.tensor([1.0], device='cuda')):
    try:
        bad()
    except AssertionError as e:
        print(repr(e))
