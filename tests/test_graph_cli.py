"""``autotrace graph`` end to end, in subprocesses: formats, -o handling, the missing
Graphviz path, exit codes."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import pytest

from test_graph_dot import DEEP, all_texts, need_dot, svg_edges, svg_nodes

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEED = ROOT / "scenarios" / "seed1_mul_sum.py"



def autotrace(*args, env=None, cwd=None, input=None):
    env = dict(os.environ if env is None else env)
    env.setdefault("COLUMNS", "500")            # rich wraps stderr messages at the terminal width
    return subprocess.run([sys.executable, "-m", "autotrace.cli.main", *map(str, args)],
                          capture_output=True, env=env, cwd=cwd, input=input, timeout=120)


def no_graphviz_env(tmp_path):
    """PATH without `dot`, and pygraphviz made unimportable."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shadow = tmp_path / "shadow"
    shadow.mkdir()
    (shadow / "pygraphviz.py").write_text("raise ImportError('pygraphviz hidden by the test')\n")
    env = dict(os.environ)
    env["PATH"] = str(bin_dir)
    env["PYTHONPATH"] = os.pathsep.join([str(shadow), str(ROOT)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    assert shutil.which("dot", path=env["PATH"]) is None
    return env


# -- the missing-Graphviz path ---------------------------------------------------------------

@pytest.mark.parametrize("name", ["g.svg", "g.png", "g.pdf"])
def test_missing_dot_fails_clearly_and_writes_nothing(tmp_path, name):
    env = no_graphviz_env(tmp_path)
    out = tmp_path / name
    r = autotrace("graph", SEED, "-o", out, env=env)
    err = r.stderr.decode()
    assert r.returncode == 1, err
    assert "pygraphviz (which bundles Graphviz) could not be loaded and Graphviz's `dot` program is not on PATH" in err
    assert "-m pip install pygraphviz`" in err and "apt-get install graphviz" in err
    assert "autotrace[" not in err
    assert "--format dot" in err
    assert "Traceback" not in err
    assert not out.exists()
    assert list(tmp_path.glob(".g.*")) == []                     # no temporary file left behind


def test_readme_graph_example_without_system_graphviz(tmp_path):
    """README's graph example, with `dot` off PATH: pygraphviz's bundled Graphviz draws it."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    line = next(ln for ln in readme.splitlines() if ln.startswith("`autotrace graph scenarios/"))
    args = line.strip("`").split("`")[0].split()[2:]
    assert args[:3] == ["scenarios/seed1_mul_sum.py", "-o", "graph.svg"], args
    env = dict(os.environ)
    env["PATH"] = str(pathlib.Path(sys.executable).parent)
    assert shutil.which("dot", path=env["PATH"]) is None
    r = autotrace("graph", ROOT / args[0], "-o", tmp_path / "graph.svg", *args[3:], env=env)
    assert r.returncode == 0, r.stderr.decode()
    assert r.stderr == b""
    texts = {t for n in svg_nodes((tmp_path / "graph.svg").read_text(encoding="utf-8")).values() for t in n["texts"]}
    assert {"x", "z", "MulBackward0", "SumBackward0", "value 15.", "grad [3., 3.]"} <= texts


def test_missing_dot_still_writes_dot(tmp_path):
    env = no_graphviz_env(tmp_path)
    out = tmp_path / "g.dot"
    r = autotrace("graph", SEED, "-o", out, env=env)
    assert r.returncode == 0, r.stderr.decode()
    assert out.read_text().startswith("digraph autotrace {")


# -- -o handling ---------------------------------------------------------------------------

def test_output_into_missing_directory(tmp_path):
    out = tmp_path / "nope" / "g.svg"
    r = autotrace("graph", SEED, "-o", out)
    err = r.stderr.decode()
    assert r.returncode == 2
    assert "the directory" in err and "does not exist" in err
    assert not out.parent.exists()


def test_unknown_suffix_and_format(tmp_path):
    r = autotrace("graph", SEED, "-o", tmp_path / "g.jpeg")
    assert r.returncode == 2 and "cannot tell the format" in r.stderr.decode()
    r = autotrace("graph", SEED, "-o", "-", "--format", "gif")
    assert r.returncode == 2 and "expected one of svg, png, pdf, dot" in r.stderr.decode()


def test_refuses_to_overwrite_the_script(tmp_path):
    script = tmp_path / "s.dot"                 # a script that happens to end in .dot
    script.write_text("import torch\nx = torch.tensor(1.0, requires_grad=True)\ny = x * 2\n")
    before = script.read_bytes()
    r = autotrace("graph", script, "-o", script)
    assert r.returncode == 2 and "refusing to overwrite" in r.stderr.decode()
    assert script.read_bytes() == before


# -- end to end ---------------------------------------------------------------------------------

def test_seed_svg_end_to_end(tmp_path):
    need_dot()
    out = tmp_path / "seed.svg"
    r = autotrace("graph", SEED, "-o", out)
    assert r.returncode == 0, r.stderr.decode()
    assert r.stdout == b""                       # the script's prints do not leak into the picture
    nodes = svg_nodes(out.read_text(encoding="utf-8"))
    texts = {t for n in nodes.values() for t in n["texts"]}
    for word in ("x", "z", "MulBackward0", "SumBackward0", "AccumulateGrad"):
        assert word in texts
    assert any(t.startswith("y ·") for t in texts)

    r = autotrace("graph", SEED, "-o", out, "--values")
    assert r.returncode == 0, r.stderr.decode()
    svg = out.read_text(encoding="utf-8")
    nodes = svg_nodes(svg)
    texts = {t for n in nodes.values() for t in n["texts"]}
    assert "value 15." in texts and "grad [3., 3.]" in texts
    assert "[3., 3.]" in svg_edges(svg).values().__iter__().__next__() or \
        ["[3., 3.]"] in list(svg_edges(svg).values())
    assert list(tmp_path.iterdir()) == [out]     # the temporary file was renamed, none left


def test_dot_to_stdout_is_byte_identical():
    a = autotrace("graph", SEED, "-o", "-", "--format", "dot", "--values", "--saved", "--show-none")
    b = autotrace("graph", SEED, "-o", "-", "--format", "dot", "--values", "--saved", "--show-none")
    assert a.returncode == 0, a.stderr.decode()
    assert a.stdout == b.stdout and a.stdout.startswith(b"digraph autotrace {")


@pytest.mark.parametrize("fmt,magic", [("png", b"\x89PNG"), ("pdf", b"%PDF"), ("svg", b"<?xml")])
def test_formats(tmp_path, fmt, magic):
    need_dot()
    out = tmp_path / f"g.{fmt}"
    r = autotrace("graph", "-e", "z = (x*3).sum()", "--set", "x=[2.0, 3.0]", "-o", out)
    assert r.returncode == 0, r.stderr.decode()
    assert out.read_bytes().startswith(magic)


def test_expr_and_set():
    r = autotrace("graph", "-e", "z = (x*3).sum()", "--set", "x=[2.0, 3.0]", "-o", "-", "--format", "dot")
    assert r.returncode == 0, r.stderr.decode()
    src = r.stdout.decode()
    assert "<B>x</B>" in src and "MulBackward0" in src and "SumBackward0" in src and "n2_out" in src


def test_of_and_pass_usage_errors():
    r = autotrace("graph", SEED, "-o", "-", "--format", "dot", "--of", "nope")
    assert r.returncode == 2 and "binds no tensor named 'nope'" in r.stderr.decode()
    r = autotrace("graph", SEED, "-o", "-", "--format", "dot", "--pass", "2")
    assert r.returncode == 2 and "--pass 2: it ran 1 backward pass" in r.stderr.decode()


def test_script_error_draws_graph_and_exits_1(tmp_path):
    script = tmp_path / "twice.py"
    script.write_text("import torch\nx = torch.tensor(2.0, requires_grad=True)\ny = x * x\n"
                      "y.backward()\ny.backward()\n")
    r = autotrace("graph", script, "-o", tmp_path / "g.dot")
    assert r.returncode == 1
    assert "RuntimeError" in r.stderr.decode()
    assert "the script stopped at line 5" in (tmp_path / "g.dot").read_text()


def test_deep_script_renders_in_seconds(tmp_path):
    need_dot()
    script = tmp_path / "deep.py"
    script.write_text(DEEP)
    out = tmp_path / "deep.svg"
    start = time.perf_counter()
    r = autotrace("graph", script, "-o", out, "--values")
    elapsed = time.perf_counter() - start
    assert r.returncode == 0, r.stderr.decode()
    assert elapsed < 20, elapsed
    nodes = svg_nodes(out.read_text(encoding="utf-8"))
    assert nodes["n2000"]["texts"][0] == "MulBackward0" and len(nodes) == 6   # the loop body, folded
    assert "×1000 loop body · line 5" in all_texts(out.read_text(encoding="utf-8"))
    ET.fromstring(out.read_text(encoding="utf-8"))


def test_docs_example_is_the_seed_graph():
    """docs/graph-example.svg (made by `autotrace graph scenarios/seed1_mul_sum.py -o
    docs/graph-example.svg --values`) shows what the issue asks for."""
    svg = (ROOT / "docs" / "graph-example.svg").read_text(encoding="utf-8")
    nodes = svg_nodes(svg)
    texts = {t for n in nodes.values() for t in n["texts"]}
    for word in ("x", "z", "MulBackward0", "SumBackward0", "AccumulateGrad", "value 15.", "grad [3., 3.]"):
        assert word in texts
    assert any(t.startswith("y ·") for t in texts)


# -- files and terminals -------------------------------------------------------------------

def _on_terminal(*args):
    """Run autotrace with stdout on a pseudo-terminal; (exit code, stdout text, stderr text)."""
    import pty

    master, slave = pty.openpty()
    env = dict(os.environ, COLUMNS="500")
    proc = subprocess.Popen([sys.executable, "-m", "autotrace.cli.main", *map(str, args)],
                            stdout=slave, stderr=subprocess.PIPE, env=env)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    err = proc.stderr.read().decode()
    return proc.wait(timeout=60), b"".join(chunks).decode().replace("\r\n", "\n"), err


def test_terminal_gets_dot_not_svg():
    rc, out, err = _on_terminal("graph", SEED)
    assert rc == 0, err
    assert out.startswith("digraph autotrace {") and "<svg" not in out
    assert "standard output is a terminal, so this is the graph's DOT source; give -o graph.svg" in err


def test_terminal_refuses_binary_formats():
    rc, out, err = _on_terminal("graph", SEED, "--format", "png")
    assert rc == 2 and out == ""
    assert "refusing to write PNG bytes to a terminal; give -o graph.png" in err


def test_piped_output_is_still_svg():
    r = autotrace("graph", SEED)
    assert r.returncode == 0 and r.stdout.startswith(b"<?xml")


@pytest.mark.parametrize("name,fmt,says", [("g.svg", "pdf", "SVG"), ("g.png", "dot", "PNG"),
                                           ("g.dot", "mermaid", "DOT")])
def test_suffix_and_format_disagree(tmp_path, name, fmt, says):
    out = tmp_path / name
    r = autotrace("graph", SEED, "-o", out, "--format", fmt)
    err = r.stderr.decode()
    assert r.returncode == 2
    assert f"the suffix {out.suffix} says {says}, --format says {fmt.upper()}" in err
    assert len(err.strip().splitlines()) == 1 and not out.exists()


def test_missing_directory_is_one_line_exit_2(tmp_path):
    out = tmp_path / "no" / "such" / "g.svg"
    r = autotrace("graph", SEED, "-o", out)
    err = r.stderr.decode().strip()
    assert r.returncode == 2 and len(err.splitlines()) == 1
    assert err == f"error: -o {out}: the directory {out.parent} does not exist; create it first"


def test_mermaid_output(tmp_path):
    out = tmp_path / "g.mmd"
    r = autotrace("graph", SEED, "-o", out, "--values")
    assert r.returncode == 0, r.stderr.decode()
    text = out.read_text(encoding="utf-8")
    assert text.startswith("flowchart TB\n") and 'n0 -->|"[3., 3.]"| n1' in text
    r = autotrace("graph", "scenarios/seed1_mul_sum.py", "--format", "mermaid", cwd=ROOT)
    assert r.stdout.decode() == (ROOT / "tests" / "golden" / "seed1_mul_sum.mmd").read_text(encoding="utf-8")


def test_control_characters_in_an_error_message_still_draw(tmp_path):
    s = tmp_path / "ctl.py"
    s.write_text('import torch\nx = torch.ones(2, requires_grad=True)\ny = (x * 2).sum()\n'
                 'raise ValueError("a\\x01b\\x1bc")\n')
    out = tmp_path / "g.svg"
    from helpers import run_cli
    proc = run_cli("graph", s, "-o", out)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    svg = out.read_text()
    assert "a\\x01b\\x1bc" in svg and "&#1;" not in svg and "\x1b" not in svg
