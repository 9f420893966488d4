"""Views of a :class:`~autotrace.diff.Diff`: terminal text and Markdown, from one list of
(heading | item | code) rows."""

from __future__ import annotations

from ..diff import Diff, _fmt
from ..messages import text


def rows(d: Diff) -> list:
    """``(kind, text)`` rows: kind is ``title``, ``heading``, ``item`` or ``code``."""
    out = [("title", text("diff.title", a=d.script_a, b=d.script_b))]
    if d.same:
        out.append(("item", text("diff.same")))
        return out
    if d.parting is not None:
        out.append(("heading", text("diff.heading.parting")))
        out.append(("item", d.parting.detail))
        for note in d.notes:
            out.append(("item", note))
        for side, p in (("A", d.parting.a), ("B", d.parting.b)):
            if p.line:
                out.append(("code", text("diff.side", side=side, line=p.line, text=(p.text or "").strip())))
    out.append(("heading", text("diff.heading.causes")))
    if d.causes:
        for c in d.causes:
            out.append(("item", c.message))
    else:
        out.append(("item", text("diff.cause.unknown")))
    if d.leaves:
        out.append(("heading", text("diff.heading.leaves")))
        for x in d.leaves:
            a = _fmt(x.grad_a) if x.grad_a is not None else text("label.none")
            b = _fmt(x.grad_b) if x.grad_b is not None else text("label.none")
            extra = []
            if x.max_abs is not None:
                extra.append(text("diff.leaf.max", value=_fmt(x.max_abs)))
            if x.factor is not None:
                extra.append(text("diff.leaf.factor", factor=_fmt(x.factor)))
            line = text("diff.leaf", name=x.name, a=a, b=b)
            out.append(("item", line + (f"  ({'; '.join(extra)})" if extra else "")))
    if d.changed_lines:
        out.append(("heading", text("diff.heading.changed")))
        for la, xa, lb, xb in d.changed_lines[:20]:
            if xa is not None:
                out.append(("code", f"- A {la}: {xa.strip()}"))
            if xb is not None:
                out.append(("code", f"+ B {lb}: {xb.strip()}"))
        if len(d.changed_lines) > 20:
            out.append(("item", text("chain.elided", count=len(d.changed_lines) - 20)))
    return out


def render_text(d: Diff, console) -> None:
    from rich.markup import escape
    from rich.text import Text

    for kind, raw in rows(d):
        body = escape(raw)
        if kind == "title":
            console.print(f"[bold]{body}[/]")
        elif kind == "heading":
            console.print()
            console.print(f"[bold]{body}[/]")
        elif kind == "code":
            console.print(f"    {body}", style="cyan", soft_wrap=True)
        else:   # wrapped lines keep the item's indent
            for line in Text(raw).wrap(console, max(20, console.width - 2)):
                line.rstrip()
                console.print(Text("  ") + line, soft_wrap=True)


def render_markdown(d: Diff) -> str:
    out = []
    for kind, body in rows(d):
        if kind == "title":
            out += [f"# {body}", ""]
        elif kind == "heading":
            out += ["", f"## {body}", ""]
        elif kind == "code":
            out.append(f"    {body}")
        else:
            out.append(f"- {body}")
    return "\n".join(out) + "\n"
