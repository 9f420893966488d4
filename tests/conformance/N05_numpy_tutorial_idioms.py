# Tutorial idioms around .numpy(): printing loss.data.numpy(), argmax accuracy against labels.numpy(),
# np.mean of a loss history, DataLoader over numpy arrays, legacy constructors from arrays,
# np.array(tensor) and a tensor made from numpy that learns (its grad read back with .numpy()).
import numpy as np
import torch
from torch.autograd import Variable
from torch.utils.data import DataLoader, TensorDataset

a = np.arange(6, dtype=np.float32).reshape(3, 2)
print(torch.Tensor(a), torch.FloatTensor(a), Variable(torch.from_numpy(a)))
t = torch.tensor([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]], requires_grad=True)
loss = (t ** 2).sum()
print(loss.data.numpy(), t.data.numpy().argmax(axis=1), t.detach().numpy().argmax(axis=1).tolist())
labels = torch.tensor([1, 0, 0])
pred = t.detach().numpy().argmax(axis=1)
print((pred == labels.numpy()).mean(), np.sum(pred == labels.numpy()) / len(labels))
losses = []
for i in range(3):
    losses.append(loss.item() * i)
print(np.mean(losses), np.array(losses), np.std(losses), np.argmin(losses))
ds = TensorDataset(torch.from_numpy(a), torch.from_numpy(np.array([0, 1, 0])))
for xb, yb in DataLoader(ds, batch_size=2):
    print(xb, yb)
for xb in DataLoader(a, batch_size=2):
    print(xb)
print(torch.from_numpy(a).float().mean(), torch.from_numpy(a).shape, torch.from_numpy(a).T)
print(np.array(t.detach()), np.asarray(torch.ones(2)), np.array([torch.tensor(1.0), torch.tensor(2.0)]))
w = torch.from_numpy(np.random.RandomState(0).randn(2, 2)).float().requires_grad_()
out = (w @ torch.ones(2)).sum()
out.backward()
print(w.grad.numpy(), w.grad.numpy().dtype)
x = np.array([1.0, 2.0])
x_t = torch.from_numpy(x)
x_t.requires_grad_()
y = (x_t * 3).sum()
y.backward()
print(x_t.grad, x_t.grad.numpy())
print(torch.zeros(np.int64(2)), torch.ones(3)[np.int64(1)], list(range(np.int64(3))), torch.tensor(np.array(2.5)))
m = np.zeros((2, 3))
m[0] = torch.ones(3)
print(m)
print(torch.tensor(a).numpy() is not None, torch.from_numpy(a).numpy().dtype, a.T.shape)
