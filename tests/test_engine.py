"""Engine behaviours with exact values and messages (torch 2.13's), and the records the
engine writes for explain (autotrace.record): failed passes, fan-in, node attributes,
leaf values and grad events."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import run_recorded


def run(src, keep_values=True):
    """Run ``src``; returns (trace, recorder)."""
    return run_recorded(src, keep_values)


def out(src):
    trace, _ = run(src, keep_values=False)
    return trace.stdout, trace.error


class _Err:
    def __init__(self, d):
        self.type, self.message = d["type"], d["message"]


def err_message(src):
    trace, _ = run(src, keep_values=False)
    assert trace.error is not None, trace.stdout
    e = trace.error
    return _Err(e) if isinstance(e, dict) else e


def test_post_hook_return_replaces_grad_inputs():
    stdout, error = out(
        "import torch\n"
        "m = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "n = m.exp()\n"
        "n.grad_fn.register_hook(lambda gi, go: (gi[0] * 0,))\n"
        "n.sum().backward()\n"
        "print(m.grad)\n")
    assert error is None
    assert stdout == "tensor([0., 0.])\n"


def test_backward_inputs_accumulates_only_listed_leaves():
    stdout, error = out(
        "import torch\n"
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "y = torch.tensor([3.0, 4.0], requires_grad=True)\n"
        "h = x * 2\n"
        "(x * y).sum().backward(inputs=[x])\n"
        "print(x.grad, y.grad)\n"
        "(h * h).sum().backward(inputs=[h])\n"
        "print(h.grad, h.retains_grad, x.grad)\n")
    assert error is None
    assert stdout == "tensor([3., 4.]) None\ntensor([4., 8.]) True tensor([3., 4.])\n"


def test_version_error_on_saved_leaf_has_no_output_clause():
    msg = err_message(
        "import torch\n"
        "l = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "m = l * l\n"
        "with torch.no_grad():\n"
        "    l.mul_(2)\n"
        "m.sum().backward()\n")
    assert msg.message == (
        "one of the variables needed for gradient computation has been modified by an inplace "
        "operation: [torch.FloatTensor [2]] is at version 1; expected version 0 instead. Hint: enable "
        "anomaly detection to find the operation that failed to compute its gradient, with "
        "torch.autograd.set_detect_anomaly(True, check_nan=False).")


def test_version_error_names_copyslices_and_asstrided():
    msg = err_message(
        "import torch\n"
        "a = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "b = a * 1\n"
        "c = b[0] * b[1]\n"
        "b.add_(1)\n"
        "c.backward()\n")
    assert "[torch.FloatTensor []], which is output 0 of AsStrided, is at version 1" in msg.message


@pytest.mark.parametrize("stmt, message", [
    ("x[0] = 1", "a view of a leaf Variable that requires grad is being used in an in-place operation."),
    ("x[1:] = 1", "a view of a leaf Variable that requires grad is being used in an in-place operation."),
    ("x[:] = 1", "a leaf Variable that requires grad is being used in an in-place operation."),
    ("x[[0, 1]] = 1.0", "a leaf Variable that requires grad is being used in an in-place operation."),
    ("x.view(-1).add_(1)", "a view of a leaf Variable that requires grad is being used in an in-place operation."),
    ("x.zero_()", "a leaf Variable that requires grad is being used in an in-place operation."),
    ("x.detach_() if False else x[1:].detach_()",
     "Can't detach views in-place. Use detach() instead. If you are using DistributedDataParallel (DDP) "
     "for training, and gradient_as_bucket_view is set as True, gradients are views of DDP buckets, and "
     "hence detach_() cannot be called on these gradients. To fix this error, please refer to the "
     "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution."),
])
def test_leaf_and_view_inplace_errors(stmt, message):
    msg = err_message("import torch\nx = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n" + stmt + "\n")
    assert (msg.type, msg.message) == ("RuntimeError", message)


def test_no_grad_view_then_inplace_with_grad_mode():
    msg = err_message(
        "import torch\n"
        "a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\n"
        "with torch.no_grad():\n"
        "    v = a[1:]\n"
        "print(v.requires_grad, v.grad_fn)\n"
        "v.mul_(2)\n")
    assert msg.message.startswith("A view was created in no_grad mode and is being modified inplace")


def test_multi_output_view_inplace():
    msg = err_message(
        "import torch\n"
        "a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True) * 1\n"
        "r, s = a.unbind(0)\n"
        "r.mul_(2)\n")
    assert msg.message == (
        "Output 0 of Unbind is a view and is being modified inplace. This view is the output of "
        "a function that returns multiple views. Such functions do not allow the output views to be "
        "modified inplace. You should replace the inplace operation by an out-of-place one.")


def test_inplace_on_view_of_nonleaf_rebases():
    stdout, error = out(
        "import torch\n"
        "x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)\n"
        "base = x * 2\n"
        "v = base[1:3]\n"
        "v.mul_(3)\n"
        "print(base.grad_fn.name(), v.grad_fn.name(), v.grad_fn.next_functions[0][0] is base.grad_fn)\n"
        "base.sum().backward()\n"
        "print(x.grad)\n")
    assert error is None
    assert stdout == "torch::autograd::CopySlices AsStridedBackward0 True\ntensor([2., 6., 6., 2.])\n"


@pytest.mark.parametrize("stmt, message", [
    ("x.grad = torch.tensor([1.0, 2.0, 3.0])",
     "attempting to assign a gradient of size '[3]' to a tensor of size '[2]'. Please ensure that the "
     "gradient and the tensor are the same size"),
    ("x.grad = torch.tensor([1, 2])",
     "attempting to assign a gradient with dtype 'long int' to a tensor with grad_dtype 'Float'. The "
     "gradient must match the tensor's grad_dtype (defaults to the tensor's dtype). You can set the "
     "tensor's grad_dtype attribute with a specific dtype, or None to allow any dtype. Set grad_dtype "
     "with caution. Diverging the dtypes of a tensor and its gradient may break downstream systems that "
     "assume they match."),
    ("x.grad = x", "can't assign Variable as its own grad"),
    ("torch.autograd.grad((x * 2).sum(), [x, torch.tensor(1.0, requires_grad=True)])",
     "The differentiated Tensor at index 1 appears to not have been used in the graph. Set "
     "allow_unused=True if this is the desired behavior."),
    ("x.sum().backward(inputs=[])", "`inputs` argument to `backward()` cannot be empty."),
])
def test_error_messages(stmt, message):
    msg = err_message("import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\n" + stmt + "\n")
    assert msg.message == message


def test_create_graph_first_grad_is_copybackwards_and_warns():
    trace, _ = run(
        "import torch\n"
        "a = torch.tensor(2.0, requires_grad=True)\n"
        "(a ** 3).backward(create_graph=True)\n"
        "print(a.grad, a.grad.grad_fn.next_functions[0])\n"
        "(a ** 3).backward(create_graph=True)\n"
        "print(a.grad)\n", keep_values=False)
    assert trace.error is None
    assert trace.stdout == ("tensor(12., grad_fn=<CopyBackwards>) (None, 0)\n"
                            "tensor(24., grad_fn=<AddBackward0>)\n")
    assert [w["message"][:39] for w in trace.warnings] == ["Using backward() with create_graph=True"] * 2


# -- records ---------------------------------------------------------------------------


def test_failed_backward_is_recorded_before_running():
    trace, rec = run(
        "import torch\n"
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "y = x * 2\n"
        "try:\n"
        "    y.backward()\n"
        "except RuntimeError as e:\n"
        "    pass\n"
        "try:\n"
        "    torch.tensor([1.0]).sum().backward()\n"
        "except RuntimeError as e:\n"
        "    pass\n"
        "try:\n"
        "    torch.autograd.grad(y, x, grad_outputs=torch.ones(3))\n"
        "except RuntimeError as e:\n"
        "    pass\n")
    assert trace.error is None
    assert [(p.kind, p.line, p.steps, p.error) for p in rec.passes] == [
        ("backward", 5, [], "RuntimeError: grad can be implicitly created only for scalar outputs"),
        ("backward", 9, [], "RuntimeError: element 0 of tensors does not require grad and does not have a grad_fn"),
        ("grad", 13, [], "RuntimeError: Mismatch in shape: grad_output[0] has a shape of torch.Size([3]) and "
                         "output[0] has a shape of torch.Size([2])."),
    ]
    y_node = next(n for n in rec.nodes if n.name == "MulBackward0")
    assert rec.passes[0].roots == [y_node.id]
    assert rec.passes[1].roots == [None]


def test_fan_in_contributions():
    _, rec = run(
        "import torch\n"
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "y = x * 3\n"
        "w = (y * y + y).sum()\n"
        "w.backward()\n")
    ids = {}
    for n in rec.nodes:
        ids.setdefault(n.name, n.id)  # the first node of each name: y = x * 3 is the first Mul
    steps = {s.node: s for s in rec.passes[0].steps}
    y_step = steps[ids["MulBackward0"]]  # y = x * 3: gets grad from y*y (twice: self and other) and from +
    assert y_step.fan_in is not None and len(y_step.fan_in) >= 2
    total = sum(g for _, g in y_step.fan_in)
    np.testing.assert_allclose(total, y_step.grad_in[0])
    np.testing.assert_allclose(total, [7.0, 13.0])
    assert all(src is not None for src, _ in y_step.fan_in)
    # nodes with a single incoming edge have no fan-in
    assert steps[ids["SumBackward0"]].fan_in == []


def test_fan_in_not_kept_without_values():
    _, rec = run("import torch\nx = torch.tensor(1.0, requires_grad=True)\n(x * x).backward()\n",
                 keep_values=False)
    assert all(s.fan_in is None for s in rec.passes[0].steps)


def test_node_attrs_scalars_and_leaf_value():
    _, rec = run(
        "import torch\n"
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "y = x * 3\n"
        "z = y ** 2\n"
        "s = z.sum(dim=0, keepdim=True)\n"
        "c = x.clamp(min=0.5, max=1.5)\n"
        "with torch.no_grad():\n"
        "    x.add_(1)\n")
    by = {n.name: n for n in rec.nodes}
    assert by["MulBackward0"].scalars == {"other": 3}
    assert by["PowBackward0"].attrs["exponent"] == 2
    assert by["SumBackward1"].attrs.get("keepdim") is True
    assert by["ClampBackward1"].attrs.get("min") == 0.5 and by["ClampBackward1"].attrs.get("max") == 1.5
    acc = by["AccumulateGrad"]
    np.testing.assert_array_equal(acc.leaf_value, [1.0, 2.0])  # value when first used, not after add_


def test_grad_events():
    _, rec = run(
        "import torch\n"
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "(x * 2).sum().backward()\n"
        "x.grad.zero_()\n"
        "x.grad = None\n"
        "w = torch.nn.Linear(2, 1)\n"
        "opt = torch.optim.SGD(w.parameters(), lr=0.1)\n"
        "w(x).sum().backward()\n"
        "opt.zero_grad()\n", keep_values=False)
    acc = next(n for n in rec.nodes if n.name == "AccumulateGrad" and n.var_name == "x")
    ev = [(e.node, e.name, e.kind, e.line) for e in rec.grad_events]
    assert ev[:2] == [(acc.id, "x", "zero", 4), (acc.id, "x", "none", 5)]
    assert [(e.kind, e.line) for e in rec.grad_events[2:]] == [("none", 9), ("none", 9)]


def test_two_roots_on_one_node():
    """Roots that are two outputs of one node (split pieces) count that node once."""
    from autotrace import engine
    from autotrace.tensor import Tensor
    from autotrace.ops.shape import split
    a = Tensor._make(np.arange(6.0)).requires_grad_(True)
    p0, p1 = split(a, 3)
    g, = engine.grad([p0, p1], [a], [Tensor._make(np.ones(3)), Tensor._make(np.full(3, 2.0))])
    np.testing.assert_array_equal(g._data, [1, 1, 1, 2, 2, 2])


def test_in_place_ops_on_0_dim_tensors_and_0_dim_views_match_torch():
    """In-place arithmetic on a 0-dim tensor writes its one element (copied, not
    broadcast): the values, the version counter, int/float/bool operands and nan/inf/-0.0, as torch 2.13 prints them."""
    import subprocess
    import sys

    from helpers import require_torch
    require_torch()
    src = """
import torch
for dt in (torch.float32, torch.float64, torch.int64):
    for v in (0.0, -0.0, 2.5, float('nan'), float('inf')) if dt != torch.int64 else (0, 3, -7):
        x = torch.tensor(v, dtype=dt)
        x += 1
        x -= 2.5 if dt != torch.int64 else 2
        x *= -1
        print(dt, x, x._version)
w = torch.tensor([1.0, 2.0, 3.0])
p = w.sum()
p -= 0.05 * torch.tensor(4.0)
p += True
print(w, p, p._version)
q = torch.tensor(1.5, requires_grad=True)
q.grad = torch.tensor(-0.0)
with torch.no_grad():
    q -= 0.05 * q.grad
    q.mul_(2).add_(1).sub_(0.25)
print(q, q.requires_grad)
"""
    ours = out(src)
    assert ours[1] is None, ours[1]
    theirs = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, check=True).stdout
    assert ours[0] == theirs


def test_pow_of_float32_tensors_by_python_numbers_matches_torch():
    """``float32 tensor ** number`` (the float32 path without promotion): values, the
    node's saved exponent and gradients as torch 2.13 prints them, over the exponent
    forms the kernel special-cases and others, 0-dim and shaped, edge bases; float64,
    int and bool exponents and integer tensors take the general path. (Not ±0.5: float64
    ``x ** -0.5`` of -0.0 and -inf, and with it the gradient of ``x ** 0.5``, differ from
    torch's rsqrt, with or without this path.)"""
    import subprocess
    import sys

    from helpers import require_torch
    require_torch()
    src = """
import torch
torch.set_printoptions(precision=8)
bases = [0.0, -0.0, 0.5, -1.5, 3.0, float('inf'), float('-inf'), float('nan'), 1e-20, 7e30]
for e in (0, 1, 2, 3, -1, -2, 2.5, -3.25, 0.0, 2.0, 10**3, True):
    for dt in (torch.float32, torch.float64):
        x = torch.tensor(bases, dtype=dt, requires_grad=True)
        y = x ** e
        print(e, dt, y, y.grad_fn.name(), y.grad_fn._saved_exponent)
        y.sum().backward()
        print(x.grad)
        s = torch.tensor(1.25, dtype=dt, requires_grad=True)
        z = s ** e
        z.backward()
        print(z, s.grad)
print(torch.tensor([2, 3]) ** 2, torch.tensor([2, 3]) ** 0.5, torch.tensor(2.0) ** torch.tensor(3.0))
"""
    ours = out(src)
    assert ours[1] is None, ours[1]
    theirs = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, check=True).stdout
    assert ours[0] == theirs


def test_unused_input_of_a_freed_graph_matches_torch():
    """``autograd.grad``/``backward(inputs=)`` run only the nodes an input is reached from,
    as torch 2.13's engine does (exec_info): an input unused by a graph already freed gets
    the "not been used" error (or None with ``allow_unused``, zeros with
    ``materialize_grads``) rather than the freed-graph one, which still wins as soon as a
    freed node has to run; a lone root's tensor hooks run though it does not, a root
    among several gets nothing."""
    import subprocess
    import sys

    from helpers import require_torch
    require_torch()
    src = """
import torch
def attempt(label, f):
    try:
        print(label, f())
    except RuntimeError as e:
        print(label, str(e)[:70])
ROOTS = {'pow': lambda x: x.sum() ** 2, 'mul': lambda x: (x * x).sum(),
         'deep': lambda x: (x.exp() * 2).sum() * (x.sum() ** 2), 'nothing saved': lambda x: (x + 1).sum()}
for root, make in ROOTS.items():
    for kw in ({}, {'allow_unused': True}, {'materialize_grads': True}):
        for which in ('z', 'x', 'zx', 'xz', 'y'):
            x = torch.ones(2, requires_grad=True)
            z = torch.ones(2, requires_grad=True)
            y = z * 1
            out = make(x)
            out.backward()
            ins = [{'x': x, 'z': z, 'y': y}[c] for c in which]
            attempt((root, kw, which), lambda: torch.autograd.grad(out, ins, **kw))
        x = torch.ones(2, requires_grad=True)
        z = torch.ones(2, requires_grad=True)
        out = make(x)
        out.backward()
        o2 = (z * 3).sum()
        attempt((root, kw, 'two roots'), lambda: torch.autograd.grad([out, o2], [z], **kw))
    x = torch.ones(2, requires_grad=True)
    z = torch.ones(2, requires_grad=True)
    out = make(x)
    out.register_hook(lambda g: print('hook', g))
    out.retain_grad()
    out.backward()
    attempt((root, 'inputs=[z]'), lambda: out.backward(inputs=[z]))
    print(out.grad, z.grad)
    attempt((root, 'inputs=[x]'), lambda: out.backward(inputs=[x]))
    o2 = (z * 3).sum()
    attempt((root, 'two roots, hooks'), lambda: torch.autograd.grad([out, o2], [z]))
"""
    ours = out(src)
    assert ours[1] is None, ours[1]
    theirs = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, check=True).stdout
    assert "appears to not have been used" in theirs and "backward through the graph a second time" in theirs
    assert ours[0] == theirs


_VALIDATE_ORDER = """
import torch
shapes = [(), (3,), (1, 3), (2, 1)]
for sa in shapes:
    for sb in shapes:
        a = torch.full(sa, 2.0, requires_grad=True)
        b = torch.full(sb, -1.5, requires_grad=True)
        y = a * b
        y.grad_fn.register_hook(lambda gi, go: print("post", [tuple(g.shape) for g in gi], [tuple(g.shape) for g in go]))
        y.sum().backward()
        print(sa, sb, a.grad.shape, b.grad.shape)
a = torch.tensor([0.5, -1.25, 2.0], requires_grad=True)
for k in range(2):
    t4 = a * float("inf")
    t9 = (a.sum() * t4) if k == 0 else (t4 * a.sum())
    try:
        with torch.autograd.detect_anomaly():
            t9.sum().backward()
    except RuntimeError as e:
        print(str(e))
"""


def test_outputs_are_validated_before_post_hooks_and_the_nan_check():
    """torch 2.13's call_function: validate_outputs (the broadcast sum-back) runs before a
    node's post hooks, and anomaly mode's nan check after them, so a nan made by the
    sum-back names the node whose output was summed (MulBackward0, not the next node)."""
    from helpers import autotrace_stdout, torch_stdout

    want = torch_stdout(_VALIDATE_ORDER)
    assert "MulBackward0' returned nan values in its 0th output" in want
    assert autotrace_stdout(_VALIDATE_ORDER) == want


def _fan_graph(x):
    """A small graph with fan-in and fan-out: a, b from x, summed twice into y."""
    a = x * 2.0
    b = a.exp()
    y = (a * b + b.sin() * a).sum() + (x * x).sum()
    return y


def test_graph_with_an_edge_to_a_newer_node_takes_the_queue():
    """engine._run orders a pass by sequence numbers when every edge leads to an older node
    (any graph built forward); otherwise the priority queue decides, as in torch. Giving
    inner nodes newer sequence numbers sends the same graph through the queue: the same
    gradients, bit for bit, and the same nodes run (in the queue's order)."""
    from autotrace import engine, ops, record
    from autotrace.node import AccumulateGrad
    from autotrace.tensor import Tensor

    ops.load()
    prev = record.active
    try:
        runs = []
        for renumber in (False, True):
            rec = record.active = record.Recorder()
            x = Tensor._make(np.array([0.5, -1.25, 2.0], np.float32), requires_grad=True)
            y = _fan_graph(x)
            nodes, stack = [], [y.grad_fn]
            while stack:
                fn = stack.pop()
                if fn is None or fn in nodes:
                    continue
                nodes.append(fn)
                stack.extend(n for n, _ in fn.next_functions)
            if renumber:    # the root keeps the lowest number: its edges lead to newer nodes
                inner = sorted((n for n in nodes if n.__class__ is not AccumulateGrad), key=lambda n: n.seq)
                for n, s in zip(inner, reversed([n.seq for n in inner])):
                    n.seq = s
            used = []
            original = engine._run_ordered
            engine._run_ordered = lambda *a, **k: (used.append(True), original(*a, **k))
            try:
                y.backward()
            finally:
                engine._run_ordered = original
            runs.append((x.grad._data.copy(), bool(used), sorted(rec.passes[0].steps.nodes)))
        (g0, ordered0, ran0), (g1, ordered1, ran1) = runs
        assert (ordered0, ordered1) == (True, False)
        assert g0.tobytes() == g1.tobytes()
        assert ran0 == ran1 and len(ran0) == 11    # 10 ops and x's AccumulateGrad
    finally:
        record.active = prev
