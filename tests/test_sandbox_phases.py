"""The limits cover the whole command, through the CLI under a memory ulimit: reading
the script, running it, explaining, verifying, drawing, rendering and writing end at
the time limit with one line naming the phase and the option, exit 1; uninterruptible
numpy calls are refused before they start; warnings and views are bounded."""

from __future__ import annotations

import json
import os
import time

import pytest

from test_sandbox_inputs import run_capped

CHAIN = ("import torch\nx = torch.ones(1, requires_grad=True)\ny = x\nfor i in range({n}):\n"
         "    y = y * 1.0001\ny.sum().backward()\n")


def _one_limit_line(proc, script, phase, option="--timeout"):
    assert proc.returncode == 1, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if "LimitError" in ln]
    assert len(lines) == 1, proc.stderr[-2000:]
    assert lines[0].startswith(f"{script}: error: LimitError: ")
    assert f"reached while {phase}" in lines[0] and f"(use {option}" in lines[0], lines[0]


def test_a_fifo_script_ends_at_the_time_limit(tmp_path):
    fifo = tmp_path / "s.py"
    os.mkfifo(fifo)
    start = time.monotonic()
    proc = run_capped("run", "s.py", "--timeout", "1", cwd=tmp_path, timeout=30)
    assert time.monotonic() - start < 1 + 5
    _one_limit_line(proc, "s.py", "reading the script")


def test_process_substitution_still_works(tmp_path):
    import subprocess
    from helpers import autotrace_cmd
    cmd = " ".join(autotrace_cmd()) + " run --json <(echo 'print(6 * 7)')"
    proc = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["stdout"] == "42\n"


def test_a_fifo_output_nobody_reads_ends_at_the_time_limit(tmp_path):
    os.mkfifo(tmp_path / "g.dot")
    proc = run_capped("graph", "-e", "import torch\nx = torch.ones(1, requires_grad=True)\ny = (x * 2).sum()",
                      "-o", "g.dot", "--timeout", "4", cwd=tmp_path, timeout=30)
    _one_limit_line(proc, "<expr>", "")   # writing (or, on a loaded machine, an earlier graph phase)


def test_check_gives_each_script_its_own_clock(tmp_path):
    (tmp_path / "big.py").write_text(CHAIN.format(n=30000), encoding="utf-8")
    (tmp_path / "ok.py").write_text("x = 1\n", encoding="utf-8")
    os.mkfifo(tmp_path / "fifo.py")
    proc = run_capped("check", "--update", "fifo.py", "ok.py", "--timeout", "6", cwd=tmp_path, timeout=90)
    assert proc.returncode == 1, proc.stderr
    assert "fifo.py: error: LimitError: time limit of 6 s reached while reading the script" in proc.stderr
    assert (tmp_path / "ok.expected.json").is_file()


@pytest.mark.parametrize("body, fragment", [
    ("a = torch.ones(1100, 1100, dtype=torch.int64)\nb = a @ a",
     "a matrix product of 1100x1100 and 1100x1100 (int64) would cost about 6.66e+10 floating-point operations, "
     "over the work limit of 5e+10 for one operation (use --limit flops=N to raise it)"),
    ("a = torch.ones(1, 1400, 1400).expand(10, 1400, 1400)\nb = a.bmm(a)", "over the work limit of 5e+10"),
    ("b = torch.ones(3000, 3000)\nc = torch.mm(b, b)", "a matrix product of 3000x3000 and 3000x3000 (float32)"),
])
def test_uninterruptible_matmuls_are_refused_before_they_start(tmp_path, body, fragment):
    (tmp_path / "s.py").write_text("import torch\n" + body + "\n", encoding="utf-8")
    start = time.monotonic()
    proc = run_capped("run", "s.py", "--timeout", "60", cwd=tmp_path)
    assert proc.returncode == 1 and fragment in proc.stderr, proc.stderr
    assert time.monotonic() - start < 30


def test_the_work_limit_can_be_raised(tmp_path):
    (tmp_path / "s.py").write_text("import torch\na = torch.ones(300, 300, dtype=torch.int64)\n"
                                   "print((a @ a)[0, 0].item())\n", encoding="utf-8")
    assert "over the work limit" in run_capped("run", "s.py", "--limit", "flops=1000000", cwd=tmp_path).stderr
    proc = run_capped("run", "s.py", "--json", cwd=tmp_path)
    assert json.loads(proc.stdout)["stdout"] == "300\n"


def test_non_leaf_grad_warnings_are_bounded(tmp_path):
    (tmp_path / "s.py").write_text("import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\n"
                                   "for i in range(200000):\n    g = y.grad\n", encoding="utf-8")
    proc = run_capped("run", "s.py", "--json", "--timeout", "60", cwd=tmp_path)
    doc = json.loads(proc.stdout)
    assert len(doc["warnings"]) == 10 and len(proc.stdout) < 100_000
    assert {w["line"] for w in doc["warnings"]} == {5}


def test_warnings_count_against_the_output_limit(tmp_path):
    (tmp_path / "s.py").write_text("import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\n"
                                   "g = y.grad\n", encoding="utf-8")
    proc = run_capped("run", "s.py", "--limit", "output=100", cwd=tmp_path)
    assert proc.returncode == 1 and "output limit of 100 characters reached" in proc.stderr


def test_huge_print_precision_does_not_reach_the_table(tmp_path):
    (tmp_path / "s.py").write_text("import torch\ntorch.set_printoptions(precision=3_000_000)\n"
                                   "x = torch.ones(3, requires_grad=True) / 3\n", encoding="utf-8")
    start = time.monotonic()
    proc = run_capped("run", "s.py", "--no-color", "--timeout", "20", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "0.333333333333333314829616256247" in proc.stdout or "0.3333333432674407958984375" in proc.stdout
    assert len(proc.stdout) < 10_000 and time.monotonic() - start < 15


def test_one_tensor_under_many_names_is_recorded_once(tmp_path):
    lines = ["import torch", "x = torch.ones(10**6)", "a0 = x"] + [f"a{i} = a{i - 1}" for i in range(1, 300)]
    (tmp_path / "s.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = run_capped("run", "s.py", "--json", "--timeout", "60", cwd=tmp_path)
    doc = json.loads(proc.stdout)
    assert len(doc["variables"]) == 301
    assert doc["variables"]["a299"]["summary"] == doc["variables"]["x"]["summary"]


def test_memory_limit_outside_the_script_is_one_line(tmp_path):
    """A cap too small for loading the engine: the memory limit is one line naming the
    phase and the option, never an interpreter traceback."""
    (tmp_path / "big.py").write_text(CHAIN.format(n=3000), encoding="utf-8")
    proc = run_capped("explain", "big.py", "--limit", "memory=200", "--timeout", "60", cwd=tmp_path)
    _one_limit_line(proc, "big.py", "", option="--limit memory=MiB")
    assert "memory limit of 200 MiB reached while " in proc.stderr


def test_verify_reruns_share_the_command_deadline(tmp_path):
    """The script runs at once, but moved by --verify's ±h it spins: the re-runs end at the
    command's one deadline with the limit naming the phase, not with a note and exit 0."""
    (tmp_path / "s.py").write_text("import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\n"
                                   "y.backward()\nwhile x[0].item() != 1.0:\n    pass\n", encoding="utf-8")
    start = time.monotonic()
    proc = run_capped("explain", "s.py", "--verify", "--timeout", "3", cwd=tmp_path, timeout=60)
    assert time.monotonic() - start < 3 + 8
    _one_limit_line(proc, "s.py", "verifying the gradients (--verify)")
    assert "time limit of 3 s reached" in proc.stderr and proc.stdout == ""


@pytest.mark.parametrize("body, fragment", [
    ("a = torch.zeros(10**8)\nb = a.sort()", "a sort of 100,000,000 elements would cost about 2.66e+11"),
    ("a = torch.zeros(10**8)\nb = a.argsort(descending=True)", "a sort of 100,000,000 elements"),
    ("a = torch.zeros(10**8)\nb = a.topk(3)", "a sort of 100,000,000 elements"),
    ("a = torch.zeros(10**8)\nb = a.kthvalue(3)", "a sort of 100,000,000 elements"),
    ("a = torch.zeros(10**8)\nb = a.median()", "a sort of 100,000,000 elements"),
    ("a = torch.zeros(10, 10**7)\nb = a.median(dim=1)", "a sort of 100,000,000 elements would cost about 2.33e+11"),
    ("b = torch.multinomial(torch.ones(1000, 100000), 2)", "a sort of 100,000,000 elements would cost about 1.66e+11"),
    ("a = torch.zeros(1, 64, 400, 400)\nw = torch.zeros(64, 64, 31, 31)\nb = torch.nn.functional.conv2d(a, w)",
     "a convolution of 1x64x400x400 with 64x64x31x31 would cost about 1.08e+12"),
    ("a = torch.zeros(1, 1, 10**6)\nw = torch.zeros(1, 1, 10**5)\nb = torch.nn.functional.conv1d(a, w)",
     "a convolution of 1x1x1000000 with 1x1x100000 would cost about 1.8e+11"),
    ("a = torch.zeros(1, 64, 400, 400)\nw = torch.zeros(64, 64, 31, 31)\n"
     "b = torch.nn.functional.conv_transpose2d(a, w)",
     "a transposed convolution of 1x64x400x400 with 64x64x31x31 would cost about 1.26e+12"),
    ("w = torch.empty(10000, 8000)\ntorch.nn.init.orthogonal_(w)",
     "the QR decomposition of a 10000x8000 matrix would cost about 1.88e+12"),
    ("b = torch.logcumsumexp(torch.zeros(10**8), 0)",
     "a running log-sum-exp of 100,000,000 elements would cost about 1e+11"),
    ("b = torch.nn.functional.one_hot(torch.tensor([10**9]))",
     "a tensor of 1,000,000,001 elements is over the limit of 100,000,000 elements per tensor"),
    ("b = torch.nn.functional.pad(torch.ones(10), (10**9, 10**9))",
     "a tensor of 2,000,000,010 elements is over the limit of 100,000,000 elements per tensor"),
    ("a = torch.zeros(20000, 300)\nb = torch.cdist(a, a)",
     "a tensor of 120,000,000,000 elements is over the limit of 100,000,000 elements per tensor"),
])
def test_long_single_numpy_calls_are_refused_before_they_start(tmp_path, body, fragment):
    """Sorts, convolutions, QR, running log-sum-exps, pairwise distances, one-hot and
    padding are single numpy calls the time limit cannot interrupt: over the work (or
    size) limit they are refused at once, one line."""
    (tmp_path / "s.py").write_text("import torch\n" + body + "\n", encoding="utf-8")
    start = time.monotonic()
    proc = run_capped("run", "s.py", "--timeout", "60", cwd=tmp_path)
    assert time.monotonic() - start < 30
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ": error: " in ln]
    assert len(lines) == 1 and lines[0].startswith("s.py:") and fragment in lines[0], proc.stderr
    assert lines[0].endswith("to raise it)")


def test_sorts_and_convolutions_under_the_work_limit_still_run(tmp_path):
    (tmp_path / "s.py").write_text(
        "import torch\na = torch.arange(10**6, 0, -1).float()\nprint(a.sort().values[:3].tolist(), a.median().item())\n"
        "x = torch.ones(1, 2, 8, 8)\nw = torch.ones(3, 2, 3, 3)\nprint(torch.nn.functional.conv2d(x, w).sum().item())\n"
        "print(torch.nn.functional.conv_transpose2d(x, w.transpose(0, 1)).sum().item())\n", encoding="utf-8")
    proc = run_capped("run", "s.py", "--json", "--limit", "flops=100000000000", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["stdout"] == "[1.0, 2.0, 3.0] 500000.0\n1944.0\n3456.0\n"


def test_the_alarm_firing_as_the_command_ends_is_no_internal_error(tmp_path, monkeypatch, capsys):
    """SIGALRM can land inside the final stop_command(), after the command's work is done:
    the command ends as it would have, not with a LimitExceeded traceback (exit 70)."""
    import sys

    from autotrace.cli.main import main
    from autotrace.interpreter import limits

    real, calls = limits.stop_command, []

    def stop_late():
        calls.append(1)
        if len(calls) == 1:
            raise limits.command_timeout()
        real()

    (tmp_path / "s.py").write_text("print(6 * 7)\n", encoding="utf-8")
    monkeypatch.setattr(limits, "stop_command", stop_late)
    monkeypatch.setattr(sys, "argv", ["autotrace", "run", str(tmp_path / "s.py"), "--json"])
    with pytest.raises(SystemExit) as exit_:
        main()
    assert exit_.value.code in (0, None) and len(calls) == 2
    assert json.loads(capsys.readouterr().out)["stdout"] == "42\n"
