# Fan-in: x reaches z along two paths, y = x * x and the + x; a formula that forgets one.
# autotrace explain fan_in_missing_path.py --expect 'x.grad = 2 * x'
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
z = (y + x).sum()
z.backward()
