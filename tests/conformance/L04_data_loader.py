# torch.utils.data against torch: shuffle order for a seed, drop_last, len, random_split,
# collation, and the random numbers drawn after the loader.
import torch
from torch.utils.data import DataLoader, TensorDataset, random_split

torch.manual_seed(0)
X = torch.arange(20.).view(10, 2)
y = torch.arange(10)
ds = TensorDataset(X, y)
print(len(ds), ds[3])
loader = DataLoader(ds, batch_size=4, shuffle=True)
print(len(loader))
for epoch in range(2):
    for xb, yb in loader:
        print(epoch, yb.tolist(), xb.shape)
print(torch.randn(2))
plain = DataLoader(ds, batch_size=3, drop_last=True)
print(len(plain), [b[1].tolist() for b in plain])
print(torch.rand(1))
train, val = random_split(ds, [7, 3])
print(len(train), len(val), val.indices)
a, b, c = random_split(range(10), [0.5, 0.3, 0.2])
print(list(a), list(b), list(c))
one = DataLoader(ds)
first = next(iter(one))
print(first)
pairs = DataLoader([(1, 2.0), (3, 4.0), (5, 6.0)], batch_size=2)
for p in pairs:
    print(p)
print(len(DataLoader(train, batch_size=5, shuffle=True)))
for xb, yb in DataLoader(train, batch_size=5, shuffle=True):
    print(yb)
try:
    TensorDataset(X, torch.arange(3))
except AssertionError as e:
    print("AssertionError:", e)
random_split(ds, [5, 6])
