"""The sandbox seen from the command line: hostile and broken scripts run through the
installed ``autotrace`` end with exit 1, a ``FILE:LINE:COL: error:`` line, no Python
traceback, and no file created or changed in the working directory.

The interpreter's own tests (tests/interpreter/test_interp_hostile.py) check the
refusals in detail; these check what a user of the CLI sees.
"""

from __future__ import annotations

import os

import pytest

from helpers import run_cli

HOSTILE = [
    # imports and builtins
    ("import os", "ImportError"),
    ("from os import system", "ImportError"),
    ("import subprocess\nsubprocess.run(['ls'])", "ImportError"),
    ("import torch.os", "ModuleNotFoundError"),
    ("import numpy.ctypeslib", "ImportError"),
    ("from numpy import lib", "ImportError"),
    ("__import__('os')", "NameError"),
    ("eval('1+1')", "NameError"),
    ("exec('x = 1')", "NameError"),
    ("open('pwned.txt', 'w').write('x')", "NameError"),
    ("getattr(print, '__self__')", "AttributeError"),
    ("globals()", "NameError"),
    ("locals()", "NameError"),
    ("vars()", "NameError"),
    ("dir()", "NameError"),
    ("type(print)()", "TypeError"),
    ("input()", "NameError"),
    ("breakpoint()", "NameError"),
    ("compile('1', 'f', 'eval')", "NameError"),
    ("help()", "NameError"),
    ("exit()", "NameError"),
    ("raise SystemExit", "NameError"),
    ("raise KeyboardInterrupt", "NameError"),
    # dunder traversal
    ("().__class__.__bases__[0].__subclasses__()", "AttributeError"),
    ("print.__self__", "AttributeError"),
    ("(lambda: 0).__code__", "AttributeError"),
    ("(lambda: 0).__globals__", "AttributeError"),
    ("x = [1]\nx.__class__.__bases__", "AttributeError"),
    ("import torch\ntorch.__dict__", "AttributeError"),
    ("import torch\ntorch.tensor.__globals__", "AttributeError"),
    ("import torch\ntorch.ones(1).__class__.__mro__", "AttributeError"),
    ("import torch\ntorch.ones(1)._data", "AttributeError"),
    ("import torch\ntorch.ones(1).numpy().tofile('pwned.txt')", "AttributeError"),
    ("import torch\ntorch.ones(1).numpy().ctypes", "AttributeError"),
    ("import torch\nx = torch.ones(1, requires_grad=True)\n(x*2).grad_fn.op", "AttributeError"),
    ("(x for x in []).gi_frame", "AttributeError"),
    ("try:\n    1/0\nexcept Exception as e:\n    e.__traceback__", "AttributeError"),
    ("try:\n    1/0\nexcept Exception as e:\n    e.with_traceback", "AttributeError"),
    ("'{0.__class__}'.format(1)", "ValueError"),
    ("'{0[0]}'.format([1])", "ValueError"),
    ("f'{print.__self__}'", "AttributeError"),
    ("ｘ = 1\nｘ.__dict__", "AttributeError"),
    # unsupported statements
    ("class A(metaclass=type):\n    pass", "SyntaxError"),
    ("global __builtins__", "SyntaxError"),
    ("def f():\n    print((yield 1))", "SyntaxError"),
    ("async def f():\n    pass", "SyntaxError"),
    # exhaustion
    ("x = 10**10**10", "LimitError"),
    ("s = 'a' * 10**10", "LimitError"),
    ("l = [0] * 10**10", "LimitError"),
    ("x = 2 << 10**10", "LimitError"),
    ("def f(n):\n    return f(n + 1)\nf(0)", "LimitError"),
    ("import torch\nx = torch.ones(100000, 100000)", "LimitError"),
    ("import math\nmath.factorial(10**8)", "LimitError"),
]


def _listing(path):
    return sorted((p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in path.iterdir())


@pytest.mark.parametrize("source, error_type", HOSTILE, ids=[s.splitlines()[-1][:40] for s, _ in HOSTILE])
def test_hostile_script_fails_cleanly(tmp_path, source, error_type):
    script = tmp_path / "hostile.py"
    script.write_text(source + "\n", encoding="utf-8")
    before = _listing(tmp_path)
    proc = run_cli("run", script.name, "--timeout", "5", cwd=tmp_path)
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr + proc.stdout
    first = proc.stderr.strip().splitlines()[0]
    assert first.startswith("hostile.py:"), proc.stderr
    assert f": error: {error_type}" in first, proc.stderr
    assert _listing(tmp_path) == before
    assert not (tmp_path / "pwned.txt").exists()


def test_there_are_at_least_forty_hostile_scripts():
    assert len(HOSTILE) >= 40


def test_endless_loop_stops_at_the_timeout(tmp_path):
    script = tmp_path / "loop.py"
    script.write_text("while True:\n    pass\n", encoding="utf-8")
    proc = run_cli("run", script.name, "--timeout", "1", "--limit", "loop-iterations=1000000000000",
                   cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.startswith("loop.py:") and "time limit of 1 s reached" in proc.stderr
    assert "Traceback" not in proc.stderr


BROKEN = [
    (b"", "empty script"),
    (b"   \n# only a comment\n", "empty script"),
    (b"\x00\x01\x02binary\xff", None),
    (b"\xff\xfe x = 1\n", None),
    (b"x = (1,\n", "SyntaxError"),
    (b"print('unterminated)\n", "SyntaxError"),
    (b"if True:\nprint(1)\n", "IndentationError"),
    (b"x = " + b"(" * 5000 + b"1" + b")" * 5000 + b"\n", "SyntaxError"),
    (b"x = " + b"-" * 100000 + b"1\n", "SyntaxError"),
]


@pytest.mark.parametrize("data, fragment", BROKEN, ids=[f"broken{i}" for i in range(len(BROKEN))])
def test_broken_input_is_one_clear_error(tmp_path, data, fragment):
    script = tmp_path / "broken.py"
    script.write_bytes(data)
    proc = run_cli("run", script.name, cwd=tmp_path)
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert proc.stderr.startswith("broken.py:"), proc.stderr
    assert ": error: " in proc.stderr.splitlines()[0]
    if fragment:
        assert fragment in proc.stderr


def test_loop_iteration_limit(tmp_path):
    script = tmp_path / "loop.py"
    script.write_text("while True:\n    pass\n", encoding="utf-8")
    proc = run_cli("run", script.name, "--limit", "loop-iterations=1000", cwd=tmp_path)
    assert proc.returncode == 1
    assert "loop iteration limit of 1000 reached (use --limit loop-iterations=N to raise it)" in proc.stderr


def test_script_error_shows_the_line_and_a_caret(tmp_path):
    script = tmp_path / "err.py"
    script.write_text("import torch\nx = torch.ones(2)\ny = x.nonexistent\n", encoding="utf-8")
    proc = run_cli("run", script.name, "--no-color", cwd=tmp_path)
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert lines[0].startswith("err.py:3:5: error: AttributeError:")
    assert lines[1] == "    y = x.nonexistent"
    assert lines[2].strip().startswith("^")


# ---------------------------------------------------------------- mutated CLI arguments

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

ARG_PIECES = ["--json", "--no-color", "--width", "7", "40", "--timeout", "0", "-1", "nan", "1e309", "--max-steps",
              "--limit", "output=5", "elements=0", "flops=1", "memory=1", "bogus", "int-bits=x", "--set", "x=",
              "x=[1,[2]]", "x=" + "9" * 400, "--of", "--wrt", "--pass", "0", "9", "--format", "md", "png", "-o",
              "-", "/nonexistent/dir/g.svg", "--expect", "--update", "--rtol", "--atol", "-e", "x = 1", "--verify",
              "\x1b[2J", "\u202e", "s.py", "--values", "--max-nodes"]


@settings(max_examples=int(os.environ.get("AUTOTRACE_FUZZ_CLI_EXAMPLES", "12")), deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(st.sampled_from(["run", "explain", "graph", "check"]),
       st.lists(st.sampled_from(ARG_PIECES), max_size=6))
def test_mutated_cli_arguments_never_break_autotrace(tmp_path_factory, command, pieces):
    d = tmp_path_factory.mktemp("cli")
    (d / "s.py").write_text("import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\n"
                            "y.backward()\n", encoding="utf-8")
    proc = run_cli(command, "s.py", *pieces, cwd=d, timeout=120)
    assert proc.returncode in (0, 1, 2, 3), (command, pieces, proc.returncode, proc.stderr[-3000:])
    assert "Traceback" not in proc.stderr, (command, pieces, proc.stderr[-3000:])
    assert "\x1b[2J" not in proc.stderr and "\u202e" not in proc.stderr
