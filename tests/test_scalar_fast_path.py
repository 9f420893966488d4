"""The forward fast paths of the arithmetic ops against the general ones.

* A 0-dim float32/float64 tensor and a Python number, or two 0-dim tensors of one float
  dtype: ``+ - * /`` are computed on Python floats and rounded once to the dtype
  (``arith._exact``). Double rounding is innocuous for these operations from 53 to 24
  bits, so the result must equal numpy's float32 arithmetic bit for bit (and PyTorch's).
* ``make`` and ``make_number`` build their node with ``node.op_node`` and its record with
  ``Recorder.add_node``: every field must be what ``Node(...)`` gives for the same op.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from autotrace import anomaly, grad_mode, record, site
from autotrace.node import Node, SavedTensor
from autotrace.ops import arith, load
from autotrace.tensor import Tensor
from helpers import require_torch

load()

SPECIAL32 = [0.0, -0.0, 1.0, -1.0, math.inf, -math.inf, math.nan, 1e-45, -1e-45, 1.1754942e-38,
             1.1754944e-38, 3.4028235e38, -3.4028235e38, 0.1, 1.000001, 16777217.0]
SPECIAL_NUMBERS = SPECIAL32 + [1e308, -1e-320, 2.0 ** -149, 2.0 ** -150, 3.4028235677973366e38,
                               3.402823567797337e38, 2 ** 53, -(2 ** 53), 16777217, 3, 0, -7]


def _f32(bits):
    return float(np.array(bits, dtype=np.uint32).view(np.float32))


FLOAT32 = st.one_of(st.sampled_from(SPECIAL32), st.integers(0, 2 ** 32 - 1).map(_f32),
                    st.floats(width=32))
FLOAT64 = st.one_of(st.sampled_from(SPECIAL_NUMBERS), st.floats(),
                    st.integers(0, 2 ** 64 - 1).map(lambda b: float(np.array(b, np.uint64).view(np.float64))))
NUMBERS = st.one_of(FLOAT32, FLOAT64, st.integers(-(2 ** 53), 2 ** 53))

OPS = {"add": (arith.add, np.add), "sub": (arith.sub, np.subtract), "mul": (arith.mul, np.multiply),
       "div": (arith.div, np.true_divide)}


def _bits(a):
    a = np.asarray(a)
    return a.view(np.uint32 if a.dtype == np.float32 else np.uint64).tolist(), a.dtype, a.shape


def _reference(npfn, x, other):
    """What the general path computes: numpy on the operands in the tensor's dtype."""
    with np.errstate(all="ignore"):
        return np.asarray(npfn(x, other))


@settings(max_examples=2000, deadline=None)
@given(st.sampled_from(sorted(OPS)), st.sampled_from([np.float32, np.float64]), FLOAT64, NUMBERS)
def test_tensor_and_number_equal_numpy(name, np_dtype, a, b):
    fn, npfn = OPS[name]
    with np.errstate(all="ignore"):
        x = np.array(a, dtype=np_dtype)
        got = fn(Tensor._make(x.copy()), b)._data
        one = fn(Tensor._make(x.reshape(1)), b)._data  # the array path
    with np.errstate(all="ignore"):
        ref = _reference(npfn, x, np_dtype(b))
    assert _bits(got) == _bits(ref), (name, a, b)
    assert _bits(got.reshape(1)) == _bits(one), (name, a, b)


@settings(max_examples=2000, deadline=None)
@given(st.sampled_from(sorted(OPS)), st.sampled_from([np.float32, np.float64]), FLOAT64, FLOAT64)
def test_two_scalar_tensors_equal_numpy(name, np_dtype, a, b):
    fn, npfn = OPS[name]
    with np.errstate(all="ignore"):
        x, y = np.array(a, dtype=np_dtype), np.array(b, dtype=np_dtype)
        got = fn(Tensor._make(x.copy()), Tensor._make(y.copy()))._data
    assert _bits(got) == _bits(_reference(npfn, x, y)), (name, a, b)


def test_edge_values_equal_torch():
    torch = require_torch()
    values = [v for v in SPECIAL_NUMBERS if isinstance(v, float) and not math.isnan(v)]
    for name, (fn, _) in OPS.items():
        tfn = getattr(torch, name)
        for dtype, tdtype in ((np.float32, torch.float32), (np.float64, torch.float64)):
            for a in values:
                for b in SPECIAL_NUMBERS:
                    if name == "div" and b == 0 and isinstance(b, int):
                        continue
                    with np.errstate(all="ignore"):
                        got = fn(Tensor._make(np.array(a, dtype=dtype)), b)._data
                        both = fn(Tensor._make(np.array(a, dtype=dtype)),
                                  Tensor._make(np.array(b, dtype=dtype)))._data
                    want = tfn(torch.tensor(a, dtype=tdtype), b).numpy()
                    want2 = tfn(torch.tensor(a, dtype=tdtype), torch.tensor(b, dtype=tdtype)).numpy()
                    if not np.isnan(want):   # torch's nan sign is its own; numpy's is kept
                        assert _bits(got) == _bits(want), (name, dtype, a, b)
                    if not np.isnan(want2):
                        assert _bits(both) == _bits(want2), (name, dtype, a, b)


# -- nodes and records -----------------------------------------------------------------


def _leaf(value, requires_grad=True, dtype=np.float32, shape=()):
    t = Tensor._make(np.full(shape, value, dtype=dtype))
    t._requires_grad = requires_grad
    return t


def _node_fields(n):
    return {k: getattr(n, k) for k in Node.__slots__ if k not in ("seq", "rec", "rid", "__weakref__", "saved")}


def _saved(n):
    if n.saved is None:
        return None
    return {k: ((v.tensor, v.data, v.counter, v.version, v.is_output) if isinstance(v, SavedTensor) else v)
            for k, v in n.saved.items()}


def _record_fields(r):
    return {k: getattr(r, k) for k in record.NodeRecord.__slots__ if k != "id"}


def _general(node, t):
    """``Node(...)`` for the op ``node`` records, in the same recorder."""
    return Node(node.op, node.next_functions, node.saved, node.attrs, node.in_meta, 1, None,
                t._data.shape, t._dtype.name)


CASES = [
    ("x * 3", lambda x, w: x * 3), ("x * 2.5", lambda x, w: x * 2.5), ("x + 1", lambda x, w: x + 1),
    ("x - 0.5", lambda x, w: x - 0.5), ("x / 4", lambda x, w: x / 4), ("x * -0.0", lambda x, w: x * -0.0),
    ("x + w", lambda x, w: x + w), ("x - w", lambda x, w: x - w), ("x * w", lambda x, w: x * w),
    ("x / w", lambda x, w: x / w), ("add alpha", lambda x, w: arith.add(x, w, alpha=2)),
    ("add alpha 1.0", lambda x, w: arith.add(x, w, alpha=1.0)), ("x ** 2", lambda x, w: x ** 2),
    ("x + True", lambda x, w: x + True), ("(x * 2) * w", lambda x, w: (x * 2) * w),
]


@pytest.mark.parametrize("keep_values", [False, True])
@pytest.mark.parametrize("anomaly_mode", [False, True])
@pytest.mark.parametrize("shape", [(), (3,)])
@pytest.mark.parametrize("grads", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_fast_node_equals_general_node(case, grads, shape, anomaly_mode, keep_values):
    _, f = case
    prev = record.active, site.current, anomaly.enabled
    rec = record.active = record.Recorder(keep_values=keep_values)
    site.current = site.Site(2, 4, 2, 9, "x * 3", "y = x * 3")
    anomaly.enabled = anomaly_mode
    try:
        x, w = _leaf(1.5, grads[0], shape=shape), _leaf(-0.25, grads[1], shape=shape)
        y = f(x, w)
        if not y._requires_grad:
            return
        node = y.grad_fn
        n = len(rec.node_items)
        general = _general(node, y)
        assert _node_fields(node) == _node_fields(general)
        assert _saved(node) == _saved(general)
        assert node.seq == general.seq - 1
        fast, plain = node.rec, general.rec
        assert plain.id == n
        assert (node.rid, general.rid) == (fast.id, plain.id)  # each node carries its record's id
        fields, want = _record_fields(fast), _record_fields(plain)
        # ``scalars`` and ``value`` are the ops' own (a wrapped number, the output): not Node's
        for k in ("scalars", "value"):
            fields.pop(k)
            want.pop(k)
        assert fields == want
        assert (fast.value is not None) == keep_values
        other = (node.saved or {}).get("other")
        if isinstance(other, SavedTensor) and other.counter is None:    # a saved Python number
            assert dict(fast.scalars) == {"other": other.data}
    finally:
        record.active, site.current, anomaly.enabled = prev


def test_no_recorder_no_grad_mode():
    prev = record.active
    record.active = None
    try:
        x = _leaf(2.0)
        assert (x * 3).grad_fn.rec is None and (x + x).grad_fn.rec is None
        with grad_mode.no_grad():
            assert (x * 3).grad_fn is None and not (x + x)._requires_grad
    finally:
        record.active = prev


# -- scripts: shared saved numbers, lazily made version counters -------------------------

SCRIPTS = [
    # a shared saved number: an in-place op on the input, on the output, a second backward
    """x = torch.tensor(2.0, requires_grad=True)
a = x * 3
b = x * 3
a.mul_(2)
(a + b).backward(retain_graph=True)
print(x.grad, a._version, b._version, a.grad_fn._saved_other)
(a * 3).backward()
print(x.grad)""",
    # a saved tensor changed in place: the version error
    """x = torch.tensor(2.0, requires_grad=True)
a = x * 1
b = a * a
a.add_(1)
try:
    b.backward()
except RuntimeError as e:
    print(str(e)[:150])""",
    # views share the counter of their base
    """x = torch.ones(3, requires_grad=True)
y = x * 2
v = y[1:]
z = v * v
print(y._version, v._version)
y.add_(1)
print(y._version, v._version)
try:
    z.sum().backward()
except RuntimeError as e:
    print(str(e)[:120])""",
    # inference tensors cannot be saved
    """x = torch.tensor(2.0, requires_grad=True)
with torch.inference_mode():
    t = torch.tensor(3.0)
print(t.is_inference(), (x * 2).is_inference())
try:
    x * t
except RuntimeError as e:
    print(str(e)[:60])""",
    # hooks, retain_grad, create_graph and a double backward through number ops
    """x = torch.tensor(1.5, requires_grad=True)
y = x * x
y.retain_grad()
h = y.register_hook(lambda g: g * 2)
z = y / 4 - 1.0 + x * 0.5
z.backward(create_graph=True)
print(x.grad, y.grad)
g = x.grad
x.grad = None
g.backward()
print(x.grad)""",
    # detach_ and data share or own counters as torch's do
    """x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
d = y.detach()
d.add_(1)
print(y._version, d._version, y)
e = y.data
e.mul_(2)
print(y._version, e._version)""",
]


def _torch_stdout(src):
    import contextlib
    import io
    torch = require_torch()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(src, {"torch": torch})
    return out.getvalue()


@pytest.mark.parametrize("body", SCRIPTS)
def test_scripts_print_what_torch_prints(body):
    from autotrace import runner
    src = "import torch\n" + body + "\n"
    trace = runner.run(src, "fast.py")
    assert trace.error is None, trace.error
    assert trace.stdout == _torch_stdout(src)
