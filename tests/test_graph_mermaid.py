"""``graph --format mermaid``: golden files, and every line checked against the grammar
subset autotrace writes (documented in autotrace/render/mermaid.py): a parser for that
subset that also checks the structure (clusters closed, edges between declared nodes,
labels that user text cannot break out of). When Node.js and the ``mermaid`` package
are installed (AUTOTRACE_MERMAID_DIR names the directory holding node_modules/mermaid),
mermaid's own parser checks the same outputs too."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

from autotrace.render import mermaid

from graph_helpers import trace_of

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
GOLDEN = HERE / "golden"

ID = r"(?:n\d+(?:_leaf|_out)?|m\d+|omitted)"
LABEL = r'"(?:[^"\\]*)"'
NODE = re.compile(rf"^(?P<id>{ID})\[(?P<label>{LABEL})\](?::::(?P<cls>\w+))?$")
EDGE = re.compile(rf"^(?P<a>{ID}) (?P<arrow>-->|-\.->)(?:\|(?P<label>{LABEL})\|)? (?P<b>{ID})$")
SUB = re.compile(rf"^subgraph (?P<id>cluster_[mf]\d+) \[(?P<label>{LABEL})\]$")
CLASSDEF = re.compile(r"^classDef (?P<cls>\w+) (?:[a-z-]+:[#\w]+,?)+$")
ENTITY = re.compile(r"#(?:\d+|quot);")


def parse(src: str) -> dict:
    """Check ``src`` line by line; return nodes, edges, clusters (with parents), classes."""
    lines = src.split("\n")
    assert lines[0] == "flowchart TB" and lines[-1] == ""
    nodes, edges, clusters, classes, used = {}, [], {}, set(), set()
    stack = []
    for raw in lines[1:-1]:
        indent = len(raw) - len(raw.lstrip(" "))
        line = raw.strip()
        assert indent == 2 * (len(stack) + (0 if line == "end" else 1)), f"indentation: {raw!r}"
        if line.startswith("%% "):
            assert "\n" not in line
            continue
        if line == "end":
            assert stack, "end without subgraph"
            stack.pop()
            continue
        for pattern, kind in ((SUB, "sub"), (NODE, "node"), (EDGE, "edge"), (CLASSDEF, "classdef")):
            m = pattern.match(line)
            if m:
                break
        else:
            raise AssertionError(f"not in the grammar: {line!r}")
        label = m.groupdict().get("label")
        if label:
            body = label[1:-1]
            # an entity is the only use of '#'; markup only as <br>
            assert "#" not in ENTITY.sub("", body), label
            assert "<" not in body.replace("<br>", ""), label
            assert ">" not in body.replace("<br>", ""), label
            assert "`" not in body and "&" not in body, label
        if kind == "sub":
            clusters[m["id"]] = (stack[-1] if stack else None, label)
            stack.append(m["id"])
        elif kind == "node":
            assert m["id"] not in nodes, f"node declared twice: {m['id']}"
            nodes[m["id"]] = (label, m["cls"], stack[-1] if stack else None)
            if m["cls"]:
                used.add(m["cls"])
        elif kind == "edge":
            edges.append((m["a"], m["arrow"], m["b"], label))
        else:
            classes.add(m["cls"])
    assert not stack, "subgraph not closed"
    for a, _, b, _ in edges:
        assert a in nodes and b in nodes, (a, b)
    assert used <= classes
    return {"nodes": nodes, "edges": edges, "clusters": clusters}


def unescape(label: str) -> str:
    body = label[1:-1].replace("<br>", "\n").replace("#quot;", '"')
    return re.sub(r"#(\d+);", lambda m: chr(int(m[1])), body)


def seed():
    return trace_of((ROOT / "scenarios" / "seed1_mul_sum.py").read_text(encoding="utf-8"),
                    "scenarios/seed1_mul_sum.py")


def script(name):
    return trace_of((HERE / "graph_scripts" / name).read_text(encoding="utf-8"), f"tests/graph_scripts/{name}")


CASES = {
    "seed1_mul_sum": (seed, {}),
    "seed1_mul_sum_values": (seed, {"values": True}),
    "train50": (lambda: script("train50.py"), {}),
    "rnn30": (lambda: script("rnn30.py"), {"values": True}),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_mermaid(name):
    make, kw = CASES[name]
    got = mermaid.render(make(), **kw)
    parse(got)
    assert got == mermaid.render(make(), **kw)          # deterministic
    path = GOLDEN / f"{name}.mmd"
    if os.environ.get("AUTOTRACE_UPDATE_GOLDEN"):
        path.write_text(got, encoding="utf-8")
    assert path.read_text(encoding="utf-8") == got


def test_seed_content():
    g = parse(mermaid.render(seed(), values=True))
    labels = {k: unescape(v[0]) for k, v in g["nodes"].items()}
    assert labels["n0_leaf"] == "x\n[2] float32\nvalue [2., 3.]\ngrad [3., 3.]"
    assert labels["n1"].startswith("MulBackward0\ny · [2] float32")
    assert labels["n2_out"] == "z\n[] float32\nvalue 15."
    assert ("n0", "-->", "n1", '"[3., 3.]"') in g["edges"]        # the gradient sent to x
    assert g["nodes"]["n2_out"][1] == "output"


def test_clusters_and_fold():
    g = parse(mermaid.render(script("rnn30.py")))
    titles = {k: unescape(v[1]) for k, v in g["clusters"].items()}
    fold = [k for k in titles if k.startswith("cluster_f")]
    assert [titles[k] for k in fold] == ["×30 loop body · line 10, drawn once"]
    inner = sorted(titles[k] for k, (parent, _) in g["clusters"].items() if parent == fold[0])
    assert inner == ["cell · Linear", "inp · Linear"]
    assert sum(1 for e in g["edges"] if e[1] == "-.->") == 1      # the carried hidden state


HOSTILE = ['"', "#", "#quot;", "<b>", "a&b", "`x`", "end", "]", "[", "|", "%%", "\\", ";", "\u4e2d\u6587", "\x07"]


@pytest.mark.parametrize("s", HOSTILE)
def test_labels_escape_user_text(s):
    """A label is always one quoted string that shows the text as written."""
    label = '"' + mermaid.text(f"a{s}b") + '"'
    assert re.fullmatch(LABEL, label)
    shown = unescape(label)
    assert shown == f"a{s}b"


def test_hostile_names_in_a_graph():
    t = trace_of('import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\n'
                 'y = (x * len("a\\"]|#end<b>")).sum()\n', "s.py")
    src = mermaid.render(t)
    g = parse(src)
    assert 'len("a\\"]|#end<b>")' in unescape(g["nodes"]["n1"][0])


def _mermaid_dir():
    d = os.environ.get("AUTOTRACE_MERMAID_DIR")
    if d and shutil.which("node") and (pathlib.Path(d) / "node_modules" / "mermaid").is_dir():
        return d
    return None


@pytest.mark.skipif(_mermaid_dir() is None, reason="mermaid's own parser: set AUTOTRACE_MERMAID_DIR "
                    "(npm install mermaid jsdom there); the grammar tests above always run")
def test_mermaid_parser_accepts_goldens():
    d = _mermaid_dir()
    sources = [(GOLDEN / f"{n}.mmd").read_text(encoding="utf-8") for n in sorted(CASES)]
    js = (HERE / "mermaid_parse.mjs").read_text(encoding="utf-8")
    r = subprocess.run(["node", "--input-type=module", "-e", js], input=json.dumps(sources).encode(),
                       capture_output=True, cwd=d, timeout=120)
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    assert json.loads(r.stdout) == ["flowchart-v2"] * len(sources)


def test_readme_diagram_is_the_commands_output():
    """README's Mermaid diagram is exactly what the command it names prints."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme.split("```mermaid\n", 1)[1].split("```\n", 1)[0]
    cmd = "autotrace graph scenarios/seed1_mul_sum.py --format mermaid --values"
    assert f"`{cmd}`" in readme
    r = subprocess.run([sys.executable, "-m", "autotrace.cli.main", *cmd.split()[1:]], capture_output=True,
                       cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout.decode() == block
    parse(block)


def test_explain_md_can_end_with_the_diagram():
    r = subprocess.run([sys.executable, "-m", "autotrace.cli.main", "explain", "scenarios/seed2_power_rule.py",
                        "--format", "md", "--mermaid"], capture_output=True, cwd=ROOT, timeout=60)
    assert r.returncode == 0, r.stderr.decode()
    out = r.stdout.decode()
    block = out.split("## Graph\n\n```mermaid\n", 1)[1]
    assert block.endswith("```\n")
    g = parse(block[:-len("```\n")])
    assert unescape(g["nodes"]["n0_leaf"][0]) == "A\n[] float32\nvalue 5.\ngrad 75."
    assert ("n0", "-->", "n1", '"75."') in g["edges"]
