"""Shared test helpers: the repository paths, the installed console script, and the
rule that tests needing torch or Graphviz fail (not skip) when CI is set."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"
CONFORMANCE = Path(__file__).resolve().parent / "conformance"


def require_torch():
    """Import torch, or skip locally / fail under CI."""
    if os.environ.get("CI"):
        import torch  # noqa: F401  - must be installed in CI
        return torch
    return pytest.importorskip("torch")


def autotrace_cmd() -> list[str]:
    """The console script installed beside the interpreter running the tests (a venv's
    python run without activating the venv), else the one on PATH, else the module."""
    beside = Path(sys.executable).parent / "autotrace"
    if beside.is_file():
        return [str(beside)]
    exe = shutil.which("autotrace")
    if exe:
        return [exe]
    return [sys.executable, "-m", "autotrace.cli.main"]


def run_cli(*args, input=None, env=None, cwd=None, timeout=120):
    """Run the installed console script; returns CompletedProcess (text)."""
    full_env = dict(os.environ)
    full_env.pop("NO_COLOR", None)
    full_env["AUTOTRACE_LANG"] = "en"      # outputs are English unless a test asks for another language
    if env:
        full_env.update(env)
    return subprocess.run(autotrace_cmd() + [str(a) for a in args], input=input, capture_output=True,
                          text=True, env=full_env, cwd=cwd, timeout=timeout)


def run_json(*args, **kw) -> dict:
    proc = run_cli("run", *args, "--json", **kw)
    try:
        return json.loads(proc.stdout)
    except json.JSONDecodeError:
        raise AssertionError(f"no JSON (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}") from None


# -- goldens that hold numbers ----------------------------------------------------------------
#
# autotrace computes as PyTorch does on the machine it runs on, and some of PyTorch's own
# last bits depend on the CPU: Intel MKL's gemm and vector math take other code paths per CPU
# vendor and instruction set, and ATen's kernels take 8- or 16-float vectors (AVX2 or AVX-512).
# A golden explanation with training-loop numbers is therefore recorded per such platform:
# the files next to the scenarios were recorded on AVX2 AMD (DEFAULT_PLATFORM); a platform
# whose numbers differ keeps its own copy under tests/golden/platform/<key>/, each checked
# against PyTorch on that platform when it was recorded.

DEFAULT_PLATFORM = "avx2-amd"
PLATFORM_GOLDENS = Path(__file__).resolve().parent / "golden" / "platform"


def numerics_platform() -> str:
    """``<ATen capability>-<CPU vendor>`` of this machine, e.g. ``avx512-intel``."""
    from autotrace.ops import cpu

    vendor = "unknown"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("vendor_id"):
                    v = line.split(":", 1)[1].strip()
                    vendor = {"GenuineIntel": "intel", "AuthenticAMD": "amd"}.get(v, v.lower())
                    break
    except OSError:
        pass
    return f"{cpu.CAPABILITY.lower()}-{vendor}"


def check_golden(golden: Path, got: str, message=None) -> None:
    """Assert ``got`` equals the golden file ``golden`` as recorded for this machine's
    :func:`numerics_platform` (its copy under tests/golden/platform/<key>/ when there is one).
    With UPDATE_GOLDEN set (or no golden yet) the golden is written first: the default file
    on the default platform, else this platform's copy when it differs from the default."""
    platform = numerics_platform()
    own = PLATFORM_GOLDENS / platform / golden.name
    if os.environ.get("UPDATE_GOLDEN") or not golden.exists():
        if platform == DEFAULT_PLATFORM or not golden.exists():
            golden.write_text(got)
        elif got != golden.read_text():
            own.parent.mkdir(parents=True, exist_ok=True)
            own.write_text(got)
        elif own.exists():
            own.unlink()
    expected = own.read_text() if platform != DEFAULT_PLATFORM and own.exists() else golden.read_text()
    assert got == expected, message


def run_recorded(src, keep_values=True):
    """Run ``src`` with autotrace; returns (trace, the Recorder the run used)."""
    from autotrace import record, runner

    made = []
    orig = record.Recorder

    class Capturing(orig):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            made.append(self)

    record.Recorder = Capturing
    try:
        trace = runner.run(src, "<test>", options=runner.Options(keep_values=keep_values))
    finally:
        record.Recorder = orig
    return trace, made[-1]


def torch_stdout(src: str) -> str:
    """What the script ``src`` prints under PyTorch, run by a fresh interpreter (its own
    seeds and grad mode), with object addresses written ``0x…`` as autotrace prints them."""
    import re
    require_torch()
    proc = subprocess.run([sys.executable, "-c", src], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return re.sub(r"\b0x[0-9a-f]+", "0x…", proc.stdout)


def autotrace_stdout(src: str) -> str:
    """What ``src`` prints under autotrace; the run must end without an error."""
    from autotrace import runner

    trace = runner.run(src, "<test>", options=runner.Options(keep_values=False))
    assert trace.error is None, trace.error
    return trace.stdout
