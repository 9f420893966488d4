"""Fuzz campaign: mutated scripts through every command, counting internal errors and hangs.

Each case is a random PyTorch-style script (the grammar of tests/test_fuzz_engine.py plus
hostile arguments) given to one command — ``run``, ``explain`` (sometimes ``--verify``),
``graph`` (DOT) or ``check`` (``--update`` then a compare) — with randomly mutated CLI
arguments. The command runs through the real CLI entry point in a forked child (so the
import cost is paid once), with its output sent to /dev/null, under a memory cap; the
parent kills a child still running ``--timeout`` + 10 s later and counts it as a hang.
An exit status of 70 (internal error) is counted and its script and traceback saved.

    python benchmarks/fuzz_campaign.py -n 10000 --jobs 2 --seed 1 --out /tmp/fuzz

CI samples it small: ``python benchmarks/fuzz_campaign.py -n 50``. Not part of the test run.
Exit status 0 when there was no internal error and no hang, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import signal
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

from test_fuzz_engine import BINOPS, CALLS, METHODS, NAMES, PRELUDE  # noqa: E402

ATOMS = ["a", "b", "c", "m", "i", "y", "v", "0", "1", "2", "-1", "0.5", "float('nan')", "True", "None",
         "[1, 2]", "'x'", "(0, 1)", "a.shape", "lin", "lin.weight", "torch.ones(3)", "torch.zeros(2, 3)",
         "torch.arange(3)", "torch.tensor(0.0)", "torch.ones(3, 3)", "torch.tensor([1, 2, 3])",
         "'\\x1b[2J\\u202e'", "10**400", "'９'", "y.grad_fn", "a.grad", "opt.param_groups[0]",
         "n", "np.ones(3)", "np.float32(0.1)", "b.detach().numpy()", "np.random.rand(3)"]
HOSTILE_METHODS = [".grad_fn._saved_exponent", ".grad_fn._saved_self", ".grad_fn.next_functions",
                   ".grad_fn.register_hook(lambda gi, go: 5)", ".grad_fn.register_prehook(lambda g: [g])",
                   ".register_hook(lambda g: 'x')", ".to(dtype=5)", ".sum(dtype='float32')", ".repeat(10**6)",
                   ".expand(10**5, 10**4)", ".tolist()", ".numpy()", ".type(5)", ".new_ones(3)"]
HOSTILE_CALLS = ["torch.zeros_like({0})", "torch.ones_like({0}, dtype={1})", "torch.full_like({0}, {1})",
                 "torch.equal({0}, {1})", "torch.allclose({0}, {1})", "torch.tensor({0}, dtype={1})",
                 "torch.zeros(2, dtype={0})", "F.nll_loss({0}, i, weight={1})", "format({0}, '>９９９９９９')",
                 "int('1' * 5000, 2)", "math.comb(10**5, {0})", "torch.set_printoptions(precision=10**6)",
                 "opt.param_groups[0]['params'].append({0})", "print({0}, {1})",
                 "np.zeros((10**5, 10**5))", "np.ones(10**4)[:, None] * np.ones(10**5)", "np.arange(1e12)",
                 "np.load({0})", "np.set_printoptions(threshold={0})", "np.array([{0}] * 1000)",
                 "np.random.seed({0})", "np.repeat({0}, 10**9)", "np.ones((10**4, 10**4)) @ np.ones((10**4, 10**4))"]
OPTS = {
    "run": [["--json"], ["--no-color"], ["--width", "40"], ["--width", "7"], ["--limit", "output=50"],
            ["--limit", "elements=10"], ["--limit", "flops=100"], ["--limit", "sequence=3"], ["--max-steps", "50"],
            ["--limit", "bogus=1"], ["--limit", "int-bits=x"], ["--timeout", "0"], ["--set", "q=1"],
            ["--limit", "memory=260"]],
    "explain": [["--json"], ["--format", "md"], ["--verify"], ["--all-steps"], ["--pass", "1"], ["--pass", "9"],
                ["--wrt", "a"], ["--wrt", "zz"], ["--of", "y"], ["--of", "b"], ["--format", "x"], ["--width", "40"],
                ["--limit", "memory=300"]],
    "graph": [["--values"], ["--saved"], ["--show-none"], ["--of", "y"], ["--pass", "1"], ["--collapse"],
              ["--max-nodes", "1"], ["--max-nodes", "0"], ["--json"], ["--format", "png"]],
    "check": [["--json"], ["--rtol", "0"], ["--rtol", "-1"], ["--atol", "nan"], ["--update"]],
}
TIMEOUT = 3.0


def expr(r: random.Random, depth: int) -> str:
    if depth <= 0 or r.random() < 0.3:
        return r.choice(ATOMS)
    k = r.random()
    if k < 0.25:
        return f"({expr(r, depth - 1)} {r.choice(BINOPS)} {expr(r, depth - 1)})"
    if k < 0.55:
        return f"({expr(r, depth - 1)}){r.choice(METHODS if r.random() < 0.75 else HOSTILE_METHODS)}"
    calls = CALLS if r.random() < 0.7 else HOSTILE_CALLS
    return r.choice(calls).format(f"({expr(r, depth - 1)})", f"({expr(r, depth - 1)})")


def statement(r: random.Random) -> str:
    k = r.random()
    if k < 0.5:
        return f"{r.choice(NAMES)} = {expr(r, 2)}"
    if k < 0.65:
        return f"print({expr(r, 2)})"
    if k < 0.8:
        return f"{expr(r, 2)}.backward()" if r.random() < 0.5 else f"{r.choice(NAMES)}.sum().backward()"
    s = f"{r.choice(NAMES)} = {expr(r, 2)}"
    return "try:\n    " + s + "\nexcept Exception as e:\n    print(repr(e))"


def script(r: random.Random) -> str:
    body = "\n".join(statement(r) for _ in range(r.randint(1, 6)))
    return "import math\n" + PRELUDE + body + "\n"


def argv(r: random.Random, path: str, workdir: str) -> tuple[str, list[str]]:
    cmd = r.choice(["run", "explain", "graph", "check"])
    args = [cmd, path, "--timeout", str(TIMEOUT)]
    for _ in range(r.randint(0, 2)):
        args += r.choice(OPTS[cmd])
    if cmd == "graph":
        args += ["-o", "-", "--format", "dot"] if "--format" not in args else ["-o", os.path.join(workdir, "g.png")]
    if cmd == "check" and "--update" not in args and r.random() < 0.7:
        args = ["check", "--update", path, "--timeout", str(TIMEOUT)]
    return cmd, args


def child(args: list[str], err_path: str) -> None:
    """Runs in the forked child: the CLI's main() with stdout to /dev/null."""
    resource.setrlimit(resource.RLIMIT_AS, (3 * 1024 ** 3, 3 * 1024 ** 3))
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    err = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.dup2(err, 2)
    sys.argv = ["autotrace"] + args
    from autotrace.cli.main import main
    code = 0
    try:
        main()
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:
        import traceback
        traceback.print_exc()
        code = 71
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except Exception:
        pass
    os._exit(code)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-n", type=int, default=200, help="number of scripts")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", default=None, help="directory for failing cases (default: a temporary one)")
    ap.add_argument("--budget", type=float, default=None, help="stop after this many seconds")
    ns = ap.parse_args()
    out = ns.out or tempfile.mkdtemp(prefix="fuzz-")
    os.makedirs(out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="fuzz-work-")
    import autotrace.cli.main  # noqa: F401  - import once, before forking
    from autotrace.cli import check, explain, graph, run  # noqa: F401
    from autotrace import explain as _e, runner  # noqa: F401
    from autotrace.render import dot, explain_console, json as _j  # noqa: F401
    from autotrace.torch_api import modules
    modules()

    r = random.Random(ns.seed)
    counts = {"cases": 0, "internal": 0, "hang": 0}
    per_cmd: dict[str, int] = {}
    exits: dict[int, int] = {}
    running: dict[int, tuple] = {}
    start = time.monotonic()

    def reap(block: bool) -> None:
        while running:
            pid, status = os.waitpid(-1, 0 if block else os.WNOHANG)
            if pid == 0:
                break
            info = running.pop(pid, None)
            if info is None:
                continue
            n, t0, src, args, err_path, _ = info
            code = os.waitstatus_to_exitcode(status)
            if info[5] == "killed":
                counts["hang"] += 1
                _save(out, n, "hang", src, args, err_path)
            elif code in (70, 71) or code < 0:
                counts["internal"] += 1
                _save(out, n, f"exit{code}", src, args, err_path)
            exits[code] = exits.get(code, 0) + 1
            try:
                os.unlink(err_path)
            except OSError:
                pass
            block = False

    for n in range(ns.n):
        if ns.budget is not None and time.monotonic() - start > ns.budget:
            break
        src = script(r)
        d = os.path.join(work, f"c{n % (ns.jobs * 4)}")
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "s.py")
        cmd, args = argv(r, path, d)
        while len(running) >= ns.jobs:
            _kill_overdue(running)
            reap(block=False)
            if len(running) >= ns.jobs:
                time.sleep(0.005)
        with open(path, "w", encoding="utf-8") as f:
            f.write(src)
        for stale in ("s.expected.json",):
            if "--update" in args and os.path.exists(os.path.join(d, stale)):
                os.unlink(os.path.join(d, stale))
        err_path = os.path.join(work, f"err{n}.txt")
        pid = os.fork()
        if pid == 0:
            child(args, err_path)
        running[pid] = (n, time.monotonic(), src, args, err_path, None)
        counts["cases"] += 1
        per_cmd[cmd] = per_cmd.get(cmd, 0) + 1
    while running:
        _kill_overdue(running)
        reap(block=False)
        time.sleep(0.01)
    took = time.monotonic() - start
    print(f"{counts['cases']} cases in {took:.0f} s ({', '.join(f'{k} {v}' for k, v in sorted(per_cmd.items()))}); "
          f"internal errors (exit 70): {counts['internal']}; hangs: {counts['hang']}; "
          f"exit codes: {dict(sorted(exits.items()))}; failing cases in {out}")
    return 0 if counts["internal"] == 0 and counts["hang"] == 0 else 1


def _kill_overdue(running) -> None:
    now = time.monotonic()
    for pid, info in list(running.items()):
        if info[5] is None and now - info[1] > TIMEOUT + 10:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            running[pid] = info[:5] + ("killed",)


def _save(out, n, kind, src, args, err_path) -> None:
    base = os.path.join(out, f"{kind}-{n}")
    with open(base + ".py", "w", encoding="utf-8") as f:
        f.write(src)
    try:
        with open(err_path, encoding="utf-8", errors="replace") as f:
            err = f.read()
    except OSError:
        err = ""
    with open(base + ".txt", "w", encoding="utf-8") as f:
        f.write("autotrace " + " ".join(args) + "\n\n" + err[-20000:])


if __name__ == "__main__":
    sys.exit(main())
