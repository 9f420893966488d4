"""Generator functions (``yield``, ``yield from``): each positive script runs under CPython
(or real torch) too and must print the same, written by hand and generated; the forms a
script may not use are refused before the run. Hostile scripts are in
test_interp_generators_hostile.py."""

from __future__ import annotations

import contextlib
import gc
import io
import os
import subprocess
import sys
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autotrace.interpreter import Limits, ScriptRejected, parse_script, run_program
from autotrace.torch_api import modules



def run(src: str, limits: Limits = Limits()):
    prog = parse_script(textwrap.dedent(src), "t.py")
    return run_program(prog, modules=modules(), limits=limits)


def out(src: str, limits: Limits = Limits()) -> str:
    res = run(src, limits)
    assert res.error is None, res.error
    return res.stdout


def err(src: str, limits: Limits = Limits()):
    res = run(src, limits)
    assert res.error is not None, res.stdout
    return res.error


def cpython(src: str) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(textwrap.dedent(src), "t.py", "exec"), {"__name__": "__main__"})
    return buf.getvalue()


def same_as_cpython(src: str) -> str:
    got = out(src)
    assert got == cpython(src)
    return got


# -- agreement with CPython ----------------------------------------------------------



def test_lazy_body_interleaves_with_the_consumer():
    got = same_as_cpython("""
        def count(n):
            print("start")
            i = 0
            while i < n:
                print("before", i)
                yield i
                print("after", i)
                i += 1
            print("end")
        g = count(2)
        print("created")
        for v in g:
            print("got", v)
    """)
    assert got.splitlines()[:3] == ["created", "start", "before 0"]


def test_random_numbers_interleave_like_cpython():
    same_as_cpython("""
        import random
        random.seed(3)
        def noisy():
            while True:
                yield random.random()
        g = noisy()
        print(round(next(g), 6), round(random.random(), 6), round(next(g), 6))
    """)


def test_send_return_value_and_stop_iteration():
    same_as_cpython("""
        def acc():
            total = 0
            while True:
                x = yield total
                if x is None:
                    return total
                total += x
        g = acc()
        print(next(g), g.send(3), g.send(4))
        try:
            next(g)
        except StopIteration as e:
            print("stop", e.args, e.value if False else e.args[0])
        print(next(g, "exhausted"), list(g))
    """)


def test_yield_from_delegates_send_and_return_value():
    same_as_cpython("""
        def inner():
            got = yield "i1"
            print("inner got", got)
            got = yield "i2"
            print("inner got", got)
            return "inner-result"
        def outer():
            r = yield from inner()
            print("outer got", r)
            yield from [10, 20]
            yield from (x * x for x in range(3))
            yield from range(2)
            return "outer-result"
        g = outer()
        print(next(g), g.send("a"), g.send("b"))
        print(list(g))
        def top():
            r = yield from outer()
            yield r
        print(list(top()))
    """)


def test_builtins_consume_generators():
    same_as_cpython("""
        def fib():
            a, b = 0, 1
            while True:
                yield a
                a, b = b, a + b
        def squares(n):
            for i in range(n):
                yield i * i
        print(list(zip(range(8), fib())))
        print(list(enumerate(squares(4))), sum(squares(5)), max(squares(5)), sorted(squares(3), reverse=True))
        print([x + 1 for x in squares(4) if x % 2 == 0], {x: 1 for x in squares(3)}, set(squares(3)))
        print(dict(zip("abc", squares(3))), tuple(squares(2)), any(x > 5 for x in squares(4)))
        a, b, c = squares(3)
        print(a, b, c, *squares(2))
        g = squares(3)
        print(type(g).__name__, iter(g) is g, next(g), next(g, "d"), next(g, "d"), next(g, "d"))
        print(type(squares(1)) == type(x for x in []), callable(squares), 4 in squares(5))
        import itertools
        print(list(itertools.islice(fib(), 3, 8)), list(map(str, squares(3))))
    """)


def test_control_flow_inside_generators():
    same_as_cpython("""
        def walk(rows):
            for row in rows:
                if not row:
                    continue
                for x in row:
                    if x < 0:
                        break
                    if x == 99:
                        return
                    yield x
                else:
                    yield "row done"
            else:
                yield "all done"
        print(list(walk([[1, 2], [], [3, -1, 4], [5]])))
        print(list(walk([[1, 99, 2], [3]])))
        def w():
            n = 0
            while n < 5:
                n += 1
                if n == 2:
                    continue
                yield n
            else:
                yield "else"
        print(list(w()))
        def ann():
            x: int = yield "first"
            y = z = yield x
            yield (y, z)
        g = ann()
        print(next(g), g.send(1), g.send(2))
        def nested():
            def helper(k):
                return k * 2
            sq = lambda k: k * k
            class C:
                def __init__(self, v):
                    self.v = v
            for i in range(3):
                yield helper(i), sq(i), C(i).v
        print(list(nested()))
        class Box:
            def __init__(self, items):
                self.items = items
            def __iter__(self):
                for it in self.items:
                    yield it
            def pairs(self):
                yield from zip(self.items, self.items[1:])
        b = Box([1, 2, 3])
        print(list(b), list(b.pairs()), [x for x in b])
        def gen_with_args(a, *rest, scale=2, **kw):
            yield a * scale
            yield from rest
            yield sorted(kw)
        print(list(gen_with_args(1, 2, 3, scale=10, z=1, y=2)))
        def empty():
            return
            yield
        print(list(empty()), next(empty(), "nothing"))
    """)


def test_try_except_finally_and_close():
    same_as_cpython("""
        def g():
            try:
                yield 1
                yield 2
            except ValueError as e:
                print("caught", e)
                yield "recovered"
            finally:
                print("finally")
        a = g()
        print(next(a))
        print(a.throw(ValueError("boom")))
        print(next(a, "end"))
        b = g()
        print(next(b))
        b.close()
        print("closed", next(b, "after close"))
        c = g()
        c.close()
        print("closed unstarted", list(c))
        d = g()
        next(d)
        try:
            d.throw(KeyError("k"))
        except KeyError as e:
            print("propagated", e)
        def stop_on_break():
            try:
                for i in range(10):
                    yield i
            finally:
                print("cleanup")
        for x in stop_on_break():
            if x == 2:
                break
        print("after break")
    """)


def test_with_blocks_inside_generators():
    same_as_cpython("""
        class CM:
            def __init__(self, name):
                self.name = name
            def __enter__(self):
                print("enter", self.name)
                return self
            def __exit__(self, t, v, tb):
                print("exit", self.name, t is None)
                return False
        def g():
            with CM("a") as cm:
                yield cm.name
                yield "inside"
            yield "outside"
        print(list(g()))
        h = g()
        print(next(h))
        h.close()
        print("closed")
    """)


def test_python_errors_of_misused_generators():
    same_as_cpython("""
        def g():
            yield 1
        try:
            g().send(5)
        except TypeError as e:
            print("TypeError", e)
        def runner():
            next(me)
            yield 1
        me = runner()
        try:
            next(me)
        except ValueError as e:
            print("ValueError", e)
        def stopper():
            raise StopIteration("x")
            yield 1
        try:
            list(stopper())
        except RuntimeError as e:
            print("RuntimeError", e)
        def stubborn():
            try:
                yield 1
            finally:
                yield 2
        s = stubborn()
        next(s)
        try:
            s.close()
        except RuntimeError as e:
            print("RuntimeError", e)
        try:
            next(5)
        except TypeError as e:
            print("TypeError", e)
        def from_int():
            yield from 5
        try:
            next(from_int())
        except TypeError as e:
            print("TypeError", e)
    """)


def test_throw_copy_and_type_errors_like_cpython():
    same_as_cpython("""
        import copy
        class MyErr(Exception):
            pass
        def g():
            try:
                yield 1
            except MyErr as e:
                print("caught", type(e).__name__, e)
                yield 2
            except ValueError as e:
                print("ValueError", e)
                yield 3
        x = g(); next(x); print(x.throw(MyErr("m")))
        x = g(); next(x); print(x.throw(MyErr))
        try:
            raise ValueError("caught one")
        except ValueError as err:
            x = g(); next(x); print(x.throw(err))
        for bad in (lambda: len(g()), lambda: g().throw(5), lambda: copy.deepcopy(g()),
                    lambda: copy.copy(g()), lambda: type(g())(), lambda: g()[0]):
            try:
                bad()
            except TypeError as e:
                print("TypeError", e)
        x = g()
        print(x == x, x != g(), bool(x), str(x)[:19], x.close(), x.close())
    """)


def test_suspended_generators_finish_at_the_end_like_cpython(tmp_path):
    src = textwrap.dedent("""
        def g(name):
            try:
                yield name
            finally:
                print("finally", name)
        a = g("a")
        next(a)
        for x in g("b"):
            print("got", x)
        print("end of script")
    """)
    script = tmp_path / "t.py"
    script.write_text(src)
    py = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=60)
    assert py.returncode == 0
    assert out(src) == py.stdout == "got b\nfinally b\nend of script\nfinally a\n"


def test_repr_names_the_function():
    got = out("""
        def data_iter():
            yield 1
        class K:
            def items(self):
                yield 1
        def outer():
            def inner():
                yield 1
            return inner()
        print(repr(data_iter()), K().items(), outer())
        print(isinstance(data_iter(), object), type(data_iter()))
    """)
    first, second = got.splitlines()
    assert first.startswith("<generator object data_iter at 0x")
    assert "<generator object K.items at 0x" in first
    assert "<generator object outer.<locals>.inner at 0x" in first
    assert second == "True <class 'generator'>"


def test_d2l_data_iter_agrees_with_torch():
    src = """
        import random
        import torch
        random.seed(0)
        torch.manual_seed(0)
        def data_iter(batch_size, features, labels):
            num_examples = len(features)
            indices = list(range(num_examples))
            random.shuffle(indices)
            for i in range(0, num_examples, batch_size):
                batch_indices = torch.tensor(indices[i: min(i + batch_size, num_examples)])
                yield features[batch_indices], labels[batch_indices]
        features = torch.arange(24.0).reshape(12, 2)
        labels = features.sum(1, keepdim=True)
        w = torch.zeros(2, 1, requires_grad=True)
        for X, y in data_iter(5, features, labels):
            loss = ((X @ w - y) ** 2).mean()
            loss.backward()
            print(X.shape, y.flatten().tolist(), round(loss.item(), 4))
        print(w.grad.flatten().tolist())
    """
    assert out(src) == cpython(src)


def test_module_generator_methods_and_grad_mode_agree_with_torch():
    src = """
        import torch
        import torch.nn as nn
        torch.manual_seed(0)
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.fc1 = nn.Linear(3, 4)
                self.fc2 = nn.Linear(4, 1)
            def forward(self, x):
                return self.fc2(torch.relu(self.fc1(x)))
            def head_params(self):
                yield from self.fc2.parameters()
            def named_weights(self):
                for name, p in self.named_parameters():
                    if name.endswith("weight"):
                        yield name, p
        net = Net()
        opt = torch.optim.SGD(net.head_params(), lr=0.1)
        print([n for n, _ in net.named_weights()])
        def batches(n, leak):
            g = torch.Generator().manual_seed(1)
            for _ in range(n):
                x = torch.randn(5, 3, generator=g)
                with torch.no_grad():
                    y = x.sum(1, keepdim=True)
                    if leak:
                        yield x, y      # the consumer runs with grad mode off, as under torch
                if not leak:
                    yield x, y
        for x, y in batches(1, True):
            print("grad enabled while paused in no_grad:", torch.is_grad_enabled(), net(x).requires_grad)
        print(torch.is_grad_enabled())
        for x, y in batches(3, False):
            loss = ((net(x) - y) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            print(round(loss.item(), 4), net.fc1.weight.grad is None, net.fc2.bias.tolist())
    """
    assert out(src) == cpython(src)


def test_trace_records_ops_inside_generators_at_their_lines():
    from autotrace.runner import run as trace_run
    src = textwrap.dedent("""
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        def scaled(t):
            for k in range(1, 3):
                y = t * k
                yield y.sum()
        total = 0
        for s in scaled(x):
            total = total + s
        total.backward()
        print(x.grad)
    """)
    trace = trace_run(src, "t.py")
    assert trace.error is None and trace.stdout == "tensor([3., 3.])\n"
    assert [(n.name, n.line) for n in trace.nodes if n.name != "AccumulateGrad"] == [
        ("MulBackward0", 6), ("SumBackward0", 7), ("AddBackward0", 10),
        ("MulBackward0", 6), ("SumBackward0", 7), ("AddBackward0", 10)]


# -- refused forms -------------------------------------------------------------------

@pytest.mark.parametrize("src, message", [
    ("f = lambda: (yield 1)", "'yield' in a lambda is not supported"),
    ("def g():\n    print((yield 1))", "'yield' inside an expression is not supported"),
    ("def g():\n    x = 1 + (yield 1)", "'yield' inside an expression is not supported"),
    ("def g():\n    x = 0\n    x += yield 1", "'yield' inside an expression is not supported"),
    ("def g(it):\n    if (yield from it):\n        pass", "'yield from' inside an expression"),
    ("yield 1", "'yield' outside function"),
    ("class C:\n    yield 1", "'yield' outside function"),
    ("def g():\n    return [(yield i) for i in range(3)]", "'yield' inside list comprehension"),
])
def test_refused_yields(src, message):
    with pytest.raises(ScriptRejected) as e:
        parse_script(src, "t.py")
    assert e.value.error.type == "SyntaxError"
    assert message in e.value.error.message


# -- generated generators against CPython ----------------------------------------------

GENERATED = int(os.environ.get("AUTOTRACE_FUZZ_EXAMPLES", "150"))


def _indent(block: str) -> str:
    return "\n".join("    " + line for line in block.split("\n"))


_VALUES = st.sampled_from(["i", "n", "i * 2", "'s'", "None", "[i, n]", "got", "(i, got)"])


_SIMPLE = st.one_of(
    _VALUES.map(lambda v: f"yield {v}"),
    _VALUES.map(lambda v: f"got = yield {v}"),
    _VALUES.map(lambda v: f"print('body', {v})"),
    st.sampled_from(["yield from inner(n)", "got = yield from inner(i)", "n += 1", "i = n % 3",
                     "print('rand', random.randint(0, 9))", "return n", "return", "raise ValueError(n)"]),
)


def _gen_statements(depth):
    if depth == 0:
        return _SIMPLE
    block = st.lists(_gen_statements(depth - 1), min_size=1, max_size=3).map("\n".join)
    return st.one_of(
        _SIMPLE,
        st.tuples(st.sampled_from(["i % 2", "n > 2", "got"]), block, block).map(
            lambda x: f"if {x[0]}:\n{_indent(x[1])}\nelse:\n{_indent(x[2])}"),
        st.tuples(st.sampled_from(["range(3)", "[4, 5]", "inner(2)"]), block).map(
            lambda x: f"for i in {x[0]}:\n{_indent(x[1])}"),
        block.map(lambda b: f"while n < 6:\n    n += 1\n{_indent(b)}"),
        st.tuples(block, block).map(lambda x: f"try:\n{_indent(x[0])}\nexcept ValueError as e:\n"
                                              f"    print('caught', e)\n{_indent(x[1])}"),
        st.tuples(block, block).map(lambda x: f"try:\n{_indent(x[0])}\nfinally:\n{_indent(x[1])}"),
    )


_DRIVERS = st.sampled_from([
    "print(list(g))",
    "for x in g:\n    print('got', x)",
    "print(next(g, 'd'), g.send(7) if False else next(g, 'd'), list(g))",
    "print(next(g))\nprint(g.send('sent'))\nprint(g.send(3))",
    "print(next(g))\nprint(g.throw(ValueError('thrown')))",
    "print(next(g))\ng.close()\nprint(list(g))",
    "print([x for x, _ in zip(g, range(4))])",
    "print(next(g))",
])


def _program(x):
    body, drivers = x
    lines = ["import random", "random.seed(5)",
             "def inner(k):\n    for j in range(k):\n        r = yield ('inner', j)\n        print('inner got', r)\n"
             "    return k * 10",
             f"def gen(n):\n    i = 0\n    got = None\n{_indent(body)}\n    yield 'last'",
             "print(type(gen(1)).__name__)"]
    for d in drivers:
        lines.append(f"g = gen(1)\ntry:\n{_indent(d)}\nexcept Exception as e:\n"
                     f"    print('error', type(e).__name__, e)")
    lines.append("g = None")      # the last generator is finished here in both (not at exit)
    lines.append("print('end', random.random())")
    return "\n".join(lines) + "\n"


@settings(max_examples=GENERATED, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(st.tuples(st.lists(_gen_statements(2), min_size=1, max_size=4).map("\n".join),
                 st.lists(_DRIVERS, min_size=1, max_size=3)).map(_program))
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")   # CPython's own, in cpython()
def test_generated_generators_agree_with_cpython(src):
    ignored = []
    saved = sys.unraisablehook
    sys.unraisablehook = ignored.append
    try:
        got = out(src)
        gc.collect()
    finally:
        sys.unraisablehook = saved
    # no Python generator of the interpreter is finalised with an error ("Exception ignored in")
    assert ignored == [], [(u.exc_value, u.object) for u in ignored]
    assert got == cpython(src), src
