"""Output files are written whole or not at all, and never replace what is not a file."""

from __future__ import annotations

import os
import stat

import pytest

from autotrace.files import write_atomic
from helpers import SCENARIOS, run_cli


def test_new_file_is_written(tmp_path):
    p = tmp_path / "out.svg"
    write_atomic(str(p), b"<svg/>")
    assert p.read_bytes() == b"<svg/>"
    assert [x.name for x in tmp_path.iterdir()] == ["out.svg"]  # no temporary left behind


def test_existing_file_keeps_its_mode(tmp_path):
    p = tmp_path / "out.dot"
    p.write_bytes(b"old")
    os.chmod(p, 0o640)
    write_atomic(str(p), b"new")
    assert p.read_bytes() == b"new"
    assert stat.S_IMODE(p.stat().st_mode) == 0o640


def test_a_symlink_is_followed_not_replaced(tmp_path):
    real = tmp_path / "real.svg"
    real.write_bytes(b"old")
    link = tmp_path / "link.svg"
    link.symlink_to("real.svg")
    write_atomic(str(link), b"new")
    assert link.is_symlink()
    assert real.read_bytes() == b"new"


def test_a_device_is_written_through_not_replaced():
    write_atomic("/dev/null", b"data")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_a_failing_write_raises_and_leaves_the_device():
    with pytest.raises(OSError):
        write_atomic("/dev/full", b"x" * 10000)
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_graph_to_dev_full_fails_cleanly():
    if not os.path.exists("/dev/full"):
        pytest.skip("needs /dev/full (Linux)")
    proc = run_cli("graph", SCENARIOS / "seed1_mul_sum.py", "-o", "/dev/full", "--format", "dot")
    assert proc.returncode != 0
    assert "No space left on device" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert stat.S_ISCHR(os.stat("/dev/full").st_mode)


def test_output_that_cannot_be_written_is_a_clean_failure():
    if not os.path.exists("/dev/full"):
        pytest.skip("needs /dev/full (Linux)")
    import subprocess

    from helpers import autotrace_cmd

    with open("/dev/full", "w") as full:
        proc = subprocess.run(autotrace_cmd() + ["run", str(SCENARIOS / "seed1_mul_sum.py")],
                              stdout=full, stderr=subprocess.PIPE, text=True)
    assert proc.returncode == 1
    assert "cannot write the output: No space left on device" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_control_characters_never_reach_the_terminal(tmp_path):
    script = tmp_path / "esc.py"
    script.write_text('raise ValueError("\\x1b[31mred\\x07")\n', encoding="utf-8")
    proc = run_cli("run", script.name, cwd=tmp_path)
    assert proc.returncode == 1
    assert "\x1b" not in proc.stderr and "\x07" not in proc.stderr
    assert "\\x1b[31mred\\x07" in proc.stderr
