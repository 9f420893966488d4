"""explain: the model's numbers equal the engine's, golden text for every scenario,
messages in one table, no rich in the model."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from autotrace import explain as E
from autotrace import messages
from helpers import check_golden

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = sorted((ROOT / "scenarios").glob("*.py"))


def trace_of(path: Path, sets=(), of=None, source=None):
    src = source if source is not None else path.read_text()
    name = str(path.relative_to(ROOT)) if path.is_absolute() else str(path)
    return E.run(src, name, sets=sets, of=of)


def render_text(ex, width=100) -> str:
    from rich.console import Console

    from autotrace.render import explain_console
    con = Console(no_color=True, width=width, highlight=False, record=True, file=open(os.devnull, "w"))
    explain_console.render(ex, con)
    return "\n".join(line.rstrip() for line in con.export_text().splitlines()) + "\n"


def as_array(v):
    if v is None:
        return None
    conv = lambda x: float(x) if not isinstance(x, str) else float(x.replace("inf", "inf"))  # noqa: E731
    return np.array(_map(v, conv), dtype=np.float64)


def _map(v, f):
    return [_map(x, f) for x in v] if isinstance(v, list) else f(v)


def close(a, b) -> bool:
    if a is None or b is None:
        return a is None and b is None
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=1e-6, atol=0, equal_nan=True))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_number_in_the_json_explanation_is_the_engines(path):
    from autotrace.render import explain_json
    trace = trace_of(path)
    data = json.loads(explain_json.render(E.explain(trace)))
    assert data["schema_version"] == 1
    for p, rec in zip(data["passes"], trace.passes):
        for s, srec in zip(p["steps"], rec.steps):
            assert s["node"] == f"n{srec.node}"
            assert close(as_array(s["upstream"]), srec.grad_in[0] if srec.grad_in else None)
            if s["kind"] == "accumulate" and rec.kind == "backward":
                assert close(as_array(s["before"]), srec.before)
                assert close(as_array(s["after"]), srec.after)
            for i, e in enumerate(s["edges"]):
                if e["target_node"] is not None and i < len(srec.grads_out):
                    assert close(as_array(e["grad"]), srec.grads_out[i])
        by_number = {str(s["number"]): s for s in p["steps"]}
        for row in p["table"]:
            if row["step"] not in by_number:
                continue                                    # a summarised run
            srec = rec.steps[int(row["step"]) - 1]
            assert close(as_array(row["upstream_value"]), srec.grad_in[0] if srec.grad_in else None)
            if by_number[row["step"]]["kind"] == "accumulate":
                if rec.kind == "backward":
                    assert close(as_array(row["passed_values"][0]["value"]), srec.after)
                continue
            got = [as_array(v["value"]) for v in row["passed_values"]]
            want = [g for (tid, _), g in zip(trace.nodes[srec.node].inputs, srec.grads_out) if tid is not None]
            assert len(got) == len(want) and all(close(a, b) for a, b in zip(got, want))
        for c in p["chains"]:
            assert c["matches"] in (True, None), (path.stem, c)
            if rec.kind == "backward" and not p["error"]:
                assert c["matches"] is True, (path.stem, c["leaf"])
            if c["contributions"]:
                total = np.sum([as_array(d["value"]) for d in c["contributions"]], axis=0)
                assert np.allclose(total, as_array(c["value"]), rtol=1e-5, atol=1e-6, equal_nan=True), c["leaf"]
    # the timeline's numbers are the engine's records of those events
    recs = [e for e in trace.events if e.kind != "grad_reset"]
    shown = [e for e in data["events"] if e["kind"] not in ("backward", "grad_reset", "fold")]
    for e, rec in zip(shown, recs):
        assert e["kind"] == rec.kind and e["line"] == rec.line
        for q, rq in zip(e["data"].get("params", []), rec.data.get("params", [])):
            for key in ("grad", "before", "after"):
                if key in q:
                    assert close(as_array(q[key]), rq[key]), (path.stem, e["kind"], key)
    for f in data["folds"]:
        for row in f["rows"]:
            prec = trace.passes[row["pass_number"] - 1]
            steps = {trace.nodes[s.node].id: s for s in prec.steps}
            for leaf, gnorm in zip(f["leaves"], row["grads"]):
                (st,) = [s for p in data["passes"] if p["number"] == f["first"] for s in p["steps"]
                         if s["kind"] == "accumulate" and s["output"] == leaf]
                inc = steps[int(st["node"][1:])].grad_in[0].astype(np.float64)
                assert np.isclose(gnorm, inc.item() if inc.size == 1 else np.sqrt(np.sum(inc * inc)), rtol=1e-6)
    for leaf, g in data["final_grads"].items():
        v = trace.variables.get(leaf) or trace.parameters.get(leaf)
        if v is None:   # a module's parameter shown by its first name (model.0.weight)
            v = next(x for x in trace.parameters.values() if E.explain(trace).final_grads.get(leaf) is x.grad)
        assert close(as_array(g), v.grad)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_golden_explain_text(path):
    check_golden(path.with_suffix(".explain.txt"), render_text(E.explain(trace_of(path))))


# the scenarios of training-code shapes keep their Markdown and JSON explanation too
FORMATS = ("adam_mlp", "broadcasting", "rnn_loop", "clipped_update", "no_grad_eval")


@pytest.mark.parametrize("name", FORMATS)
def test_golden_explain_markdown_and_json(name):
    from autotrace.render import explain_json, explain_markdown

    path = ROOT / "scenarios" / f"{name}.py"
    ex = E.explain(trace_of(path))
    for suffix, got in ((".explain.md", explain_markdown.render(ex)), (".explain.json", explain_json.render(ex) + "\n")):
        check_golden(path.with_suffix(suffix), got, suffix)


def test_power_rule_says_why_75():
    out = render_text(E.explain(trace_of(ROOT / "scenarios/seed2_power_rule.py")))
    assert "∂(A³)/∂A = 3·A²" in out
    assert "3·5² = 75" in out
    assert "A.grad: None → 75" in out


def test_fan_in_sum_written_out():
    ex = E.explain(trace_of(ROOT / "scenarios/fan_in.py"))
    c = ex.passes[0].chains[0]
    assert c.total is not None and c.total.endswith("= 7") and c.matches
    acc = [s for s in ex.passes[0].steps if s.kind == "accumulate"][0]
    assert len(acc.fan_in) == 3


def test_accumulation_timeline_2_4_6():
    ex = E.explain(trace_of(ROOT / "scenarios/seed2_grad_accumulation.py"))
    entries = ex.timeline["w"]
    assert [float(e.after) for e in entries] == [2.0, 4.0, 6.0]
    assert any(d.kind == "accumulation" and "None → 2 → 4 → 6" in d.title for d in ex.diagnostics)
    assert ex.passes[1].same_as == 1


def test_mixed_requires_grad_explains_B_none():
    ex = E.explain(trace_of(ROOT / "scenarios/seed2_mixed_requires_grad.py"))
    d = [d for d in ex.diagnostics if d.kind == "none_grad.requires_grad"]
    assert d and "B" in d[0].title and "requires_grad=False" in d[0].why


def test_vector_backward_error_caught_is_explained():
    ex = E.explain(trace_of(ROOT / "scenarios/seed2_vector_backward_error.py"))
    d = [d for d in ex.diagnostics if d.kind == "error.scalar"]
    assert d and d[0].line == 9 and "gradient=" in d[0].fix and "shape [3]" in d[0].why


def test_backward_twice_names_the_saved_scalar():
    ex = E.explain(trace_of(ROOT / "scenarios/seed2_vector_backward_fixed.py"))
    d = [d for d in ex.diagnostics if d.kind == "error.twice"][0]
    assert "MulBackward0" in d.why and "other = 2" in d.why and "line 10" in d.why
    assert "retain_graph=True" in d.fix


def test_sqrt_at_zero_points_at_sqrt():
    ex = E.explain(trace_of(ROOT / "scenarios/sqrt_at_zero_nan.py"))
    d = [d for d in ex.diagnostics if d.kind == "nan"][0]
    assert "SqrtBackward0" in d.title and d.line == 7


def test_broadcast_sum_back_is_a_step_and_b_receives_its_own_shape():
    trace = trace_of(ROOT / "scenarios/broadcasting.py")
    ex = E.explain(trace)
    b_grad = trace.variables["b"].grad
    assert b_grad.tolist() == [12.0, 10.0, 26.0]          # 2·y summed over the rows, by hand
    add = next(s for s in ex.passes[0].steps if s.node_name == "AddBackward0")
    edge = next(e for e in add.edges if e.target == "b")
    assert edge.grad.shape == (3,) and np.array_equal(edge.grad, b_grad)
    assert edge.sum_back.shape == (2, 3) and np.array_equal(edge.sum_back.sum(axis=0), b_grad)
    assert "[12, 10, 26]" in edge.sum_back_text and "dimension(s) 0" in edge.sum_back_text
    chain = next(c for c in ex.passes[0].chains if c.leaf == "b")
    assert chain.matches is True and np.array_equal(chain.value, b_grad)
    assert chain.paths[0].endswith("→ [12, 10, 26]") and chain.count == 2
    assert "differs" not in render_text(ex)


def test_thirty_paths_are_counted_and_summed():
    trace = trace_of(ROOT / "scenarios/rnn_loop.py")
    ex = E.explain(trace)
    (chain,) = [c for c in ex.passes[0].chains if c.leaf == "W"]
    assert chain.count == 30 and len(chain.contributions) == 30
    total = np.sum([np.asarray(d["value"], dtype=np.float64) for d in chain.contributions], axis=0)
    assert np.allclose(total, trace.variables["W"].grad, rtol=1e-5, atol=1e-7)
    assert chain.matches is True
    out = render_text(ex)
    assert "30 contributions" in out and "17 paths" not in out and "sum of all 30" in out


def test_wrt_and_pass_selection():
    ex = E.explain(trace_of(ROOT / "scenarios/linear_layer.py"), wrt="b")
    assert all(c.leaf == "b" for p in ex.passes for c in p.chains)
    assert not any(s.kind == "accumulate" and s.output == "W" for p in ex.passes for s in p.steps)
    ex = E.explain(trace_of(ROOT / "scenarios/seed2_grad_accumulation.py"), pass_number=2)
    assert [p.number for p in ex.passes] == [2]


def test_of_runs_an_implicit_backward():
    trace = trace_of(Path("<expr>"), sets=["x=[2.0, 3.0]"], of="z", source="z = (x*3).sum()\n")
    ex = E.explain(trace, of="z")
    assert ex.passes and ex.passes[0].chains[0].matches


def test_verify_agrees_with_autograd():
    path = ROOT / "scenarios/fan_in.py"
    src = path.read_text()
    trace = trace_of(path)

    def rerun(perturb):
        return E.run(src, "fan_in.py", perturb=perturb)

    v = E.verify(trace, rerun)
    assert v.rows and v.ok, v
    assert abs(v.rows[0].numeric - 7.0) < 1e-4


def test_runner_perturb_moves_the_first_binding_of_a_leaf_only():
    from autotrace import runner
    src = "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x\nx = x * 2\n"
    t = runner.run(src, "p.py", options=runner.Options(perturb={"x": ((1,), 0.5)}))
    assert t.variables["y"].value.tolist() == [1.0, 2.5] and t.variables["y"].value.dtype == np.float64
    assert t.variables["x"].value.tolist() == [2.0, 5.0]
    t = runner.run("y = x * 1\n", "p.py", sets=["x=[1.0, 2.0]"], options=runner.Options(perturb={"x": ((0,), -0.25)}))
    assert t.variables["x"].value.tolist() == [0.75, 2.0]
    from autotrace.tensor import Tensor
    assert Tensor._on_bind is Tensor.__dict__["_on_bind"] and Tensor._on_bind.__qualname__ == "Tensor._on_bind"


def test_failed_backward_calls_come_from_the_engine_records():
    trace = trace_of(ROOT / "scenarios/seed2_vector_backward_error.py")
    assert trace.passes and trace.passes[0].error.startswith("RuntimeError") and not trace.passes[0].steps


def test_every_message_key_used_exists():
    used = set()
    files = sorted((ROOT / "autotrace/explain").glob("*.py")) + [
        ROOT / "autotrace/render/explain_console.py", ROOT / "autotrace/render/explain_markdown.py"]
    for f in files:
        used |= set(re.findall(r'text\(\s*f?"([\w.]+)"', f.read_text()))
    assert len(used) > 50
    missing = {k for k in used if k not in messages.EN and "{" not in k}
    assert not missing


def test_model_does_not_import_rich():
    for f in (ROOT / "autotrace/explain").glob("*.py"):
        assert "rich" not in re.findall(r"^\s*(?:from|import)\s+(\w+)", f.read_text(), re.M), f.name


def test_fmt_numbers():
    assert E.fmt_num(np.float32(75)) == "75"
    assert E.fmt_num(np.float32(0.1)) == "0.1"
    assert E.fmt(np.array([np.inf, 0.25], dtype=np.float32)) == "[inf, 0.25]"
    assert E.fmt(None) == "None"


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_explain_json_validates_against_its_schema(path):
    pytest.importorskip("jsonschema")
    from autotrace.render import explain_json
    from autotrace.render.json import validator
    trace = trace_of(path)
    ex = E.explain(trace)
    src = path.read_text()
    ex.verification = E.verify(trace, lambda perturb: E.run(src, path.name, perturb=perturb))
    doc = json.loads(explain_json.render(ex))
    errors = sorted(validator("explain").iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


def test_graph_2000_is_fast_and_bounded():
    import time
    src = (ROOT / "benchmarks/scripts/graph_2000.py").read_text()
    t0 = time.perf_counter()
    trace = E.run(src, "graph_2000.py")
    out = render_text(E.explain(trace))
    assert time.perf_counter() - t0 < 3.0
    assert len(out.splitlines()) < 120
    assert "Steps 6–1999 repeat the pattern MulBackward0, TanhBackward0" in out and "--all-steps" in out
    full = render_text_all(E.explain(trace, all_steps=True))
    assert "Step 1000: " in full


def render_text_all(ex, width=100) -> str:
    from rich.console import Console

    from autotrace.render import explain_console
    con = Console(no_color=True, width=width, highlight=False, record=True, file=open(os.devnull, "w"))
    explain_console.render(ex, con, all_steps=True)
    return con.export_text()


def test_no_runtime_warnings_leak(recwarn):
    import warnings
    warnings.simplefilter("always")
    ex = E.explain(trace_of(ROOT / "scenarios/sqrt_at_zero_nan.py"))
    render_text(ex)
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_backward_from_a_leaf_itself_is_explained():
    # regression: the chain of a pass that starts at the leaf has no edges
    from helpers import run_cli

    proc = run_cli("explain", "-e", "x.backward(); print(x.grad)", "--set", "x=2", "--no-color")
    assert proc.returncode == 0, proc.stderr
    assert "∂x/∂x = 1  (the pass starts at the leaf itself)" in proc.stdout
    proc = run_cli("explain", "-e", "import torch\nx.backward(torch.tensor([2.0, 3.0]))", "--set",
                   "x=[1.0, 1.0]", "--no-color")
    assert proc.returncode == 0, proc.stderr
    assert "∂x/∂x = v = [2, 3]" in proc.stdout


def test_wrt_and_pass_that_do_not_exist_are_usage_errors():
    from helpers import SCENARIOS, run_cli

    proc = run_cli("explain", SCENARIOS / "seed2_power_rule.py", "--wrt", "nope")
    assert proc.returncode == 2 and "no leaf tensor of the graph is named 'nope'" in proc.stderr
    proc = run_cli("explain", SCENARIOS / "seed2_power_rule.py", "--pass", "5")
    assert proc.returncode == 2 and "the script ran 1 backward pass" in proc.stderr


# -- regressions from the tester's report ------------------------------------------------


def explain_src(src, sets=(), **kw):
    return E.explain(E.run(src, "t.py", sets=sets), **kw)


def test_where_names_the_operand_without_grad_not_the_condition():
    src = ("import torch\nx = torch.tensor([1.0, 4.0], requires_grad=True)\ns = torch.sqrt(x)\n"
           "zz = torch.zeros(2)\ny = torch.where(x > 0, s, zz)\ny.sum().backward()\n")
    out = render_text(explain_src(src))
    assert "zz: does not require grad, so no gradient is computed for it" in out
    assert "s: does not require grad" not in out
    assert "to s: ∂(y.sum())/∂s = [1, 1] · 1 = [1, 1]" in out


def test_keyword_operands_are_named():
    src = ("import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\na = torch.tensor([0.5, 0.5])\n"
           "b = torch.tensor([1.5, 1.5], requires_grad=True)\ny = torch.clamp(x, min=a, max=b)\ny.sum().backward()\n")
    assert "a: does not require grad, so no gradient is computed for it" in render_text(explain_src(src))


WHERE_NAN = ("import torch\nx = torch.tensor([-1.0, 4.0], requires_grad=True)\n"
             "y = torch.where(x > 0, torch.sqrt(x), torch.zeros(2))\ny.sum().backward()\n")


def test_where_nan_trap_shows_numbers_and_blames_zero_times_inf():
    ex = explain_src(WHERE_NAN)
    out = render_text(ex, width=200)
    assert "with numbers: 1/(2·√[-1, 4]) = [nan, 0.25]" in out
    assert "to x: ∂(y.sum())/∂x = [0, 1] · [nan, 0.25] = [nan, 0.25]" in out
    d = [d for d in ex.diagnostics if d.kind == "nan"]
    assert len(d) == 1
    assert d[0].why == (
        "The upstream gradient at [0] is 0: torch.where did not select this branch there, so it passes 0. "
        "But the local derivative 1/(2·√x) is nan at the values here (x = [-1, 4]), and the chain rule "
        "multiplies them: 0 × nan = nan. So the gradient passed to x contains nan, although that element "
        "was never used. Everything downstream inherits it.")
    assert d[0].fix == (
        "Make the unselected branch safe before the op, so its derivative is finite everywhere: "
        "torch.sqrt(torch.where(x > 0, x, torch.ones_like(x))) inside the torch.where, or clamp the input "
        "(torch.sqrt(x.clamp_min(eps))).")
    assert "was finite" not in d[0].why


def test_each_nan_origin_gets_a_diagnostic():
    src = ("import torch\nx = torch.tensor([0.0, 1.0], requires_grad=True)\n(x ** 2).sum().backward()\n"
           "x.grad = None\ny = (1 / x).sum()\ny.backward()\nx.grad = None\nz = (x / x).sum()\nz.backward()\n")
    d = [d for d in explain_src(src).diagnostics if d.kind == "nan"]
    assert [x.title for x in d] == [
        "inf first appears at ReciprocalBackward0 (line 5: y = (1 / x).sum()) in backward pass 2.",
        "inf first appears at DivBackward0 (line 8: z = (x / x).sum()) in backward pass 3."]


def test_none_grad_blames_the_failed_passes_not_a_later_no_grad_update():
    src = (Path("/dev/null").read_text() +
           "import torch\n\na = torch.tensor([1.0, 2.0], requires_grad=True)\nb = a * 2\nc = b ** 2\nb.add_(1)\n"
           "d = c.sum()\n" + "print('.')\n" * 5 + "try:\n    d.backward()\nexcept RuntimeError as e:\n    print('failed')\n"
           "e2 = (b * c).sum()\nprint('second')\nc.mul_(2)\ntry:\n    e2.backward()\nexcept RuntimeError as err:\n"
           "    print('failed again')\nwith torch.no_grad():\n    a.add_(1)\nprint(a.grad)\n")
    ex = explain_src(src)
    assert [d.line for d in ex.diagnostics if d.kind.startswith("error")] == [14, 21]
    d = [d for d in ex.diagnostics if d.kind == "none_grad.unused"][0]
    assert d.why == ("a requires grad, but no backward pass reached it: the backward calls at lines 14 and 21, "
                     "whose graph leads to it, failed (see the errors above), so no gradient arrived.")
    assert "no_grad" not in d.why


MODEL = ("import torch\nimport torch.nn as nn\ntorch.manual_seed(0)\n"
         "model = nn.Sequential(nn.Linear(2, 2), nn.Tanh(), nn.Linear(2, 1))\nx = torch.tensor([[1.0, 2.0]])\n"
         "loss = model(x).sum()\nloss.backward()\nfor name, p in model.named_parameters():\n    print(name, p.grad)\n")


def test_module_parameters_keep_their_names_and_inner_nodes_are_labelled():
    ex = explain_src(MODEL)
    out = render_text(ex, width=300)
    assert "leaf p" not in out and "p.grad" not in out
    assert "Step 3: AccumulateGrad  →  leaf model.2.bias" in out
    assert ("∂loss/∂model.0.weight = ∂loss/∂(model(x)) · ∂(model(x))/∂tanh₁ · ∂tanh₁/∂addmm₁ · ∂addmm₁/∂t₁ · "
            "∂t₁/∂model.0.weight;") in out
    assert "tanh₁ is the result of TanhBackward0, one of the operations inside model(x)." in out
    assert "∂(model(x))/∂(model(x))" not in out
    # every parameter of the module is in "Gradients at the end", by its module name
    assert sorted(ex.final_grads) == ["model.0.bias", "model.0.weight", "model.2.bias", "model.2.weight"]


def test_x_times_x_fan_in_names_both_inputs():
    src = "import torch\nx = torch.tensor(3.0, requires_grad=True)\ny = x * x\ny.backward()\n"
    out = render_text(explain_src(src), width=200)
    assert "(3 + 3 from both inputs of y = x * x (step 1))" in out
    assert "via y (step 1, line 3): ∂y/∂y · ∂y/∂x (via self) = 1 · 3 = 3" in out
    assert "via y (step 1, line 3): ∂y/∂y · ∂y/∂x (via other) = 1 · 3 = 3" in out
    assert "∂y/∂x = 3 + 3 = 6" in out
    src = ("import torch\nv = torch.tensor([1.0, 2.0], requires_grad=True)\ny = v * v\n"
           "y.backward(gradient=torch.tensor([1.0, 1.0]))\n")
    out = render_text(explain_src(src), width=200)
    assert "∂y/∂v = ∂y/∂v" not in out
    assert "u·∂y/∂v = [1, 2] + [1, 2] = [2, 4]" in out


def test_gradient_vector_is_not_called_dy_dy():
    src = ("import torch\nx = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\ny = x * 2\n"
           "y.backward(gradient=torch.tensor([1.0, 0.1, 0.01]))\n")
    out = render_text(explain_src(src), width=200)
    assert "upstream: the gradient= vector v = [1, 0.1, 0.01]" in out
    assert "local rule: ∂y/∂x = 2" in out
    assert "to x: v·∂y/∂x = [1, 0.1, 0.01] · 2 = [2, 0.2, 0.02]" in out
    assert "∂y/∂y = [1, 0.1, 0.01]" not in out


def test_of_pass_is_the_one_explain_ran():
    trace = trace_of(Path("<expr>"), sets=["x=[2.0, 3.0]"], of="z", source="z = (x*3).sum()\n")
    p = E.explain(trace, of="z").passes[0]
    assert p.seed_text.endswith("The script calls no backward(): this pass is the one explain ran from z "
                                "(z.backward(retain_graph=True), so the script's graph is left as it was).")
    assert "the saved tensors stay" not in p.seed_text


def test_markdown_fence_is_longer_than_printed_backticks():
    from autotrace.render import explain_markdown
    src = "import torch\nx = torch.tensor(2.0, requires_grad=True)\nprint('```')\nprint('inside')\n(x * 3).backward()\n"
    md = explain_markdown.render(explain_src(src))
    assert "````\n```\ninside\n````\n" in md


def test_verify_checks_module_parameters():
    ex_trace = E.run(MODEL, "m.py")
    v = E.verify(ex_trace, lambda perturb: E.run(MODEL, "m.py", perturb=perturb))
    assert v.ok and not v.notes
    assert sorted({r.leaf for r in v.rows}) == ["model.0.bias", "model.0.weight", "model.2.bias", "model.2.weight"]
    assert len(v.rows) == 9


def test_verify_says_per_leaf_when_a_leaf_cannot_be_moved():
    src = "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\ny = (x * 2).sum()\ny.backward()\n"
    trace = E.run(src, "t.py")
    v = E.verify(trace, lambda perturb: None)
    assert v.notes == ["x is not checked: the re-run with it moved did not produce y."]


def test_verify_note_keeps_its_indent_when_wrapped():
    from rich.console import Console

    from autotrace.render import explain_console
    ex = E.explain(E.run("import torch\nx = torch.tensor(1.0, requires_grad=True)\n(x * 2).backward()\n", "t.py"))
    ex.verification = E.Verification(1, [], None, None, ["a long note " * 12])
    con = Console(no_color=True, width=60, highlight=False, record=True, file=open(os.devnull, "w"))
    explain_console.render(ex, con)
    lines = [ln for ln in con.export_text().splitlines() if "a long note" in ln]
    assert len(lines) > 1 and all(ln.startswith("  ") and not ln.startswith("   ") for ln in lines)


def test_matrix_rules_use_the_scripts_operands():
    from helpers import SCENARIOS, run_cli

    proc = run_cli("explain", SCENARIOS / "linear_layer.py", "--no-color", "--width", "100")
    assert proc.returncode == 0, proc.stderr
    assert "matrix form: ∂loss/∂W.T = Xᵀ · ∂loss/∂(X @ W.T)" in proc.stdout


def test_implicit_root_is_the_last_scalar_with_grad_fn():
    from helpers import run_cli

    proc = run_cli("explain", "-e", "z = (x*3).sum()", "--set", "x=[2.0, 3.0]", "--no-color")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "explain runs one from z (line 1)" in out
    assert "∂z/∂x = [1, 1] · 3 = [3, 3]" in out
    # the script's own .grad stays None: explain's pass changes nothing the script saw
    assert "x.grad = None" in out
    trace = E.run("y = x * 2\nz = (x*3).sum()\nw = y.sum()\nv = y * 1\n", "e.py", sets=["x=[2.0, 3.0]"])
    assert trace.implicit_root == "w"         # the last scalar made, not the last bound
    assert trace.variables["x"].grad is None
    assert trace.passes[0].steps[-1].after.tolist() == [2.0, 2.0]


def test_no_scalar_root_says_how_to_pick_one():
    ex = explain_src("y = x * 2\n", sets=["x=[2.0, 3.0]"])
    assert ex.passes == []
    assert any("y.sum()" in n and "--of" in n for n in ex.notes)


def test_a_script_stopped_early_says_where_and_explains_what_ran():
    src = ("import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\n"
           "z = x.stft(4)\ny.backward()\n")
    ex = explain_src(src)
    out = render_text(ex, width=200)
    assert "The script stopped at line 4 with AttributeError" in out
    assert "backward() at line 5 never ran" in out
    assert "never calls backward()" not in out and "PyTorch's own" not in out
    assert "autotrace's own message" in out
    (chain,) = ex.passes[0].chains
    assert chain.value.tolist() == [2.0, 2.0] and chain.matches


def test_only_shown_steps_are_written_out_and_long_chains_stay_exact():
    src = (ROOT / "benchmarks/scripts/graph_2000.py").read_text()
    trace = E.run(src, "graph_2000.py")
    ex = E.explain(trace)
    steps = ex.passes[0].steps
    hidden = [s for s in steps if s.kind == "node" and all(e.rule is None for e in s.edges)]
    assert len(hidden) > 1900                       # summarised in the text: numbers only
    assert all(e.grad is not None for s in hidden for e in s.edges if e.target_node)
    (chain,) = ex.passes[0].chains
    assert chain.count == 1 and chain.matches is True
    assert np.array_equal(chain.value, trace.variables["x"].grad)
    assert "more" in chain.paths[0]                  # the 2,001-factor path is elided, not dropped
    full = E.explain(trace, all_steps=True)
    assert all(e.rule is not None for s in full.passes[0].steps if s.kind == "node" for e in s.edges
               if e.target_node)


def test_pass_table_fits_80_columns_without_splitting_words():
    from autotrace.render.explain_console import plain_table
    from autotrace.render.explain_markdown import markdown_table

    for name in ("linear_layer", "seed2_best_practices", "softmax_cross_entropy", "rnn_loop"):
        ex = E.explain(trace_of(ROOT / f"scenarios/{name}.py"))
        table = ex.passes[0].table
        words = {w for r in table for c in [r.step, r.node, r.where, r.upstream, *r.local, *r.passed]
                 for w in c.split(" ") if w}
        lines = plain_table(table, 78)
        assert all(len(ln) <= 78 for ln in lines if max(map(len, ln.split()), default=0) < 30), name
        got = {w for ln in lines if not set(ln) <= {"─", " "} for w in ln.split(" ") if w}
        heads = {w for c in ("col.step", "col.node", "col.where", "col.local", "col.upstream", "col.passed")
                 for w in messages.text(c).split()} | {"line", "see", "step"} | {str(k) for k in range(100)}
        assert got <= words | heads, (name, got - words - heads)          # every word whole
        md = markdown_table(table)
        assert md[0].startswith("| step | node |") and len(md) >= len(table) + 2
    ex = E.explain(trace_of(ROOT / "scenarios/linear_layer.py"))
    row = next(r for r in ex.passes[0].table if r.node == "MmBackward0")
    assert row.local == ["∂loss/∂W.T = Xᵀ · g"] and row.passed == ["[[4.9], [-4.9]]"]


def _events(ex, kind):
    return [e for e in ex.events if e.kind == kind]


def test_clip_and_sgd_events_carry_the_engines_numbers():
    ex = E.explain(trace_of(ROOT / "scenarios/clipped_update.py"))
    (clip,) = _events(ex, "clip_grad_norm")
    assert clip.data["total_norm"] == 5.0 and np.isclose(clip.data["scale"], 1 / (5 + 1e-6), rtol=1e-6)
    assert np.allclose(clip.data["params"][0]["after"], [0.6, 0.8])        # torch: tensor([0.6000, 0.8000])
    (step,) = _events(ex, "optimizer_step")
    q = step.data["params"][0]
    assert q["before"].tolist() == [1.0, 2.0]
    assert np.allclose(q["after"], [0.94, 1.92])                          # torch: tensor([0.9400, 1.9200])
    out = render_text(ex)
    assert "gradient is scaled by 0.2" in out.replace("\n ", "") and "w: [1, 2] − 0.1·[0.6, 0.8] = [0.94, 1.92]" in out
    assert "rule: p ← p − lr·g, lr = 0.1" in out


def test_sgd_momentum_and_weight_decay_match_torch():
    torch = pytest.importorskip("torch")
    src = ("import torch\nw = torch.tensor([1.0, -2.0], requires_grad=True)\n"
           "opt = torch.optim.SGD([w], lr=0.1, momentum=0.9, weight_decay=0.01)\n"
           "for i in range(3):\n    opt.zero_grad()\n    loss = (w * w * torch.tensor([1.0, 3.0])).sum()\n"
           "    loss.backward()\n    opt.step()\n")
    ex = explain_src(src, wrt="w")           # --wrt: no folding, every event
    steps = _events(ex, "optimizer_step")
    assert len(steps) == 3 and len(explain_src(src).folds) == 1
    tw = torch.tensor([1.0, -2.0], requires_grad=True)
    opt = torch.optim.SGD([tw], lr=0.1, momentum=0.9, weight_decay=0.01)
    for k in range(3):
        opt.zero_grad()
        (tw * tw * torch.tensor([1.0, 3.0])).sum().backward()
        opt.step()
        q = steps[k].data["params"][0]
        assert np.allclose(q["after"], tw.detach().numpy(), rtol=1e-6)
        assert np.allclose(q["state"]["momentum_buffer"], opt.state[tw]["momentum_buffer"].numpy(), rtol=1e-6)
    text_ = "\n".join(steps[0].details)
    assert "buf ← 0.9·buf + 1·g" in text_ and "g ← g + 0.01·p" in text_


SGD_FLAGS = [dict(momentum=0.9, nesterov=True), dict(maximize=True), dict(momentum=0.5, maximize=True),
             dict(momentum=0.9, nesterov=True, weight_decay=0.1, maximize=True), dict(momentum=0.9, dampening=0.3)]


def _optimizer_steps(opt, flags, w0, coef, n):
    """explain's optimizer_step events of ``n`` steps of ``torch.optim.<opt>`` with
    ``flags`` on ``(w * w * coef).sum()``, beside torch's parameter after each step."""
    torch = pytest.importorskip("torch")
    args = ", ".join(f"{k}={v!r}" for k, v in flags.items())
    src = (f"import torch\nw = torch.tensor({w0!r}, requires_grad=True)\n"
           f"opt = torch.optim.{opt}([w], lr=0.1, {args})\n"
           f"for i in range({n}):\n    opt.zero_grad()\n    (w * w * torch.tensor({coef!r})).sum().backward()\n"
           "    opt.step()\n")
    steps = _events(explain_src(src, wrt="w"), "optimizer_step")
    tw = torch.tensor(w0, requires_grad=True)
    topt = getattr(torch.optim, opt)([tw], lr=0.1, **flags)
    after = []
    for _ in range(n):
        topt.zero_grad()
        (tw * tw * torch.tensor(coef)).sum().backward()
        topt.step()
        after.append(tw.detach().numpy().copy())
    assert len(steps) == n
    return zip(steps, after)


@pytest.mark.parametrize("flags", SGD_FLAGS, ids=lambda f: ",".join(f))
def test_sgd_rule_shown_is_the_one_that_gives_torchs_numbers(flags):
    """The SGD rule explain shows (maximize, weight decay, momentum, nesterov) is applied to
    the numbers it shows and gives torch's parameters, step after step."""
    mom, wd = flags.get("momentum", 0), flags.get("weight_decay", 0)
    for k, (step, want) in enumerate(_optimizer_steps("SGD", flags, [1.0, -2.0, 0.5], [1.0, 3.0, -2.0], 3)):
        rule = "\n".join(step.details)
        (q,) = step.data["params"]
        g = q["grad"].astype(np.float64)
        if flags.get("maximize"):
            assert "maximize=True: g ← −g" in rule
            g = -g
        g = g + wd * q["before"]
        if mom:
            buf = q["state"]["momentum_buffer"]
            if flags.get("nesterov"):
                assert f"then p ← p − lr·(g + {mom}·buf)" in rule and "lr·buf," not in rule
                g = g + mom * buf
            else:
                assert "then p ← p − lr·buf, lr = 0.1" in rule
                g = buf
        else:
            assert "rule: p ← p − lr·g, lr = 0.1" in rule
        assert np.allclose(q["before"] - 0.1 * g, want, rtol=1e-6, atol=1e-7), (k, rule)
        assert np.allclose(q["after"], want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("flags", [dict(amsgrad=True), dict(maximize=True), dict(amsgrad=True, maximize=True)],
                         ids=lambda f: ",".join(f))
def test_adam_rule_names_amsgrad_and_maximize(flags):
    for step, want in _optimizer_steps("Adam", flags, [1.0, -2.0], [1.0, -3.0], 2):
        rule = "\n".join(step.details)
        assert ("v̂ ← max(v̂, v)" in rule) == bool(flags.get("amsgrad"))
        assert ("maximize=True: g ← −g" in rule) == bool(flags.get("maximize"))
        assert np.allclose(step.data["params"][0]["after"], want, rtol=1e-6)


def test_adam_moments_and_update_follow_the_rule_shown():
    ex = E.explain(trace_of(ROOT / "scenarios/adam_mlp.py"))
    steps = _events(E.explain(trace_of(ROOT / "scenarios/adam_mlp.py"), pass_number=37), "optimizer_step")
    (step,) = steps
    for q in step.data["params"]:
        st, h = q["state"], step.data["hyper"]
        t = float(st["step"])
        b1, b2 = h["betas"]
        denom = np.sqrt(st["exp_avg_sq"].astype(np.float64)) / np.sqrt(1 - b2 ** t) + h["eps"]
        want = q["before"] - h["lr"] / (1 - b1 ** t) * st["exp_avg"] / denom
        assert t == 37 and np.allclose(q["after"], want, rtol=1e-5, atol=1e-7), q["leaf"]
    assert "step t = 37" in "\n".join(step.details)
    (fold,) = ex.folds
    assert (fold.first, fold.last, len(fold.rows)) == (1, 50, 50)
    assert [p.number for p in ex.passes] == [1]


def test_fifty_adam_steps_fit_200_lines_and_pass_37_expands():
    from helpers import run_cli

    proc = run_cli("explain", "scenarios/adam_mlp.py", "--no-color", cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) <= 200, len(lines)
    assert "Adam.step()" in proc.stdout and "step t = 1" in proc.stdout
    assert "Each of the 50 iterations builds a new graph of 10 nodes" in proc.stdout
    assert all(len(ln) <= 80 for ln in lines)
    proc = run_cli("explain", "scenarios/adam_mlp.py", "--no-color", "--pass", "37", cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "Backward pass 37 of 50" in proc.stdout and "step t = 37" in proc.stdout
    assert "Backward pass 1 of" not in proc.stdout


def test_mse_loss_broadcast_warning_is_a_diagnostic():
    src = ("import torch\nimport torch.nn.functional as F\nw = torch.ones(4, 1, requires_grad=True)\n"
           "y = torch.tensor([1.0, 2.0, 3.0, 4.0])\nloss = F.mse_loss(w * 2, y)\nloss.backward()\n")
    ex = explain_src(src)
    (d,) = [d for d in ex.diagnostics if d.kind == "warning.mse_broadcast"]
    assert d.line == 5 and "[4, 4]" in d.why and "target.view(4, 1)" in d.fix
    assert "No problems found" not in render_text(ex)
    assert _events(ex, "warning")[0].line == 5


def test_no_grad_block_zero_grad_and_hooks_are_on_the_timeline():
    src = ("import torch\nw = torch.tensor([1.0, 2.0], requires_grad=True)\n"
           "h = w.register_hook(lambda g: g * 10)\n(w * 3).sum().backward()\n"
           "with torch.no_grad():\n    w -= 0.1 * w.grad\nw.grad.zero_()\nw.grad = None\n")
    ex = explain_src(src)
    (hook,) = _events(ex, "hook")
    assert hook.data["before"].tolist() == [3.0, 3.0] and hook.data["after"].tolist() == [30.0, 30.0]
    (ng,) = _events(ex, "no_grad")
    assert ng.line == 5 and ng.data["statements"] == ["line 6: w -= 0.1 * w.grad"]
    resets = _events(ex, "grad_reset")
    assert [(e.line, e.data["how"]) for e in resets] == [(7, "zero"), (8, "none")]
    kinds = [e.kind for e in ex.events]
    assert kinds == ["backward", "hook", "no_grad", "grad_reset", "grad_reset"] or \
        kinds == ["hook", "backward", "no_grad", "grad_reset", "grad_reset"]


def test_a_data_dependent_branch_is_named():
    src = ("import torch\nw = torch.tensor(1.0, requires_grad=True)\nfor i in range(4):\n"
           "    if i < 2:\n        y = w * 2\n    else:\n        y = w.exp()\n    y.backward()\n")
    ex = explain_src(src)
    assert any("Pass 3 built another graph: that iteration took the else branch at line 4" in n for n in ex.notes)


def test_matrix_steps_show_the_operands_values_while_small():
    ex = E.explain(trace_of(ROOT / "scenarios/linear_layer.py"))
    mm = next(s for s in ex.passes[0].steps if s.node_name == "MmBackward0")
    (edge,) = [e for e in mm.edges if e.target_node]
    assert edge.numbers == "[[1, 3], [2, -1]] · [[-1.4], [2.1]] = [[4.9], [-4.9]]"
    x = ex_x = np.array([[1, 2], [3, -1]], dtype=np.float64)
    assert np.allclose(x.T @ np.array([[-1.4], [2.1]]), edge.grad.astype(np.float64), atol=1e-6)
    del ex_x


def test_wording_names_what_happened():
    # a tensor scaled after creation is a non-leaf; the fix names the multiplication
    ex = explain_src("import torch\nw = torch.randn(3, 1, requires_grad=True) * 0.01\nloss = (w * 2).sum()\n"
                     "loss.backward()\nprint(w.grad)\n")
    out = render_text(ex, width=300)
    assert "module's parameter" not in out
    assert "w = (torch.randn(3, 1) * 0.01).requires_grad_()" in out and "MulBackward0" in out
    # .data cuts the link at its line
    ex = explain_src("import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x.data * 2\n"
                     "w = torch.ones(2, requires_grad=True)\n(y * w).sum().backward()\nprint(x.grad)\n")
    (d,) = [d for d in ex.diagnostics if d.title.startswith("x.grad")]
    assert "at line 3 the script computes from x.data" in d.why
    # the in-place diagnostic names the in-place line and the node whose saved tensor changed
    ex = explain_src("import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\nh = x * 2\ny = h * h\n"
                     "h += 1\ny.sum().backward()\n")
    (d,) = [d for d in ex.diagnostics if d.kind == "error.inplace"]
    assert "MulBackward0 (y = h * h, line 4)" in d.why and "line 5: h += 1" in d.why


def test_retained_grad_is_shown_where_it_is_retained():
    src = ("import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\nh = x * 3\nh.retain_grad()\n"
           "loss = (h * h).sum()\nloss.backward()\n")
    trace = E.run(src, "t.py")
    ex = E.explain(trace)
    assert trace.variables["h"].grad.tolist() == [6.0, 12.0]             # 2·h, by hand
    assert any(s.remark and "h.grad = [6, 12]" in s.remark for s in ex.passes[0].steps)
    assert np.array_equal(ex.final_grads["h"], trace.variables["h"].grad)


def test_a_frozen_layers_output_is_said_to_be_frozen_not_a_constant():
    src = ("import torch\nimport torch.nn as nn\nfrozen = nn.Linear(2, 2)\nfor p in frozen.parameters():\n"
           "    p.requires_grad_(False)\nhead = nn.Linear(2, 1)\nx = torch.ones(1, 2)\nh = frozen(x)\n"
           "loss = (head(h) * 1).sum()\nloss.backward()\n")
    out = render_text(explain_src(src), width=300)
    assert "h: does not require grad (its parameters are frozen: every parameter of frozen has " \
           "requires_grad=False)" in out
    assert "a constant: does not require grad" not in out and "an input: " not in out


def test_rich_table_on_a_terminal_keeps_words_whole():
    import io

    from rich.console import Console

    from autotrace.render import explain_console
    buf = io.StringIO()
    con = Console(file=buf, force_terminal=True, no_color=True, width=80, highlight=False)
    explain_console.render(E.explain(trace_of(ROOT / "scenarios/linear_layer.py")), con)
    out = re.sub(r"\x1b\[[0-9;]*m", "", buf.getvalue())
    assert "MmBackward0" in out and "PermuteBackward0" in out and "[[4.9], [-4.9]]" in out
    assert all(len(ln) <= 80 for ln in out.splitlines())
