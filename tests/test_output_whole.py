"""A time limit reached while the output is made leaves no half output: standard output
gets a complete JSON document or nothing, an ``-o`` file is written whole or not at all
(no temporary file left beside it), and the command ends with the limit's one line,
exit 1.

The slow phase is made deterministic by wrapping the renderer in the child process: it
writes part of the real output, then waits past the deadline (the alarm ends it there).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

SCRIPT = "import torch\nx = torch.ones(3, requires_grad=True)\ny = (x * 2).sum()\ny.backward()\n"

# the child: the CLI with one renderer wrapped, so that it stalls until the alarm fires
CHILD = """
import sys, time
import importlib
module = importlib.import_module(sys.argv[1])
name = sys.argv[2]
real = getattr(module, name)

def stalled(*args, **kwargs):
    result = real(*args, **kwargs)
    out = args[1] if name == "write_trace" else None
    if out is not None:
        out.flush()
    time.sleep(60)
    return result

setattr(module, name, stalled)
from autotrace.cli.main import main
sys.argv = ["autotrace"] + sys.argv[3:]
main()
"""


def _run(tmp_path, module, name, *args):
    (tmp_path / "s.py").write_text(SCRIPT, encoding="utf-8")
    env = dict(os.environ, AUTOTRACE_LANG="en")
    return subprocess.run([sys.executable, "-c", CHILD, module, name, *args], cwd=tmp_path, env=env,
                          capture_output=True, timeout=120)


def _limit_line(proc, phase):
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.decode().strip().splitlines()[-1] == (
        f"s.py: error: LimitError: time limit of 10 s reached while {phase} (use --timeout to raise it)")


def test_run_json_at_the_time_limit_prints_no_half_document(tmp_path):
    # the whole document is rendered, then the renderer stalls: before, stdout held it
    # all but the final newline... or, on a larger trace, megabytes of a cut document
    proc = _run(tmp_path, "autotrace.render.json", "write_trace", "run", "s.py", "--json", "--timeout", "10")
    _limit_line(proc, "rendering the output")
    assert proc.stdout == b""


def test_run_json_without_the_limit_is_the_same_document(tmp_path):
    (tmp_path / "s.py").write_text(SCRIPT, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-c", "import sys; from autotrace.cli.main import main; "
                           "sys.argv = ['autotrace', 'run', 's.py', '--json']; main()"],
                          cwd=tmp_path, capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith(b"}\n")
    doc = json.loads(proc.stdout)
    assert doc["variables"]["x"]["grad"] == [2.0, 2.0, 2.0]


def test_explain_json_at_the_time_limit_prints_nothing(tmp_path):
    proc = _run(tmp_path, "autotrace.render.explain_json", "render", "explain", "s.py", "--json", "--timeout", "10")
    _limit_line(proc, "rendering the explanation")
    assert proc.stdout == b""


@pytest.mark.parametrize("args", [["-o", "g.svg"], ["-o", "g.dot"], ["--json"]])
def test_graph_at_the_time_limit_writes_no_file_and_no_half_document(tmp_path, args):
    # drawn (DOT) then stalled while rendering: neither the file nor a temporary one is left
    proc = _run(tmp_path, "autotrace.render.dot", "render", "graph", "s.py", *args, "--timeout", "10")
    _limit_line(proc, "drawing the graph")
    assert proc.stdout == b""
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.py"]


def test_run_json_of_a_long_chain_is_whole_or_absent(tmp_path):
    # the real thing: a chain whose run fits a small limit but whose document may not
    (tmp_path / "chain.py").write_text("import torch\nx = torch.tensor(1.0, requires_grad=True)\n"
                                       "for i in range(40000):\n    x = x * 1.0000001\n", encoding="utf-8")
    proc = subprocess.run([sys.executable, "-c", "import sys; from autotrace.cli.main import main; "
                           "sys.argv = ['autotrace', 'run', 'chain.py', '--json', '--timeout', '2']; main()"],
                          cwd=tmp_path, capture_output=True, timeout=120)
    if proc.returncode == 0 or proc.stdout:
        doc = json.loads(proc.stdout)        # a document printed is a complete one
        assert len(doc["nodes"]) == (40001 if doc["error"] is None else len(doc["nodes"]))
    else:
        assert proc.returncode == 1
        assert b"LimitError: time limit of 2 s reached while" in proc.stderr
