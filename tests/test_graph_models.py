"""Graphs of training loops and models: one pass drawn, module clusters, folded loop
bodies (×N), --depth boxes, --all-passes. Scripts in tests/graph_scripts/ use
nn.Sequential, nn.Linear and functions only."""

from __future__ import annotations

import os
import pathlib
import re
import time

import pytest

from autotrace.render.dot import GraphError, GraphOptions, render
from autotrace.render.graph_layout import Layout

from graph_helpers import trace_of
from test_graph_dot import all_texts, svg_nodes, to_svg

HERE = pathlib.Path(__file__).resolve().parent
SCRIPTS = HERE / "graph_scripts"
GOLDEN = HERE / "golden"


def script_trace(name, keep_values=True):
    return trace_of((SCRIPTS / name).read_text(encoding="utf-8"), f"tests/graph_scripts/{name}",
                    keep_values=keep_values)


def drawn_nodes(src):
    """Ids of the grad_fn / AccumulateGrad boxes in DOT source."""
    return [int(m) for m in re.findall(r"^\s*n(\d+) \[", src, re.M)]


def clusters(src):
    return re.findall(r"subgraph (cluster_\w+) \{\n\s*[^\n]*label=<(.*?)> labeljust", src)


@pytest.fixture(scope="module")
def train():
    return script_trace("train50.py")


@pytest.fixture(scope="module")
def rnn():
    return script_trace("rnn30.py")


def golden(name, got):
    path = GOLDEN / f"{name}.dot"
    if os.environ.get("AUTOTRACE_UPDATE_GOLDEN"):
        path.write_text(got, encoding="ascii")
    assert path.read_text(encoding="ascii") == got


# -- a 50-step training loop ------------------------------------------------------------------

def test_training_loop_draws_one_pass_with_module_clusters(train):
    assert len(train.passes) == 50 and len(train.nodes) == 304
    src = render(train)
    golden("train50", src)
    ids = drawn_nodes(src)
    assert len(ids) < 100
    # exactly the nodes of the last pass: its forward graph and the four parameters
    last = train.passes[-1]
    assert set(ids) == {s.node for s in last.steps}
    assert len(ids) == 4 + 5 + 1                       # 4 AccumulateGrad, 2 x (T, Addmm), Relu, MseLoss
    labels = dict(clusters(src))
    assert sorted(labels.values()) == ["<B>model.0</B> &#183; Linear", "<B>model.1</B> &#183; ReLU",
                                       "<B>model.2</B> &#183; Linear", "<B>model</B> &#183; Sequential"]
    assert ("backward pass 50 of 50 drawn (line 13): the passes ran over graphs of the same "
            "structure; --pass N draws another, --all-passes all of them") in src
    assert "294 nodes of other passes or outside any pass not drawn" in src


def test_training_loop_clusters_nest_and_hold_parameters(train):
    nodes = svg_nodes(to_svg(render(train)))
    texts = all_texts(to_svg(render(train)))
    assert "model · Sequential" in texts and "model.0 · Linear" in texts
    src = render(train)
    # model.0's cluster (inside model's) holds its weight and bias and its two nodes
    body = src[src.index("label=<<B>model.0</B>"):]
    body = body[:body.index("}")]
    assert "<B>model.0.weight</B>" in body and "<B>model.0.bias</B>" in body
    assert body.count("AddmmBackward0</B>") == 1 and body.count("TBackward0</B>") == 1
    outer = src[src.index("label=<<B>model</B> &#183; Sequential>"):]
    outer = outer[:outer.index("\n\t}\n")]          # model's cluster, with the three inside it
    assert outer.count("subgraph cluster_m") == 3 and "MseLossBackward0" not in outer
    assert "MseLossBackward0" in {n["texts"][0] for n in nodes.values() if n["texts"]}


def test_parameter_bound_to_a_loop_variable_keeps_its_path_and_cluster():
    """A parameter the script's last loop bound to ``p`` is drawn as model.bias (then p),
    inside model's cluster, as explain and run's tree name it."""
    src = render(trace_of("import torch\nimport torch.nn as nn\nmodel = nn.Linear(2, 1)\n"
                          "loss = model(torch.ones(1, 2)).sum()\nloss.backward()\n"
                          "for name, p in model.named_parameters():\n    print(name, p.grad)\n", "s.py"))
    body = src[src.index("label=<<B>model</B> &#183; Linear>"):]
    body = body[:body.index("}")]
    assert "<B>model.bias, p</B>" in body and "<B>model.weight</B>" in body
    assert "<B>p</B>" not in src


def test_pass_option_picks_another_pass(train):
    src = render(train, GraphOptions(pass_number=1))
    assert set(drawn_nodes(src)) == {s.node for s in train.passes[0].steps}
    assert "backward pass 1 of 50 drawn (line 13)" in src
    assert "penwidth=2.5" in src                      # --pass outlines what it ran
    with pytest.raises(GraphError, match="--pass 51: it ran 50 backward passes"):
        render(train, GraphOptions(pass_number=51))


def test_all_passes_draws_every_pass_folded(train):
    src = render(train, GraphOptions(all_passes=True))
    assert "backward pass" not in src.split("\n")[4]
    # 50 forward graphs of one shape: one loop body ×50
    assert "<B>&#215;50</B> loop body &#183; line 12" in src
    lay = Layout(train, all_passes=True)
    assert [f.count for f in lay.folds] == [50]
    assert len(render(train, GraphOptions(all_passes=True, fold=False, max_nodes=5000)).split("MseLossBackward0</B>")) == 51


def test_depth_draws_modules_as_boxes(train):
    two = render(train, GraphOptions(depth=2))
    assert [v for _, v in clusters(two)] == ["<B>model</B> &#183; Sequential"]
    boxes = re.findall(r"^\s*(m\d+) \[label=<<B>([\w.]+)</B><BR/>(\w+)", two, re.M)
    assert [(b[1], b[2]) for b in boxes] == [("model.0", "Linear"), ("model.1", "ReLU"), ("model.2", "Linear")]
    assert "2 nodes, 2 parameters" in two and "model.0.weight" not in two.split("tooltip")[0]
    one = render(train, GraphOptions(depth=1))
    assert clusters(one) == []
    assert re.findall(r"^\s*(m\d+) \[label=<<B>([\w.]+)</B>", one, re.M)[0][1] == "model"
    assert len(drawn_nodes(one)) == 1                 # MseLossBackward0 alone outside the box
    with pytest.raises(GraphError, match="--depth counts from 1"):
        render(train, GraphOptions(depth=0))


# -- an RNN-style loop of 30 steps ------------------------------------------------------------

def test_rnn_loop_folds_into_one_x30_cluster(rnn):
    src = render(rnn)
    golden("rnn30", src)
    labels = clusters(src)
    folds = [v for k, v in labels if k.startswith("cluster_f")]
    assert folds == ['<B>&#215;30</B> loop body &#183; line 10<BR ALIGN="LEFT"/><FONT POINT-SIZE="9" COLOR="#555555">'
                     'drawn once: the last of 30 iterations</FONT>']
    mods = [v for k, v in labels if k.startswith("cluster_m")]
    assert mods == ["<B>cell</B> &#183; Linear", "<B>inp</B> &#183; Linear"]
    # one iteration: T + Addmm per Linear, Add, Tanh; the 4 parameters; the sum
    assert len(drawn_nodes(src)) == 6 + 4 + 1
    # the hidden state carried from one iteration into the next
    assert len(re.findall(r"constraint=false style=dashed", src)) == 1
    assert "loop bodies folded, each drawn once: &#215;30 (line 10); --no-fold draws every iteration" in src


def test_rnn_fold_lays_out_and_shows_last_values(rnn):
    svg = to_svg(render(rnn, GraphOptions(values=True)))
    texts = all_texts(svg)
    assert "×30 loop body · line 10" in texts
    nodes = svg_nodes(svg)
    tanh = next(n for n in nodes.values() if n["texts"] and n["texts"][0] == "TanhBackward0")
    assert tanh["texts"][1] == "h · [4, 3] float32"
    # the drawn iteration is the last: its value is the final h
    h = rnn.variables["h"].value
    from autotrace.render.notation import array_text
    assert tanh["texts"][2] == f"value {array_text(h)}"


def test_no_fold_draws_every_iteration(rnn):
    src = render(rnn, GraphOptions(fold=False))
    assert src.count("TanhBackward0</B>") == 30 and "loop body" not in src


def test_fold_needs_same_wiring():
    """Repeated names on the same line are not folded when the iterations are wired
    differently (here each iteration adds one more term)."""
    t = trace_of("import torch\nx = torch.tensor(2.0, requires_grad=True)\nys = []\n"
                 "for i in range(5):\n    ys.append(x * (i + 1))\ns = ys[0]\n"
                 "for y in ys[1:]:\n    s = s + y\n")
    lay = Layout(t)
    assert [f.count for f in lay.folds] == [5, 4]     # the multiplies and the running sum
    # the five products all feed the sums: edges from the folded products are one, marked ×N
    src = render(t)
    assert "&#215;5" in src and "&#215;4" in src


def test_two_thousand_nodes_stay_fast():
    src = ("import torch\nimport torch.nn as nn\nmodel = nn.Sequential(nn.Linear(4, 4), nn.Tanh())\n"
           "x = torch.randn(2, 4)\nfor i in range(667):\n    x = model(x)\nloss = x.sum()\nloss.backward()\n")
    t = trace_of(src, "deep_model.py")
    assert len(t.nodes) > 2000
    start = time.perf_counter()
    dot_src = render(t, GraphOptions(values=True))
    svg = to_svg(dot_src)
    assert time.perf_counter() - start < 10
    assert "<B>&#215;667</B> loop body" in dot_src
    assert len(svg_nodes(svg)) < 30


def test_error_inside_a_module_call_keeps_the_calls_balanced():
    """A forward that raises still closes its call: the nodes made after it are not
    counted as the module's."""
    t = trace_of("import torch\nimport torch.nn as nn\nlin = nn.Linear(2, 2)\nx = torch.ones(1, 2)\n"
                 "y = lin(x).sum()\nz = lin(torch.ones(1, 3))\n", "s.py")
    assert t.error is not None and t.error["line"] == 6
    calls = t.module_calls
    assert [c.path for c in calls] == ["lin", "lin"]
    total = next(n.id for n in t.nodes if n.name == "SumBackward0")
    assert all(not (c.start <= total < c.end) for c in calls)      # made between the calls
    src = render(t)
    body = src[src.index("subgraph cluster_m0"):]
    body = body[:body.index("}")]
    assert "SumBackward0</B>" not in body and "AddmmBackward0</B>" in body
    assert "the script stopped at line 6" in src


def test_unnamed_modules_are_labelled_by_class():
    t = trace_of("import torch\nimport torch.nn as nn\nx = torch.ones(1, 2)\n"
                 "y = nn.Sequential(nn.Linear(2, 2), nn.Tanh())(x).sum()\n", "s.py")
    labels = [v for _, v in clusters(render(t))]
    assert labels == ["<B>Sequential</B>", "<B>Linear</B>", "<B>Tanh</B>"]


def test_module_names_follow_nesting():
    t = trace_of("import torch\nimport torch.nn as nn\nenc = nn.Sequential(nn.Linear(2, 3), nn.ReLU())\n"
                 "net = nn.Sequential(enc, nn.Linear(3, 1))\ny = net(torch.ones(4, 2)).sum()\ny.backward()\n", "s.py")
    # the first variable that reaches a module names it: enc was bound before net
    assert [c.path for c in t.module_calls] == ["net", "enc", "enc.0", "enc.1", "net.1"]
    assert [c.depth for c in t.module_calls] == [1, 2, 3, 3, 2]


OPS = ["torch.tanh(h)", "h * w", "h + w", "torch.sigmoid(h)", "h.exp() - 1", "h @ m", "torch.relu(h) + h"]


def _loop_script(body, n):
    lines = ["import torch", "w = torch.tensor([0.5, -0.25], requires_grad=True)",
             "m = torch.tensor([[0.9, 0.1], [0.2, 0.8]], requires_grad=True)",
             "h = torch.tensor([0.1, 0.2], requires_grad=True)", f"for i in range({n}):"]
    lines += [f"    h = {op}" for op in body]
    lines += ["loss = h.sum()", "loss.backward()"]
    return "\n".join(lines) + "\n"


def test_any_loop_body_folds_to_its_iteration_count():
    """Generated loops: whatever the body, the loop is one fold of n iterations, and the
    drawing holds one iteration whatever n is."""
    from hypothesis import given, settings, strategies as st

    @settings(max_examples=25, deadline=None)
    @given(st.lists(st.sampled_from(OPS), min_size=1, max_size=4), st.integers(3, 40))
    def check(body, n):
        t = trace_of(_loop_script(body, n), "loop.py", keep_values=False)
        lay = Layout(t)
        assert [f.count for f in lay.folds] == [n]
        per_iter = len(lay.folds[0].reps[0])
        inner = sum(1 for n_ in t.nodes if not n_.is_leaf)
        assert per_iter * n + 1 == inner                     # every iteration folded, the sum outside
        drawn = [u for u in lay.units if not t.nodes[lay.nodes_of(u)[0]].is_leaf]
        assert len(drawn) == per_iter + 1
        src = render(t)
        assert f"<B>&#215;{n}</B> loop body &#183; lines 6&#8211;{5 + len(body)}" in src or \
            (len(body) == 1 and f"<B>&#215;{n}</B> loop body &#183; line 6" in src)

    check()


def test_modules_in_a_list_are_named_by_index():
    t = trace_of("import torch\nimport torch.nn as nn\nlayers = [nn.Linear(2, 2), nn.Linear(2, 1)]\n"
                 "x = torch.ones(1, 2)\nfor layer in layers:\n    x = layer(x)\n", "s.py")
    assert [c.path for c in t.module_calls] == ["layers[0]", "layers[1]"]
    assert "<B>layers[0]</B> &#183; Linear" in render(t)


def test_a_script_module_cluster_is_labelled_with_its_own_class_name():
    src = ("import torch\nimport torch.nn as nn\nclass MLP(nn.Module):\n    def __init__(self):\n"
           "        super().__init__()\n        self.fc = nn.Linear(2, 1)\n    def forward(self, x):\n"
           "        return self.fc(x)\nnet = MLP()\nnet(torch.ones(2)).sum().backward()\n")
    dot = render(trace_of(src, "m.py"), GraphOptions())
    labels = [label for _, label in clusters(dot)]
    assert "<B>net</B> &#183; MLP" in labels and not any("Scripted" in lab for lab in labels)
