"""Names a script reads but never assigns: the one-liner's inputs are asked for with
--set (exit 2, naming the name and where it is read); any other unbound name — a typo
in a function never called, a misspelt function, a missing import — runs as under
Python and raises Python's NameError at the line it is reached."""

from __future__ import annotations

import json
import subprocess
import sys

from helpers import require_torch, run_cli

UNREACHED = """import torch

def report(loss):
    return helpr(loss)

x = torch.tensor([1.0, 2.0], requires_grad=True)
loss = (x * 3).sum()
loss.backward()
print(loss.item(), x.grad.tolist())
"""

REACHED = """import torch
import torch.nn.functional as F

out = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.tensor([0.0, 1.0])
loss = critrion(out, y)
print("never")
"""


def _python(tmp_path, source):
    require_torch()
    script = tmp_path / "ref.py"
    script.write_text(source, encoding="utf-8")
    return subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)


def test_the_one_liner_takes_its_input_from_set():
    proc = run_cli("run", "-e", "z = (x*3).sum()", "--set", "x=[1.0, 2.0]", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["error"] is None
    assert doc["variables"]["x"]["value"] == [1.0, 2.0] and doc["variables"]["x"]["requires_grad"] is True
    assert doc["variables"]["z"]["value"] == 9.0 and doc["variables"]["z"]["grad_fn"] == "SumBackward0"


def test_a_missing_input_is_a_usage_error_naming_it_and_where_it_is_read():
    proc = run_cli("run", "-e", "z = (x*3).sum()")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.strip() == ('error: <expr>:1:6: the script uses x but never assigns it; give a value on '
                                   'the command line, e.g. --set "x=[1.0, 2.0]"')
    proc = run_cli("run", "-", input="import torch\nb = 1\ny = w @ x + b\n")
    assert proc.returncode == 2
    assert proc.stderr.strip() == ('error: <stdin>:3:5: the script uses w, x but never assigns them; give a value '
                                   'on the command line, e.g. --set "w=[1.0, 2.0]" --set "x=[1.0, 2.0]"')


def test_a_typo_in_a_function_never_called_runs_as_under_python(tmp_path):
    (tmp_path / "s.py").write_text(UNREACHED, encoding="utf-8")
    proc = run_cli("run", "s.py", "--json", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["error"] is None
    assert doc["stdout"] == "9.0 [3.0, 3.0]\n"
    assert _python(tmp_path, UNREACHED).stdout == doc["stdout"]


def test_a_reached_typo_is_pythons_name_error_at_its_line(tmp_path):
    (tmp_path / "s.py").write_text(REACHED, encoding="utf-8")
    proc = run_cli("run", "s.py", "--no-color", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[:3] == [
        "s.py:6:8: error: NameError: name 'critrion' is not defined",
        "    loss = critrion(out, y)",
        "           ^~~~~~~~",
    ]
    doc = json.loads(run_cli("run", "s.py", "--json", cwd=tmp_path).stdout)
    assert doc["error"] == {"type": "NameError", "message": "name 'critrion' is not defined", "line": 6,
                            "column": 8, "phase": "run"}
    ref = _python(tmp_path, REACHED)
    assert ref.returncode == 1 and ref.stdout == ""
    assert ref.stderr.splitlines()[-1] == "NameError: name 'critrion' is not defined"


def test_a_function_that_reaches_an_unbound_name_fails_where_python_does():
    src = UNREACHED.replace("print(loss.item(), x.grad.tolist())", "print('before')\nreport(loss)")
    proc = run_cli("run", "-", "--json", input=src)
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert doc["stdout"] == "before\n"
    assert (doc["error"]["type"], doc["error"]["message"], doc["error"]["line"], doc["error"]["column"]) == \
        ("NameError", "name 'helpr' is not defined", 4, 12)


def test_a_missing_import_is_a_name_error_not_a_set_request():
    proc = run_cli("run", "-e", "import torch\nm = nn.Linear(2, 1)", "--no-color")
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[0] == "<expr>:2:5: error: NameError: name 'nn' is not defined"


def test_set_still_binds_a_name_read_only_inside_a_function():
    proc = run_cli("run", "-e", "def f():\n    return w * 2\nz = f()", "--set", "w=3", "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["variables"]["z"]["value"] == 6.0
