"""Folding of repeated loop steps in records without values (autotrace.folding): the
trace reads the same as unfolded records (JSON bytes, node ids, steps), and a long loop's
stored records stay bounded."""

import pytest

from autotrace import record
from autotrace.render import json as render_json
from autotrace.runner import run

LOOPS = {
    "sgd": """
import torch
w = torch.tensor([0.5, -0.25], requires_grad=True)
x = torch.tensor([1.0, 2.0])
for step in range(30):
    loss = ((w * x).sum() - 1.0) ** 2
    w.grad = None
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
print(loss)
""",
    "counter_in_graph": """
import torch
w = torch.tensor(1.0, requires_grad=True)
for i in range(12):
    y = w * i + 2
    y.backward()
print(w.grad)
""",
    "branch_and_accumulate": """
import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
for i in range(20):
    if i % 5 == 0:
        y = (w.exp() * 2).sum()
    else:
        y = (w * 2).sum()
    y.backward()
print(w.grad)
""",
    "retain_and_grad": """
import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
for i in range(10):
    y = (w * w).sum()
    y.backward(retain_graph=True)
    g, = torch.autograd.grad(y, w)
    later = y
print(g, w.grad, later)
""",
    "error_midway": """
import torch
w = torch.tensor(1.0, requires_grad=True)
for i in range(8):
    y = w * 3
    y.backward()
    if i == 6:
        y.backward()
""",
    "carried_state": """
import torch
w = torch.tensor(0.5, requires_grad=True)
h = torch.tensor(1.0)
for i in range(10):
    h = (h * w).tanh()
    h.backward(retain_graph=True)
print(w.grad)
""",
}


def _unfolded(monkeypatch, src):
    orig = record.Recorder.__init__

    def init(self, keep_values=False, value_limit=100_000):
        orig(self, keep_values, value_limit)
        self.nodes = []
        self.folder = None

    with monkeypatch.context() as m:
        m.setattr(record.Recorder, "__init__", init)
        return run(src, "loop.py")


@pytest.mark.parametrize("name", sorted(LOOPS))
def test_folded_trace_reads_as_the_unfolded_one(monkeypatch, name):
    src = LOOPS[name]
    folded = run(src, "loop.py")
    plain = _unfolded(monkeypatch, src)
    assert render_json.render(folded) == render_json.render(plain)
    assert [n.id for n in folded.nodes] == list(range(len(plain.nodes)))
    assert len(folded.nodes) == len(plain.nodes) and len(folded.passes) == len(plain.passes)
    for i in (0, len(plain.nodes) // 2, -1):
        a, b = folded.nodes[i], plain.nodes[i]
        assert {f: getattr(a, f) for f in a.__slots__} == {f: getattr(b, f) for f in b.__slots__}
    assert [n.name for n in folded.nodes[3:9]] == [n.name for n in plain.nodes[3:9]]
    for p, q in zip(folded.passes, plain.passes):
        assert [(s.node, s.grad_in, s.grads_out) for s in p.steps] == [(s.node, s.grad_in, s.grads_out) for s in q.steps]


def test_sgd_loop_folds_and_stays_bounded():
    src = LOOPS["sgd"].replace("range(30)", "range(400)")
    trace = run(src, "loop.py")
    real = sum(1 for i in range(len(trace.nodes)) if trace.nodes.real(i) is not None)
    assert len(trace.nodes) > 1500
    assert real < 40  # the first steps and the last two; every other step is a reference
    assert sum(1 for p in trace.passes if isinstance(p.steps, list)) <= 3


def test_values_are_never_folded():
    from autotrace.runner import Options

    trace = run(LOOPS["sgd"], "loop.py", options=Options(keep_values=True))
    assert isinstance(trace.nodes, list)
    assert all(isinstance(p.steps, list) for p in trace.passes)


def test_counter_in_graph_is_not_folded():
    """``w * i``: the recorded Python number changes every step, so nothing folds."""
    trace = run(LOOPS["counter_in_graph"], "loop.py")
    assert all(trace.nodes.real(i) is not None for i in range(len(trace.nodes)))
