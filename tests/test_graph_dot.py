"""The DOT renderer: content, determinism, escaping, collapsing, --max-nodes, goldens.

SVG is checked by parsing it (node titles, label texts, tooltips), never by bytes:
Graphviz versions lay out differently.
"""

from __future__ import annotations

import os
import pathlib
import re
import time
import xml.etree.ElementTree as ET

import pytest

from autotrace.render.dot import GraphError, GraphOptions, attr_text, html_text, render

from graph_helpers import trace_of

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"
GOLDEN = pathlib.Path(__file__).resolve().parent / "golden"
SVG_NS = "{http://www.w3.org/2000/svg}"
XLINK_TITLE = "{http://www.w3.org/1999/xlink}title"

SEED = (SCENARIOS / "seed1_mul_sum.py").read_text(encoding="utf-8")
DEEP = ("import torch\nx = torch.tensor(1.0, requires_grad=True)\ny = x\nfor i in range(1000):\n"
        "    y = torch.tanh(y) * 1.01\ny.backward()\n")


def need_dot():
    """Tests that lay out graphs need Graphviz: the `dot` program or pygraphviz, a regular
    dependency whose wheel bundles it. Its absence is a failure, not a skip."""
    from autotrace.render import svg

    assert svg.available(), "neither Graphviz's dot nor pygraphviz is available (pygraphviz is a dependency)"


def to_svg(source: str) -> str:
    from autotrace.render import svg

    need_dot()
    return svg.render(source, "svg").decode("utf-8")


def _lines(g) -> list:
    """The text lines of an SVG group: <text> elements on the same baseline joined (a
    label line may be split into several spans)."""
    lines = {}
    for t in g.iter(SVG_NS + "text"):
        lines.setdefault(float(t.get("y")), []).append("".join(t.itertext()))
    return ["".join(parts) for _, parts in sorted(lines.items())]


def svg_nodes(svg: str) -> dict:
    """title -> {"texts": [...], "tooltip": str|None} for every node group of an SVG."""
    root = ET.fromstring(svg)
    out = {}
    for g in root.iter(SVG_NS + "g"):
        if g.get("class") != "node":
            continue
        title = g.find(SVG_NS + "title").text
        texts = _lines(g)
        tooltip = None
        for a in g.iter(SVG_NS + "a"):
            tooltip = a.get(XLINK_TITLE)
        out[title] = {"texts": texts, "tooltip": tooltip}
    return out


def svg_edges(svg: str) -> dict:
    root = ET.fromstring(svg)
    out = {}
    for g in root.iter(SVG_NS + "g"):
        if g.get("class") == "edge":
            title = g.find(SVG_NS + "title").text
            out[title] = _lines(g)
    return out


def all_texts(svg: str) -> str:
    root = ET.fromstring(svg)
    return "\n".join(_lines(root))


@pytest.fixture(scope="module")
def seed():
    return trace_of(SEED, "scenarios/seed1_mul_sum.py")


# -- content -------------------------------------------------------------------------------

def test_seed_dot_names_everything(seed):
    src = render(seed)
    for word in ("MulBackward0", "SumBackward0", "AccumulateGrad", "<B>x</B>", "<B>z</B>", "y &#183;"):
        assert word in src
    assert "n0" in src and "n1" in src and "n2" in src
    assert "0x" not in src                      # no memory addresses


def test_seed_svg_done_when(seed):
    """The issue's done-when: x, y, z, the three node names; with --values 15 and grad 3."""
    nodes = svg_nodes(to_svg(render(seed)))
    assert nodes["n0_leaf"]["texts"][:2] == ["x", "[2] float32"]
    assert nodes["n0"]["texts"][0] == "AccumulateGrad"
    assert nodes["n1"]["texts"][:2] == ["MulBackward0", "y · [2] float32"]
    assert nodes["n2"]["texts"][:2] == ["SumBackward0", "z · [] float32"]
    assert nodes["n2_out"]["texts"] == ["z", "[] float32"]
    assert nodes["n1"]["texts"][-1] == "x * 3 · line 10"
    assert "line 10: y = x * 3" in nodes["n1"]["tooltip"]

    svg = to_svg(render(seed, GraphOptions(values=True)))
    nodes = svg_nodes(svg)
    assert "value 15." in nodes["n2_out"]["texts"]
    assert "value 15." in nodes["n2"]["texts"]
    assert "grad [3., 3.]" in nodes["n0_leaf"]["texts"]
    assert "value [2., 3.]" in nodes["n0_leaf"]["texts"]
    assert nodes["n0"]["texts"] == ["AccumulateGrad", "+= [3., 3.]"]
    edges = svg_edges(svg)
    assert edges["n0->n1"] == ["[3., 3.]"]      # MulBackward0 sends 3 to x's AccumulateGrad
    assert edges["n1->n2"] == ["[1., 1.]"]


def test_legend_lists_the_kinds(seed):
    texts = all_texts(to_svg(render(seed, GraphOptions(saved=True))))
    for kind in ("leaf tensor (requires_grad)", "backward node (grad_fn)", "output tensor",
                 "tensor saved for backward"):
        assert kind in texts
    src = render(seed, GraphOptions(legend=False))
    assert "legend" not in src


def test_torchviz_colours(seed):
    src = render(seed, GraphOptions(saved=True))
    assert re.search(r"n0_leaf \[.*fillcolor=lightblue", src)
    assert re.search(r"n2_out \[.*fillcolor=darkolivegreen1", src)
    assert re.search(r"n1_saved_other \[.*fillcolor=orange", src)
    assert "fillcolor=lightgrey" in src


def test_show_none_and_saved(seed):
    plain = render(seed)
    assert "None" not in plain and "_saved_" not in plain
    src = render(seed, GraphOptions(show_none=True, saved=True))
    assert "n1_none1 -> n1" in src              # x * 3: next_functions[1] is (None, 0)
    assert "n1_saved_other -> n1" in src


def test_pass_marks_visited_nodes():
    t = trace_of("import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\n"
                 "w = torch.tensor(2.0, requires_grad=True)\na = (x * w).sum()\nb = (x + 1).sum()\n"
                 "a.backward()\nb.backward()\n")
    assert len(t.passes) == 2
    visited = {s.node for s in t.passes[1].steps}
    src = render(t, GraphOptions(pass_number=2, all_passes=True))
    for n in t.nodes:
        line = next(l for l in src.splitlines() if l.lstrip().startswith(f"n{n.id} ["))
        assert ("penwidth=2.5" in line) == (n.id in visited), line
    assert "run by backward pass 2" in src
    # each pass ran over a graph of its own: --pass 2 alone draws pass 2's graph only
    own = render(t, GraphOptions(pass_number=2))
    drawn = set(int(m) for m in re.findall(r"^\s*n(\d+) \[", own, re.M))
    assert drawn == visited and "backward pass 2 of 2 drawn (line 7)" in own
    with pytest.raises(GraphError, match="--pass 3: it ran 2 backward passes"):
        render(t, GraphOptions(pass_number=3))


def test_values_use_chosen_pass():
    t = trace_of("import torch\nx = torch.tensor(1.0, requires_grad=True)\ny = x * 2\n"
                 "y.backward(retain_graph=True)\ny.backward()\n")
    first = render(t, GraphOptions(values=True, pass_number=1))
    last = render(t, GraphOptions(values=True))
    assert "grad 2." in first and "grad 4." in last          # x.grad accumulates: 2 then 4
    assert "(pass 1)" in first and "(pass 2)" in last


def test_of_picks_the_root():
    t = trace_of("import torch\nx = torch.tensor(1.0, requires_grad=True)\na = x * 2\nb = x.exp()\n")
    src = render(t, GraphOptions(of="a"))
    assert "MulBackward0" in src and "ExpBackward0" not in src
    assert "graph of a" in src
    both = render(t)
    assert "MulBackward0" in both and "ExpBackward0" in both
    with pytest.raises(GraphError, match="binds no tensor named 'nope'"):
        render(t, GraphOptions(of="nope"))


def test_outputs_are_unconsumed_named_tensors(seed):
    src = render(seed)
    assert "n2_out" in src and "n1_out" not in src           # y feeds z: not an output


def test_empty_graph_says_so():
    t = trace_of("import torch\nx = torch.tensor([1.0, 2.0])\ny = x * 2\n")
    src = render(t)
    assert "no autograd graph" in src


# -- determinism -----------------------------------------------------------------------------

@pytest.mark.parametrize("opts", [GraphOptions(), GraphOptions(values=True, saved=True, show_none=True)])
def test_same_script_same_bytes(opts):
    a = render(trace_of(SEED, "seed.py"), opts)
    b = render(trace_of(SEED, "seed.py"), opts)
    assert a == b
    assert a.isascii()


def test_deep_dot_is_deterministic():
    a = render(trace_of(DEEP, "deep.py"), GraphOptions(values=True))
    b = render(trace_of(DEEP, "deep.py"), GraphOptions(values=True))
    assert a == b


# -- escaping --------------------------------------------------------------------------------

NASTY = 'len("<a&b> \\"q\\" \\\\ \\n \\\\N é 中 \'s\'")'   # Python source text, as the script has it


def test_html_text_escapes():
    assert html_text('<a&b>"\'\\') == "&lt;a&amp;b&gt;&quot;&#39;&#92;"
    assert html_text("\\\\") == "&#92;<FONT>&#92;</FONT>"
    assert html_text("é中") == "&#233;&#20013;"
    assert html_text("a\nb") == 'a<BR ALIGN="LEFT"/>b'
    assert html_text("plain x * 3").isascii()


def test_attr_text_escapes():
    assert attr_text('"') == "&#34;"
    assert attr_text("a\\b") == "a" + "\\" * 4 + "b"
    assert attr_text("ends\\") == "ends" + "\\" * 4 + " "          # never a final backslash pair before the quote
    assert attr_text("two\nlines") == "two\\nlines"
    assert '"' not in attr_text('x "y" \\"z\\"')


def test_user_text_survives_into_svg():
    src = ("import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\n"
           f"é中 = x * {NASTY}\ns = é中.sum()\n")
    t = trace_of(src, 'we<i>rd "&" \\ näme.py')
    dot_src = render(t)
    assert dot_src.isascii()
    nodes = svg_nodes(to_svg(dot_src))
    expr = NASTY                                          # exactly what the script says
    assert nodes["n1"]["texts"][1] == "é中 · [2] float32"
    assert nodes["n1"]["texts"][-1] == f"x * {expr} · line 3"
    assert f"line 3: é中 = x * {expr}" in nodes["n1"]["tooltip"]
    assert nodes["n2_out"]["texts"][0] == "s"
    root = ET.fromstring(to_svg(dot_src))
    graph = next(g for g in root.iter(SVG_NS + "g") if g.get("class") == "graph")
    title = next(t for t in graph if t.tag == SVG_NS + "text")
    assert "".join(title.itertext()) == 'we<i>rd "&" \\ näme.py'


def test_backslash_at_end_of_tooltip_parses():
    t = trace_of('import torch\nx = torch.tensor(1.0, requires_grad=True)\ny = x * len("\\\\")\n')
    nodes = svg_nodes(to_svg(render(t)))
    assert nodes["n1"]["tooltip"].rstrip().endswith('expression: x * len("\\\\")')


# -- big graphs --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def deep():
    return trace_of(DEEP, "deep.py")


def test_deep_loop_folds(deep):
    """1000 iterations of y = torch.tanh(y) * 1.01: one loop body drawn once, ×1000."""
    src = render(deep)
    nodes = svg_nodes(to_svg(src))
    assert sorted(k for k in nodes if k != "legend") == ["n0", "n0_leaf", "n1999", "n2000", "n2000_out"]
    assert nodes["n1999"]["texts"][0] == "TanhBackward0" and nodes["n2000"]["texts"][0] == "MulBackward0"
    texts = all_texts(to_svg(src))
    assert "×1000 loop body · line 5" in texts and "drawn once: the last of 1000 iterations" in texts
    assert "loop bodies folded, each drawn once: ×1000 (line 5); --no-fold draws every iteration" in texts
    # the carried value: a dashed edge from the body's output back to its input, not laid out
    assert re.search(r'n2000 -> n1999 \[color="#8e44ad" constraint=false style=dashed', src)
    assert "n1999 -> n2000\n" in src                       # inside one iteration, no "×" label


def test_deep_chain_collapses(deep):
    assert len(deep.nodes) == 2001
    src = render(deep, GraphOptions(fold=False))
    assert "TanhBackward0 &#8594; MulBackward0" in src
    assert "&#215; 999 (1,998 nodes)" in src
    nodes = svg_nodes(to_svg(src))
    assert nodes["n1_n1998"]["texts"][:2] == ["TanhBackward0 → MulBackward0", "× 999 (1,998 nodes)"]
    assert "n2000" in nodes and "n2000_out" in nodes        # the output stays visible
    assert len([k for k in nodes if k != "legend"]) < 10


def test_collapse_off_draws_every_node_up_to_max(deep):
    src = render(deep, GraphOptions(collapse=False, max_nodes=5000, fold=False))
    assert src.count("TanhBackward0</B>") == 1000 and src.count("MulBackward0</B>") == 1000
    capped = render(deep, GraphOptions(collapse=False, fold=False))       # default --max-nodes 500
    assert "1,501 of 2,001 nodes not shown (--max-nodes 500" in capped
    assert "omitted ->" in capped
    assert "n2000" in capped and "n1 [" not in capped          # nearest the output kept


def test_collapse_default_threshold():
    small = trace_of("import torch\nx = torch.tensor(1.0, requires_grad=True)\ny = x\n"
                     "for i in range(20):\n    y = y.exp()\n")
    assert "&#215;" not in render(small, GraphOptions(fold=False))
    assert "&#215; 19" in render(small, GraphOptions(collapse=True, fold=False))


def test_collapse_keeps_fan_in_nodes():
    t = trace_of("import torch\nx = torch.tensor(1.0, requires_grad=True)\ny = x\n"
                 "for i in range(10):\n    y = y.exp()\nz = y * y\nw = z\nfor i in range(10):\n    w = w.sin()\n")
    src = render(t, GraphOptions(collapse=True, fold=False))
    runs = re.findall(r"^\s*(n\d+_n\d+) \[", src, re.M)
    assert len(runs) == 2, runs                                  # two runs, the MulBackward0 between
    assert "MulBackward0</B>" in src


def test_max_nodes_note_is_visible(deep):
    svg = to_svg(render(deep, GraphOptions(collapse=False, max_nodes=10, fold=False)))
    texts = all_texts(svg)
    assert "1,991 of 2,001 nodes not shown (--max-nodes 10; nearest the outputs kept)" in texts
    assert "… 1,991 more nodes" in texts


def test_deep_renders_fast(deep):
    need_dot()
    start = time.perf_counter()
    svg = to_svg(render(trace_of(DEEP, "deep.py"), GraphOptions(values=True)))
    full = to_svg(render(deep, GraphOptions(collapse=False, max_nodes=5000, fold=False)))
    assert time.perf_counter() - start < 20
    assert ET.fromstring(svg) is not None and len(svg_nodes(full)) > 2000


# -- goldens ------------------------------------------------------------------------------------

GOLDENS = {
    "seed1_mul_sum": ("seed1_mul_sum.py", GraphOptions()),
    "seed1_mul_sum_values": ("seed1_mul_sum.py", GraphOptions(values=True, saved=True, show_none=True)),
    "seed2_grad_accumulation_pass2": ("seed2_grad_accumulation.py", GraphOptions(values=True, pass_number=2)),
    "seed2_power_rule": ("seed2_power_rule.py", GraphOptions(values=True, saved=True)),
}


@pytest.mark.parametrize("name", sorted(GOLDENS))
def test_golden_dot(name):
    script, opts = GOLDENS[name]
    t = trace_of((SCENARIOS / script).read_text(encoding="utf-8"), f"scenarios/{script}")
    got = render(t, opts)
    path = GOLDEN / f"{name}.dot"
    if os.environ.get("AUTOTRACE_UPDATE_GOLDEN"):
        path.write_text(got, encoding="ascii")
    assert path.read_text(encoding="ascii") == got
