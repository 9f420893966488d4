"""Every ``--json`` command prints its documented document when the script fails — a
syntax error, a runtime error, a limit reached in the run — with the exit code of the
form without --json, the ``FILE:LINE:COL: error`` report on stderr, never in the
document."""

from __future__ import annotations

import json

import pytest

from autotrace.render import json as render_json

from helpers import run_cli

BAD = "import torch\nx = (\n"
RAISES = "import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\nraise ValueError('boom')\n"
ENDLESS = "import torch\nx = torch.ones(2, requires_grad=True)\nwhile True:\n    x = x * 1.0\n"
GOOD = "import torch\nx = torch.ones(2, requires_grad=True)\n(x * 2).sum().backward()\n"

LIMIT = ("--limit", "loop-iterations=100")
LOOP_LIMIT = "loop iteration limit of 100 reached (use --limit loop-iterations=N to raise it)"
PARSE = {"type": "SyntaxError", "message": "'(' was never closed", "line": 2, "column": 5, "phase": "parse"}


def _doc(proc, schema):
    doc = json.loads(proc.stdout)
    errors = list(render_json.validator(schema).iter_errors(doc))
    assert not errors, errors[0].message
    return doc


@pytest.fixture
def scripts(tmp_path):
    for name, src in (("bad.py", BAD), ("raises.py", RAISES), ("endless.py", ENDLESS), ("good.py", GOOD)):
        (tmp_path / name).write_text(src, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("script, error, exit_code", [
    ("bad.py", PARSE, 1),
    ("raises.py", {"type": "ValueError", "message": "boom", "line": 4, "column": 1, "end_column": 25,
                   "phase": "run"}, 1),
    ("endless.py", {"type": "LimitError", "message": LOOP_LIMIT, "line": 3, "column": 1, "phase": "limit"}, 1),
])
def test_graph_json_documents_the_scripts_error(scripts, script, error, exit_code):
    plain = run_cli("graph", script, *LIMIT, "--format", "dot", cwd=scripts)
    proc = run_cli("graph", script, "--json", *LIMIT, cwd=scripts)
    assert proc.returncode == plain.returncode == exit_code, (proc.stderr, plain.stderr)
    doc = _doc(proc, "graph")
    err = doc["error"]
    assert {k: err.get(k) for k in error} == error
    assert doc["script"] == script and doc["format"] == "dot"
    assert doc["dot"].startswith("digraph autotrace {")
    first = f"{script}:{error['line']}:{error['column']}: error: {error['type']}: {error['message']}"
    assert proc.stderr.splitlines()[0] == first
    if error["phase"] == "parse":
        assert "the script did not run: line 2: SyntaxError: &#39;(&#39; was never closed" in doc["dot"]
        assert "no autograd graph" not in doc["dot"] and "->" not in doc["dot"]
    else:
        assert "AccumulateGrad" in doc["dot"]


def test_graph_json_of_a_script_that_runs_exits_0(scripts):
    proc = run_cli("graph", "good.py", "--json", cwd=scripts)
    assert proc.returncode == 0 and proc.stderr == ""
    doc = _doc(proc, "graph")
    assert doc["error"] is None and "MulBackward0" in doc["dot"]


def test_run_and_explain_json_document_a_syntax_error(scripts):
    proc = run_cli("run", "bad.py", "--json", cwd=scripts)
    assert proc.returncode == 1
    assert _doc(proc, "trace")["error"] == PARSE
    proc = run_cli("explain", "bad.py", "--json", cwd=scripts)
    assert proc.returncode == 1
    doc = _doc(proc, "explain")
    assert doc["passes"] == [] and doc["diagnostics"][0]["title"] == "Line 2: SyntaxError: '(' was never closed"


def test_diff_json_parts_at_a_syntax_error(scripts):
    plain = run_cli("diff", "bad.py", "good.py", cwd=scripts)
    proc = run_cli("diff", "bad.py", "good.py", "--json", cwd=scripts)
    assert proc.returncode == plain.returncode == 1
    doc = _doc(proc, "diff")
    assert doc["same"] is False
    assert doc["parting"] == {"kind": "error", "a": {"line": 2, "text": "x = ("}, "b": {"line": None, "text": None},
                              "detail": "the runs end differently: A SyntaxError: '(' was never closed; B no error."}
    assert proc.stderr.splitlines()[0] == "bad.py:2:5: error: SyntaxError: '(' was never closed"


def test_diff_json_of_a_runtime_error_and_a_limit(scripts):
    for other, parting in (("raises.py", "passes"), ("endless.py", "structure")):
        plain = run_cli("diff", "good.py", other, *LIMIT, cwd=scripts)
        proc = run_cli("diff", "good.py", other, "--json", *LIMIT, cwd=scripts)
        assert proc.returncode == plain.returncode == 3, proc.stderr
        doc = _doc(proc, "diff")
        # the first place they part: A's backward pass, which raises.py never reaches; the
        # first node endless.py makes that good.py does not
        assert doc["same"] is False and doc["parting"]["kind"] == parting


def test_check_json_documents_syntax_runtime_and_limit_errors(scripts):
    (scripts / "golden.json").write_text('{"schema_version": 1, "error": null}', encoding="utf-8")
    for script, error_type, phase in (("bad.py", "SyntaxError", "parse"), ("raises.py", "ValueError", "run"),
                                      ("endless.py", "LimitError", "limit")):
        args = ("check", script, "--expect", "golden.json", *LIMIT)
        plain = run_cli(*args, cwd=scripts)
        proc = run_cli(*args, "--json", cwd=scripts)
        assert proc.returncode == plain.returncode == 1, proc.stderr
        doc = _doc(proc, "check")
        (result,) = doc["results"]
        assert result["status"] == "error" and result["reason"] == "the script failed; its golden records no error"
        assert (result["error"]["type"], result["error"]["phase"]) == (error_type, phase)
        assert doc["summary"] == {"total": 1, "passed": 0, "failed": 0, "errors": 1, "updated": 0}
