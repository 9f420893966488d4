"""Writing in place through a view of a view reaches the base as in torch 2.13: the base's
history becomes CopySlices (``x[k] = v`` included, which torch runs as ``x[k].copy_(v)`` on
a view), and every view of the base reads back an AsStridedBackward0 over it. Generated
scripts — view chains, write ops and values drawn from seeded generators — are run under
autotrace and under torch and their printed output (values, grads, grad_fn trees with
next_functions, versions, error texts) compared."""

from __future__ import annotations

import random

import pytest

from autotrace import runner
from test_select_views import _torch_out
from test_view_rebase import PRELUDE

# (template, shape -> new shape or None when the view does not apply)
VIEWS = [
    ("{}[1:]", lambda s: (s[0] - 1,) + s[1:] if s and s[0] >= 2 else None),
    ("{}[::2]", lambda s: ((s[0] + 1) // 2,) + s[1:] if s and s[0] >= 3 else None),
    ("{}[1]", lambda s: s[1:] if len(s) >= 2 and s[0] >= 2 else None),
    ("{}.t()", lambda s: s[::-1] if len(s) == 2 else None),
    ("{}.transpose(0, -1)", lambda s: (s[-1],) + s[1:-1] + (s[0],) if len(s) >= 2 else None),
    ("{}.narrow(-1, 1, 2)", lambda s: s[:-1] + (2,) if s and s[-1] >= 3 else None),
    ("{}[:, 1:3]", lambda s: (s[0], 2) + s[2:] if len(s) >= 2 and s[1] >= 3 else None),
    ("{}.diagonal()", lambda s: (min(s),) if len(s) == 2 else None),
    ("{}.unsqueeze(0)", lambda s: (1,) + s if len(s) <= 2 else None),
    ("{}[..., 1:]", lambda s: s[:-1] + (s[-1] - 1,) if s and s[-1] >= 2 else None),
]


def _vals(rng, shape):
    n = 1
    for d in shape:
        n *= d
    flat = [round(rng.uniform(-2, 2), 2) for _ in range(n)]
    return f"torch.tensor({flat}).reshape({list(shape)})"


def _writes(rng, shape):
    """In-place writes into a view of ``shape`` (the script has c, a 0-d leaf, and s, a
    leaf of ``shape``)."""
    out = ["w.mul_(s)", "w.add_(c)", "w.copy_(s * 2)", "w.relu_()", "w += s * c", "w.zero_()",
           "w.fill_(2.5)", "w.clamp_(min=-0.5)", "w.sub_(s, alpha=2)", "w[...] = s", "w[0] = c * 3",
           "w[0] = 7.0", "w[w > 0] = 0.5", "w[w < 0] = c", "w.div_(c)"]
    if len(shape) >= 2:
        out += ["w[0] = s[1] * c", "w[:, 0] = c", "w[1:, -1] = s[1:, 0]"]
    if shape[0] >= 2:
        out += ["w[[0, -1]] = s[:2] * 2", "w[-1] = s[0]"]
    return out


def _script(seed: int) -> str:
    rng = random.Random(seed)
    shape = rng.choice([(4,), (5,), (3, 4), (4, 3), (4, 5), (2, 3, 4)])
    chain = []
    s = shape
    while len(chain) < 2:
        tpl, f = rng.choice(VIEWS)
        t = f(s)
        if t is not None and all(d >= 1 for d in t) and len(t) >= 1:
            chain.append(tpl)
            s = t
    write = rng.choice(_writes(rng, s))
    make_b = rng.choice(["a * 1", "a + 0", "a * a", "a.tanh()", "a.exp()"])
    vw = chain[0].format("b")
    ww = chain[1].format("v")
    return "\n".join([
        f"a = {_vals(rng, shape)}.requires_grad_()",
        f"c = torch.tensor({round(rng.uniform(0.5, 2), 2)}, requires_grad=True)",
        f"s = {_vals(rng, s)}.requires_grad_()",
        f"b = {make_b}",
        f"v = {vw}",
        f"w = {ww}",
        write,
        "print(b, v, w, sep='\\n')",
        "show('b', b)", "show('v', v)", "show('w', w)",
        f"k = torch.arange(1.0, b.numel() + 1).reshape({list(shape)})",
        "loss = (b * k).sum() + (v * v).sum() + w.sum() * 3",
        "attempt('backward', lambda: loss.backward())",
        "print(a.grad, c.grad, s.grad)",
        "show('w after', w)",
        "",
    ])


# ``x[k] = v`` as a call, for attempt()
PUT = """def put(t, k, value):
    t[k] = value
"""


def _same(src: str, name: str) -> str:
    src = PRELUDE + PUT + src
    want = _torch_out(src)
    trace = runner.run(src, f"{name}.py")
    assert trace.error is None, trace.error
    assert trace.stdout == want
    return want


@pytest.mark.parametrize("seed", range(48))
def test_generated_writes_through_a_view_of_a_view_reach_the_base(seed):
    want = _same(_script(seed), f"gen{seed}")
    assert "AsStridedBackward0" in want


SCRIPTS = {
    # the brief's example: b = a*1; v = b[1:]; w = v[0:2]; w[0] = x
    "setitem_view_of_view": """
a = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
x = torch.tensor([5.0], requires_grad=True)
b = a * 1
v = b[1:]
w = v[0:2]
w[0] = x[0] * 2
print(b, v, w)
show("b", b); show("v", v); show("w", w)
print(w._base is b, v._base is b)
(b * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
print(a.grad, x.grad)
""",
    "setitem_one_level": """
a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
x = torch.tensor([5.0, 6.0], requires_grad=True)
b = a * 2
r = b[1]
r[:] = x
show("b", b); show("r", r)
(b * b).sum().backward()
print(a.grad, x.grad)
""",
    "setitem_base_without_grad": """
x = torch.tensor([5.0, 6.0], requires_grad=True)
b = torch.zeros(3, 2)
v = b.t()[1:]
v[0, 1:] = x[1]
show("b", b); show("v", v)
b.sum().backward()
print(b, x.grad)
""",
    "setitem_without_grad_anywhere": """
b = torch.zeros(3, 2)
v = b.t()[1:]
v[0, 1:] = 4.0
show("b", b); show("v", v)
print(b)
""",
    "setitem_in_no_grad": """
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a * 1
v = b[1:][::1]
with torch.no_grad():
    v[0] = 9.0
show("b", b); show("v", v)
(b * v.sum()).sum().backward()
print(a.grad)
""",
    "two_writes_through_different_views": """
a = torch.arange(1.0, 7.0).reshape(2, 3).requires_grad_()
c = torch.tensor(2.0, requires_grad=True)
b = a * 1
v = b.t()
w = v[1:]
w[0] = c
u = b[1][::2]
u.mul_(c)
show("b", b); show("w", w); show("u", u)
(b ** 2).sum().backward()
print(a.grad, c.grad)
""",
    "setitem_whole_view_then_broadcast": """
a = torch.ones(3, 4, requires_grad=True)
s = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
b = a * 3
w = b[1:][:, ::2]
w[:] = s
w[1] = torch.tensor([-1.0, -2.0])
show("b", b); show("w", w)
(b * torch.arange(12.0).reshape(3, 4)).sum().backward()
print(a.grad, s.grad)
""",
    "zero_dim_view": """
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
c = torch.tensor(4.0, requires_grad=True)
b = a * 1
e = b[1:][0]
e[...] = c * c
show("b", b); show("e", e)
(b * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(a.grad, c.grad)
""",
    "float64": """
a = torch.tensor([0.1, 0.2, 0.3, 0.4], dtype=torch.float64, requires_grad=True)
c = torch.tensor(0.7, dtype=torch.float64, requires_grad=True)
b = a.sin()
w = b.view(2, 2)[1]
w[1] = c.exp()
show("b", b); show("w", w)
b.pow(3).sum().backward()
print(a.grad, c.grad, b)
""",
}

ERRORS = {
    "view_of_view_of_leaf": """
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = a[1:][0:1]
attempt("setitem", lambda: put(w, 0, 5.0))
attempt("mul_", lambda: w.mul_(2))
print(a, a._version)
""",
    "no_grad_view_written_in_grad_mode": """
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a * 1
with torch.no_grad():
    v = b[1:]
w = v[0:1]
attempt("setitem", lambda: put(w, 0, 5.0))
attempt("v setitem", lambda: put(v, 0, 5.0))
print(b._version)
""",
    "multi_output_view": """
a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
b = a * 1
u0, u1 = b.unbind(0)
w = u1[0:]
attempt("setitem", lambda: put(w, 0, 5.0))
attempt("mul_", lambda: w.mul_(2))
""",
    "saved_base_modified_through_view": """
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a * 1
z = b * b
w = b[1:][1:]
w[0] = 0.0
attempt("backward", lambda: z.sum().backward())
""",
    "bad_values_and_indices": """
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a * 1
w = b[1:][0:1]
attempt("bool mask", lambda: put(w, torch.tensor([True]), torch.tensor([1], dtype=torch.int64)))
attempt("list", lambda: put(w, [0], torch.tensor([1.0], dtype=torch.float64)))
attempt("shape", lambda: put(w, 0, torch.ones(2)))
try:
    w[3] = 1.0
except IndexError as e:
    print("IndexError:", e)
print(b, b._version)
""",
}


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_writes_through_views_match_torch(name):
    want = _same(SCRIPTS[name], name)
    assert "AsStrided" in want or name == "setitem_without_grad_anywhere"


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_bad_writes_through_views_raise_torchs_error(name):
    want = _same(ERRORS[name], name)
    assert "RuntimeError" in want or "IndexError" in want


KEYS = ["0", "1:", ":", "0, 1:", "1:, 0", "None", "...", "..., 0", "[0, 1]", "0, [0, 1]", "True", "False",
        "torch.tensor(1)", "torch.tensor(True)", "::2", "0:3", "0:4", ":100", "-4:", "-1, -1", "1:, None", "0, True"]


def test_the_view_a_key_writes_through_names_torchs_error():
    # x[key] = v writes into a view of x unless the key's slices all cover their dims (or
    # there are none): it inherits a no_grad or multi-output view's creation meta, and
    # torch's error names it ("Output 0 of Slice ..."), or x itself, or nothing for False
    lines = ["a = torch.ones(3, 4, 2, requires_grad=True)", "writes = []"]
    for i, k in enumerate(KEYS):
        lines += [f"def f{i}(w):", f"    w[{k}] = 5.0", f"writes.append(({k!r}, f{i}))"]
    lines.append("""for mode in ["multi", "no_grad", "leaf", "plain"]:
    for k, f in writes:
        b = a * 1
        if mode == "multi":
            w = b.unbind(0)[1]
        elif mode == "no_grad":
            with torch.no_grad():
                w = b[1]
        elif mode == "leaf":
            w = torch.ones(4, 2, requires_grad=True)
        else:
            w = b[1]
        attempt(mode + " " + k, lambda: f(w))
        print(b.grad_fn.name(), w.grad_fn.name() if w.grad_fn is not None else None, b._version)
""")
    want = _same("\n".join(lines), "keys")
    assert want.count("RuntimeError") == 3 * (len(KEYS) - 1)


# -- retain_grad() on a tensor later modified in place ----------------------------------------
# torch moves the retained grad to the tensor's new history (update_tensor_hooks_on_new_gradfn):
# .grad after backward is the gradient w.r.t. the tensor as modified, not as it was

INPLACE = ["x.add_(1.5)", "x.mul_(a)", "x[0] = a[1] * 5", "x.relu_()", "x.sub_(a, alpha=0.5)", "x.exp_()",
           "x.div_(2)", "x[1:].mul_(3)", "x.clamp_(-1, 1)", "x.copy_(a * a)", "x += a", "x *= 2",
           "x[x > 0] = 0.25", "x.neg_()", "x.tanh_()", "x.pow_(2)"]


def _retain_script(seed: int) -> str:
    rng = random.Random(1000 + seed)
    shape = rng.choice([(3,), (4,), (2, 3)])
    steps = rng.sample(INPLACE, rng.randint(1, 3))
    lines = [f"a = {_vals(rng, shape)}.requires_grad_()", "x = a * 2"]
    if rng.random() < 0.4:
        lines += ["y = x.view(-1)", "y.retain_grad()"]
    else:
        lines.append("y = None")
    lines.append("x.retain_grad()")
    for i, st in enumerate(steps):
        lines.append(st)
        if rng.random() < 0.3:
            lines.append("x.retain_grad()")
        if rng.random() < 0.3:
            lines.append(f"x.register_hook(lambda g: print('hook {i}', g))")
    lines += [
        f"k = torch.arange(1.0, x.numel() + 1).reshape(x.shape)",
        "loss = (x * k).sum() + (0 if y is None else (y * y).sum())",
        "attempt('backward', lambda: loss.backward())",
        "print(x.grad_fn.name(), x.retains_grad, x.grad, a.grad)",
        "if y is not None:",
        "    print(y.grad_fn.name(), y.retains_grad, y.grad)",
        "",
    ]
    return "\n".join(lines)


@pytest.mark.parametrize("seed", range(32))
def test_retained_grad_follows_inplace_ops_generated(seed):
    _same(_retain_script(seed), f"retain{seed}")


RETAIN = {
    "view_retains_then_view_modified": """
a = torch.tensor([1.0, -2.0, 3.0, 4.0], requires_grad=True)
x = a * 2
v = x[1:3]
v.retain_grad()
x.retain_grad()
v.mul_(a[:2])
(x * torch.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
print(v.grad_fn.name(), v.grad, x.grad_fn.name(), x.grad, a.grad)
""",
    "base_retains_then_written_through_view": """
a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
c = torch.tensor(3.0, requires_grad=True)
x = a + 1
x.retain_grad()
w = x.t()[1]
w[0] = c * c
(x ** 2).sum().backward()
print(x.grad_fn.name(), x.grad, a.grad, c.grad)
""",
    "second_output_of_max": """
a = torch.tensor([[1.0, 5.0], [7.0, 2.0]], requires_grad=True)
vals, idx = (a * 1).max(1)
vals.retain_grad()
vals.mul_(idx + 2)
vals.sum().backward()
print(vals.grad_fn.name(), vals.grad, a.grad)
""",
    "inplace_under_no_grad_keeps_the_node": """
a = torch.tensor([1.0, 2.0], requires_grad=True)
x = a * 3
x.retain_grad()
with torch.no_grad():
    x.add_(1)
(x * x).sum().backward()
print(x.grad_fn.name(), x.grad, a.grad)
""",
    "two_backward_passes": """
a = torch.tensor([1.0, 2.0], requires_grad=True)
x = a * 3
x.retain_grad()
y = x.sum() * 2
x.mul_(a)
(x * 5).sum().backward(retain_graph=True)
print(x.grad)
(x * 5).sum().backward(retain_graph=True)
print(x.grad, a.grad)
y.backward()
print(x.grad, a.grad)
""",
    "autograd_grad_leaves_grad_alone": """
a = torch.tensor([1.0, 2.0], requires_grad=True)
x = a * 3
x.retain_grad()
x.sin_()
s = x.sum()
g, = torch.autograd.grad(s, a, retain_graph=True)
print(g, x.grad)
s.backward()
print(x.grad)
""",
}


@pytest.mark.parametrize("name", sorted(RETAIN))
def test_retained_grad_follows_inplace_ops(name):
    _same(RETAIN[name], name)


# -- the node x[key] = value leaves, as torch 2.13's THPVariable_setitem makes it --------------
# CopySlices when it writes through a view of x; IndexPutBackward0 (advanced indices),
# FillBackward3 (a 0-d value) or CopyBackwards when it writes into x itself; a value with
# leading 1s is viewed without them, and expanded to the written region unless index_put_

SET_KEYS = ["1:", "1", ":, 0", "...", ":", ":, :", "[0, 2]", "b[:, 0] > 2", ":, [1, 3]", "0, [1, 3]", "None", "..., -1"]
SET_VALUES = ["5.0", "c", "c.view(1)", "s[0]", "s[:1]", "s[:1, :1]", "s[0].view(1, 1, 4)", "torch.tensor(2.0)"]


def test_setitem_leaves_torchs_node():
    lines = ["a = torch.arange(1.0, 13.0).reshape(3, 4).requires_grad_()",
             "c = torch.tensor(2.0, requires_grad=True)",
             "s = torch.linspace(-1, 1, 12).reshape(3, 4).requires_grad_()", "cases = []"]
    n = 0
    for k in SET_KEYS:
        for v in SET_VALUES:
            lines += [f"def f{n}(b):", f"    b[{k}] = {v}", f"cases.append(({k + ' = ' + v!r}, f{n}))"]
            n += 1
    lines.append("""for label, f in cases:
    for through_view in (False, True):
        a.grad = c.grad = s.grad = None
        b = a * 1
        t = b[:] if through_view else b
        try:
            f(t)
        except RuntimeError as e:
            print(label, "RuntimeError:", e)
            continue
        show(label, b)
        (b * torch.arange(12.0).reshape(3, 4)).sum().backward()
        print(a.grad, c.grad, s.grad)
""")
    want = _same("\n".join(lines), "setitem_nodes")
    for name in ("IndexPutBackward0", "FillBackward3", "CopyBackwards", "CopySlices", "ExpandBackward0", "ViewBackward0"):
        assert name in want
