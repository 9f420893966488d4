# F03 - shape errors raise PyTorch's RuntimeError/IndexError text, not numpy's
import torch

cases = [
    lambda: torch.ones(2, 3) + torch.ones(4, 3),
    lambda: torch.ones(2, 3) * torch.ones(4),
    lambda: torch.ones(2, 3) - torch.ones(3, 2),
    lambda: torch.ones(2) / torch.ones(3),
    lambda: torch.ones(2) // torch.ones(3),
    lambda: torch.ones(2) ** torch.ones(3),
    lambda: torch.ones(2) % torch.ones(3),
    lambda: torch.ones(5, 1, 4) + torch.ones(3, 2, 4),
    lambda: torch.ones(2, 3) == torch.ones(4, 3),
    lambda: torch.ones(2, 3) < torch.ones(4, 3),
    lambda: torch.maximum(torch.ones(2), torch.ones(3)),
    lambda: torch.minimum(torch.ones(2), torch.ones(3)),
    lambda: torch.where(torch.ones(2) > 0, torch.ones(3), torch.ones(2)),
    lambda: torch.where(torch.ones(2) > 0, torch.ones(2), torch.ones(3)),
    lambda: torch.ones(2).add_(torch.ones(3)),
    lambda: torch.ones(2, 1).add_(torch.ones(2, 3)),
    lambda: torch.ones(2, 1).mul_(torch.ones(2, 3)),
    lambda: torch.cat([torch.ones(2, 3), torch.ones(2, 4)]),
    lambda: torch.cat([torch.ones(2, 3), torch.ones(3, 2)], dim=1),
    lambda: torch.cat([torch.ones(2, 3), torch.ones(3)]),
    lambda: torch.stack([torch.ones(2), torch.ones(3)]),
    lambda: torch.ones(2, 3) @ torch.ones(4, 5),
    lambda: torch.mm(torch.ones(2, 3), torch.ones(4, 5)),
    lambda: torch.ones(3) @ torch.ones(4),
    lambda: torch.ones(2, 3).matmul(torch.ones(2)),
    lambda: torch.ones(2).matmul(torch.ones(3, 2)),
    lambda: torch.ones(2, 3, 4) @ torch.ones(5, 4, 2),
    lambda: torch.dot(torch.ones(2), torch.ones(3)),
    lambda: torch.ones(2, 3).expand(4, 3),
    lambda: torch.ones(2, 3).view(4),
    lambda: torch.ones(2, 3).reshape(5),
    lambda: torch.ones(2, 3).view(-1, 4),
]
for i, f in enumerate(cases):
    try:
        f()
        print(i, "ok")
    except RuntimeError as e:
        print(i, "RuntimeError", e)

for f in (lambda: torch.ones(3)[5], lambda: torch.ones(2, 3)[0, 5], lambda: torch.ones(2, 3)[2],
          lambda: torch.ones(3)[torch.tensor([5])], lambda: torch.ones(3)[-4]):
    try:
        f()
        print("ok")
    except IndexError as e:
        print("IndexError", e)

y = torch.ones(2, 3, 4)
for f in (lambda: y[0, 5], lambda: y[:, 3], lambda: y[..., 4], lambda: y[None, 1, 5], lambda: y[0, :, 7],
          lambda: y[:, torch.tensor([0, 3])], lambda: y[1, 1, -5], lambda: y[..., 0, 9]):
    try:
        f()
        print("ok")
    except IndexError as e:
        print("IndexError", e)
for f in (lambda: y[:, :, torch.tensor([9])], lambda: y[torch.tensor([0]), torch.tensor([7])],
          lambda: y[0, :, torch.tensor([9])], lambda: y[:, torch.tensor([1]), torch.tensor([9])],
          lambda: y[torch.tensor([5])], lambda: y[..., torch.tensor([9])]):
    try:
        f()
        print("ok")
    except IndexError as e:
        print("IndexError", e)
for f in [lambda: torch.cat([torch.ones(2), 0]), lambda: torch.stack([torch.ones(2), 0]), lambda: torch.cat([0, torch.ones(2)]), lambda: torch.cat(torch.ones(2)), lambda: torch.stack(torch.ones(2))]:
    try:
        f()
    except TypeError as e:
        print(e)
