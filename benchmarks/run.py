"""Benchmarks: autotrace side by side with PyTorch on the same scripts.

Each script in benchmarks/scripts runs as a whole process under ``autotrace run`` and
under ``python SCRIPT`` with real PyTorch (when installed), alternating, ``--repeat``
times. The table gives medians of wall time and peak resident memory (the child's
``ru_maxrss``) and the ratio autotrace / PyTorch. ``explain`` and ``graph`` on a
2,000-node graph are timed on their own (PyTorch has no counterpart).

usage: python benchmarks/run.py [--repeat N] [--only NAME] [--update-readme]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SCRIPTS = HERE / "scripts"

# (script, what it measures, autotrace options)
CASES = [
    ("seed_startup.py", "start-up: the seed example", []),
    ("scalar_chain_100k.py", "100k-step scalar chain + backward", ["--max-steps", "100000000", "--timeout", "600"]),
    ("mlp_train.py", "3-layer 1024-wide MLP, 20 SGD steps", ["--timeout", "600"]),
    ("deep_tanh_memory.py", "200 tanh layers on 1000x2000 + backward", ["--timeout", "600"]),
    ("fan_in_20k.py", "20,000-term fan-in", ["--timeout", "600"]),
]
COMMANDS = [
    ("explain", "explain on a 2,000-node graph", ["explain", "graph_2000.py", "--no-color", "--timeout", "600"]),
    ("graph", "graph (SVG) of a 2,000-node graph", ["graph", "graph_2000.py", "-o", "{tmp}/g.svg", "--timeout", "600"]),
]


# Children run as a user's would: with bytecode caching on (some sandboxes turn it off,
# which would charge autotrace for recompiling its sources at every start).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def measure(argv, cwd) -> tuple[float, float, int]:
    """(wall seconds, peak RSS in MiB, exit code) of one child process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode(errors="replace")
    proc.stderr.close()
    if proc.returncode != 0:
        sys.stderr.write(f"{' '.join(argv)} exited {proc.returncode}:\n{err[-2000:]}\n")
    return wall, usage.ru_maxrss / 1024.0, proc.returncode


def autotrace_argv() -> list[str]:
    """The ``autotrace`` console script of the interpreter that runs PyTorch (beside
    ``sys.executable``), so neither side goes through a version manager's shim on PATH."""
    local = Path(sys.executable).parent / "autotrace"
    if local.is_file() and os.access(local, os.X_OK):
        return [str(local)]
    exe = shutil.which("autotrace")
    return [exe] if exe else [sys.executable, "-m", "autotrace.cli.main"]


def have_torch() -> bool:
    return subprocess.run([sys.executable, "-c", "import torch"], capture_output=True).returncode == 0


def fmt_ratio(a, b):
    return f"{a / b:.2f}×" if b else "–"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default=None, help="run only cases whose name contains this")
    ap.add_argument("--update-readme", action="store_true", help="write the table into README.md")
    args = ap.parse_args(argv)

    torch_ok = have_torch()
    at = autotrace_argv()
    # one warm-up of each, so both start from written bytecode and a warm file cache
    measure(at + ["run", "seed_startup.py"], SCRIPTS)
    if torch_ok:
        measure([sys.executable, "seed_startup.py"], SCRIPTS)
    rows = []
    for script, what, opts in CASES:
        if args.only and args.only not in script:
            continue
        a_wall, a_mem, t_wall, t_mem = [], [], [], []
        for i in range(args.repeat):
            print(f"{script}: run {i + 1}/{args.repeat}", file=sys.stderr, flush=True)
            w, m, _ = measure(at + ["run", script] + opts, SCRIPTS)
            a_wall.append(w)
            a_mem.append(m)
            if torch_ok:
                w, m, _ = measure([sys.executable, script], SCRIPTS)
                t_wall.append(w)
                t_mem.append(m)
        aw, am = statistics.median(a_wall), statistics.median(a_mem)
        tw = statistics.median(t_wall) if t_wall else 0
        tm = statistics.median(t_mem) if t_mem else 0
        rows.append((what, f"{aw:.2f} s", f"{tw:.2f} s" if tw else "–", fmt_ratio(aw, tw),
                     f"{am:.0f} MiB", f"{tm:.0f} MiB" if tm else "–", fmt_ratio(am, tm)))
    with tempfile.TemporaryDirectory() as tmp:
        for name, what, cmd in COMMANDS:
            if args.only and args.only not in name:
                continue
            walls, mems = [], []
            for i in range(args.repeat):
                print(f"{name}: run {i + 1}/{args.repeat}", file=sys.stderr, flush=True)
                w, m, _ = measure(at + [c.format(tmp=tmp) for c in cmd], SCRIPTS)
                walls.append(w)
                mems.append(m)
            rows.append((what, f"{statistics.median(walls):.2f} s", "–", "–",
                         f"{statistics.median(mems):.0f} MiB", "–", "–"))

    header = ("benchmark", "autotrace", "PyTorch", "time ratio", "autotrace RSS", "PyTorch RSS", "memory ratio")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    table = "\n".join(lines)
    print(table)
    if args.update_readme:
        readme = ROOT / "README.md"
        text = readme.read_text(encoding="utf-8")
        start, end = "<!-- benchmarks:start -->", "<!-- benchmarks:end -->"
        if start in text and end in text:
            before, rest = text.split(start, 1)
            _, after = rest.split(end, 1)
            note = (f"\nMedians of {args.repeat} alternating runs on one machine "
                    f"({os.cpu_count()} cores), `python benchmarks/run.py --update-readme`.\n\n")
            readme.write_text(before + start + note + table + "\n" + end + after, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
