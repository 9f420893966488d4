# E10 - no_grad / enable_grad / set_grad_enabled nesting and as function calls
import torch

x = torch.tensor([1.0], requires_grad=True)
with torch.no_grad():
    a = x * 2
    with torch.enable_grad():
        b = x * 2
        with torch.no_grad():
            c = x * 2
    d = x * 2
print(a.requires_grad, b.requires_grad, c.requires_grad, d.requires_grad, torch.is_grad_enabled())
torch.set_grad_enabled(False)
e = x * 2
print(e.requires_grad, torch.is_grad_enabled())
torch.set_grad_enabled(True)
with torch.set_grad_enabled(False):
    f = x * 2
    print(torch.is_grad_enabled())
print(f.requires_grad, torch.is_grad_enabled())
torch.enable_grad()
torch.no_grad()
g = x * 2
print(g.requires_grad)
with torch.no_grad():
    torch.set_grad_enabled(True)
    h = x * 2
print(h.requires_grad, torch.is_grad_enabled())
