"""autotrace.render.svg: choosing dot / pygraphviz / a clear error, and atomic writes."""

from __future__ import annotations

import os
import sys
import types

import pytest

from autotrace.render import svg


SMALL = 'digraph { a [label=<<B>x</B>>] a -> b }\n'


def test_dot_format_needs_nothing(monkeypatch):
    monkeypatch.setattr(svg, "find_dot", lambda: None)
    monkeypatch.setattr(svg, "_pygraphviz", lambda: None)
    assert svg.render(SMALL, "dot") == SMALL.encode()


def test_unavailable_message(monkeypatch):
    monkeypatch.setattr(svg, "find_dot", lambda: None)
    monkeypatch.setattr(svg, "_pygraphviz", lambda: None)
    with pytest.raises(svg.RenderUnavailable) as e:
        svg.render(SMALL, "svg")
    msg = str(e.value)
    assert msg.startswith("cannot render SVG: pygraphviz (which bundles Graphviz) could not be loaded "
                          "and Graphviz's `dot` program is not on PATH")
    assert f"`{sys.executable} -m pip install pygraphviz`" in msg     # this Python's pip, exactly
    assert "apt-get install graphviz" in msg
    assert "autotrace[" not in msg           # no extra of a package the index does not hold
    assert "`--format dot` works now" in msg


def test_pygraphviz_fallback(monkeypatch):
    calls = []

    class AGraph:
        def __init__(self, string):
            calls.append(string)

        def draw(self, format, prog):
            calls.append((format, prog))
            return b"<svg/>"

    monkeypatch.setattr(svg, "find_dot", lambda: None)
    monkeypatch.setitem(sys.modules, "pygraphviz", types.SimpleNamespace(AGraph=AGraph))
    assert svg.render(SMALL, "svg") == b"<svg/>"
    assert calls == [SMALL, ("svg", "dot")]


def test_broken_pygraphviz_counts_as_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "pygraphviz", None)      # import raises ImportError
    assert svg._pygraphviz() is None


def _fake_dot(tmp_path, body):
    exe = tmp_path / "dot"
    exe.write_text(f"#!/bin/sh\n{body}\n")
    exe.chmod(0o755)
    return str(exe)


def test_dot_executable_preferred_when_present(tmp_path, monkeypatch):
    exe = _fake_dot(tmp_path, 'cat > "$0.in"; echo "<svg>$1</svg>"')
    monkeypatch.setattr(svg, "find_dot", lambda: exe)
    assert svg.render(SMALL, "svg") == b"<svg>-Tsvg</svg>\n"
    assert (tmp_path / "dot.in").read_text() == SMALL


def test_dot_failure_is_reported(tmp_path, monkeypatch):
    exe = _fake_dot(tmp_path, 'echo "Error: syntax error in line 1" >&2; exit 1')
    monkeypatch.setattr(svg, "find_dot", lambda: exe)
    with pytest.raises(svg.RenderFailed, match="Graphviz dot failed \\(exit 1\\): Error: syntax error"):
        svg.render("digraph { a -> }", "svg")


def test_bundled_graphviz_renders_without_dot(monkeypatch):
    """pygraphviz's wheel alone renders SVG, PNG and PDF, and its fontconfig chatter
    does not reach stderr."""
    monkeypatch.setattr(svg, "find_dot", lambda: None)
    out = svg.render(SMALL, "svg")
    assert b"<svg" in out and b">x</text>" in out
    assert svg.render(SMALL, "png").startswith(b"\x89PNG")
    assert svg.render(SMALL, "pdf").startswith(b"%PDF")


def test_bundled_graphviz_failure_is_reported(monkeypatch):
    monkeypatch.setattr(svg, "find_dot", lambda: None)
    with pytest.raises(svg.RenderFailed, match="pygraphviz failed to render svg"):
        svg.render("digraph { a -> }", "svg")


def test_write_atomic_replaces_whole(tmp_path):
    target = tmp_path / "g.svg"
    target.write_bytes(b"old")
    svg.write_atomic(str(target), b"new contents")
    assert target.read_bytes() == b"new contents"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.svg"]


def test_write_atomic_failure_leaves_old_file(tmp_path, monkeypatch):
    target = tmp_path / "g.svg"
    target.write_bytes(b"old")

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        svg.write_atomic(str(target), b"new")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.svg"]   # the temporary file is gone


# -- CJK text in pictures --------------------------------------------------------------------

CJK_SCRIPT = ("import torch\n权重 = torch.tensor([1.0, 2.0], requires_grad=True)\n"
              "损失 = (权重 * 2).sum()\n损失.backward()\n")


def test_cjk_labels_get_a_cjk_font_list():
    from autotrace.render import dot
    from graph_helpers import trace_of

    src = dot.render(trace_of(CJK_SCRIPT, "cjk.py"))
    assert src.count(f'fontname="{dot.CJK_FONTS}"') == 3          # graph, node and edge defaults
    assert "Noto Sans CJK SC" in dot.CJK_FONTS and dot.CJK_FONTS.startswith("Helvetica,")
    assert "&#26435;&#37325;" in src                              # 权重, as character references
    plain = dot.render(trace_of("import torch\nx = torch.tensor(1.0, requires_grad=True)\ny = x * 2\n"))
    assert "fontname=Helvetica" in plain and "CJK" not in plain
    out = svg.render(src, "svg").decode("utf-8")
    assert f'font-family="{dot.CJK_FONTS}"' in out and ">权重</text>" in out


def test_cjk_font_detection(tmp_path):
    assert svg.cjk_font_available(dirs=(str(tmp_path),)) is False
    (tmp_path / "truetype" / "dejavu").mkdir(parents=True)
    (tmp_path / "truetype" / "dejavu" / "DejaVuSans.ttf").write_bytes(b"")
    assert svg.cjk_font_available(dirs=(str(tmp_path),)) is False
    (tmp_path / "opentype" / "noto").mkdir(parents=True)
    (tmp_path / "opentype" / "noto" / "NotoSansCJK-Regular.ttc").write_bytes(b"")
    assert svg.cjk_font_available(dirs=(str(tmp_path),)) is True


@pytest.mark.parametrize("fmt", ["png", "pdf", "svg"])
def test_png_pdf_warn_when_no_cjk_font(tmp_path, fmt):
    import subprocess

    script = tmp_path / "cjk.py"
    script.write_text(CJK_SCRIPT, encoding="utf-8")
    out = tmp_path / f"g.{fmt}"
    r = subprocess.run([sys.executable, "-m", "autotrace.cli.main", "graph", str(script), "-o", str(out)],
                       capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr.decode()
    warned = "no font with CJK glyphs is installed" in r.stderr.decode()
    assert warned == (fmt != "svg" and not svg.cjk_font_available())
    if warned:
        assert "sudo apt-get install fonts-noto-cjk" in r.stderr.decode()
