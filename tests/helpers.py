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
