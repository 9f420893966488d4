# Tensors and numpy arrays in one expression, as torch 2.13 with numpy 2 answers: the tensor on
# the left hands the operation to numpy (a float64 tensor back, with numpy's DeprecationWarning),
# the array on the left is a TypeError except for / and ==; np.* functions on tensors.
import numpy as np
import torch
t = torch.ones(2)
a = np.ones(2)
try:
    r = t + a
    print('t + a', '->', type(r).__name__, r)
except Exception as e:
    print('t + a', '!!', type(e).__name__, e)
try:
    r = t * a
    print('t * a', '->', type(r).__name__, r)
except Exception as e:
    print('t * a', '!!', type(e).__name__, e)
try:
    r = t - a
    print('t - a', '->', type(r).__name__, r)
except Exception as e:
    print('t - a', '!!', type(e).__name__, e)
try:
    r = t / a
    print('t / a', '->', type(r).__name__, r)
except Exception as e:
    print('t / a', '!!', type(e).__name__, e)
try:
    r = a * t
    print('a * t', '->', type(r).__name__, r)
except Exception as e:
    print('a * t', '!!', type(e).__name__, e)
try:
    r = a - t
    print('a - t', '->', type(r).__name__, r)
except Exception as e:
    print('a - t', '!!', type(e).__name__, e)
try:
    r = a / t
    print('a / t', '->', type(r).__name__, r)
except Exception as e:
    print('a / t', '!!', type(e).__name__, e)
try:
    r = a + t
    print('a + t', '->', type(r).__name__, r)
except Exception as e:
    print('a + t', '!!', type(e).__name__, e)
try:
    r = t @ np.ones((2,2))
    print('t @ np.ones((2,2))', '->', type(r).__name__, r)
except Exception as e:
    print('t @ np.ones((2,2))', '!!', type(e).__name__, e)
try:
    r = t[a > 0]
    print('t[a > 0]', '->', type(r).__name__, r)
except Exception as e:
    print('t[a > 0]', '!!', type(e).__name__, e)
try:
    r = np.exp(t)
    print('np.exp(t)', '->', type(r).__name__, r)
except Exception as e:
    print('np.exp(t)', '!!', type(e).__name__, e)
try:
    r = np.array(t)
    print('np.array(t)', '->', type(r).__name__, r)
except Exception as e:
    print('np.array(t)', '!!', type(e).__name__, e)
try:
    r = np.asarray(t)
    print('np.asarray(t)', '->', type(r).__name__, r)
except Exception as e:
    print('np.asarray(t)', '!!', type(e).__name__, e)
try:
    r = t > a
    print('t > a', '->', type(r).__name__, r)
except Exception as e:
    print('t > a', '!!', type(e).__name__, e)
try:
    r = a > t
    print('a > t', '->', type(r).__name__, r)
except Exception as e:
    print('a > t', '!!', type(e).__name__, e)
try:
    r = np.arange(3.)[t.long()]
    print('np.arange(3.)[t.long()]', '->', type(r).__name__, r)
except Exception as e:
    print('np.arange(3.)[t.long()]', '!!', type(e).__name__, e)
try:
    r = np.sum(t)
    print('np.sum(t)', '->', type(r).__name__, r)
except Exception as e:
    print('np.sum(t)', '!!', type(e).__name__, e)
try:
    r = torch.relu(a)
    print('torch.relu(a)', '->', type(r).__name__, r)
except Exception as e:
    print('torch.relu(a)', '!!', type(e).__name__, e)
try:
    r = np.float64(2)*t
    print('np.float64(2)*t', '->', type(r).__name__, r)
except Exception as e:
    print('np.float64(2)*t', '!!', type(e).__name__, e)
try:
    r = t * np.float32(2)
    print('t * np.float32(2)', '->', type(r).__name__, r)
except Exception as e:
    print('t * np.float32(2)', '!!', type(e).__name__, e)
try:
    r = torch.tensor(np.float32(1.5))
    print('torch.tensor(np.float32(1.5))', '->', type(r).__name__, r)
except Exception as e:
    print('torch.tensor(np.float32(1.5))', '!!', type(e).__name__, e)
try:
    r = torch.tensor([np.float32(1.5), 2.0])
    print('torch.tensor([np.float32(1.5), 2.0])', '->', type(r).__name__, r)
except Exception as e:
    print('torch.tensor([np.float32(1.5), 2.0])', '!!', type(e).__name__, e)
try:
    r = torch.zeros(np.int64(2))
    print('torch.zeros(np.int64(2))', '->', type(r).__name__, r)
except Exception as e:
    print('torch.zeros(np.int64(2))', '!!', type(e).__name__, e)
try:
    r = np.zeros(torch.tensor(2))
    print('np.zeros(torch.tensor(2))', '->', type(r).__name__, r)
except Exception as e:
    print('np.zeros(torch.tensor(2))', '!!', type(e).__name__, e)
try:
    r = torch.tensor(a).sum() * a.sum()
    print('torch.tensor(a).sum() * a.sum()', '->', type(r).__name__, r)
except Exception as e:
    print('torch.tensor(a).sum() * a.sum()', '!!', type(e).__name__, e)
try:
    r = np.mean(torch.ones(3).numpy())
    print('np.mean(torch.ones(3).numpy())', '->', type(r).__name__, r)
except Exception as e:
    print('np.mean(torch.ones(3).numpy())', '!!', type(e).__name__, e)
try:
    r = torch.from_numpy(np.float64(1.0))
    print('torch.from_numpy(np.float64(1.0))', '->', type(r).__name__, r)
except Exception as e:
    print('torch.from_numpy(np.float64(1.0))', '!!', type(e).__name__, e)
try:
    r = torch.tensor([a, a])
    print('torch.tensor([a, a])', '->', type(r).__name__, r)
except Exception as e:
    print('torch.tensor([a, a])', '!!', type(e).__name__, e)
try:
    r = torch.stack([torch.from_numpy(a), torch.from_numpy(a)])
    print('torch.stack([torch.from_numpy(a), torch.from_numpy(a)])', '->', type(r).__name__, r)
except Exception as e:
    print('torch.stack([torch.from_numpy(a), torch.from_numpy(a)])', '!!', type(e).__name__, e)
try:
    r = np.array([t, t])
    print('np.array([t, t])', '->', type(r).__name__, r)
except Exception as e:
    print('np.array([t, t])', '!!', type(e).__name__, e)
try:
    r = np.maximum(t, 0)
    print('np.maximum(t, 0)', '->', type(r).__name__, r)
except Exception as e:
    print('np.maximum(t, 0)', '!!', type(e).__name__, e)
x = torch.ones(2)
x += a
print(x, x.dtype)
m = torch.zeros(2, 2)
m[np.array([0, 1]), np.array([1, 0])] = 5.0
try:
    m[0] = np.array([1.5, 2.5])
except TypeError as e:
    print(e)
print(m)
