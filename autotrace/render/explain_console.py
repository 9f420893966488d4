"""Terminal view of an :class:`~autotrace.explain.Explanation` (rich; plain text with
--no-color or when piped). Words come from :mod:`autotrace.messages`."""

from __future__ import annotations

import re

from ..explain import Explanation, Run, collapse, fmt
from ..messages import rule_words, text

INDENT = "  "


def lines(ex: Explanation, all_steps: bool = False):
    """The explanation as (indent, label, body, style) rows, shared by the text views.
    Long runs of repeating steps are summarised in one row unless ``all_steps``."""
    out = []

    def add(level, label, body="", style=""):
        out.append((level, label, _join_sentences(body), style))

    if ex.stdout:
        add(0, "", text("heading.output"), "bold")
        import re
        for ln in re.sub(r"0x[0-9a-f]+", "0x…", ex.stdout).rstrip("\n").split("\n"):
            out.append((1, "", ln, "dim"))      # the script's own words, as printed
        add(0, "", "")
    if ex.notes:
        for n in ex.notes:
            add(0, "", n, "yellow")
        add(0, "", "")
    for p in ex.passes:
        total = p.number if not ex.passes else max(q.number for q in ex.passes)
        total = max(total, len(ex.passes))
        if p.implicit:
            head = text("heading.pass_implicit", number=p.number, total=total, root=p.root)
        elif p.line:
            head = text("heading.pass", number=p.number, total=total, line=p.line, statement=p.statement)
        else:
            head = text("heading.pass_noline", number=p.number, total=total, statement=p.statement or "backward()")
        add(0, "", head, "bold")
        if p.same_as is not None:
            add(1, "", text("pass.same_as", number=p.same_as), "")
            for st in p.steps:
                if st.kind == "accumulate" and (st.before is not None or st.after is not None):
                    add(2, text("label.grad", leaf=st.output), f"{fmt(st.before)} + {_term(fmt(st.increment))} → {fmt(st.after)}", "green")
            add(0, "", "")
            continue
        add(1, "", p.seed_text, "")
        if p.error and not p.steps:
            add(1, "", text("pass_error"), "red")
        for s in (p.steps if all_steps else collapse(p.steps)):
            add(0, "", "")
            if isinstance(s, Run):
                key = "steps.run" if s.where else "steps.run_noline"
                add(1, "", text(key, first=s.first, last=s.last, pattern=", ".join(s.pattern), where=s.where,
                                count=s.repeats, start=fmt(s.upstream_first), end=fmt(s.upstream_last)), "bold")
                continue
            where = text("label.at_line", line=s.line, statement=s.statement) if s.line else (s.statement or s.expr or "")
            if s.kind == "accumulate":
                add(1, text("label.step", number=s.number), f"{s.node_name}  →  {text('label.leaf', name=s.output)}", "bold cyan")
            else:
                add(1, text("label.step", number=s.number), f"{s.node_name}   {where}", "bold cyan")
            if s.fan_in:
                add(2, text("label.fan_in"), text("step.fan_in", target=s.output, count=len(s.fan_in)))
                add(3, "", " + ".join(_term(fmt(v)) for _, v in s.fan_in) + " = " + fmt(s.upstream), "")
                groups = {}
                for src, v in s.fan_in:
                    groups.setdefault(src, []).append(v)
                add(3, "", "(" + ", ".join(text("label.from", value=" + ".join(_term(fmt(v)) for v in vs), source=src)
                                           for src, vs in groups.items()) + ")", "dim")
            if s.kind == "accumulate":
                if s.before is not None or s.after is not None:
                    add(2, text("label.grad", leaf=s.output),
                        f"{fmt(s.before)} + {_term(fmt(s.increment))} → {fmt(s.after)}", "green")
                else:
                    add(2, text("label.upstream"), f"{s.upstream_symbol} = {fmt(s.upstream)}")
                if s.remark:
                    add(2, "", s.remark, "dim")
                continue
            add(2, text("label.upstream"), f"{s.upstream_symbol} = {fmt(s.upstream)}")
            if s.remark:
                add(2, "", s.remark, "red" if s.failed else "dim")
            for e in s.edges:
                if e.target_node is None:
                    add(2, e.target, e.note or "", "dim")
                    continue
                if e.rule:
                    add(2, text("label.rule"), rule_words(e.rule))
                if e.numbers:
                    add(2, text("label.numbers"), e.numbers)
                add(2, text("label.to", target=e.target), e.formula or fmt(e.grad), "green")
                if e.note:
                    add(3, "", e.note, "dim")
        if p.chains:
            add(0, "", "")
            add(1, "", text("heading.chains"), "bold")
            for c in p.chains:
                if c.remark:
                    add(2, "", c.remark)
                for f in c.paths:
                    add(2, "", f)
                if c.total:
                    add(2, "", c.total)
                if c.matches:
                    add(3, "", text("chain.matches", leaf=c.leaf) + f" ({fmt(c.value)})", "green")
                elif c.matches is False:
                    add(3, "", text("chain.mismatch", value=fmt(c.value)), "red")
        add(0, "", "")
    if ex.timeline and any(len(v) > 1 or any(e.reset for e in v) for v in ex.timeline.values()):
        add(0, "", text("heading.timeline"), "bold")
        for leaf, entries in ex.timeline.items():
            seq = fmt(entries[0].before)
            for e in entries:
                if e.reset:
                    seq += ", " + text("timeline.reset_to", value=fmt(e.before))
                seq += f", + {_term(fmt(e.increment))} → {fmt(e.after)}"
            add(1, f"{leaf}.grad", seq)
            for e in entries:
                if e.reset:
                    add(2, "", e.reset, "dim")
        add(0, "", "")
    if ex.final_grads:
        add(0, "", text("heading.result"), "bold")
        for leaf, grad in ex.final_grads.items():
            add(1, "", f"{leaf}.grad = {fmt(grad)}", "green" if grad is not None else "yellow")
        add(0, "", "")
    add(0, "", text("heading.diagnostics"), "bold")
    if not ex.diagnostics:
        add(1, "", text("diag.none"), "green")
    for d in ex.diagnostics:
        style = {"error": "bold red", "warning": "bold yellow"}.get(d.severity, "bold")
        add(1, "•", d.title, style)
        if d.why:
            add(2, text("label.why"), d.why)
        if d.fix:
            add(2, text("label.fix"), d.fix)
    return out


def render(ex: Explanation, console, all_steps: bool = False) -> None:
    from rich.table import Table
    from rich.text import Text

    width = console.width
    rows = lines(ex, all_steps)
    for level, label, body, style in rows:
        pad = INDENT * level
        if label:
            head = f"{pad}{label}{text('label.colon')}" if label != "•" else f"{pad}• "
        else:
            head = pad
        t = Text()
        t.append(head, style="bold" if label and label != "•" else "")
        t.append(body, style=style)
        _print_wrapped(console, t, len(head), width)
    v = ex.verification
    if v is not None:
        console.print()
        console.print(Text(text("heading.verify"), style="bold"))
        if v.rows:
            _print_wrapped(console, Text(INDENT + text("verify.intro", h="1e-6", number=v.pass_number)), len(INDENT), width)
            table = Table(show_header=True, box=None, padding=(0, 2), pad_edge=True)
            for col in ("col.leaf", "col.element", "col.analytic", "col.numeric", "col.error"):
                table.add_column(text(col), justify="left" if col in ("col.leaf", "col.element") else "right")
            for r in v.rows:
                table.add_row(r.leaf, _index(r.index), _g(r.analytic), _g(r.numeric), f"{r.error:.2e}")
            console.print(table)
            L = v.largest
            _print_wrapped(console, Text(INDENT + text("verify.largest", error=f"{L.error:.2e}", leaf=L.leaf,
                                                       index=_index(L.index, bracket=True))), len(INDENT), width)
            ok = Text(INDENT)
            ok.append(text("verify.ok", tol="1e-3") if v.ok else text("verify.bad", tol="1e-3"), style="green" if v.ok else "red")
            _print_wrapped(console, ok, len(INDENT), width)
        for n in v.notes:
            note = Text(INDENT)
            note.append(n, style="yellow")
            _print_wrapped(console, note, len(INDENT), width)


def _join_sentences(s: str) -> str:
    """Sentences the model joins with a space; Chinese sets none after 。"""
    return s.replace("。 ", "。") if "。 " in s else s


def _term(s: str) -> str:
    return f"({s})" if s.startswith("-") else s


def _g(x: float) -> str:
    return f"{x:.6g}"


def _index(idx, bracket=False) -> str:
    if not idx:
        return "" if bracket else "-"
    return "[" + ", ".join(str(i) for i in idx) + "]"


def _print_wrapped(console, t, hang: int, width: int) -> None:
    """Print with continuation lines indented under the body (hanging indent); ``hang``
    counts the characters of the head. Text with Chinese wraps between characters."""
    from rich.cells import cell_len
    from rich.text import Text

    t.rstrip()
    plain = t.plain
    indent = cell_len(plain[:hang])
    if cell_len(plain) <= width or width <= indent + 20:
        console.print(t, soft_wrap=True)
        return
    body = t[hang:]
    wrapped = _wrap_cjk(body, width - indent) if _CJK.search(body.plain) else body.wrap(console, width - indent)
    first = True
    for line in wrapped:
        out = Text()
        out.append_text(t[:hang] if first else Text(" " * indent))
        out.append_text(line)
        out.rstrip()
        console.print(out, soft_wrap=True)
        first = False


_CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]")
_NO_BREAK_BEFORE = set("，。：；、！？）》」』”’…,.;:)!?]")
_NO_BREAK_AFTER = set("（《「『“‘([")


def _wrap_cjk(body, width: int):
    """Lines of at most ``width`` cells, broken at spaces or next to a Chinese character
    (never before closing punctuation such as ，。） or after an opening one)."""
    from rich.cells import cell_len

    s = body.plain
    n = len(s)
    ok = [False] * (n + 1)
    for i in range(1, n):
        a, b = s[i - 1], s[i]
        if b in _NO_BREAK_BEFORE or a in _NO_BREAK_AFTER:
            continue
        if (a == " " and b != " ") or (a != " " and b != " " and (_CJK.match(a) or _CJK.match(b))):
            ok[i] = True
    lines, start, last, w, i = [], 0, None, 0, 0
    while i < n:
        if ok[i] and i > start:
            last = i
        cw = cell_len(s[i])
        if w + cw > width and last is not None:
            lines.append((start, last))
            start, last = last, None
            while start < n and s[start] == " ":
                start += 1
            i = start
            w = 0
            continue
        w += cw
        i += 1
    lines.append((start, n))
    out = []
    for a, b in lines:
        line = body[a:b]
        line.rstrip()
        out.append(line)
    return out
