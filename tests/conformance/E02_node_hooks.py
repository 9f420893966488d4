# E02 - Node.register_hook / register_prehook
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 3
z = y.sum()
log = []
def post(gi, go):
    log.append(("post", len(gi), len(go), gi[0].tolist(), go[0].tolist()))
def pre(go):
    log.append(("pre", go[0].tolist()))
    return (go[0] * 2,)
h = y.grad_fn.register_hook(post)
y.grad_fn.register_prehook(pre)
z.backward(retain_graph=True)
print(log, x.grad)
h.remove()
z.backward()
print(log, x.grad)
acc = x.grad_fn
q = x * 1
accn = q.grad_fn.next_functions[0][0]
print(accn.name())
accn.register_prehook(lambda go: (go[0] + 100,))
q.sum().backward()
print(x.grad)
def post2(gi, go):
    return (gi[0] * 0,)
m = torch.tensor([1.0, 2.0], requires_grad=True)
n = m.exp()
n.grad_fn.register_hook(post2)
n.sum().backward()
print(m.grad)
