# errors of the tensor ops for bad arguments, as torch 2.13 raises them
import torch
x = torch.arange(6.).view(2, 3)
cases = [
    lambda: x.topk(4), lambda: x.topk(-1), lambda: x.sort(2), lambda: x.kthvalue(0), lambda: x.kthvalue(4),
    lambda: x.gather(1, torch.tensor([[0.5]])), lambda: x.scatter(1, torch.tensor([[0]]), torch.ones(1, 1, dtype=torch.int64)),
    lambda: x.scatter_add(1, torch.tensor([[3]]), torch.ones(1, 1)), lambda: x.index_add(0, torch.tensor([0]), torch.ones(2, 3)),
    lambda: x.index_fill(0, torch.tensor([5]), 1.), lambda: x.masked_select(torch.tensor([1, 0, 1])),
    lambda: x.masked_scatter(torch.ones(2, 3, dtype=torch.bool), torch.ones(2)), lambda: x.take(torch.tensor([6])),
    lambda: torch.cross(x, x, dim=0), lambda: x.diag_embed(0, 1, 1), lambda: torch.ones(2, 2, 2).diag(),
    lambda: torch.ones(3).trace(), lambda: x.roll((1, 2), 0), lambda: torch.ones(3).tril(),
    lambda: x.cummax(2), lambda: torch.multinomial(torch.tensor([0., 0.]), 1), lambda: torch.multinomial(torch.tensor([1., 2.]), 3),
    lambda: torch.normal(torch.zeros(2), -torch.ones(2)), lambda: x.diagonal(0, 1, 1), lambda: torch.tensordot(x, x, dims=([0], [0, 1])),
    lambda: x.median(3), lambda: torch.cdist(x, torch.ones(2, 4)), lambda: torch.kron(x, 1), lambda: x.lerp(x, torch.ones(2, 3, dtype=torch.float64)),
    lambda: torch.atan2(x, torch.tensor([1, 2, 3])), lambda: x.any(2), lambda: x.new_zeros(-1), lambda: torch.zeros(2).copy_(torch.ones(3)),
    lambda: torch.zeros(3).uniform_(1, 0), lambda: torch.meshgrid(x[0], indexing='yx'),
    lambda: x.scatter_reduce(1, torch.tensor([[0]]), torch.ones(1, 1), 'max'), lambda: x.addcmul(x, torch.ones(2)),
    lambda: torch.baddbmm(torch.ones(2), x, x), lambda: torch.einsum('ij,jk', x), lambda: torch.einsum('i.j', x),
    lambda: torch.gather(x, 1, [0]), lambda: x.gather(1, [0]), lambda: torch.kron(x, 1), lambda: x.kron(1),
    lambda: torch.masked_select(x, [True]), lambda: x.index_add(0, [0], x), lambda: torch.einsum('i', [1, 2]),
    lambda: torch.topk([1, 2], 1), lambda: torch.cdist(x, 1), 
    lambda: torch.addcmul(x, 1, x), lambda: x.copy_([1]), lambda: x.type_as(1), lambda: torch.allclose(x, 1),
    lambda: torch.diff(x, prepend=1), lambda: torch.sort(5), lambda: x.take([0]), lambda: torch.scatter_add(x, 1, torch.tensor([[0]]), 2.0),
]
for i, f in enumerate(cases):
    try:
        r = f()
        print(i, "ok", tuple(r.shape))
    except Exception as e:
        print(i, repr(e)[:200])
