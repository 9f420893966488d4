# The seed article's x = A**3: the hand-derived gradient 3·A² holds.
# autotrace explain power_rule_correct.py --expect 'A.grad = 3 * A ** 2'
import torch

A = torch.tensor(5.0, requires_grad=True)
x = A ** 3
x.backward()
