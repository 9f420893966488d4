"""Benchmarks: autotrace side by side with PyTorch on the same scripts.

Each script in benchmarks/scripts runs as a whole process under ``autotrace run`` and
under ``python SCRIPT`` with real PyTorch (when installed), alternating, ``--repeat``
times. The table gives medians of wall time and peak resident memory (the child's
``ru_maxrss``) and the ratio autotrace / PyTorch. ``explain`` and ``graph`` on a
2,000-node graph are timed on their own (PyTorch has no counterpart).

The scaling families (benchmarks/families.py) run one script at >= 3 sizes spanning
>= 100x and add the time per unit of work (µs per op, per element, per step ...): a
column that grows with the size is a cost that grows faster than the work.

usage: python benchmarks/run.py [--repeat N] [--only NAME] [--families] [--largest]
                                [--update-readme] [--caption TEXT]
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


RUN_LIMIT = 1800  # seconds; a child still running then is stopped and reported


def measure(argv, cwd) -> tuple[float, float, int]:
    """(wall seconds, peak RSS in MiB, exit code) of one child process."""
    import threading

    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    timer = threading.Timer(RUN_LIMIT, proc.kill)
    timer.start()
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    finally:
        timer.cancel()
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


def _median(xs):
    return statistics.median(xs) if xs else 0.0


def run_families(at, torch_ok, repeat, only, largest_only, tmp):
    """Rows (family, size, ...) for the scaling families; both sides alternate per run."""
    from families import FAMILIES, script, units

    rows = []
    for name, what, template, sizes, unit, kind, opts in FAMILIES:
        if only and only not in name:
            continue
        for n in (sizes[-1:] if largest_only else sizes):
            path = Path(tmp) / f"fam_{name}_{n}.py"
            path.write_text(script(template, n), encoding="utf-8")
            common = ["--timeout", "3600", "--max-steps", "1000000000"]
            if kind == "vs":
                argv = at + ["run", path.name] + common + opts
            elif kind == "json":
                argv = at + ["run", path.name, "--json"] + common + opts
            elif kind == "explain":
                argv = at + ["explain", path.name, "--no-color"] + common + opts
            else:
                argv = at + ["graph", path.name, "-o", str(Path(tmp) / "g.svg")] + common + opts
            a_wall, a_mem, t_wall, t_mem = [], [], [], []
            for i in range(repeat):
                print(f"{name} {n}: run {i + 1}/{repeat}", file=sys.stderr, flush=True)
                w, m, _ = measure(argv, tmp)
                a_wall.append(w)
                a_mem.append(m)
                if kind == "vs" and torch_ok:
                    w, m, _ = measure([sys.executable, path.name], tmp)
                    t_wall.append(w)
                    t_mem.append(m)
            aw, am, tw, tm = _median(a_wall), _median(a_mem), _median(t_wall), _median(t_mem)
            per = aw * 1e6 / units(name, n)
            rows.append(dict(name=name, what=what, n=n, unit=unit, aw=aw, am=am, tw=tw, tm=tm,
                             per=per, per_torch=tw * 1e6 / units(name, n) if tw else 0.0))
            print(family_table(rows[-1:]).splitlines()[-1], file=sys.stderr, flush=True)  # partial results survive
    return rows


def _size(n):
    return f"{n:,}"


def family_table(rows):
    header = ("family", "size", "autotrace", "PyTorch", "time ratio", "µs per unit (autotrace / PyTorch)",
              "autotrace RSS", "PyTorch RSS", "memory ratio")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for r in rows:
        per = f"{r['per']:.3g}" + (f" / {r['per_torch']:.3g}" if r["tw"] else "") + f" per {r['unit']}"
        lines.append("| " + " | ".join((
            r["what"], _size(r["n"]), f"{r['aw']:.2f} s", f"{r['tw']:.2f} s" if r["tw"] else "–",
            fmt_ratio(r["aw"], r["tw"]), per, f"{r['am']:.0f} MiB",
            f"{r['tm']:.0f} MiB" if r["tm"] else "–", fmt_ratio(r["am"], r["tm"]))) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default=None, help="run only cases and families whose name contains this")
    ap.add_argument("--families", action="store_true", help="run only the scaling families")
    ap.add_argument("--largest", action="store_true", help="families: only the largest size of each")
    ap.add_argument("--update-readme", action="store_true",
                    help="write start-up and the largest size of each family into README.md")
    ap.add_argument("--caption", default="", help="a note added to the README table's caption")
    args = ap.parse_args(argv)
    if args.update_readme:
        args.largest = True

    torch_ok = have_torch()
    at = autotrace_argv()
    # one warm-up of each, so both start from written bytecode and a warm file cache
    measure(at + ["run", "seed_startup.py"], SCRIPTS)
    if torch_ok:
        measure([sys.executable, "seed_startup.py"], SCRIPTS)
    rows = []
    cases = [] if args.families else CASES
    if args.update_readme:
        cases = CASES[:1]  # start-up
    for script, what, opts in cases:
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
        if not args.families and not args.update_readme:
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
        sys.path.insert(0, str(HERE))
        fam = run_families(at, torch_ok, args.repeat, args.only, args.largest, tmp)

    parts = []
    if rows:
        header = ("benchmark", "autotrace", "PyTorch", "time ratio", "autotrace RSS", "PyTorch RSS", "memory ratio")
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        parts.append("\n".join(lines))
    if fam:
        parts.append(family_table(fam))
    table = "\n\n".join(parts)
    print(table)
    if args.update_readme:
        readme = ROOT / "README.md"
        text = readme.read_text(encoding="utf-8")
        start, end = "<!-- benchmarks:start -->", "<!-- benchmarks:end -->"
        if start in text and end in text:
            before, rest = text.split(start, 1)
            _, after = rest.split(end, 1)
            note = (f"\nMedians of {args.repeat} alternating whole-process runs on one machine "
                    f"({os.cpu_count()} cores), `python benchmarks/run.py --update-readme`; the largest "
                    "size of each scaling family (all sizes: `python benchmarks/run.py --families`)."
                    + (f" {args.caption}" if args.caption else "") + "\n\n")
            readme.write_text(before + start + note + table + "\n" + end + after, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
