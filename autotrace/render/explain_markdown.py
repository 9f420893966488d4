"""Markdown view of an explanation: headings per pass, a list per step, formulas in code
spans — for a teacher to paste into notes or a slide."""

from __future__ import annotations

import re

from ..explain import Explanation
from ..messages import text
from .explain_console import lines


def render(ex: Explanation, all_steps: bool = False) -> str:
    out = [f"# {text('title', script=ex.script)}", ""]
    fence = _fence(ex.stdout)
    in_code = False
    rows = list(lines(ex, all_steps))
    for k, (level, label, body, style) in enumerate(rows):
        if style == "fold":
            from .explain_console import fold_cells
            heads, cells = fold_cells(body)
            if out and out[-1] != "":
                out.append("")
            out.append("| " + " | ".join(heads) + " |")
            out.append("|" + "---|" * len(heads))
            out += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" if not isinstance(row, str)
                    else "| " + row + " |" + " |" * (len(heads) - 1) for row in cells]
            out.append("")
            continue
        if style == "table":
            if in_code:
                out.append(fence)
                in_code = False
            if out and out[-1] != "":
                out.append("")
            out += markdown_table(body)
            continue
        if not label and not body:
            if in_code and _printed_follows(rows, k):   # a blank line the script printed
                out.append("")
                continue
            if in_code:
                out.append(fence)
                in_code = False
            out.append("")
            continue
        if level == 0 and "bold" in style:
            if in_code:
                out.append(fence)
                in_code = False
            out.append(f"## {body}")
            out.append("")
            continue
        if style == "dim" and level == 1 and not label:     # the script's printed output
            if not in_code:
                out.append(fence)
                in_code = True
            out.append(body)
            continue
        if in_code:
            out.append(fence)
            in_code = False
        if level == 1 and not label and body == text("heading.chains"):
            out += [f"### {body}", ""]
            continue
        if level == 1 and not label and style == "default":  # a timeline event
            out.append(f"- {body}")
            continue
        if level == 1 and not label and "bold" in style:      # a summarised run of steps
            out.append(f"**{body}**")
            continue
        if level == 1 and not label and style in ("green", "yellow") and ".grad = " in body:   # a final .grad
            out.append(f"- `{body}`")
            continue
        indent = "  " * max(0, level - 1)
        if label == "•":
            out.append(f"{indent}- **{body}**")
        elif label and "bold" in style:
            sep = text("label.colon")
            out.append(f"{indent}- **{label}**{sep}{_step_head(body) if _CJK.search(body) else '`' + body + '`'}" if "Backward" in body or "AccumulateGrad" in body else f"{indent}- **{label}**{sep}{body}")
        elif label:
            sep = text("label.colon")
            out.append(f"{indent}- {label}{sep}`{body}`" if _formula(body) else f"{indent}- {label}{sep}{body}")
        elif level >= 2 and _formula(body):
            out.append(f"{indent}- `{body}`")
        else:
            out.append(f"{indent}- {body}" if level >= 2 else body)
    if in_code:
        out.append(fence)
    v = ex.verification
    if v is not None:
        out += ["", f"## {text('heading.verify')}", ""]
        if v.rows:
            out.append(text("verify.intro", h="1e-6", number=v.pass_number))
            out.append("")
            cols = [text(c) for c in ("col.leaf", "col.element", "col.analytic", "col.numeric", "col.error")]
            out.append("| " + " | ".join(cols) + " |")
            out.append("|" + "---|" * len(cols))
            for r in v.rows:
                idx = "[" + ", ".join(map(str, r.index)) + "]" if r.index else "-"
                out.append(f"| {r.leaf} | {idx} | {r.analytic:.6g} | {r.numeric:.6g} | {r.error:.2e} |")
            out.append("")
            out.append(text("verify.ok", tol="1e-3") if v.ok else text("verify.bad", tol="1e-3"))
        for n in v.notes:
            out.append(n)
    return "\n".join(out).rstrip() + "\n"


def markdown_table(table) -> list:
    """The pass table as a Markdown table (formulas and numbers in code spans)."""
    from ..explain.table import COLUMNS
    from .explain_console import _cells

    def esc(c, code):
        if not c:
            return ""
        c = c.replace("|", "\\|")
        return f"`{c}`" if code and not _CJK.search(c) else c      # words ("见第 2 步") are not code

    out = ["| " + " | ".join(text(c) for c in COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in table:
        for c in _cells(r):
            out.append("| " + " | ".join(esc(v, code=i >= 3 or (i == 2 and ":" in v)) for i, v in enumerate(c)) + " |")
    return out


def _step_head(body: str) -> str:
    """``MulBackward0   line 8: y = x * 2`` as `MulBackward0` line 8: `y = x * 2`: the node
    name and the statement are code, the words between them are not."""
    node, gap, rest = body.partition(" ")
    cut = max(rest.rfind(": "), rest.rfind("："))
    if cut < 0 or rest[:cut].strip().startswith("→"):
        return f"`{node}`{gap}{rest}"
    mark = 2 if rest[cut] == ":" else 1
    return f"`{node}`{gap}{rest[:cut + mark]}`{rest[cut + mark:]}`"


_CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]")   # a Chinese sentence is never a formula


def _fence(printed: str) -> str:
    """A code fence longer than any run of backticks in the script's printed output, so
    a printed ``` does not close it."""
    longest = max((len(m) for m in re.findall(r"`+", printed or "")), default=0)
    return "`" * max(3, longest + 1)


def _formula(s: str) -> bool:
    """A formula (shown as code), not a sentence."""
    if s.rstrip().endswith((":", ".")) or ". " in s or len(s) >= 160 or _CJK.search(s):
        return False
    return "∂" in s or "→" in s or s[:1] in "[-0123456789" or s.startswith(("path ", "None"))


def _printed_follows(rows, k) -> bool:
    """Whether more of the script's printed output comes after the blank row ``k``."""
    for level, label, body, style in rows[k + 1:]:
        if not label and not body:
            continue
        return style == "dim" and level == 1 and not label
    return False
