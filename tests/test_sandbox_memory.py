"""The memory limit through the CLI: ``--limit memory=MiB`` holds for the process's peak,
a script over it ends with one line naming the limit and the option (exit 1, no
traceback), and MKL (the ``exact`` extra) never aborts the process under a small limit."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from helpers import autotrace_cmd
from test_sandbox_inputs import run_capped

# runs the command in a child and prints the child's peak RSS (KiB) on the last line
_PEAK = ("import resource, subprocess, sys\n"
         "p = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
         "sys.stdout.write(json.dumps([p.returncode, p.stdout, p.stderr, "
         "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss]))\n")


def _run_peak(*args, cwd):
    proc = subprocess.run([sys.executable, "-c", "import json\n" + _PEAK] + autotrace_cmd() + [str(a) for a in args],
                          cwd=cwd, capture_output=True, text=True, timeout=120)
    code, out, err, peak_kib = json.loads(proc.stdout)
    return code, out, err, peak_kib * 1024


def _one_memory_line(code, err, script="s.py", mib=None):
    assert code == 1, (code, err[-2000:])
    assert "Traceback" not in err and "internal error" not in err
    lines = [ln for ln in err.splitlines() if "error:" in ln]
    assert len(lines) == 1, err
    assert lines[0].startswith(f"{script}:") and ": error: LimitError: memory limit of " in lines[0], lines[0]
    assert lines[0].endswith("(use --limit memory=MiB to raise it)"), lines[0]
    if mib is not None:
        assert f"memory limit of {mib} MiB reached" in lines[0]
    return lines[0]


@pytest.mark.parametrize("body, limit, fragment", [
    # refused before allocating: the result does not fit in what the limit leaves
    ("a = torch.ones(8000, 8000)\nb = a * 2", 512, ": an array needs 244 MiB, "),
    ("a = torch.zeros(9000, 9000, dtype=torch.float64)", 512, ": an array of shape [9000, 9000] needs 618 MiB, "),
    ("a = torch.randn(9000, 9000)", 300, ": an array of shape [9000, 9000] needs 309 MiB, "),
    ("a = torch.full((9000, 9000), 2.5, dtype=torch.float64)", 512, "needs 618 MiB"),
    ("a = torch.ones(3000, 3000)\nb = torch.ones(3000, 1, dtype=torch.float64)\nc = a + b", 300, "needs 137 MiB"),
])
def test_a_tensor_over_the_memory_limit_is_refused_before_it_is_made(tmp_path, body, limit, fragment):
    (tmp_path / "s.py").write_text("import torch\n" + body + "\n", encoding="utf-8")
    code, out, err, peak = _run_peak("run", "s.py", "--limit", f"memory={limit}", cwd=tmp_path)
    line = _one_memory_line(code, err, mib=limit)
    assert fragment in line and " MiB are left " in line
    assert peak < limit * 1024 * 1024


def test_numpys_own_allocation_failure_names_the_limit(tmp_path):
    """An op whose temporaries are not counted up front meets the address-space cap:
    numpy's MemoryError becomes the memory limit's line, and the peak stays under it."""
    (tmp_path / "s.py").write_text("import torch\na = torch.ones(6000, 6000)\nb = a.exp()\n", encoding="utf-8")
    code, out, err, peak = _run_peak("run", "s.py", "--limit", "memory=400", cwd=tmp_path)
    line = _one_memory_line(code, err, mib=400)
    assert ": Unable to allocate " in line
    assert peak < 400 * 1024 * 1024


def test_what_fits_under_the_limit_still_runs(tmp_path):
    (tmp_path / "s.py").write_text("import torch\na = torch.ones(4000, 4000)\nprint(a.sum().item())\n",
                                   encoding="utf-8")
    code, out, err, peak = _run_peak("run", "s.py", "--json", "--limit", "memory=512", cwd=tmp_path)
    assert code == 0, err
    assert json.loads(out)["stdout"] == "16000000.0\n"
    assert peak < 512 * 1024 * 1024


def test_the_memory_message_is_translated(tmp_path):
    import os
    (tmp_path / "s.py").write_text("import torch\na = torch.zeros(9000, 9000, dtype=torch.float64)\n",
                                   encoding="utf-8")
    proc = subprocess.run(autotrace_cmd() + ["run", "s.py", "--limit", "memory=400"], cwd=tmp_path, text=True,
                          capture_output=True, timeout=60, env={**os.environ, "AUTOTRACE_LANG": "zh"})
    assert proc.returncode == 1
    assert "LimitError: 达到了 400 MiB 的内存限制：一个形状为 [9000, 9000] 的数组需要 618 MiB，只剩 " in proc.stderr


MATH = ("import torch\na = torch.full((30, 30), 0.5)\nb = a @ a\nc = a.exp()\nd = a.double() @ a[0].double()\n"
        "print(b[0, 0].item(), c[0, 0].item(), d[0].item())\n")


@pytest.mark.parametrize("limit", [212, 240, 280, 320, 360, 420])
def test_mkl_never_aborts_under_a_small_limit(tmp_path, limit):
    """Below what loading MKL takes, the numpy path computes; MKL's own FATAL message (it
    aborts on a kernel library it cannot map) never appears."""
    (tmp_path / "s.py").write_text(MATH, encoding="utf-8")
    proc = run_capped("run", "s.py", "--json", "--limit", f"memory={limit}", cwd=tmp_path)
    assert "MKL" not in proc.stderr and "Traceback" not in proc.stderr
    if proc.returncode == 1:     # the engine itself did not fit: the limit's line
        _one_memory_line(proc.returncode, proc.stderr)
        return
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["stdout"] == "7.5 1.6487212181091309 7.5\n"


def test_numpys_memory_error_is_worded_by_the_cap(monkeypatch):
    from autotrace import resources
    numpy_error = MemoryError("Unable to allocate 3.00 GiB for an array with shape (1000,\n 1000) and data type float64")
    monkeypatch.setattr(resources, "memory_cap", lambda: float(512 * resources.MIB))
    assert str(resources.memory_error(numpy_error)) == (
        "memory limit of 512 MiB reached: Unable to allocate 3.00 GiB for an array with shape (1000, 1000) and "
        "data type float64 (use --limit memory=MiB to raise it)")
    own = resources.element_limit(10 ** 9)
    assert resources.memory_error(own) is own
    monkeypatch.setattr(resources, "memory_cap", lambda: float("inf"))
    assert str(resources.memory_error(numpy_error)).startswith("out of memory: Unable to allocate 3.00 GiB")
    monkeypatch.setattr(resources, "memory_left", lambda: 20.0 * resources.MIB)
    resources.check_bytes(19 * resources.MIB)
    with pytest.raises(MemoryError, match=r"an array of shape \[7, 3\] needs 21 MiB, 20 MiB are left"):
        resources.check_bytes(21 * resources.MIB, (7, 3))
