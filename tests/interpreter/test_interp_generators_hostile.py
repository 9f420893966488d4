"""Hostile generator scripts: endless generators, recursive and deeply nested delegation,
huge values, errors and limits inside generator bodies and their finally blocks,
generators left suspended or reaching past the run, internals out of reach. Each ends
with a clean script error or a LimitError at the right line, never a traceback or a
hang."""

from __future__ import annotations

import subprocess
import sys

import pytest

from autotrace.interpreter import Limits

from test_interp_generators import _indent, err, out, run



def test_endless_generator_consumed_forever_stops_at_the_loop_limit():
    e = err("""
        def forever():
            while True:
                yield 1
        for x in forever():
            pass
    """, Limits(max_loop_iterations=5000))
    assert (e.type, e.phase, e.line) == ("LimitError", "limit", 3)   # the generator's loop counts first
    e = err("""
        def forever():
            while True:
                yield 1
        print(list(forever()))
    """, Limits(max_sequence=5000))
    assert e.type == "LimitError" and "size limit" in e.message
    e = err("""
        def forever():
            while True:
                yield 1
        it = forever()
        while True:
            next(it)
    """, Limits(max_steps=20_000))
    assert e.type == "LimitError" and "step" in e.message
    e = err("""
        def forever():
            while True:
                yield 1
        print(sum(forever()))
    """, Limits(max_loop_iterations=5000))
    assert (e.type, e.line) == ("LimitError", 3)


@pytest.mark.parametrize("src, line", [
    ("def g():\n    yield from g()\nfor x in g():\n    pass\n", 2),
    ("def g(n):\n    yield n\n    yield from g(n + 1)\nfor x in g(0):\n    pass\n", 3),
    ("def g():\n    for x in g():\n        yield x\nprint(list(g()))\n", 2),
])
def test_recursive_delegation_reaches_the_recursion_limit(src, line):
    e = err(src)
    assert (e.type, e.phase, e.line) == ("LimitError", "limit", line)
    assert "recursion limit of 200" in e.message


def _deeply_nested_delegation() -> str:
    body = "for x in g(n + 1):\n    yield x"
    for _ in range(9):
        body = f"try:\n{_indent(body)}\nexcept ValueError:\n    pass"
        body = f"with K():\n{_indent(body)}"
    return ("class K:\n    def __enter__(self):\n        return self\n    def __exit__(self, *a):\n"
            "        return False\ndef g(n):\n    yield n\n" + _indent(body) + "\nprint(sum(g(0)))\n")


@pytest.mark.parametrize("src", [
    "def g(n):\n    if n >= 0:\n        yield from g(n + 1)\nprint(list(g(0)))\n",
    "def f(n):\n    return next(g(n))\ndef g(n):\n    yield f(n + 1)\nprint(f(0))\n",
    "def g(n):\n    yield list(g(n + 1))\nprint(list(g(0)))\n",
    _deeply_nested_delegation(),
], ids=["yield-from", "through-next", "through-list", "nested-blocks"])
def test_unbounded_generator_recursion_ends_cleanly_whatever_the_recursion_limit(src):
    # each resumption re-enters Python's C evaluator: with the script recursion limit
    # raised, the run must end at Python's recursion limit, not overflow the C stack
    e = err(src, Limits(max_recursion=100_000))
    assert e.type == "LimitError" and "recursion limit" in e.message
    e = err(src)
    assert e.type == "LimitError" and "recursion limit" in e.message


def test_deep_but_bounded_chain_runs():
    assert out("""
        def chain(n):
            if n == 0:
                yield "bottom"
                return 0
            r = yield from chain(n - 1)
            return r + 1
        def top():
            r = yield from chain(150)
            yield r
        print(list(top()))
    """) == "['bottom', 150]\n"


def test_huge_values_are_refused_at_the_yield():
    e = err("""
        def g():
            yield [0] * (10 ** 10)
        next(g())
    """)
    assert (e.type, e.line) == ("LimitError", 3)


def test_errors_inside_a_generator_body_report_its_line():
    e = err("""
        def g():
            x = 1
            yield x
            y = x / 0
            yield y
        for v in g():
            print(v)
    """)
    assert (e.type, e.line, e.column) == ("ZeroDivisionError", 5, 9)
    e = err("""
        def g():
            yield 1
        gen = g()
        next(gen)
        gen.throw(ValueError("thrown"))
    """)
    assert (e.type, e.message, e.line) == ("ValueError", "thrown", 3)


@pytest.mark.parametrize("attr", ["gi_frame", "gi_code", "gi_running", "_pg", "_state", "__next__"])
def test_generator_internals_are_not_reachable(attr):
    e = err(f"def g():\n    yield 1\nx = g()\nprint(x.{attr})\n")
    assert e.type == "AttributeError" and e.line == 4


def test_finally_blocks_end_cleanly():
    # a finally that loops forever when the generator is collected, at a close and at the end
    for tail in ("for x in k():\n    break\n", "x = k()\nnext(x)\nx.close()\n", "x = k()\nnext(x)\n"):
        src = "def k():\n    try:\n        yield 1\n    finally:\n        while True:\n            pass\n" + tail
        e = err(src, Limits(max_loop_iterations=1000))
        assert (e.type, e.line) == ("LimitError", 5), tail
    # a run ended by a limit runs no finally block of a suspended generator
    res = run("""
        def k():
            try:
                yield 1
            finally:
                print("finally")
        x = k()
        next(x)
        while True:
            pass
    """, Limits(max_loop_iterations=1000))
    assert res.error.type == "LimitError" and res.stdout == ""
    # an error in a finally block at the end of the run is ignored, as CPython ignores it
    src = """
        def k():
            try:
                yield 1
            finally:
                print("cleanup")
                raise ValueError("ignored")
        x = k()
        next(x)
        print("end")
    """
    assert out(src) == "end\ncleanup\n"


def test_generators_survive_runs_without_running_script_code():
    src = """
        def k():
            try:
                yield 1
            finally:
                print("finally")
        x = k()
        next(x)
    """
    res = run(src)
    assert res.error is None and res.stdout == "finally\n"
    with pytest.raises(RuntimeError, match="resumed outside of a script run"):
        next(res.globals["x"])
    res = run("def k():\n    print('body')\n    yield 1\nx = k()\n")
    assert res.error is None and res.stdout == ""
    with pytest.raises(RuntimeError, match="resumed outside of a script run"):
        next(res.globals["x"])


def test_cli_exits_cleanly(tmp_path):
    script = tmp_path / "g.py"
    script.write_text("def g():\n    yield from g()\nprint(list(g()))\n")
    proc = subprocess.run([sys.executable, "-m", "autotrace.cli.main", "run", str(script)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr + proc.stdout
    assert "g.py:2:" in proc.stderr and "LimitError: recursion limit" in proc.stderr
