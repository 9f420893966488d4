"""Files autotrace writes and reads, through the CLI: a golden it derives is never
written through a symbolic link; paths the user names are written as the shell's ``>``
would; a golden that is not a regular file is refused without blocking."""

from __future__ import annotations

import json
import os

from test_sandbox_inputs import run_capped


def test_check_update_does_not_follow_a_shipped_symlink(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n", encoding="utf-8")
    (tmp_path / "s.py").write_text("print('pwned')\n", encoding="utf-8")
    os.symlink("victim.txt", tmp_path / "s.expected.json")
    proc = run_capped("check", "--update", "s.py", cwd=tmp_path)
    assert proc.returncode == 2
    assert "s.expected.json: is a symbolic link" in proc.stderr and "not written" in proc.stderr
    assert victim.read_text(encoding="utf-8") == "precious\n"
    assert os.path.islink(tmp_path / "s.expected.json")


def test_check_update_does_not_follow_a_dangling_symlink(tmp_path):
    (tmp_path / "s.py").write_text("x = 1\n", encoding="utf-8")
    os.symlink(str(tmp_path / "created-elsewhere"), tmp_path / "s.expected.json")
    proc = run_capped("check", "--update", "s.py", cwd=tmp_path)
    assert proc.returncode == 2 and not (tmp_path / "created-elsewhere").exists()


def test_check_update_refuses_a_fifo_golden(tmp_path):
    (tmp_path / "s.py").write_text("x = 1\n", encoding="utf-8")
    os.mkfifo(tmp_path / "s.expected.json")
    proc = run_capped("check", "--update", "s.py", "--timeout", "30", cwd=tmp_path, timeout=60)
    assert proc.returncode == 2 and "s.expected.json: is not a regular file" in proc.stderr


def test_checking_against_a_fifo_golden_is_refused_at_once(tmp_path):
    (tmp_path / "s.py").write_text("x = 1\n", encoding="utf-8")
    os.mkfifo(tmp_path / "s.expected.json")
    proc = run_capped("check", "s.py", "--timeout", "30", cwd=tmp_path, timeout=20)
    assert proc.returncode == 2
    assert "s.expected.json: is not a regular file; a golden file must be one" in proc.stderr


def test_a_golden_the_user_names_is_written_as_redirection_would(tmp_path):
    (tmp_path / "s.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "real.json").write_text("{}", encoding="utf-8")
    os.symlink("real.json", tmp_path / "link.json")
    proc = run_capped("check", "--update", "s.py", "--expect", "link.json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert os.path.islink(tmp_path / "link.json")
    assert json.loads((tmp_path / "real.json").read_text(encoding="utf-8"))["variables"]["x"]["value"] == 1


def test_update_still_writes_atomically_and_keeps_the_mode(tmp_path):
    (tmp_path / "s.py").write_text("x = 2\n", encoding="utf-8")
    golden = tmp_path / "s.expected.json"
    golden.write_text("{}", encoding="utf-8")
    os.chmod(golden, 0o640)
    proc = run_capped("check", "--update", "s.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(golden.read_text(encoding="utf-8"))["variables"]["x"]["value"] == 2
    assert golden.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.expected.json", "s.py"]


def test_graph_output_follows_a_link_like_the_shell(tmp_path):
    (tmp_path / "real.dot").write_text("old", encoding="utf-8")
    os.symlink("real.dot", tmp_path / "g.dot")
    proc = run_capped("graph", "-e", "import torch\nx = torch.ones(1, requires_grad=True)\ny = (x * 2).sum()",
                      "-o", "g.dot", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert os.path.islink(tmp_path / "g.dot")
    assert (tmp_path / "real.dot").read_text(encoding="utf-8").startswith("digraph")
