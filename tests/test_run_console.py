"""``autotrace run``'s console report: the rule after the script's output, tables that
stay tables at 80 columns, a grad_fn tree that never breaks a name, says where it stops
and what it folded; piped output is the same plain text."""

from __future__ import annotations

import io
import os
import pathlib
import re
import subprocess
import sys

from autotrace.render import console as render_console

from graph_helpers import trace_of

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
RNN = HERE / "graph_scripts" / "rnn30.py"
NODE_NAME = re.compile(r"\b[A-Z][A-Za-z]*Backward\d\b|\bAccumulateGrad\b")


def report(source, width=80, depth=None, name="s.py"):
    from rich.console import Console

    buf = io.StringIO()
    con = Console(file=buf, width=width, color_system=None, highlight=False, soft_wrap=False)
    render_console.run_report(trace_of(source, name, keep_values=False), con, depth=depth)
    return buf.getvalue()


def tree_of(text):
    return text[text.index("grad_fn chains\n") + len("grad_fn chains\n"):]


def assert_unbroken(text, width):
    """Every line fits; every node name in the tree is whole (a broken one would leave a
    fragment such as 'MulBa' at a line end and 'ckward0' at the start of the next)."""
    names = {"SumBackward0", "TanhBackward0", "AddBackward0", "AddmmBackward0", "TBackward0",
             "AccumulateGrad", "MseLossBackward0", "ReluBackward0", "MulBackward0", "SinBackward0",
             "ExpBackward0", "SubBackward0", "CosBackward0"}
    for line in text.splitlines():
        assert len(line) <= width, line
    for line in tree_of(text).splitlines():
        for word in re.findall(r"[A-Za-z]*Backward\w*|Accumulate\w*", line):
            assert word in names, (word, line)
    for tree in tree_of(text).split("\n\n"):
        for line in tree.splitlines()[1:]:
            content = line.lstrip("│├└─ ")
            # each line is one whole entry: a node, a None input or a note, never a continuation
            assert content.split(" ")[0].split("(")[0] in names | {"None", "…"}, line


def test_rnn_loop_at_80_columns_is_unbroken_and_says_what_it_folded():
    text = report(RNN.read_text(encoding="utf-8"), 80, name="tests/graph_scripts/rnn30.py")
    assert_unbroken(text, 80)
    tree = tree_of(text)
    assert "… 29 earlier iterations folded (loop body ×30, line 10)" in tree
    # the last iteration is shown whole: both Linear calls, their parameters, the carried h
    for leaf in ("cell.bias [3]", "cell.weight [3, 3]", "inp.bias [3]", "inp.weight [3, 2]"):
        assert f"AccumulateGrad → {leaf}" in tree
    assert tree.count("TanhBackward0") == 1 and len(tree.splitlines()) < 20


def test_run_30_steps_in_a_subprocess_piped_is_plain_and_the_same():
    env = dict(os.environ, COLUMNS="80")
    env.pop("FORCE_COLOR", None)
    r = subprocess.run([sys.executable, "-m", "autotrace.cli.main", "run", str(RNN)], capture_output=True,
                       env=env, timeout=60)
    assert r.returncode == 0, r.stderr.decode()
    out = r.stdout.decode()
    assert "\x1b" not in out
    assert out.splitlines()[0] == "loss -1.9712"
    assert out.splitlines()[1].startswith("autotrace ─")           # the rule after the script's output
    assert tree_of(out) == tree_of(report(RNN.read_text(encoding="utf-8"), 80, name=str(RNN)))
    assert_unbroken(out, 80)


def test_tables_stay_tables_at_80_columns():
    src = ("import torch\nimport torch.nn as nn\nmodel = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))\n"
           "a_rather_long_variable_name_for_a_tensor = torch.randn(3, 4, requires_grad=True)\n"
           "out = model(a_rather_long_variable_name_for_a_tensor).sum()\nout.backward()\n")
    for width in (80, 140):
        text = report(src, width)
        lines = text.splitlines()
        head = next(ln for ln in lines if ln.startswith("name") and "grad_fn" in ln)
        assert head.split() == ["name", "shape", "dtype", "requires_grad", "is_leaf", "grad_fn"]
        assert "values and gradients" in text
        for ln in lines:
            assert len(ln) <= width
    # the grad_fn cell is never broken; a long variable name wraps inside its cell
    text = report(src, 80)
    assert "SumBackward0" in text
    assert re.search(r"^a_rather_long\S*\s+\[3, 4\]\s+float32\s+True\s+True\s+None", text, re.M)


def test_depth_limit_says_how_many_levels_are_left():
    src = "import torch\nx = torch.tensor(1.0, requires_grad=True)\ny = x.exp().sin().cos().tanh().exp().sin()\n"
    text = report(src, 80, depth=3)
    tree = tree_of(text)
    assert "… 4 more levels (use --depth / explain)" in tree
    full = tree_of(report(src, 80))
    assert "more levels" not in full and "AccumulateGrad → x []" in full


def test_narrow_lines_shorten_the_expression_not_the_name():
    src = ("import torch\nx = torch.tensor(1.0, requires_grad=True)\n"
           "y = (x * 2.0 + x * 3.0 + x * 4.0 + x * 5.0 + x * 6.0 + x * 7.0 + x * 8.0 + x * 9.0).exp()\n")
    text = report(src, 60)
    tree = tree_of(text)
    assert_unbroken(text, 60)
    assert any(ln.rstrip().endswith("…") for ln in tree.splitlines())
    assert "ExpBackward0 → y" in tree


def test_deep_trees_stop_by_width_and_say_so():
    src = "import torch\nx = torch.tensor(1.0, requires_grad=True)\ny = x.exp().sin().cos().tanh().exp().sin().cos().tanh().exp().sin().cos().tanh().exp().sin()\n"
    text = report(src, 60, depth=30)
    assert_unbroken(text, 60)
    assert re.search(r"… \d+ more levels \(use --depth / explain\)", tree_of(text))


def test_long_chain_of_one_op_is_folded():
    src = ("import torch\nx = torch.tensor(0.5, requires_grad=True)\n"
           "y = x.sin().sin().sin().sin().sin().sin().sin().sin()\n")
    tree = tree_of(report(src, 80))
    assert "SinBackward0 ×8   (a chain of one op, folded, line 3)" in tree.splitlines()[1]
    assert "AccumulateGrad → x []" in tree


def test_nan_is_never_good(tmp_path):
    """nan and inf values are shown in bold red, never in an ordinary or 'good' style."""
    from rich.console import Console

    buf = io.StringIO()
    con = Console(file=buf, width=80, force_terminal=True, color_system="standard")
    t = trace_of("import torch\nx = torch.tensor([1.0, -1.0], requires_grad=True)\ny = x.log()\n", "s.py",
                 keep_values=False)
    render_console.run_report(t, con)
    out = buf.getvalue()
    line = next(ln for ln in out.splitlines() if "nan" in ln)
    assert "\x1b[1;31m" in line                                     # bold red
    assert "\x1b[32m" not in line and "\x1b[92m" not in line          # never green


def test_script_output_then_rule_line():
    text = report("import torch\nx = torch.tensor(2.0, requires_grad=True)\nprint('hi')\ny = x * 2\n")
    lines = text.splitlines()
    assert lines[0] == "hi" and lines[1].startswith("autotrace ──") and len(lines[1]) == 80
    silent = report("import torch\nx = torch.tensor(2.0, requires_grad=True)\ny = x * 2\n")
    assert "autotrace ─" not in silent                               # nothing to separate from


TRAINING_LOOP = """\
import torch
torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
xs = torch.randn(4, 3)
for step in range({n}):
    h = xs
    for k in range(3):
        h = torch.tanh(h * w + b)
    loss = h.pow(2).mean()
    w.grad = None
    b.grad = None
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
"""


def test_training_loop_tree_is_the_last_graph_whatever_the_steps(monkeypatch):
    """The tree of a training loop's last loss is that step's graph: the same lines after
    1, 5 or 40 steps (the earlier steps' graphs are not its inputs, so nothing of them is
    said to be folded into it), and the loop bodies are looked for among its nodes only."""
    from autotrace.render import folds

    seen = []
    real = folds.find_folds
    monkeypatch.setattr(folds, "find_folds", lambda trace, order, call_of: seen.append(len(order))
                        or real(trace, order, call_of))
    trees = [tree_of(report(TRAINING_LOOP.format(n=n))) for n in (1, 5, 40)]
    assert trees[0] == trees[1] == trees[2]
    # the inner loop is folded, the steps are not
    assert "TanhBackward0" in trees[0] and "(loop body \u00d73, line 9)" in trees[0]
    # the last graph: 3 x (mul, add, tanh), pow, mean; the same count at every length
    assert seen == [11, 11, 11]


def test_tree_reachable_ids_follow_inputs_only():
    """_reachable: non-leaf ids reached from the roots through inputs, ascending; a node
    made later that no root reaches is left out."""
    trace = trace_of("import torch\n"
                     "x = torch.ones(2, requires_grad=True)\n"
                     "a = (x * 2).sum()\n"
                     "b = (x + 1).exp()\n"
                     "c = a * 3\n", "s.py", keep_values=False)
    names = {n.id: n.name for n in trace.nodes}
    got = list(render_console._reachable(trace.nodes, [trace.variables["c"].node]))
    assert [names[i] for i in got] == ["MulBackward0", "SumBackward0", "MulBackward0"]
    assert got == sorted(got)
