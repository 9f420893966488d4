"""Render DOT source to SVG, PNG or PDF, and write files whole or not at all.

Graphviz's ``dot`` executable is used when it is on PATH; otherwise pygraphviz (the
optional extra ``autotrace[render]``) renders in-process; otherwise
:class:`RenderUnavailable` says how to get either, and that ``--format dot`` needs
neither.
"""

from __future__ import annotations

import shutil
import subprocess

FORMATS = ("svg", "png", "pdf", "dot")
SUFFIXES = {".svg": "svg", ".png": "png", ".pdf": "pdf", ".dot": "dot", ".gv": "dot"}

INSTALL_HINT = (
    "cannot render {fmt}: Graphviz's `dot` program is not on PATH and pygraphviz is not installed.\n"
    "Install one of them:\n"
    "  - Graphviz: `sudo apt-get install graphviz` (Debian/Ubuntu), `brew install graphviz` (macOS), "
    "`winget install graphviz` or https://graphviz.org/download/ (Windows);\n"
    "  - or pygraphviz: `pip install 'autotrace[render]'`.\n"
    "`--format dot` works now without either (e.g. `-o graph.dot`), and the DOT file can be "
    "rendered later or pasted into an online Graphviz viewer."
)


class RenderUnavailable(RuntimeError):
    """Neither the ``dot`` executable nor pygraphviz is available."""


class RenderFailed(RuntimeError):
    """Graphviz ran but failed."""


def find_dot() -> str | None:
    return shutil.which("dot")


def _pygraphviz():
    try:
        import pygraphviz
    except Exception:  # ImportError, or a broken install that fails to load its library
        return None
    return pygraphviz


def available() -> bool:
    return find_dot() is not None or _pygraphviz() is not None


def render(source: str, fmt: str, timeout: float | None = 120.0) -> bytes:
    """``source`` (DOT) laid out by Graphviz's dot and rendered as ``fmt``."""
    if fmt == "dot":
        return source.encode("utf-8")
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}")
    exe = find_dot()
    if exe is not None:
        try:
            proc = subprocess.run([exe, f"-T{fmt}"], input=source.encode("utf-8"),
                                  capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise RenderFailed(f"Graphviz dot took longer than {timeout:g} s; try fewer nodes "
                               f"(--max-nodes, --collapse) or --format dot") from None
        except OSError as e:
            raise RenderFailed(f"could not run {exe}: {e.strerror}") from None
        if proc.returncode != 0 or not proc.stdout:
            msg = proc.stderr.decode("utf-8", errors="replace").strip()
            raise RenderFailed(f"Graphviz dot failed (exit {proc.returncode}): {msg}")
        return proc.stdout
    pgv = _pygraphviz()
    if pgv is not None:
        try:
            graph = pgv.AGraph(string=source)
            data = graph.draw(format=fmt, prog="dot")
        except Exception as e:
            raise RenderFailed(f"pygraphviz failed to render {fmt}: {e}") from None
        if isinstance(data, str):
            data = data.encode("utf-8")
        return data
    raise RenderUnavailable(INSTALL_HINT.format(fmt=fmt.upper()))


def write_atomic(path: str, data: bytes) -> None:
    """Write the rendered bytes whole or not at all (see :mod:`autotrace.files`)."""
    from ..files import write_atomic as _write

    _write(path, data)
