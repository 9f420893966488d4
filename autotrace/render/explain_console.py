"""Terminal view of an :class:`~autotrace.explain.Explanation` (rich; plain text with
--no-color or when piped). Words come from :mod:`autotrace.messages`."""

from __future__ import annotations

import re

from ..explain import Explanation, Run, collapse, fmt
from ..explain.chains import LARGEST, READABLE
from ..messages import rule_words, text

INDENT = "  "


def lines(ex: Explanation, all_steps: bool = False):
    """The explanation as (indent, label, body, style) rows, shared by the text views.
    Long runs of repeating steps are summarised in one row unless ``all_steps``."""
    out = []

    def add(level, label, body="", style=""):
        out.append((level, label, _join_sentences(body) if isinstance(body, str) else body, style))

    if ex.stdout:
        add(0, "", text("heading.output"), "bold")
        for ln in re.sub(r"0x[0-9a-f]+", "0x…", ex.stdout).rstrip("\n").split("\n"):
            out.append((1, "", ln, "dim"))      # the script's own words, as printed
        add(0, "", "")
    if ex.notes:
        for n in ex.notes:
            add(0, "", n, "yellow")
        add(0, "", "")
    for p in ex.passes:
        total = max([p.number, len(ex.passes), ex.total_passes] + [q.number for q in ex.passes])
        if p.implicit:
            key = {"auto": "heading.pass_auto", "stopped": "heading.pass_auto_stopped"}.get(p.auto, "heading.pass_implicit")
            head = text(key, number=p.number, total=total, root=p.root)
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
        if p.table and len(p.steps) > 1:
            add(0, "", "")
            add(1, "", text("heading.table"), "")
            out.append((1, "", p.table, "table"))
        passed = {}     # node -> (step number, array) that an earlier step passed to it, one edge only
        for s in p.steps:
            for e in s.edges:
                if e.target_node is not None and e.grad is not None:
                    passed[e.target_node] = None if e.target_node in passed else (s.number, e.grad)
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
                if len(s.fan_in) > READABLE:
                    add(3, "", text("step.fan_in_many", count=len(s.fan_in), value=fmt(s.upstream)), "")
                    for src, v in _largest(s.fan_in, LARGEST):
                        add(4, "", text("label.from", value=fmt(v), source=src), "dim")
                    continue_fan = False
                else:
                    continue_fan = True
            if s.fan_in and continue_fan:
                add(3, "", " + ".join(_term(fmt(v)) for _, v in s.fan_in) + " = " + fmt(s.upstream), "")
                groups = {}
                for src, v in s.fan_in:
                    groups.setdefault(src, []).append(v)
                add(3, "", "(" + ", ".join(text("label.from", value=" + ".join(_term(fmt(v)) for v in vs), source=src)
                                           for src, vs in groups.items()) + ")", "dim")
            if s.kind == "accumulate":
                if s.before is None and s.after is not None:
                    add(2, text("label.grad", leaf=s.output), f"None → {fmt(s.after)}", "green")
                elif s.before is not None or s.after is not None:
                    add(2, text("label.grad", leaf=s.output),
                        f"{fmt(s.before)} + {_term(fmt(s.increment))} → {fmt(s.after)}", "green")
                else:
                    add(2, text("label.upstream"), f"{s.upstream_symbol} = {fmt(s.upstream)}")
                if s.remark:
                    add(2, "", s.remark, "dim")
                continue
            add(2, text("label.upstream"), f"{s.upstream_symbol} = {_upstream(s, passed)}")
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
                if e.sum_back is not None:
                    add(2, text("label.to_broadcast", target=e.target, shape=list(e.sum_back.shape)),
                        e.formula or fmt(e.sum_back), "")
                else:
                    add(2, text("label.to", target=e.target), e.formula or fmt(e.grad), "green")
                if e.sum_back_text:
                    add(2, text("label.sum_back"), e.sum_back_text, "green")
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
        for f in ex.folds:
            if f.first == p.number:
                add(0, "", text("fold.heading", first=f.first, last=f.last), "bold")
                add(1, "", f.remark, "")
                out.append((1, "", f, "fold"))
                add(0, "", "")
    if any(e.kind != "backward" for e in ex.events):
        add(0, "", text("heading.events"), "bold")
        for e in ex.events:
            add(1, "", e.title, "default")      # "default": a list item in Markdown
            for d in e.details:
                add(2, "", d, "dim")
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
        if style == "fold":
            heads, cells = fold_cells(body)
            for ln in plain_grid(heads, cells, width - len(INDENT) * level):
                console.print(Text(INDENT * level + ln), soft_wrap=True)
            continue
        if style == "table":
            if console.is_terminal:
                console.print(rich_table(body, width - len(INDENT) * level), soft_wrap=False)
            else:
                for ln in plain_table(body, width - len(INDENT) * level):
                    console.print(Text(INDENT * level + ln), soft_wrap=True)
            continue
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


def _cells(row) -> list:
    """The rows a step takes: the first with the step, node and line, one more per
    further input edge (its local derivative and what it receives)."""
    n = max(1, len(row.local), len(row.passed))
    out = []
    for k in range(n):
        loc = row.local[k] if k < len(row.local) else ""
        passed = row.passed[k] if k < len(row.passed) else ""
        if k == 0:
            out.append([row.step, row.node, row.where, loc, row.upstream, passed])
        else:
            out.append(["", "", "", loc, "", passed])
    return out


def _longest_word(s: str) -> int:
    # split at spaces only: a no-break space holds a summary ("4×3 ‖0.29‖") together
    if _CJK.search(s):
        from rich.cells import cell_len
        return max((cell_len(w) for w in s.split(" ")), default=0)
    return max((len(w) for w in s.split(" ")), default=0)


def _len(s: str) -> int:
    """Terminal cells of ``s`` (a Chinese character takes two)."""
    if _CJK.search(s):
        from rich.cells import cell_len
        return cell_len(s)
    return len(s)


def _ljust(s: str, width: int) -> str:
    return s + " " * (width - _len(s))


def _wrap(s: str, width: int, **kw) -> list:
    """``s`` in lines of at most ``width`` cells: textwrap's for English, between
    characters for Chinese."""
    import textwrap

    if _CJK.search(s):      # at spaces, by cells; a word wider than the column between characters
        from rich.cells import cell_len
        from rich.text import Text
        out, cur = [], ""
        for w in s.split(" "):
            if cur and cell_len(cur) + 1 + cell_len(w) > width:
                out.append(cur)
                cur = ""
            cur = f"{cur} {w}" if cur else w
            if cell_len(cur) > width:
                parts = [t.plain for t in _wrap_cjk(Text(cur), width)]
                out += parts[:-1]
                cur = parts[-1]
        return out + [cur] if cur else out or [""]
    return textwrap.wrap(s, width, break_long_words=False, **kw) or [""]


def fit(table, width: int, gap: int = 2):
    """Column widths and cell rows that fit ``width``: the symbolic columns give way
    first, then the numbers, never below a column's longest word (words are never split);
    where that is still too wide, a cell with a word longer than its column is summarised
    (the line number alone, "see step N")."""
    from ..explain.table import COLUMNS

    heads = [text(c) for c in COLUMNS]
    rows = [(r, c) for r in table for c in _cells(r)]
    cap = (6, 16, 12, 16, 14, 14)        # widths the columns may be cut to, when they must
    for attempt in range(3):
        if attempt == 2:
            gap = 1
        avail = width - gap * (len(heads) - 1)
        cols = list(zip(heads, *[c for _, c in rows]))
        natural = [max(_len(c) for c in col) for col in cols]
        floor = [max(_longest_word(c) for c in col) for col in cols]
        widths = list(natural)
        tiers = ((3, 2), (4, 5), (1, 0))
        soft = (0, 14, 14, 18, 16, 16)
        for low in (soft, floor):
            for tier in tiers:
                while sum(widths) > avail:
                    free = [i for i in tier if widths[i] > max(floor[i], low[i])]
                    if not free:
                        break
                    widths[max(free, key=lambda i: widths[i])] -= 1
        if sum(widths) <= avail or attempt == 2:
            return widths, [c for _, c in rows], gap
        if attempt == 0:
            rows = [(r, _summarised(r, c, cap)) for r, c in rows]
    return widths, [c for _, c in rows], gap


def _summarised(row, cells, cap) -> list:
    out = list(cells)
    head = out[2].split(":")[0]
    if _longest_word(out[2]) > cap[2] and head.isdigit():
        out[2] = text("label.line", line=head)
    if _longest_word(out[3]) > cap[3]:
        out[3] = text("cell.see_step", number=row.step)
    for k in (4, 5):
        if _longest_word(out[k]) > cap[k]:
            out[k] = text("cell.see_step", number=row.step)
    return out


FOLD_ROWS = 16      # rows of a fold table shown; past that, the first and last halves (JSON has all)


def fold_cells(f, limit: int = FOLD_ROWS):
    """The header and rows of a fold's table: pass, loss, ‖g‖ / ‖p‖ per leaf."""
    heads = [text("fold.col.pass"), text("fold.col.loss")] + list(f.leaves)
    rows = []
    shown = f.rows if len(f.rows) <= limit else f.rows[:limit // 2] + [None] + f.rows[-(limit // 2):]
    for r in shown:
        if r is None:
            rows.append("… " + text("fold.elided", count=len(f.rows) - 2 * (limit // 2)))
            continue
        cells = [str(r.pass_number), _g4(r.loss)]
        for gv, pv in zip(r.grads, r.values):
            cells.append(f"{_g4(gv)}/{_g4(pv)}")
        rows.append(cells)
    return heads, rows


def _g4(x) -> str:
    return "-" if x is None else f"{x:.3g}"


def plain_grid(heads, rows, width: int) -> list:
    """Any table as plain text: columns as wide as their cells (wrapped at spaces when the
    table is wider than ``width``), a rule under the header."""

    n = len(heads)
    grid = [heads] + [r for r in rows if not isinstance(r, str)]
    natural = [max(_len(str(c[i])) for c in grid) for i in range(n)]
    floor = [max(_longest_word(str(c[i])) for c in grid) for i in range(n)]
    widths = list(natural)
    while sum(widths) + 2 * (n - 1) > width:
        k = max(range(n), key=lambda i: widths[i] - floor[i])
        if widths[k] <= floor[k]:
            break
        widths[k] -= 1
    out = []
    for k, cells in enumerate([heads] + rows):
        if isinstance(cells, str):      # a line across the table (rows left out)
            out.append(cells)
            continue
        wrapped = [_wrap(str(c), w) for c, w in zip(cells, widths)]
        for i in range(max(len(w) for w in wrapped)):
            out.append("  ".join(_ljust(w[i] if i < len(w) else "", x) for w, x in zip(wrapped, widths)).rstrip())
        if k == 0:
            out.append("  ".join("─" * w for w in widths))
    return out


def plain_table(table, width: int) -> list:
    """The pass table as plain text lines (piped output, tests): words wrap inside their
    column, a rule under the header."""

    from ..explain.table import COLUMNS

    widths, rows, gap = fit(table, width)
    sep = " " * gap
    out = []
    for k, cells in enumerate([[text(c) for c in COLUMNS]] + rows):
        wrapped = [_wrap(c, w, break_on_hyphens=False) for c, w in zip(cells, widths)]
        for i in range(max(len(w) for w in wrapped)):
            parts = [_ljust(w[i] if i < len(w) else "", width_) for w, width_ in zip(wrapped, widths)]
            out.append(sep.join(parts).rstrip())
        if k == 0:
            out.append(sep.join("─" * w for w in widths))
    return out


def rich_table(table, width: int):
    """The pass table for a terminal (rich), columns no narrower than their longest word."""
    from rich import box
    from rich.table import Table

    from ..explain.table import COLUMNS

    widths, rows, _ = fit(table, width, gap=3)
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, padding=(0, 1), header_style="bold")
    for c, w in zip(COLUMNS, widths):
        t.add_column(text(c), width=w, overflow="fold", no_wrap=False)
    for c in rows:
        t.add_row(*c)
    return t


def _upstream(s, passed) -> str:
    """The gradient arriving at a step; when it is more than a few numbers and exactly what
    one earlier step passed on, a reference to that step instead of the numbers again."""
    import numpy as np

    ref = passed.get(s.node)
    if ref is not None and not s.fan_in and s.upstream is not None and np.size(s.upstream) > 4:
        number, value = ref
        if np.shape(value) == np.shape(s.upstream) and np.array_equal(value, s.upstream, equal_nan=True):
            return text("ref.step", step=number)
    return fmt(s.upstream)


def _largest(pairs, k):
    """The ``k`` (label, value) pairs of largest norm, in their order."""
    import numpy as np

    norms = [float(np.nan_to_num(np.sqrt(np.sum(np.square(np.asarray(v, dtype=np.float64)))), nan=np.inf))
             if v is not None else 0.0 for _, v in pairs]
    keep = sorted(sorted(range(len(pairs)), key=lambda i: -norms[i])[:k])
    return [pairs[i] for i in keep]


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


def _join_sentences(s: str) -> str:
    """Sentences the model joins with a space; Chinese sets none after 。"""
    return s.replace("。 ", "。") if "。 " in s else s


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
