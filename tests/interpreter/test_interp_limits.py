"""Every limit: its error (type, phase, message), that it triggers fast, and that the
interpreter's process state is restored afterwards."""

from __future__ import annotations

import signal
import sys
import time

import pytest

from autotrace.interpreter import Limits

from interp_stubs import out, run


def limit(src, limits=None, max_seconds=2.0, **kw):
    t0 = time.monotonic()
    r = run(src, limits=limits or Limits(), **kw)
    elapsed = time.monotonic() - t0
    assert r.error is not None, r.stdout[:200]
    assert (r.error.type, r.error.phase) == ("LimitError", "limit"), r.error
    assert elapsed < max_seconds, f"took {elapsed:.2f}s"
    return r.error


def test_timeout_stops_busy_loop_fast():
    t0 = time.monotonic()
    e = limit("while True:\n    pass", Limits(timeout=0.5))
    assert time.monotonic() - t0 < 1.2
    assert e.message == "time limit of 0.5 s reached (use --timeout to raise it)"
    assert e.line == 1


def test_timeout_with_slow_statements():
    # each statement takes ~20 ms: the adaptive check must still stop near the deadline
    def slow():
        time.sleep(0.02)

    t0 = time.monotonic()
    e = limit("while True:\n    slow()", Limits(timeout=0.4), predefined={"slow": slow})
    assert time.monotonic() - t0 < 0.9
    assert e.message.startswith("time limit of 0.4 s")


def test_timeout_backstop_for_code_stuck_outside_the_interpreter():
    if not hasattr(signal, "setitimer"):
        pytest.skip("no setitimer")

    def engine_hang():
        while True:      # engine code that never returns to the interpreter
            pass

    t0 = time.monotonic()
    e = limit("hang()", Limits(timeout=0.3), predefined={"hang": engine_hang})
    assert time.monotonic() - t0 < 1.5
    assert e.message.startswith("time limit of 0.3 s")
    assert signal.getsignal(signal.SIGALRM) in (signal.SIG_DFL, None)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_step_limit():
    e = limit("n = 0\nwhile True:\n    n += 1", Limits(max_steps=10_000))
    assert e.message == "step limit of 10000 reached (use --max-steps to raise it)"
    assert e.line == 2


def test_step_limit_counts_function_calls():
    e = limit("def f():\n    return 1\nwhile True:\n    f()", Limits(max_steps=5_000))
    assert "step limit of 5000" in e.message


@pytest.mark.parametrize("src", [
    "for i in range(10**9):\n    pass",
    "n = 0\nwhile n >= 0:\n    n += 1",
    "x = [i for i in range(10**9)]",
    "x = {i: i for i in range(10**9) if i >= 0}",
])
def test_loop_iteration_limit(src):
    e = limit(src, Limits(max_loop_iterations=1000))
    assert e.message == "loop iteration limit of 1000 reached (use --limit loop-iterations=N to raise it)"


def test_loop_limit_is_per_loop():
    assert out("t = 0\nfor i in range(30):\n    for j in range(900):\n        t += 1\nprint(t)",
               limits=Limits(max_loop_iterations=1000)) == "27000\n"


def test_recursion_limit():
    e = limit("def f(n):\n    return f(n + 1)\nf(0)")
    assert e.message == "recursion limit of 200 nested script function calls reached (use --limit recursion=N to raise it)"
    assert e.line == 2


def test_deep_but_allowed_recursion_works():
    old = sys.getrecursionlimit()
    src = """
        def depth(n):
            if n == 0:
                return 0
            x = [n]
            for v in x:
                total = (v - v) + depth(n - 1) * 1
            return total + 1
        print(depth(N))
    """
    assert out(src, predefined={"N": 199}) == "199\n"
    assert out(src, predefined={"N": 1500}, limits=Limits(max_recursion=1600)) == "1500\n"
    assert sys.getrecursionlimit() == old


def test_python_recursion_error_becomes_limit_error():
    # data nested deeper than Python can compare: a RecursionError inside C code
    e = limit("x = []\nfor i in range(200):\n    x = [x]\ny = []\nfor i in range(200):\n    y = [y]\nprint(x == y)")
    assert "nesting limit" in e.message


def test_output_limit_with_huge_separator():
    e = limit('print(*range(10**6), sep="x" * 10**6)')
    assert e.message.startswith("output limit of 1000000 characters")
    r = run('print("a" * 10, "b" * 10)', limits=Limits(max_output=15))
    assert r.stdout == "aaaaaaaaaa bbbb"


def test_output_limit():
    e = limit("while True:\n    print('spam')", Limits(max_output=1000))
    assert e.message == "output limit of 1000 characters reached (use --limit output=N to raise it)"
    r = run("while True:\n    print('spam')", limits=Limits(max_output=1000))
    assert len(r.stdout) == 1000 and r.stdout.startswith("spam\nspam\n")


@pytest.mark.parametrize("src", [
    "x = 'a' * 10**10",
    "x = [0] * 10**10",
    "x = 10**10 * [0]",
    "x = (1,) * 10**12",
    "x = list(range(10**9))",
    "x = tuple(range(10**12))",
    "x = sorted(range(10**10))",
    "x = sum(range(10**12))",
    "x = min(range(10**12))",
    "x = set(range(10**12))",
    "x = 'x'.ljust(10**10)",
    "x = 'x'.center(10**10)",
    "x = '7'.zfill(10**10)",
    "x = '{:>10000000000}'.format(1)",
    "x = f'{1:>10000000000}'",
    "x = format(1.5, '.10000000000f')",
    "x = '%10000000000d' % 1",
    "x = '%*d' % (10**10, 1)",
    "x = 'a' * 10**6\ny = x.replace('a', x)",
    "x = ['a' * 10**6] * 10\ny = ''.join(x * 100)",
    "x = [1]\nfor i in range(40):\n    x = x + x",
    "x = [1]\nfor i in range(40):\n    x += x",
    "x = [1]\nfor i in range(40):\n    x.extend(x)",
    "x = 'ab'\nfor i in range(40):\n    x = x + x",
    "x = [0] * 1000\nx[1:1] = range(10**10)",
    "print(*range(10**10))",
    "x = [*range(10**10)]",
])
def test_sequence_limit_refuses_huge_values_fast(src):
    e = limit(src, max_seconds=3.0)
    assert "size limit of 10000000 elements reached" in e.message
    assert e.message.endswith("(use --limit sequence=N to raise it)")


def test_sequence_limit_on_lazy_iterators():
    lim = Limits(max_sequence=100_000)
    for src in ("x = dict(zip(range(10**10), range(10**10)))", "x = list(map(abs, range(10**10)))",
                "x = tuple(enumerate(range(10**10)))", "x = ''.join(map(str, range(10**10)))",
                "x = [1]\nx.extend(filter(None, range(1, 10**10)))"):
        e = limit(src, lim)
        assert "size limit of 100000 elements" in e.message


def test_sequence_limit_on_append_and_dict_growth():
    lim = Limits(max_sequence=1000)
    e = limit("x = []\nwhile True:\n    x.append(1)", lim)
    assert "size limit of 1000 elements" in e.message
    e = limit("d = {}\ni = 0\nwhile True:\n    d[i] = i\n    i += 1", lim)
    assert "size limit of 1000 elements" in e.message
    e = limit("s = set()\ni = 0\nwhile True:\n    s.add(i)\n    i += 1", lim)
    assert "size limit of 1000 elements" in e.message


@pytest.mark.parametrize("src, op", [
    ("x = 10**10**10", "**"),
    ("x = 2 << 10**10", "<<"),
    ("x = pow(10, 10**6)", "**"),
    ("x = 3 ** 5000", "**"),
    ("x = 2 ** 4095\ny = x * x", "*"),
    ("x = 2\nwhile True:\n    x = x * x", "*"),
    ("x = 7\nx **= 10**8", "**"),
    ("x = 1\nx <<= 5000", "<<"),
    ("import math\nx = math.factorial(10**6)", "math.factorial"),
    ("import math\nx = math.comb(10**5, 5 * 10**4)", "math.comb"),
    ("import math\nx = math.prod([2**4000, 2**4000])", "*"),
])
def test_int_bits_limit(src, op):
    e = limit(src)
    assert e.message.startswith("integer size limit of 4096 bits reached: the result of " + op)
    assert e.message.endswith("(use --limit int-bits=N to raise it)")


def test_ints_within_the_limit_work():
    assert out("print(2 ** 4000 > 0, (2 ** 2000) * (2 ** 2000) > 0, 1 << 4000 > 0, pow(3, 10**9, 7))") == \
        "True True True 4\n"


@pytest.mark.parametrize("src", [
    "x = [0]\nfor i in range(60):\n    x = [x, x]\nprint(x)",
    "x = [0]\nfor i in range(60):\n    x = [x, x]\ns = str(x)",
    "x = [0]\ny = [0]\nfor i in range(60):\n    x = [x, x]\n    y = [y, y]\nprint(x == y)",
    "x = (0,)\nfor i in range(60):\n    x = (x, x)\nd = {x: 1}",
    "x = (0,)\nfor i in range(60):\n    x = (x, x)\ns = {x}",
    "x = (0,)\nfor i in range(60):\n    x = (x, x)\nprint(x in [(1,)])",
    "x = [0]\nfor i in range(60):\n    x = [x, x]\ns = f'{x}'",
    "x = [0]\nfor i in range(60):\n    x = [x, x]\ns = '{}'.format(x)",
    "x = [0]\nfor i in range(60):\n    x = [x, x]\ns = '%s' % (x,)",
    "x = [0]\nfor i in range(60):\n    x = [x, x]\nraise ValueError(x)",
    "x = [0]\nfor i in range(60):\n    x = [x, x]\ny = sorted([x, x])",
    "x = []\nfor i in range(100000):\n    x = [x]\nprint(x)",
])
def test_shared_or_deep_nesting_cannot_explode_in_c(src):
    e = limit(src, max_seconds=3.0)
    assert "limit" in e.message


def test_range_membership_of_non_ints_is_bounded():
    assert out("print(0.5 in range(10**15), 3.0 in range(10**15))") == "False True\n"
    e = limit("class_ = 'x'\nprint(class_ in range(10**15))", Limits(max_steps=100_000))
    assert "step limit" in e.message


def test_infinite_iterators_are_bounded():
    e = limit("x = list(iter(lambda: 0, 1))", Limits(max_steps=100_000))
    assert "limit" in e.message
    e = limit("print(any(iter(lambda: 0, 1)))", Limits(max_steps=100_000))
    assert "step limit" in e.message


def test_memory_error_is_a_limit():
    def oom():
        raise MemoryError

    # run() in-process installs no address-space cap, so the machine itself is out of
    # memory; under the CLI's cap the message names --limit memory (test_sandbox_memory.py)
    e = limit("oom()", predefined={"oom": oom})
    assert e.message == "out of memory"


def test_limits_do_not_leak_between_runs():
    limit("while True:\n    pass", Limits(timeout=0.2))
    assert out("print(sum(range(1000)))") == "499500\n"
    limit("x = 'a' * 10**10")
    assert out("print(len('a' * 1000))") == "1000\n"


def test_script_cannot_catch_limits():
    e = limit("try:\n    while True:\n        pass\nexcept Exception:\n    print('caught')\nfinally:\n    print('f')",
              Limits(max_steps=10_000))
    assert "step limit" in e.message
    r = run("try:\n    x = 'a' * 10**10\nexcept:\n    print('caught')")
    assert r.stdout == "" and r.error.type == "LimitError"


def test_limit_error_location_is_the_statement():
    e = limit("a = 1\nb = [0] * 10**10")
    assert (e.line, e.column) == (2, 5)
