"""The ``--expect`` section of ``explain``: one verdict per formula, then the reasons."""

from __future__ import annotations

from ..messages import text


def render_text(outcomes, console) -> None:
    from rich.markup import escape

    console.print()
    console.print(f"[bold]{escape(text('expect.heading'))}[/]")
    for o in outcomes:
        mark = "[green]✓[/]" if o.ok else "[red]✗[/]"
        console.print(f"  {mark} {escape(o.headline)}")
        for r in o.reasons:
            console.print(f"      {escape(r)}")
    ok = sum(o.ok for o in outcomes)
    console.print(f"  {escape(text('expect.summary', ok=ok, total=len(outcomes)))}")


def render_markdown(outcomes) -> str:
    out = ["", f"## {text('expect.heading')}", ""]
    for o in outcomes:
        out.append(f"- {'✓' if o.ok else '✗'} {o.headline}")
        for r in o.reasons:
            out.append(f"  - {r}")
    out += ["", text("expect.summary", ok=sum(o.ok for o in outcomes), total=len(outcomes)), ""]
    return "\n".join(out)
