"""Render DOT source to SVG, PNG or PDF, and write files whole or not at all.

Graphviz's ``dot`` executable is used when it is on PATH; otherwise pygraphviz (a
regular dependency: its wheels bundle Graphviz) renders in-process; otherwise
:class:`RenderUnavailable` says how to get either for this Python, and that
``--format dot`` needs neither.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

FORMATS = ("svg", "png", "pdf", "dot")
SUFFIXES = {".svg": "svg", ".png": "png", ".pdf": "pdf", ".dot": "dot", ".gv": "dot",
            ".mmd": "mermaid", ".mermaid": "mermaid"}



def pip_command() -> str:
    """The pip of the running Python, as a command line (``/path/to/python -m pip``)."""
    exe = sys.executable or "python"
    return (f'"{exe}"' if " " in exe else exe) + " -m pip"


def install_hint(fmt: str) -> str:
    from ..messages import text
    return text("graph.install_hint", fmt=fmt.upper(), pip=pip_command())


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
            from ..messages import text as _t
            proc = subprocess.run([exe, f"-T{fmt}"], input=source.encode("utf-8"),
                                  capture_output=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise RenderFailed(_t("graph.render.timeout", seconds=f"{timeout:g}")) from None
        except OSError as e:
            raise RenderFailed(_t("graph.render.exec", exe=exe, reason=e.strerror)) from None
        if proc.returncode != 0 or not proc.stdout:
            msg = proc.stderr.decode("utf-8", errors="replace").strip()
            raise RenderFailed(_t("graph.render.failed", code=proc.returncode, message=msg))
        return proc.stdout
    pgv = _pygraphviz()
    if pgv is not None:
        from ..messages import text as _t
        with _quiet_stderr() as noise:
            try:
                graph = pgv.AGraph(string=source)
                data = graph.draw(format=fmt, prog="dot")
            except Exception as e:
                raise RenderFailed(_t("graph.render.pygraphviz", fmt=fmt, message=e)) from None
        if noise.text:
            sys.stderr.write(noise.text)
        if isinstance(data, str):
            data = data.encode("utf-8")
        return data
    raise RenderUnavailable(install_hint(fmt))


class _quiet_stderr:
    """Collect what the C libraries write to file descriptor 2 while rendering in-process;
    the value is that text without the bundled fontconfig's complaints about the system's
    newer configuration files (harmless: the fonts are still found)."""

    def __enter__(self):
        self.text = ""
        try:
            sys.stderr.flush()
            self.saved = os.dup(2)
        except OSError:
            self.saved = None
            return self
        self.tmp = tempfile.TemporaryFile()
        os.dup2(self.tmp.fileno(), 2)
        return self

    def __exit__(self, *exc):
        if self.saved is None:
            return False
        os.dup2(self.saved, 2)
        os.close(self.saved)
        self.tmp.seek(0)
        raw = self.tmp.read().decode("utf-8", errors="replace")
        self.tmp.close()
        self.text = "".join(line for line in raw.splitlines(keepends=True)
                            if not line.startswith("Fontconfig warning"))
        return False


FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", "~/.local/share/fonts", "~/.fonts",
             "/Library/Fonts", "/System/Library/Fonts", "~/Library/Fonts", "C:/Windows/Fonts")
# file names of fonts with CJK glyphs (Noto/Source Han CJK, WenQuanYi, Droid fallback, AR PL,
# IPA, Nanum, the macOS and Windows system faces)
_CJK_FILE = ("cjk", "sourcehan", "wqy", "wenquanyi", "droidsansfallback", "ukai", "uming",
             "ipag", "ipam", "takao", "nanum", "unifont", "pingfang", "hiragino", "stheiti",
             "msyh", "simsun", "simhei", "yahei", "meiryo", "msgothic", "malgun")
CJK_HINT = ("warning: the labels hold CJK text and no font with CJK glyphs is installed, so the "
            "{fmt} shows empty boxes in their place; install one (Debian/Ubuntu: "
            "`sudo apt-get install fonts-noto-cjk`) or write SVG, which the viewer's fonts draw\n")


def cjk_font_available(dirs=FONT_DIRS) -> bool:
    """True when a font with CJK glyphs is installed: fontconfig's ``fc-list :lang=zh``
    when it is on PATH, else a look through the usual font directories for known CJK
    font files."""
    fc = shutil.which("fc-list")
    if fc is not None and dirs is FONT_DIRS:
        try:
            proc = subprocess.run([fc, ":lang=zh", "family"], capture_output=True, timeout=20)
            return bool(proc.stdout.strip())
        except (OSError, subprocess.TimeoutExpired):
            pass
    for d in dirs:
        d = os.path.expanduser(d)
        if not os.path.isdir(d):
            continue
        for _, _, files in os.walk(d):
            for f in files:
                name = f.lower().replace("-", "").replace("_", "").replace(" ", "")
                if any(k in name for k in _CJK_FILE):
                    return True
    return False


def write_atomic(path: str, data: bytes) -> None:
    """Write the rendered bytes whole or not at all (see :mod:`autotrace.files`)."""
    from ..files import write_atomic as _write

    _write(path, data)
