"""The Python around the PyTorch in real scripts, through the command line: the main
guard, torch.__version__, the standard-library imports, the refusal of the others, and
the one stderr note of a script that plots."""

from __future__ import annotations

import json

from helpers import run_cli, run_json

MAIN = """\
from __future__ import annotations
import torch
from typing import List

def main(xs: List[float]) -> torch.Tensor:
    w = torch.tensor(xs, requires_grad=True)
    (w * w).sum().backward()
    return w.grad

if __name__ == "__main__":
    print(torch.__version__, __name__, main([1.0, 2.0]))
"""


def test_main_guard_and_version_run_unchanged(tmp_path):
    p = tmp_path / "main.py"
    p.write_text(MAIN)
    j = run_json(str(p))
    assert j["error"] is None
    assert j["stdout"] == "2.13.0+cpu __main__ tensor([2., 4.])\n"
    assert "__name__" not in j["variables"]


def test_other_imports_are_refused_with_what_is_importable(tmp_path):
    p = tmp_path / "bad.py"
    p.write_text("import torch\nimport os\n")
    r = run_cli("run", str(p))
    assert r.returncode == 1
    assert r.stderr.startswith(f"{p}:2:1: error: ImportError: import of 'os' is not allowed: scripts may import "
                               "torch (and its submodules), math, random, typing, collections, copy, itertools, "
                               "functools, time, warnings, dataclasses, matplotlib, matplotlib.pyplot, numpy and __future__\n")
    assert "Traceback" not in r.stderr


def test_plotting_script_runs_with_one_note_on_stderr(tmp_path):
    p = tmp_path / "plot.py"
    p.write_text("import matplotlib.pyplot as plt\nimport torch\nlosses = [1.0, 0.5]\n"
                 "fig, ax = plt.subplots()\nax.plot(losses)\nplt.title('loss')\nplt.show()\nprint(len(losses))\n")
    r = run_cli("run", str(p), "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["stdout"] == "2\n" and doc["warnings"] == []
    assert r.stderr.count("autotrace draws no plots") == 1
    quiet = tmp_path / "quiet.py"
    quiet.write_text("import matplotlib.pyplot as plt\nprint(1)\n")
    assert "draws no plots" not in run_cli("run", str(quiet)).stderr
