"""The Python API, for notebooks and scripts: the same library the CLI uses.

>>> import autotrace
>>> r = autotrace.run("z = (x * 3).sum()\\nz.backward()", x=[2.0, 3.0])
>>> r.variables["x"].grad
array([3., 3.], dtype=float32)
>>> r.explain()          # in Jupyter / VS Code: the explanation, rendered
>>> r.graph()            # the graph as SVG (DOT text where Graphviz is missing)
>>> r.html()             # the step-through page, inline
>>> r.to_json()          # the `run --json` document

Every object displays richly in a notebook (``_repr_html_``, ``_repr_svg_``,
``_repr_markdown_``) and as plain text in a terminal REPL (``repr``/``str``). Scripts run
in the same sandbox and limits as on the command line.
"""

from __future__ import annotations

import io
import os

from .runner import UsageError

__all__ = ["run", "run_source", "Result", "Explained", "Graph", "Page", "UsageError"]


def _sets(names: dict) -> list:
    """``x=[2.0, 3.0]`` keyword values as ``--set`` texts (numbers or nested lists of them)."""
    out = []
    for k, v in names.items():
        if hasattr(v, "tolist"):
            v = v.tolist()
        out.append(f"{k}={v!r}")
    return out


def run(source_or_path, *, timeout: float = 10.0, of: str | None = None, **names) -> "Result":
    """Run a script given as source text or as the path of a ``.py`` file (str or
    ``pathlib.Path``; a missing file raises FileNotFoundError).

    ``names`` bind the names the script uses but never assigns, as ``--set`` does:
    ``x=[2.0, 3.0]`` becomes a float32 leaf with ``requires_grad=True``. ``of`` names the
    tensor explain backpropagates from when the script calls no ``backward()``.

    Raises :class:`UsageError` for a bad name binding or an unbound name; a script's own
    error (syntax, unsupported construct, a PyTorch error) is in ``Result.error``.
    """
    text = source_or_path
    name = "<cell>"
    if isinstance(source_or_path, os.PathLike):
        source_or_path = os.fspath(source_or_path)
        text = source_or_path
    if "\n" not in source_or_path and source_or_path.endswith(".py"):
        if not os.path.isfile(source_or_path):
            raise FileNotFoundError(f"{source_or_path}: no such file")
        with open(source_or_path, "rb") as f:
            text = f.read()
        name = source_or_path
    from .interpreter import Limits
    return run_source(text, name, sets=_sets(names), limits=Limits(timeout=timeout), of=of)


def run_source(source, name: str, *, sets=(), limits=None, of=None) -> "Result":
    """Run ``source`` (str or bytes) reported as ``name``; ``sets`` are ``NAME=VALUE``
    texts. The values are kept, as explain needs them."""
    from . import explain

    trace = explain.run(source, name, sets=sets, limits=limits, of=of)
    return Result(trace, source, name, sets, limits, of)


class Result:
    """One run: :attr:`trace` is the record every view renders."""

    def __init__(self, trace, source, name, sets, limits, of):
        self.trace = trace
        self._source, self._name, self._sets, self._limits, self._of = source, name, sets, limits, of

    @property
    def stdout(self) -> str:
        return self.trace.stdout

    @property
    def error(self) -> dict | None:
        return self.trace.error

    @property
    def variables(self) -> dict:
        return self.trace.variables

    def explain(self, *, wrt: str | None = None, pass_number: int | None = None,
                all_steps: bool = False, verify: bool = False) -> "Explained":
        """The step-by-step explanation (``autotrace explain``)."""
        from . import explain as ex_mod

        ex = ex_mod.explain(self.trace, of=self._of, wrt=wrt, pass_number=pass_number)
        if verify:
            lim = _one_deadline(self._limits)

            def rerun(perturb):
                try:
                    return ex_mod.run(self._source, self._name, sets=self._sets, limits=lim,
                                      of=self._of, perturb=perturb)
                except UsageError:
                    return None
            ex.verification = ex_mod.verify(self.trace, rerun, pass_number=pass_number, of=self._of)
        return Explained(ex, all_steps)

    def graph(self, *, values: bool = False, saved: bool = False, of: str | None = None,
              pass_number: int | None = None) -> "Graph":
        """The autograd graph (``autotrace graph``)."""
        from .render import dot

        opts = dot.GraphOptions(values=values, saved=saved, of=of, pass_number=pass_number)
        return Graph(dot.render(self.trace, opts))

    def html(self) -> "Page":
        """The step-through page (``autotrace html``)."""
        from . import explain as ex_mod
        from .render import html

        return Page(html.render(self.trace, ex_mod.explain(self.trace, of=self._of)))

    def to_json(self) -> str:
        """The ``run --json`` document."""
        from .render import json as render_json

        return render_json.render(self.trace)

    def _report(self, html: bool) -> str:
        from .render import console as render_console

        con = _recording_console()
        render_console.run_report(self.trace, con, con)
        if self.trace.error is not None:
            from .interpreter import ScriptError, format_error
            e = self.trace.error
            con.print(format_error(self.trace.script, self.trace.source, ScriptError(
                type=e["type"], message=e["message"], line=e["line"], column=e["column"],
                phase=e["phase"], end_column=e.get("end_column"))), markup=False, highlight=False)
        return _export_html(con) if html else con.export_text()

    def _repr_html_(self) -> str:
        return self._report(True)

    def __str__(self) -> str:
        return self._report(False)

    def __repr__(self) -> str:
        return self._report(False)


_PRE = ('<pre style="font-family:ui-monospace,Menlo,Consolas,monospace;font-size:12px;'
        'line-height:1.35;white-space:pre-wrap">{code}</pre>')


def _export_html(con) -> str:
    """The recorded console output as one ``<pre>`` fragment (inline styles), for notebooks."""
    return con.export_html(inline_styles=True, code_format=_PRE)


def _recording_console(width: int = 100):
    from rich.console import Console

    return Console(record=True, file=io.StringIO(), width=width, color_system="truecolor",
                   highlight=False, soft_wrap=False, force_jupyter=False)


class Explained:
    """An explanation: ``str()`` is the terminal text, ``markdown`` the Markdown view,
    ``to_json()`` the ``explain --json`` document; notebooks show it rendered."""

    def __init__(self, explanation, all_steps=False):
        self.explanation = explanation
        self._all = all_steps

    def _render(self, html: bool) -> str:
        from .render import explain_console

        con = _recording_console()
        explain_console.render(self.explanation, con, all_steps=self._all)
        return _export_html(con) if html else con.export_text()

    @property
    def markdown(self) -> str:
        from .render import explain_markdown
        return explain_markdown.render(self.explanation, all_steps=self._all)

    def to_json(self) -> str:
        from .render import explain_json
        return explain_json.render(self.explanation)

    def _repr_html_(self) -> str:
        return self._render(True)

    def _repr_markdown_(self) -> str:
        return self.markdown

    def __str__(self) -> str:
        return self._render(False)

    __repr__ = __str__


class Graph:
    """A graph: :attr:`dot` is its DOT source; :meth:`svg` lays it out with Graphviz;
    notebooks show the SVG (or the DOT text where Graphviz is missing)."""

    def __init__(self, dot_source: str):
        self.dot = dot_source

    def svg(self) -> str:
        """The SVG text. Raises ``autotrace.render.svg.RenderUnavailable`` without Graphviz."""
        from .render import svg
        return svg.render(self.dot, "svg").decode("utf-8")

    def save(self, path: str) -> None:
        """Write the graph; the format comes from the suffix (.svg .png .pdf .dot)."""
        from .render import svg

        fmt = os.path.splitext(path)[1].lstrip(".").lower() or "svg"
        fmt = {"gv": "dot"}.get(fmt, fmt)
        svg.write_atomic(path, svg.render(self.dot, fmt))

    def _repr_svg_(self):
        from .render import svg

        if not svg.available():
            return None
        return self.svg()

    def _repr_markdown_(self):
        from .render import svg

        if svg.available():
            return None
        return "```dot\n" + self.dot + "\n```"

    def __str__(self) -> str:
        return self.dot

    __repr__ = __str__


class Page:
    """The step-through page: :attr:`data` is the whole HTML document; :meth:`save`
    writes it; notebooks show it in an isolated frame (its script runs there)."""

    def __init__(self, data: str):
        self.data = data

    def save(self, path: str) -> None:
        from .files import write_atomic
        write_atomic(path, self.data.encode("utf-8"))

    def _repr_html_(self) -> str:
        import html
        return (f'<iframe srcdoc="{html.escape(self.data, quote=True)}" '
                'style="width:100%;height:640px;border:1px solid #ddd" '
                'sandbox="allow-scripts"></iframe>')

    def __str__(self) -> str:
        return self.data

    def __repr__(self) -> str:
        return f"<autotrace page, {len(self.data)} characters; .save(path) writes it>"


def _one_deadline(limits):
    """``limits`` with one deadline, ``timeout`` from now, for all of verify's re-runs
    together (each re-run would otherwise get its own timeout): a re-run after it ends
    at once with the time limit, which the verification notes."""
    import dataclasses
    import math
    import time

    from .interpreter import Limits
    limits = limits or Limits()
    if not (limits.timeout > 0 and math.isfinite(limits.timeout)):
        return limits
    deadline = time.monotonic() + limits.timeout
    if limits.deadline is not None:
        deadline = min(deadline, limits.deadline)
    return dataclasses.replace(limits, deadline=deadline)
