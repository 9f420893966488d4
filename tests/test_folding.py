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
    "inner_loops": """
import torch
torch.manual_seed(0)
ws = [torch.randn(()).requires_grad_() for _ in range(3)]
xs = [[1.0, 2.0, -1.0], [0.5, -1.0, 2.0], [2.0, 0.5, 1.0], [1.0, 1.0, 1.0]]
for step in range(30):
    loss = torch.tensor(0.0)
    for x in xs:
        act = torch.tensor(0.0)
        for w, xi in zip(ws, x):
            act = act + w * xi
        loss = loss + (act.tanh() - 1.0) ** 2
    for w in ws:
        w.grad = None
    loss.backward()
    with torch.no_grad():
        for w in ws:
            w -= 0.1 * w.grad
print(loss)
""",
}


#: loops whose records cannot fold (each pass differs), read through the same tests
NOT_FOLDED = {"carried_state", "counter_in_graph", "retain_and_grad"}


def _unfolded(monkeypatch, src):
    orig = record.Recorder.__init__

    def init(self, keep_values=False, value_limit=100_000):
        orig(self, keep_values, value_limit)
        self.nodes = self.node_items = []
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
    inputs = [n.inputs for n in plain.nodes]
    assert list(folded.nodes.iter_inputs()) == inputs
    assert [folded.nodes.inputs_of(i) for i in range(len(inputs))] == inputs
    third = len(inputs) // 3
    assert folded.nodes.inputs_between(0, len(inputs)) == inputs
    assert folded.nodes.inputs_between(third, 2 * third + 1) == inputs[third:2 * third + 1]
    assert folded.nodes._segments or name in NOT_FOLDED    # the readers above were exercised on folds
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


@pytest.mark.parametrize("name", sorted(LOOPS))
def test_template_and_inputs_of_read_as_the_rebuilt_record(name):
    trace = run(LOOPS[name], "loop.py")
    nodes = trace.nodes
    for i in range(len(nodes)):
        n = nodes[i]
        assert nodes.inputs_of(i) == n.inputs
        t = nodes.template(i)
        assert {f: getattr(t, f) for f in t.__slots__ if f not in ("id", "inputs")} == \
            {f: getattr(n, f) for f in n.__slots__ if f not in ("id", "inputs")}
    assert nodes.inputs_of(-1) == nodes[-1].inputs


@pytest.mark.parametrize("name", ["branch_and_accumulate", "error_midway", "inner_loops", "sgd"])   # loops that fold
def test_console_tree_of_folded_records_is_the_unfolded_ones(monkeypatch, name):
    """run's grad_fn tree reads folded records through template/inputs_of, never
    rebuilding one, and draws exactly what it draws from unfolded records."""
    from autotrace import folding
    from autotrace.render.console import _output_roots, _Tree

    src = LOOPS[name].replace("range(30)", "range(60)")
    plain = _unfolded(monkeypatch, src)
    folded = run(src, "loop.py")
    assert any(folded.nodes.real(i) is None for i in range(len(folded.nodes)))

    def tree_lines(trace):
        roots = _output_roots(trace)
        tree = _Tree(trace, 100, 12, [c for _, c in roots])
        return [tree.lines(v, c) for v, c in roots], [(f.count, f.lines) for f in tree.folds]

    want = tree_lines(plain)
    rebuilt = []
    real_shift = folding._shifted_node
    monkeypatch.setattr(folding, "_shifted_node", lambda *a: rebuilt.append(a) or real_shift(*a))
    build = _Tree.__init__
    counted = {}

    def init(self, trace, width, depth, roots):
        build(self, trace, width, depth, roots)
        counted["init"] = len(rebuilt)

    monkeypatch.setattr(_Tree, "__init__", init)
    got = tree_lines(folded)
    assert got == want and want[0]
    assert counted["init"] == 0         # finding the folds rebuilt no record


def test_loop_bodies_in_folded_steps_are_found_as_in_unfolded_records(monkeypatch):
    """find_folds over a folded training loop (inner loops repeated in every step) finds
    the repetitions it finds over the unfolded records, and a repetition's wiring is
    worked out once for all the steps that repeat its step, not once per step."""
    from autotrace import folding
    from autotrace.render import folds

    calls = []
    real = folding.NodeList.inputs_of
    monkeypatch.setattr(folding.NodeList, "inputs_of", lambda self, i: calls.append(i) or real(self, i))

    def found(trace):
        nodes = trace.nodes
        order = [c for c in range(len(nodes)) if not nodes[c].is_leaf]
        calls.clear()
        got = folds.find_folds(trace, order, folds.innermost_calls(trace))
        return [(list(map(list, f.reps)), f.lines) for f in got], len(calls)

    reads = {}
    for steps in (10, 40):
        src = LOOPS["inner_loops"].replace("range(30)", f"range({steps})")
        want, _ = found(_unfolded(monkeypatch, src))
        trace = run(src, "loop.py")
        assert trace.nodes._segments
        got, reads[steps] = found(trace)
        assert got == want
        assert len(want) >= 2 * steps      # per step: the products of the first point, the points
    # 30 more steps, no more reads (read again, it was ~46 reads a step here): the wiring
    # inside a step, and across the boundary of two steps, is looked up
    assert reads[40] <= reads[10]


def test_fold_search_is_linear_in_the_loop_length(monkeypatch):
    """A training loop whose steps each run a 4-sample body and start their sum afresh (a
    fold per step, the body's keys repeating through the whole trace): the keys read grow
    like the number of steps, not its square."""
    from types import SimpleNamespace as NS

    from autotrace.render import folds

    reads = [0]

    class Counted(list):
        def __getitem__(self, i):
            reads[0] += 1
            return list.__getitem__(self, i)

    def counted(make):
        return lambda *args: Counted(make(*args))

    # the keys and the next position of each key: what the search reads per position
    monkeypatch.setattr(folds, "_keys", counted(folds._keys))
    monkeypatch.setattr(folds, "_next_same", counted(folds._next_same))

    def search(steps, samples=4, period=10):
        nodes = []
        for _ in range(steps):
            for s in range(samples):
                for o in range(period):
                    c = len(nodes)
                    if o:
                        ins = ((c - 1, 0),)
                    else:   # the running sum: carried from the previous sample, fresh each step
                        ins = ((c - period, 0),) if s else ((None, 0),)
                    nodes.append(NS(id=c, name=f"Op{o % 3}", line=o + 1, col=0, text=None, inputs=ins,
                                    is_leaf=False))
        trace = NS(nodes=nodes, module_calls=[])
        reads[0] = 0
        found = folds.find_folds(trace, list(range(len(nodes))), [None] * len(nodes))
        assert [f.count for f in found] == [samples] * steps
        assert found[1].reps[0] == list(range(samples * period, samples * period + period))
        return reads[0]

    small, large = search(25), search(200)
    assert large < 8 * small * 1.5          # 8x the steps: about 8x the reads (64x before)


def test_fold_check_of_inputs_and_steps_is_the_shift_of_every_id():
    """The per-pass check's unrolled forms (one and two inputs, a step's edge lists)
    decide as the plain statement does: each template id in ``[lo, hi)`` shifted by
    ``delta``, None and ids outside it the same, on drawn ids at the range's edges."""
    from hypothesis import given, settings, strategies as st

    from autotrace.folding import _nodes_match, _steps_match
    from autotrace.record import NodeRecord, StepRecord

    lo, hi, delta = 10, 20, 10
    ids = st.one_of(st.none(), st.sampled_from([0, 9, 10, 11, 19, 20, 21, 29, 30, 31]))
    pairs = st.lists(st.tuples(ids, st.integers(0, 2)), max_size=3).map(tuple)

    def shifted(j):
        return j + delta if j is not None and lo <= j < hi else j

    def node(inputs):
        return NodeRecord(0, "MulBackward0", inputs, None, (), "float32")

    @settings(max_examples=400, deadline=None, derandomize=True)
    @given(pairs, pairs, st.booleans(), ids, ids,
           st.lists(st.sampled_from([None, 0]), max_size=2), st.integers(0, 2))
    def check(t_in, r_in, copy, tj, sj, grads, n_out):
        if copy:
            r_in = tuple((shifted(j), nr) for j, nr in t_in)
        want = r_in == tuple((shifted(j), nr) for j, nr in t_in)
        assert _nodes_match([node(r_in)], [node(t_in)], delta, lo, hi) is want
        if copy:
            sj = shifted(tj)
        t = StepRecord(tj, [None], [None] * n_out)
        s = StepRecord(sj, list(grads), [None] * n_out)
        want = sj == shifted(tj) and len(grads) == 1 and grads[0] is None
        assert _steps_match([s], [t], delta, lo, hi) is want

    check()


# loops of more than 64 repetitions over consecutive ids, wired alike for a while and then not
LONG_LOOPS = {
    "branch_midway": """
import torch
x = torch.randn(3, requires_grad=True)
t = torch.tensor(0.0)
for i in range(300):
    t = (t.detach() if i == 150 else t) + (x * i).sum()
t.backward()
""",
    "leaf_or_number": """
import torch
x = torch.randn(3, requires_grad=True)
c = torch.randn(3, requires_grad=True)
y = x
for i in range(300):
    y = torch.tanh(y) * (c if i % 97 else 1.5)
y.sum().backward()
""",
    "reach_back": """
import torch
x = torch.randn(3, requires_grad=True)
y = x
keep = []
for i in range(300):
    z = y * 2
    keep.append(z)
    y = z + keep[i // 2 if i > 200 else i]
y.sum().backward()
""",
    "outputs_of_unbind": """
import torch
x = torch.randn(4, requires_grad=True)
h = x
for i in range(200):
    j = 2 if i == 120 else 0
    a, b = h.unbind(0)[j:j + 2]
    h = torch.stack([a * b, a + b, b, a]) * 0.5
h.sum().backward()
""",
}


@pytest.mark.parametrize("name", sorted(LONG_LOOPS))
def test_long_loop_bodies_compared_at_once_are_those_compared_one_by_one(monkeypatch, name):
    """Past 64 repetitions the wiring of a loop body is compared by arrays
    (folds._alike_many): the same folds as comparing each repetition's signature, in
    folded and unfolded records, and the comparison found the repetition that breaks."""
    from autotrace.render import folds

    ends = []
    real = folds._alike_run
    monkeypatch.setattr(folds, "_alike_run", lambda *a: ends.append((r := real(*a)) < a[5]) or r)

    def found(trace, many):
        nodes = trace.nodes
        order = [c for c in range(len(nodes)) if not nodes[c].is_leaf]
        with monkeypatch.context() as m:
            m.setattr(folds, "_MANY", many)
            got = folds.find_folds(trace, order, folds.innermost_calls(trace))
        return [(f.reps.start, f.reps.period, f.count, f.lines) for f in got]

    src = LONG_LOOPS[name]
    for trace in (run(src, "loop.py"), _unfolded(monkeypatch, src)):
        want = found(trace, 10 ** 9)
        assert want and max(c for _, _, c, _ in want) > 64
        ends.clear()
        assert found(trace, folds._MANY) == want
        assert True in ends          # a run of repetitions ended at a mismatch


def test_fold_check_of_records_is_the_field_by_field_rule():
    """_nodes_match on lists of records decides as the rule read record by record: no
    value kept, the same fields, attrs and scalars equal as mappings (``-0.0`` is not
    ``0.0``, ``1`` is not ``1.0``), inputs the shift of the template's."""
    from types import MappingProxyType, SimpleNamespace

    from hypothesis import given, settings, strategies as st

    from autotrace.folding import _nodes_match, _same_mapping
    from autotrace.record import NodeRecord

    lo, hi, delta = 10, 20, 10
    shared = MappingProxyType({"alpha": 1})
    mappings = st.sampled_from([shared, MappingProxyType({"alpha": 1}), MappingProxyType({"alpha": 1.0}),
                                MappingProxyType({"alpha": -0.0}), MappingProxyType({"alpha": 0.0}),
                                MappingProxyType({})])
    ids = st.one_of(st.none(), st.sampled_from([0, 9, 10, 19, 20, 29]))
    inputs = st.lists(st.tuples(ids, st.integers(0, 1)), max_size=3).map(tuple)
    record = st.tuples(st.sampled_from(["MulBackward0", "AddBackward0"]), st.sampled_from([3, 4]), inputs,
                       mappings, mappings, st.sampled_from([None, None, None, "kept"]))

    ops = {name: SimpleNamespace(node=name) for name in ("MulBackward0", "AddBackward0")}

    def make(name, line, ins, attrs, scalars, value):
        r = NodeRecord(0, name, ins, None, (), "float32", op=ops[name])  # a record's name is its op's
        r.line, r.attrs, r.scalars, r.value = line, attrs, scalars, value
        return r

    def rule(rs, ts):
        def shifted(j):
            return j + delta if j is not None and lo <= j < hi else j
        return all(r.value is None and t.value is None and r.name == t.name and r.line == t.line
                   and _same_mapping(r.attrs, t.attrs) and _same_mapping(r.scalars, t.scalars)
                   and r.inputs == tuple((shifted(j), nr) for j, nr in t.inputs) for r, t in zip(rs, ts))

    @settings(max_examples=500, deadline=None, derandomize=True)
    @given(st.lists(record, min_size=1, max_size=4), st.data())
    def check(template, data):
        ts = [make(*f) for f in template]
        # a copy (shifted inputs, the same mappings) with some fields redrawn
        fields = [list(f) for f in template]
        for f in fields:
            f[2] = tuple((j + delta if j is not None and lo <= j < hi else j, nr) for j, nr in f[2])
            for k in data.draw(st.lists(st.integers(0, 5), max_size=2)):
                f[k] = data.draw(record)[k]
        rs = [make(*f) for f in fields]
        assert _nodes_match(rs, ts, delta, lo, hi) is rule(rs, ts)

    check()
