"""``autotrace diff``, ``explain --expect`` and the pytest plugin.

The scenario pairs in scenarios/diff/ each differ by one known cause; their golden text
(NAME.diff.txt) was checked by hand, and every gradient the diff quotes is compared here
with real PyTorch 2.13. The --expect scenarios in scenarios/expect/ carry their formula in
NAME.expect and the golden section in NAME.expect.txt.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from helpers import ROOT, require_torch, run_cli

DIFF = ROOT / "scenarios" / "diff"
EXPECT = ROOT / "scenarios" / "expect"
PAIRS = {"zero_grad": "zero_grad", "detach": "cut", "sum_mean": "reduction", "seed": "seed", "inplace": "inplace"}


def oracle(path):
    require_torch()
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "torch_oracle.py"), str(path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def _flat(v):
    return [y for x in v for y in _flat(x)] if isinstance(v, list) else [v]


def _diff(a, b, *extra):
    return run_cli("diff", a, b, "--no-color", "--width", "100", *extra)


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_pair_golden_text(name):
    proc = run_cli("diff", f"scenarios/diff/{name}.a.py", f"scenarios/diff/{name}.b.py", "--no-color",
                   "--width", "100", cwd=ROOT)
    assert proc.returncode == 3, proc.stderr
    assert proc.stdout == (DIFF / f"{name}.diff.txt").read_text()


@pytest.mark.parametrize("name", sorted(PAIRS))
def test_pair_cause_and_grads_match_torch(name):
    proc = _diff(DIFF / f"{name}.a.py", DIFF / f"{name}.b.py", "--json")
    assert proc.returncode == 3
    doc = json.loads(proc.stdout)
    assert not doc["same"]
    assert PAIRS[name] in [c["kind"] for c in doc["causes"]]
    ta, tb = oracle(DIFF / f"{name}.a.py"), oracle(DIFF / f"{name}.b.py")
    for leaf in doc["leaves"]:
        for side, t in (("grad_a", ta), ("grad_b", tb)):
            want = t["variables"].get(leaf["name"], {}).get("grad")
            got = leaf[side]
            if want is None:
                assert got is None
            else:
                assert _flat(got) == pytest.approx(_flat(want), rel=1e-5, abs=1e-6)


def test_zero_grad_names_the_reset_line_and_the_pass_count():
    doc = json.loads(_diff(DIFF / "zero_grad.a.py", DIFF / "zero_grad.b.py", "--json").stdout)
    cause = next(c for c in doc["causes"] if c["kind"] == "zero_grad")
    assert cause["a"] == {"line": 8, "text": "opt.zero_grad()"}
    assert "sums 3 backward passes" in cause["message"] and "only 1" in cause["message"]
    assert doc["parting"]["kind"] == "backward" and "backward pass 2" in doc["parting"]["detail"]


def test_detach_names_the_cut_line():
    doc = json.loads(_diff(DIFF / "detach.a.py", DIFF / "detach.b.py", "--json").stdout)
    cause = next(c for c in doc["causes"] if c["kind"] == "cut")
    assert cause["b"]["line"] == 7 and ".detach()" in cause["b"]["text"]
    assert [x["name"] for x in doc["leaves"]] == ["w1"]
    assert doc["leaves"][0]["grad_b"] is None


def test_sum_vs_mean_factor_is_the_element_count():
    doc = json.loads(_diff(DIFF / "sum_mean.a.py", DIFF / "sum_mean.b.py", "--json").stdout)
    (leaf,) = doc["leaves"]
    assert leaf["factor"] == pytest.approx(0.25)   # 4 rows: the mean divides by 4


def test_same_script_agrees(tmp_path):
    proc = _diff(DIFF / "seed.a.py", DIFF / "seed.a.py")
    assert proc.returncode == 0
    assert "The two runs agree" in proc.stdout


def test_set_per_side_and_markdown(tmp_path):
    s = tmp_path / "s.py"
    s.write_text("y = (x * x).sum()\ny.backward()\n")
    proc = run_cli("diff", s, s, "--set-a", "x=[1.0, 2.0]", "--set-b", "x=[1.0, 3.0]", "--format", "md")
    assert proc.returncode == 3, proc.stderr
    assert proc.stdout.startswith("# Comparing")
    assert "- x.grad: A [2, 4], B [2, 6]" in proc.stdout


def test_usage_errors(tmp_path):
    assert run_cli("diff", DIFF / "seed.a.py", tmp_path / "nope.py").returncode == 2
    assert run_cli("diff", "-", "-").returncode == 2
    assert run_cli("diff", DIFF / "seed.a.py", DIFF / "seed.b.py", "--format", "svg").returncode == 2


def test_unsupported_construct_is_a_script_error(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("import os\n")
    proc = run_cli("diff", bad, DIFF / "seed.a.py")
    assert proc.returncode == 1
    assert "bad.py:1:" in proc.stderr and "Traceback" not in proc.stderr


# -- explain --expect --------------------------------------------------------------------------

EXPECTS = sorted(p.stem for p in EXPECT.glob("*.py"))


@pytest.mark.parametrize("name", EXPECTS)
def test_expect_golden(name):
    formula = (EXPECT / f"{name}.expect").read_text().strip()
    proc = run_cli("explain", EXPECT / f"{name}.py", "--expect", formula, "--no-color", "--width", "100")
    assert proc.returncode == (0 if name.endswith("correct") else 3), proc.stderr
    section = proc.stdout[proc.stdout.index("Your gradient formulas"):]
    assert section == (EXPECT / f"{name}.expect.txt").read_text()


@pytest.mark.parametrize("name", EXPECTS)
def test_expect_engine_value_is_torchs(name):
    formula = (EXPECT / f"{name}.expect").read_text().strip()
    proc = run_cli("explain", EXPECT / f"{name}.py", "--expect", formula, "--json")
    doc = json.loads(proc.stdout)
    (o,) = doc["expectations"]
    leaf = formula.split(".grad", 1)[0]
    want = oracle(EXPECT / f"{name}.py")["variables"][leaf]["grad"]
    assert o["ok"] == name.endswith("correct")
    got = run_cli("run", EXPECT / f"{name}.py", "--json")
    assert json.loads(got.stdout)["variables"][leaf]["grad"] == pytest.approx(want, rel=1e-6)


def test_expect_reasons():
    def reasons(script, formula):
        proc = run_cli("explain", EXPECT / script, "--expect", formula, "--json")
        (o,) = json.loads(proc.stdout)["expectations"]
        return o["reasons"]

    assert "misses the path through y + x (line 7)" in reasons("fan_in_missing_path.py", "x.grad = 2 * x")[0]
    assert "counts the path through x * x" in reasons("fan_in_missing_path.py", "x.grad = 4 * x + 1")[0] \
        or "factor" in reasons("fan_in_missing_path.py", "x.grad = 4 * x + 1")[0]
    assert "constant factor 3" in reasons("chain_missing_factor.py", "x.grad = 2 * (3 * x + 1)")[0]
    assert "wrong sign" in reasons("chain_missing_factor.py", "x.grad = -6 * (3 * x + 1)")[0]
    assert "dimension(s) 0" in reasons("bias_missing_sum.py", "b.grad = 2 * (X @ W + b - Y)")[0]


def test_expect_transposed(tmp_path):
    s = tmp_path / "mm.py"
    s.write_text(textwrap.dedent("""\
        import torch
        W = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        x = torch.tensor([[1.0], [-1.0]])
        v = torch.tensor([[2.0], [0.5]])
        loss = (v * (W @ x)).sum()
        loss.backward()
        """))
    proc = run_cli("explain", s, "--expect", "W.grad = x @ v.T", "--json")
    (o,) = json.loads(proc.stdout)["expectations"]
    assert not o["ok"] and "transpose" in o["reasons"][0]
    ok = run_cli("explain", s, "--expect", "W.grad = v @ x.T")
    assert ok.returncode == 0


def test_expect_accumulated(tmp_path):
    s = tmp_path / "acc.py"
    s.write_text("import torch\nw = torch.tensor(2.0, requires_grad=True)\n"
                 "for _ in range(3):\n    (w * w).backward()\n")
    proc = run_cli("explain", s, "--expect", "w.grad = 2 * w", "--json")
    assert proc.returncode == 3
    (o,) = json.loads(proc.stdout)["expectations"]
    assert "earlier backward pass" in o["reasons"][0]


@pytest.mark.parametrize("formula, message", [
    ("x = 2 * x", "left side must be a tensor's .grad"),
    ("x.grad == 2", "TARGET.grad = FORMULA"),
    ("x.grad = (", "not valid Python"),
])
def test_expect_usage_errors(formula, message):
    proc = run_cli("explain", EXPECT / "fan_in_missing_path.py", "--expect", formula)
    assert proc.returncode == 2
    assert message in proc.stderr


@pytest.mark.parametrize("formula, message", [
    ("x.grad = __import__('os')", "not available in autotrace scripts"),
    ("x.grad = x.__dict__", "not available in autotrace scripts"),
    ("x.grad = open('/etc/passwd')", "open"),
    ("x.grad = [0] * 10**9", "limit"),
])
def test_expect_formula_runs_in_the_sandbox(formula, message):
    proc = run_cli("explain", EXPECT / "fan_in_missing_path.py", "--expect", formula, "--json")
    assert proc.returncode == 3, proc.stderr
    (o,) = json.loads(proc.stdout)["expectations"]
    assert not o["ok"] and message in o["headline"]


def test_expect_formula_cannot_change_the_run(tmp_path):
    # a formula with side effects sees the final names but records no graph
    proc = run_cli("explain", EXPECT / "power_rule_correct.py", "--expect", "A.grad = 3 * A ** 2",
                   "--expect", "A.grad = A.grad.zero_() + 75", "--json")
    doc = json.loads(proc.stdout)
    assert [o["ok"] for o in doc["expectations"]] == [True, True]


# -- the pytest plugin ---------------------------------------------------------------------------


def _pytest(*args, cwd):
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *map(str, args)],
                          capture_output=True, text=True, cwd=cwd, timeout=300)


def test_plugin_collects_goldens_and_reports_checks_diff(tmp_path):
    good = tmp_path / "good.py"
    good.write_text("import torch\nx = torch.tensor(5., requires_grad=True)\ny = x ** 3\ny.backward()\n")
    bad = tmp_path / "bad.py"
    bad.write_text(good.read_text())
    lone = tmp_path / "lone.py"            # no golden: not collected
    lone.write_text("print(1)\n")
    assert run_cli("check", "--update", good, bad).returncode == 0
    bad.write_text(bad.read_text().replace("** 3", "** 2"))
    proc = _pytest("--autotrace", tmp_path, "-q", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "1 failed, 1 passed" in proc.stdout
    check_out = run_cli("check", bad, "--no-color").stdout
    for line in check_out.splitlines()[1:]:
        assert line.strip() in proc.stdout
    assert "x.grad: expected" in proc.stdout


def test_plugin_is_off_unless_asked(tmp_path):
    (tmp_path / "s.py").write_text("print(1)\n")
    (tmp_path / "s.expected.json").write_text('{"schema_version": 1, "stdout": "2\\n"}')
    proc = _pytest(tmp_path, "-q", cwd=tmp_path)
    assert proc.returncode == 5          # nothing collected


def test_plugin_runs_the_scenario_goldens_in_parallel():
    proc = _pytest("--autotrace", ROOT / "scenarios", "-q", "-n", "2", cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-2000:]
    assert " passed" in proc.stdout and "failed" not in proc.stdout


# -- check says what a gradient change looks like ------------------------------------------------


@pytest.mark.parametrize("before, after, hint", [
    ("range(1)", "range(3)", "3 × the golden's: as if 3 backward passes accumulated"),
    (".sum()", ".mean()", "1/2 of the golden's: as if a mean over 2 elements replaced a sum"),
])
def test_check_failure_names_the_factor(tmp_path, before, after, hint):
    s = tmp_path / "g.py"
    s.write_text("import torch\nw = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                 "for _ in range(1):\n    (w * 3).sum().backward()\n")
    assert run_cli("check", "--update", s).returncode == 0
    s.write_text(s.read_text().replace(before, after))
    proc = run_cli("check", s, "--no-color", "--width", "200")
    assert proc.returncode == 3
    assert hint in proc.stdout


def test_expect_with_nan_on_either_side_is_a_verdict():
    for formula in ('A.grad = float("nan") + 0 * A', "A.grad = A * 0"):
        proc = run_cli("explain", EXPECT / "power_rule_correct.py", "--expect", formula, "--json")
        assert proc.returncode == 3, proc.stderr
        (o,) = json.loads(proc.stdout)["expectations"]
        assert not o["ok"] and o["reasons"]
    nan_script = ROOT / "scenarios" / "sqrt_at_zero_nan.py"
    proc = run_cli("explain", nan_script, "--expect", "x.grad = x * 0", "--json")
    assert proc.returncode in (1, 3) and "Traceback" not in proc.stderr


def test_expect_formulas_see_torch_and_name_module_parameters(tmp_path):
    s = tmp_path / "m.py"
    s.write_text("import torch\nimport torch.nn as nn\ntorch.manual_seed(0)\nm = nn.Sequential(nn.Linear(3, 1))\n"
                 "x = torch.ones(2, 3)\nloss = m(x).sum()\nloss.backward()\n")
    proc = run_cli("explain", s, "--expect", "m[0].bias.grad = torch.full((1,), 2.0)",
                   "--expect", "m[0].weight.grad = 2 * torch.ones(1, 3)", "--json")
    assert proc.returncode == 0, proc.stdout[-500:] + proc.stderr
    assert [o["ok"] for o in json.loads(proc.stdout)["expectations"]] == [True, True]


def test_notebook_api_takes_paths(tmp_path):
    import pathlib
    import autotrace

    r = autotrace.run(pathlib.Path(ROOT / "scenarios" / "seed2_power_rule.py"))
    assert float(r.variables["A"].grad) == 75.0
    with pytest.raises(FileNotFoundError):
        autotrace.run(str(tmp_path / "missing.py"))
