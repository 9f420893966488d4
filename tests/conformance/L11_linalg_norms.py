# torch.linalg norms as scripts use them (gradient clipping by hand, normalising rows, matrix
# norms): vector_norm, matrix_norm and norm with their node chains, gradients and errors.
import torch
torch.manual_seed(0)
A = torch.randn(3, 4, requires_grad=True)
v = torch.randn(5, requires_grad=True)
B = torch.randn(2, 3, 4, requires_grad=True)
outs = [torch.linalg.vector_norm(v), torch.linalg.vector_norm(A, ord=1, dim=1), torch.linalg.vector_norm(B, 3, dim=(0, 2), keepdim=True),
        torch.linalg.vector_norm(A, float('inf')), torch.linalg.vector_norm(v, 0),
        torch.linalg.norm(A), torch.linalg.norm(v, 1), torch.linalg.norm(A, dim=0), torch.linalg.norm(A, 'fro'),
        torch.linalg.norm(A, 1), torch.linalg.norm(A, -1), torch.linalg.norm(A, float('inf')), torch.linalg.norm(A, float('-inf')),
        torch.linalg.norm(B, 1, dim=(2, 0), keepdim=True), torch.linalg.matrix_norm(B), torch.linalg.matrix_norm(B, 1, dim=(0, 1)),
        torch.linalg.matrix_norm(B, float('inf'), keepdim=True)]
total = 0
for o in outs:
    print(o, o.grad_fn.name(), [type(f).__name__ for f, _ in o.grad_fn.next_functions])
    total = total + o.sum()
total.backward()
print(A.grad, v.grad, B.grad)
bad = [lambda: torch.linalg.vector_norm(A, 'fro'), lambda: torch.linalg.vector_norm(A, ord='fro'), lambda: torch.linalg.norm(B, 1),
       lambda: torch.linalg.matrix_norm(v), lambda: torch.linalg.matrix_norm(A, 3), lambda: torch.linalg.matrix_norm(A, dim=(0, 0)),
       lambda: torch.linalg.norm(A, dim=(0, 1, 0)), lambda: torch.linalg.vector_norm(torch.tensor([1, 2])),
       lambda: torch.linalg.matrix_norm(A, 'abc'), lambda: torch.linalg.matrix_norm(A, dim=0)]
for f in bad:
    try:
        f()
    except Exception as e:
        print(type(e).__name__, e)
