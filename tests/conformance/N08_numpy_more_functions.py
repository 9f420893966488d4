# numpy helpers from course notes and forum answers: copy, diff, pad, roll, split/array_split, einsum,
# linalg.eigh (a PCA by hand), r_/c_ — values, dtypes and numpy's errors, then into torch.
import numpy as np
import torch

a = np.arange(12.0).reshape(3, 4)
b = np.copy(a)
b[0, 0] = 100
print(a[0, 0], b[0, 0], np.copy(torch.ones(2)))
print(np.diff(a), np.diff(a, axis=0), np.diff([1, 4, 9, 16], n=2), np.diff(np.array([1, 2]), n=5))
print(np.diff(a, prepend=0), np.diff(np.array([1, 5, 2]), append=[7, 7]))
print(np.pad(a, 1), np.pad(a, ((1, 0), (0, 2)), mode="edge"))
print(np.pad(np.array([1, 2, 3]), (2, 3), mode="reflect"), np.pad(np.array([1, 2, 3]), 2, constant_values=-1))
print(np.pad(np.array([1., 2, 3]), (2, 3), mode="wrap"), np.pad(np.array([1., 2, 3]), (2, 3), mode="mean"))
print(np.roll(np.arange(5), 2), np.roll(a, -1, axis=1), np.roll(a, (1, 1), axis=(0, 1)))
print(np.split(np.arange(6), 3), np.split(np.arange(6), [1, 4]), np.array_split(np.arange(7), 3))
print(np.array_split(a, 2, axis=1))
print(np.einsum("ij,jk->ik", a, a.T), np.einsum("ii", np.eye(3)), np.einsum("i,i->", [1., 2], [3., 4]))
print(np.einsum("bij->bji", np.ones((2, 1, 3))).shape, np.einsum("...i,...i->...", a, a))
w, v = np.linalg.eigh(np.array([[2.0, 1.0], [1.0, 2.0]]))
print(w, np.abs(v))
r = np.linalg.eigh(np.diag([3.0, 1.0]))
print(r, r.eigenvalues, r[1], type(r))
print(np.r_[np.array([1, 2, 3]), 0, 0, np.array([4, 5, 6])], np.r_[-1:1:6j, [0] * 3, 5, 6])
print(np.c_[np.array([1, 2, 3]), np.array([4, 5, 6])], np.r_[0:4], np.c_[a, a].shape)
for bad in [lambda: np.diff(a, n=-1), lambda: np.pad(a, -1), lambda: np.pad(a, 1.5), lambda: np.split(np.arange(5), 2),
            lambda: np.einsum("ij,jk->ik", a, a), lambda: np.pad(a, 1, mode="foo"), lambda: np.split(a, 0),
            lambda: np.diff(np.float64(3.0)), lambda: np.linalg.eigh(np.ones((2, 3)))]:
    try:
        print(bad())
    except Exception as e:
        print(type(e).__name__, e)

# PCA of a small data set with eigh, the projection fed to torch
rng = np.random.RandomState(0)
data = rng.randn(20, 3) @ np.array([[2.0, 0.0, 0.0], [0.5, 1.0, 0.0], [0.0, 0.3, 0.2]])
centered = data - data.mean(axis=0)
cov = np.einsum("ni,nj->ij", centered, centered) / (len(data) - 1)
vals, vecs = np.linalg.eigh(cov)
order = np.argsort(vals)[::-1]
top = vecs[:, order[:2]]
proj = torch.from_numpy(centered @ top)
print(np.round(vals[order], 4), proj.shape, proj.dtype, round(float(proj.pow(2).sum()), 4))
padded = torch.tensor(np.pad(np.arange(4.0), (1, 1), mode="symmetric"), requires_grad=True)
steps = torch.tensor(np.diff(np.r_[0.0, np.cumsum([1.0, 2.0, 3.0])]))
loss = (padded[1:5] * steps.sum()).sum()
loss.backward()
print(padded.grad, steps)
