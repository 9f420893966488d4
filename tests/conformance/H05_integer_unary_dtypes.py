# relu / abs / sign / floor / ceil / trunc keep integer dtypes; bool inputs raise torch's errors
import torch
import torch.nn.functional as F

i = torch.tensor([-3, 2])
b = torch.tensor([True, False])
print(torch.relu(i), F.relu(i), i.abs(), i.sign(), i.floor(), i.ceil(), i.trunc())
print(b.sign())
for f in (torch.relu, torch.abs, torch.floor):
    try:
        f(b)
    except (RuntimeError, NotImplementedError) as e:
        print(repr(e))
