"""Speed budget of the closure compiler and the import cost of the package."""

from __future__ import annotations

import subprocess
import sys
import time

from autotrace.interpreter import Limits, parse_script, run_program


def best_of(src, n=3, **kw):
    program = parse_script(src, "speed.py")
    best = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        r = run_program(program, modules={}, limits=Limits(), **kw)
        best = min(best, time.perf_counter() - t0)
        assert r.error is None, r.error
    return best, r


def test_hundred_thousand_iterations_under_budget():
    elapsed, r = best_of("y = 0\nfor i in range(100000):\n    y = y + 1")
    assert r.globals["y"] == 100000
    assert elapsed < 0.25, f"{elapsed:.3f}s"


def test_per_statement_overhead():
    body = "\n".join(f"    v{k} = i + {k}" for k in range(10))
    elapsed, _ = best_of(f"for i in range(20000):\n{body}")
    per_statement = elapsed / 200_000
    assert per_statement < 1.5e-6, f"{per_statement * 1e6:.2f} us"


def test_function_calls_and_locals_are_reasonable():
    elapsed, r = best_of("def f(a, b):\n    c = a + b\n    return c\ny = 0\nfor i in range(50000):\n    y = f(y, 1)")
    assert r.globals["y"] == 50000
    assert elapsed < 0.5, f"{elapsed:.3f}s"


def test_import_is_light():
    code = ("import sys, time; t = time.perf_counter(); import autotrace.interpreter; "
            "print(time.perf_counter() - t, 'numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out[1] == "False"            # no numpy in the interpreter
    assert float(out[0]) < 0.5
