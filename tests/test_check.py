"""``autotrace check`` and the shell interface: exit codes, goldens, stdin, -e, --set,
plain output. The shell-level tests go through the installed console script."""

from __future__ import annotations

import json
import os
import re
import shutil

import pytest

from autotrace import check as lib
from helpers import ROOT, SCENARIOS, run_cli

ANSI = re.compile(r"\x1b\[")
CASES = ROOT / "tests" / "conformance"


# ------------------------------------------------------------------ the library


def _tensor(value, grad=None, **kw):
    v = {"kind": "tensor", "shape": [len(value)] if isinstance(value, list) else [], "dtype": "float32",
         "value": value, "requires_grad": True, "is_leaf": True, "grad_fn": None, "grad": grad}
    v.update(kw)
    return v


def _doc(**kw):
    d = {"schema_version": 1, "script": "s.py", "stdout": "", "error": None, "warnings": [], "variables": {},
         "nodes": [], "backward_passes": []}
    d.update(kw)
    return d


def test_identical_documents_match():
    d = _doc(variables={"x": _tensor([2.0, 3.0], [3.0, 3.0])})
    assert lib.compare(lib.golden_of(d), d) == []


def test_values_within_tolerance_match_and_outside_differ():
    golden = _doc(variables={"x": _tensor([2.0, 3.0], [3.0, 3.0])})
    near = _doc(variables={"x": _tensor([2.0, 3.0], [3.0, 3.0 + 3e-4])})
    far = _doc(variables={"x": _tensor([2.0, 3.0], [3.0, 3.01])})
    assert lib.compare(golden, near) == []
    diffs = lib.compare(golden, far)
    assert [d.path for d in diffs] == ["variables.x.grad"]
    assert "x.grad: expected [3.0, 3.0], got [3.0, 3.01]" in diffs[0].message
    assert "element [1]" in diffs[0].message
    # a looser tolerance accepts it
    assert lib.compare(golden, far, rtol=1e-2) == []
    # defaults are the documented ones
    assert (lib.RTOL, lib.ATOL) == (1e-4, 1e-5)


def test_nan_and_inf_compare_as_themselves():
    golden = _doc(variables={"g": _tensor(["nan", "inf", 1.0])})
    assert lib.compare(golden, golden) == []
    assert lib.compare(golden, _doc(variables={"g": _tensor([0.0, "inf", 1.0])}))
    assert lib.compare(golden, _doc(variables={"g": _tensor(["nan", "-inf", 1.0])}))


def test_exact_fields_and_missing_variables():
    golden = _doc(variables={"y": _tensor([1.0], grad_fn="MulBackward0", is_leaf=False), "n": {"kind": "number", "value": 3}})
    got = _doc(variables={"y": _tensor([1.0], grad_fn="AddBackward0", is_leaf=False, dtype="float64")})
    paths = sorted(d.path for d in lib.compare(golden, got))
    assert paths == ["variables.n", "variables.y.dtype", "variables.y.grad_fn"]


def test_shape_change_is_reported():
    golden = _doc(variables={"x": _tensor([1.0, 2.0])})
    got = _doc(variables={"x": _tensor([1.0, 2.0, 3.0])})
    messages = [d.message for d in lib.compare(golden, got)]
    assert any(m.startswith("x.shape: expected [2], got [3]") for m in messages)


def test_errors_compare_type_and_message_not_line():
    err = {"type": "RuntimeError", "message": "boom", "line": 3, "column": 1, "phase": "run"}
    golden = _doc(error=err)
    assert lib.compare(golden, _doc(error=dict(err, line=9, column=4))) == []
    assert [d.path for d in lib.compare(golden, _doc(error=dict(err, message="bang")))] == ["error.message"]
    assert [d.path for d in lib.compare(golden, _doc())] == ["error"]
    assert [d.path for d in lib.compare(_doc(), _doc(error=err))] == ["error"]


def test_stdout_masks_addresses_and_shows_a_diff():
    golden = _doc(stdout="<MulBackward0 object at 0x7f4aa79e5ab0>\ntensor(3.)\n")
    assert lib.compare(golden, _doc(stdout="<MulBackward0 object at 0x…>\ntensor(3.)\n")) == []
    diffs = lib.compare(golden, _doc(stdout="<MulBackward0 object at 0x55d1>\ntensor(4.)\n"))
    assert diffs and diffs[0].path == "stdout"
    assert "-tensor(3.)" in diffs[0].message and "+tensor(4.)" in diffs[0].message


def test_warnings_compare_category_and_message():
    w = {"category": "UserWarning", "message": "careful", "line": 2}
    assert lib.compare(_doc(warnings=[w]), _doc(warnings=[dict(w, line=5)])) == []
    assert lib.compare(_doc(warnings=[w]), _doc(warnings=[]))
    assert lib.compare(_doc(warnings=[]), _doc(warnings=[w]))


def test_partial_golden_pins_only_what_it_lists():
    golden = {"schema_version": 1, "variables": {"x": {"grad": [3.0, 3.0]}}}
    run = _doc(stdout="anything", variables={"x": _tensor([2.0, 3.0], [3.0, 3.0]), "z": _tensor([1.0])})
    assert lib.compare(golden, run) == []


def test_write_golden_is_atomic_and_refuses_the_script(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("x = 1\n")
    path = tmp_path / "s.expected.json"
    lib.write_golden(str(path), {"schema_version": 1, "b": 1, "a": "ü"}, script=str(script))
    text = path.read_text(encoding="utf-8")
    assert text == '{\n "a": "ü",\n "b": 1,\n "schema_version": 1\n}\n'
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".autotrace-")] == []
    with pytest.raises(lib.GoldenError):
        lib.write_golden(str(script), {"schema_version": 1}, script=str(script))
    assert script.read_text() == "x = 1\n"


def test_load_golden_errors(tmp_path):
    with pytest.raises(lib.GoldenError, match="--update"):
        lib.load_golden(str(tmp_path / "missing.json"))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(lib.GoldenError, match="not a JSON"):
        lib.load_golden(str(bad))
    v2 = tmp_path / "v2.json"
    v2.write_text('{"schema_version": 2}')
    with pytest.raises(lib.GoldenError, match="schema_version"):
        lib.load_golden(str(v2))


def test_default_golden_path():
    assert lib.default_golden_path("scenarios/a.py") == "scenarios/a.expected.json"
    assert lib.default_golden_path("script") == "script.expected.json"


def test_case_goldens_match_themselves():
    for f in sorted(CASES.glob("*.expected.json")):
        g = json.loads(f.read_text())
        assert lib.compare(g, g) == [], f


# ------------------------------------------------------------------ the console script

SCRIPT = "import torch\nx = torch.tensor([2.0, 3.0], requires_grad=True)\nz = (x * 3).sum()\nz.backward()\nprint(x.grad)\n"


@pytest.fixture
def project(tmp_path):
    (tmp_path / "t.py").write_text(SCRIPT)
    return tmp_path


def test_check_exit_0_then_3_after_a_change_then_0_after_update(project):
    r = run_cli("check", "t.py", "--update", cwd=project)
    assert r.returncode == 0, r.stderr
    golden = project / "t.expected.json"
    assert golden.exists()
    assert json.loads(golden.read_text())["variables"]["x"]["grad"] == [3.0, 3.0]

    r = run_cli("check", "t.py", cwd=project)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "PASS" in r.stdout

    (project / "t.py").write_text(SCRIPT.replace("x * 3", "x * 4"))
    r = run_cli("check", "t.py", cwd=project)
    assert r.returncode == 3, r.stdout + r.stderr
    assert "FAIL t.py" in r.stdout
    assert "x.grad: expected [3.0, 3.0], got [4.0, 4.0]" in r.stdout
    assert "stdout differs" in r.stdout

    r = run_cli("check", "t.py", "--update", cwd=project)
    assert r.returncode == 0
    assert (project / "t.py").read_text() == SCRIPT.replace("x * 3", "x * 4")   # never the script
    r = run_cli("check", "t.py", cwd=project)
    assert r.returncode == 0, r.stdout + r.stderr


def test_check_expect_and_tolerances(project):
    run_cli("check", "t.py", "--update", "--expect", "g.json", cwd=project)
    g = json.loads((project / "g.json").read_text())
    g["variables"]["x"]["grad"] = [3.001, 3.0]
    (project / "g.json").write_text(json.dumps(g))
    assert run_cli("check", "t.py", "--expect", "g.json", cwd=project).returncode == 3
    assert run_cli("check", "t.py", "--expect", "g.json", "--rtol", "1e-3", cwd=project).returncode == 0
    assert run_cli("check", "t.py", "--expect", "g.json", "--atol", "0.01", cwd=project).returncode == 0


def test_check_several_scripts_summary(project):
    shutil.copy(project / "t.py", project / "u.py")
    assert run_cli("check", "t.py", "u.py", "--update", cwd=project).returncode == 0
    r = run_cli("check", "t.py", "u.py", cwd=project)
    assert r.returncode == 0
    assert r.stdout.strip().splitlines()[-1] == "2 passed, 0 failed"
    (project / "u.py").write_text(SCRIPT.replace("x * 3", "x * 5"))
    r = run_cli("check", "t.py", "u.py", cwd=project)
    assert r.returncode == 3
    assert r.stdout.strip().splitlines()[-1] == "1 passed, 1 failed"


def test_check_missing_golden_is_usage_error(project):
    r = run_cli("check", "t.py", cwd=project)
    assert r.returncode == 2
    assert "--update" in r.stderr and r.stdout.strip().startswith("ERROR")


def test_check_expect_with_several_scripts_is_usage_error(project):
    r = run_cli("check", "t.py", "t.py", "--expect", "g.json", cwd=project)
    assert r.returncode == 2 and "error" in r.stderr and r.stdout == ""


def test_check_script_failure_not_in_golden_exits_1(project):
    run_cli("check", "t.py", "--update", cwd=project)
    (project / "t.py").write_text(SCRIPT + "z.backward()\n")   # backward twice
    r = run_cli("check", "t.py", cwd=project)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "Trying to backward through the graph a second time" in r.stderr


def test_check_pins_an_expected_failure(project):
    (project / "t.py").write_text(SCRIPT + "z.backward()\n")
    assert run_cli("check", "t.py", "--update", cwd=project).returncode == 0
    g = json.loads((project / "t.expected.json").read_text())
    assert g["error"]["type"] == "RuntimeError"
    assert run_cli("check", "t.py", cwd=project).returncode == 0
    (project / "t.py").write_text(SCRIPT)           # it no longer fails: a difference
    r = run_cli("check", "t.py", cwd=project)
    assert r.returncode == 3 and "error: expected RuntimeError" in r.stdout


def test_check_scenarios_match_their_pytorch_goldens():
    scripts = sorted(str(p) for p in SCENARIOS.glob("*.py"))
    r = run_cli("check", *scripts, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().splitlines()[-1] == f"{len(scripts)} passed, 0 failed"


# ------------------------------------------------------------------ inputs: stdin, -e, --set


def test_stdin_script(project):
    r = run_cli("run", "-", "--json", input=SCRIPT)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["script"] == "<stdin>"
    assert doc["variables"]["x"]["grad"] == [3.0, 3.0]
    g = project / "g.json"
    assert run_cli("check", "-", "--update", "--expect", str(g), input=SCRIPT).returncode == 0
    assert run_cli("check", "-", "--expect", str(g), input=SCRIPT).returncode == 0
    assert run_cli("check", "-", "--expect", str(g), input=SCRIPT.replace("* 3", "* 2")).returncode == 3


def test_stdin_without_expect_is_usage_error():
    r = run_cli("check", "-", input=SCRIPT)
    assert r.returncode == 2 and "--expect" in r.stderr


@pytest.mark.parametrize("code", [
    "import torch; x = torch.tensor([2.0, 3.0], requires_grad=True); z = (x * 3).sum(); z.backward()",
    "import torch\nx = torch.tensor([2.0, 3.0], requires_grad=True)\nz = (x * 3).sum()\nz.backward()",
    "import torch; x = torch.tensor([2.0, 3.0], requires_grad=True)\nz = (x * 3).sum(); z.backward()",
])
def test_expr_with_semicolons_and_newlines(code):
    r = run_cli("run", "-e", code, "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert doc["script"] == "<expr>"
    assert doc["variables"]["x"]["grad"] == [3.0, 3.0]
    assert doc["variables"]["z"]["grad_fn"] == "SumBackward0"


def test_expr_string_escapes_are_kept():
    r = run_cli("run", "-e", 'print("a\\nb")', "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["stdout"] == "a\nb\n"


def test_set_binds_float32_leaves():
    r = run_cli("run", "-e", "z = (x*3).sum(); z.backward()", "--set", "x=[2.0, 3.0]", "--json")
    assert r.returncode == 0, r.stderr
    x = json.loads(r.stdout)["variables"]["x"]
    assert x["dtype"] == "float32" and x["requires_grad"] is True and x["is_leaf"] is True
    assert x["value"] == [2.0, 3.0] and x["grad"] == [3.0, 3.0]
    r = run_cli("run", "-e", "y = (w @ w).sum(); y.backward()", "--set", "w=[[1,2],[3,4]]", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["variables"]["w"]["shape"] == [2, 2]


def test_set_through_check(project):
    g = project / "g.json"
    args = ("check", "-e", "z = (x*3).sum(); z.backward()", "--expect", str(g))
    assert run_cli(*args, "--set", "x=[2.0, 3.0]", "--update").returncode == 0
    assert run_cli(*args, "--set", "x=[2.0, 3.0]").returncode == 0
    assert run_cli(*args, "--set", "x=[2.0, 3.0, 4.0]").returncode == 3


@pytest.mark.parametrize("value", ["x=[2.0,", "x=abc", "x", "x=[1, 'a']", "2x=1"])
def test_malformed_set_is_a_clear_usage_error(value):
    r = run_cli("run", "-e", "z = (x*3).sum()", "--set", value)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "--set" in r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""


def test_unbound_free_name_is_a_clear_usage_error():
    r = run_cli("run", "-e", "z = (x*3).sum()")
    assert r.returncode == 2
    assert "x" in r.stderr and "--set" in r.stderr
    assert "Traceback" not in r.stderr and r.stdout == ""
    r = run_cli("check", "-e", "z = (x*3).sum()", "--expect", "/nonexistent/g.json", "--update")
    assert r.returncode == 2 and "--set" in r.stderr


# ------------------------------------------------------------------ streams, colour, version


def test_run_json_with_script_error_prints_document_and_exits_1():
    r = run_cli("run", "-e", "import torch\nv = torch.ones(3, requires_grad=True)\n(v * 2).backward()", "--json")
    assert r.returncode == 1
    doc = json.loads(r.stdout)
    assert doc["error"]["type"] == "RuntimeError"
    assert doc["error"]["message"] == "grad can be implicitly created only for scalar outputs"
    assert doc["error"]["line"] == 3 and doc["error"]["phase"] == "run"
    assert "grad can be implicitly created" in r.stderr          # the diagnostic goes to stderr
    assert "v" in doc["variables"]


def test_parse_error_in_json_mode():
    r = run_cli("run", "-e", "import os", "--json")
    assert r.returncode == 1
    doc = json.loads(r.stdout)
    assert doc["error"]["phase"] == "parse"


@pytest.mark.parametrize("how", ["flag", "env", "pipe"])
@pytest.mark.parametrize("cmd", ["run", "check"])
def test_no_ansi_codes(how, cmd, project):
    args = [cmd, "t.py"]
    env = {}
    if cmd == "check":
        run_cli("check", "t.py", "--update", cwd=project)
    if how == "flag":
        args.append("--no-color")
        env["FORCE_COLOR"] = "1"
    elif how == "env":
        env.update({"NO_COLOR": "1", "FORCE_COLOR": "1"})
    r = run_cli(*args, cwd=project, env=env)
    assert r.returncode == 0, r.stderr
    assert not ANSI.search(r.stdout) and not ANSI.search(r.stderr), r.stdout


def test_version():
    from autotrace import __version__
    r = run_cli("--version")
    assert r.returncode == 0
    assert r.stdout.strip() == f"autotrace {__version__}"


def test_help_states_exit_codes_and_tolerances():
    r = run_cli("check", "--help")
    assert r.returncode == 0
    text = " ".join(r.stdout.split())
    assert "rtol 1e-4" in text and "atol 1e-5" in text
    for code in ("0", "1", "2", "3", "70"):
        assert f" {code} " in text
    assert "70 internal error" in " ".join(run_cli("--help").stdout.split())


def test_unknown_option_is_usage_error():
    r = run_cli("check", "--frobnicate")
    assert r.returncode == 2 and r.stdout == ""


# ------------------------------------------------------------------ properties of the tolerance rule

from hypothesis import given, strategies as st  # noqa: E402

_floats = st.floats(allow_nan=True, allow_infinity=True, width=32)


def _json_number(x):
    from autotrace.render.json import number
    return number(x)


@given(st.lists(_floats, min_size=0, max_size=6))
def test_an_array_matches_itself(xs):
    g = _doc(variables={"x": _tensor([_json_number(x) for x in xs])})
    assert lib.compare(g, json.loads(json.dumps(g))) == []


@given(st.floats(min_value=-1e6, max_value=1e6), st.floats(min_value=0, max_value=1e-2))
def test_tolerance_rule_is_isclose(a, delta):
    import numpy as np
    b = a + delta
    same = lib.compare(_doc(variables={"x": _tensor([a])}), _doc(variables={"x": _tensor([b])})) == []
    assert same == bool(np.isclose(b, a, rtol=lib.RTOL, atol=lib.ATOL)) or abs(abs(b - a) - (lib.ATOL + lib.RTOL * abs(a))) < 1e-12


def test_warnings_are_diagnostics_on_stderr():
    code = "import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\nprint(y.grad)\n"
    r = run_cli("run", "-e", code)
    assert r.returncode == 0
    assert "UserWarning" in r.stderr and "UserWarning" not in r.stdout
    assert r.stdout.startswith("None\n")
    r = run_cli("run", "-e", code, "--json")
    doc = json.loads(r.stdout)                       # stdout is exactly one JSON document
    assert doc["warnings"][0]["category"] == "UserWarning" and doc["warnings"][0]["line"] == 4


def test_width_wraps_console_output():
    args = ("run", "-e", "z = (x*3).sum(); z.backward()", "--set", "x=[2.0, 3.0]")
    wide = run_cli(*args, "--width", "120").stdout
    r = run_cli(*args, "--width", "50")
    assert r.returncode == 0
    assert max(len(line) for line in r.stdout.splitlines()) <= 50 < max(len(line) for line in wide.splitlines())
    assert r.stdout == run_cli(*args, "--width", "50").stdout


def test_set_accepts_nan_and_inf_and_refuses_repeats():
    r = run_cli("run", "-e", "print(x)", "--set", "x=[1, nan, -inf]", "--no-color")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == "tensor([1., nan, -inf], requires_grad=True)"
    r = run_cli("run", "-e", "print(x)", "--set", "x=1", "--set", "x=2")
    assert r.returncode == 2 and "--set x is given twice" in r.stderr
    r = run_cli("run", "-e", "print(x)", "--set", "x=1e40", "--no-color")
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout.splitlines()[0] == "tensor(inf, requires_grad=True)"
