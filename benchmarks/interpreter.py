"""The closure compiler's own speed: loop iterations, statements and script function calls
per second, and the import cost of the interpreter (no numpy in it).

    python benchmarks/interpreter.py

Prints the best of three runs of each workload, in µs per unit of work; compare before
and after a change to the interpreter on the same machine.
"""

from __future__ import annotations

import subprocess
import sys
import time

from autotrace.interpreter import Limits, parse_script, run_program

WORKLOADS = [
    ("loop iteration (y = y + 1)", "y = 0\nfor i in range(100000):\n    y = y + 1", 100_000),
    ("assignment statement", "for i in range(20000):\n" + "\n".join(f"    v{k} = i + {k}" for k in range(10)),
     200_000),
    ("script function call", "def f(a, b):\n    c = a + b\n    return c\ny = 0\nfor i in range(50000):\n    y = f(y, 1)",
     50_000),
]


def best_of(src: str, n: int = 3) -> float:
    program = parse_script(src, "speed.py")
    best = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        r = run_program(program, modules={}, limits=Limits())
        best = min(best, time.perf_counter() - t0)
        if r.error is not None:
            raise SystemExit(f"workload failed: {r.error}")
    return best


def main() -> None:
    for name, src, units in WORKLOADS:
        t = best_of(src)
        print(f"{name:32s} {t * 1e6 / units:8.3f} µs each  ({t:.3f} s for {units:,})")
    code = ("import sys, time; t = time.perf_counter(); import autotrace.interpreter; "
            "print(time.perf_counter() - t, 'numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    print(f"{'import autotrace.interpreter':32s} {float(out[0]) * 1e3:8.1f} ms  (numpy imported: {out[1]})")


if __name__ == "__main__":
    main()
