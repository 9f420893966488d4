# set_default_dtype / set_default_tensor_type and the torch.cuda tensor types of a CPU-only torch
import torch

print(torch.cuda.FloatTensor, isinstance(torch.ones(1), torch.cuda.FloatTensor))
for bad in (lambda: torch.cuda.FloatTensor([1.0]), lambda: torch.cuda.LongTensor(2),
            lambda: torch.ones(1).type(torch.cuda.FloatTensor)):
    try:
        bad()
    except (TypeError, RuntimeError) as e:
        print(repr(e))
torch.set_default_dtype(torch.float64)
a = torch.tensor([1.5])
b = torch.Tensor([1])
c = torch.FloatTensor([1])
d = torch.zeros(2)
e = torch.rand(2)
f = torch.arange(3.)
print(a.dtype, b.dtype, c.dtype, d.dtype, e.dtype, f.dtype, torch.get_default_dtype())
torch.set_default_tensor_type(torch.FloatTensor)
g = torch.ones(1)
print(g.dtype, (torch.ones(1) * 0.5).dtype)
try:
    torch.set_default_dtype(torch.int64)
except TypeError as e:
    print(repr(e))
