"""The DOT view of a trace: the autograd DAG as Graphviz source.

A pure function of the :class:`~autotrace.trace.Trace` and :class:`GraphOptions`; it
needs no Graphviz binary (the ``graphviz`` package only builds text). The output is
deterministic: node ids come from creation order (``n0``, ``n1``, …), attributes are
always written in the same order, nothing depends on memory addresses, dict hashing or
time, so the same script gives byte-identical DOT.

Drawing (styled like torchviz, top to bottom in forward order):

* one box per ``grad_fn`` (PyTorch's node name, light grey) with the variable bound to
  its output, the output's shape and dtype, and the script expression that made it;
* leaf tensors (light blue) by their script names, each feeding its ``AccumulateGrad``;
* outputs (named tensors no other node consumes; dark olive green) below their node;
* ``--saved``: saved tensors (orange) attached to the node that saved them;
* ``--show-none``: the ``(None, 0)`` entries of ``next_functions``;
* ``--values``: values, gradients, and the gradient each edge carried back;
* ``--pass N``: the nodes backward pass N ran, outlined;
* long chains of identical single-input nodes collapsed into one box that says how many;
  ``max_nodes`` caps the drawing (nearest the outputs first) with a note of the rest.

All user text (names, source snippets, numbers) goes into HTML-like labels with ``&``,
``<``, ``>``, quotes, backslashes and every non-ASCII character written as character
references, so labels show exactly what the script says and the DOT itself is ASCII.
"""

from __future__ import annotations

from dataclasses import dataclass

from .graph_layout import GraphError, Layout  # noqa: F401  (GraphError is part of this module's API)
from ..messages import text as _t
from .notation import WHOLE, array_text, non_finite, shape_text

# torchviz's palette
LEAF_COLOR = "lightblue"
NODE_COLOR = "lightgrey"
OUTPUT_COLOR = "darkolivegreen1"
SAVED_COLOR = "orange"
PASS_COLOR = "#c0392b"
GRAD_COLOR = "#b03a2e"
SUB_COLOR = "#555555"

BAD_COLOR = "#f5b7b1"   # an output whose value or gradient holds nan/inf: never the "good" green
CLUSTER_COLOR = "#7f8c8d"
FOLD_COLOR = "#8e44ad"
MAX_TEXT = 60           # characters of a source expression shown in a label
VALUE_ELEMENTS = WHOLE  # elements of a tensor shown whole in a label




@dataclass
class GraphOptions:
    values: bool = False           # values, grads, and the gradient along each edge
    saved: bool = False            # saved tensors
    show_none: bool = False        # (None, 0) inputs
    of: str | None = None          # draw only what this variable depends on
    pass_number: int | None = None  # 1-based: draw this backward pass's graph, its nodes outlined
    all_passes: bool = False       # draw every pass's graph even when each pass built its own
    collapse: bool | None = None   # None: on when the graph has more than COLLAPSE_ABOVE nodes
    fold: bool = True              # repeated loop bodies drawn once, as a cluster marked ×N
    depth: int | None = None       # module calls nested this deep drawn as one box each
    max_nodes: int = 500
    legend: bool = True
    title: bool = True


# -- escaping -----------------------------------------------------------------------------

_HTML_SPECIAL = {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;",
                 "\\": "&#92;"}


def html_text(text: str) -> str:
    """``text`` as the content of an HTML-like label: markup characters, backslashes and
    every non-ASCII or control character as a character reference; newlines as ``<BR/>``."""
    out = []
    prev = ""
    for ch in str(text):
        if ch == "\\" and prev == "\\":
            # Graphviz turns a decoded "\\\\" into one backslash even in HTML labels; a
            # backslash in a span of its own never pairs with its neighbour
            out.append("<FONT>&#92;</FONT>")
        elif ch in _HTML_SPECIAL:
            out.append(_HTML_SPECIAL[ch])
        elif ch == "\n":
            out.append('<BR ALIGN="LEFT"/>')
        elif _XML_FORBIDDEN(ch):
            out.append(ascii(ch)[1:-1].replace("\\", "&#92;"))   # shown as \x1b: XML has no &#27;
        elif ord(ch) > 126 or ord(ch) < 32:
            out.append(f"&#{ord(ch)};")
        else:
            out.append(ch)
        prev = ch
    return "".join(out)


def _XML_FORBIDDEN(ch: str) -> bool:
    """Characters XML 1.0 cannot carry even as a reference (C0 controls but tab, lone
    surrogates, U+FFFE/U+FFFF): Graphviz's SVG would be invalid."""
    o = ord(ch)
    return (o < 32 and ch != "\t") or 0xD800 <= o <= 0xDFFF or o in (0xFFFE, 0xFFFF)


def attr_text(text: str) -> str:
    """``text`` as a plain (escString) attribute value such as a tooltip. Graphviz
    decodes character references in tooltips, then unescapes backslashes twice
    (``\\\\`` -> ``\\``, and ``\\N`` would become the node's name), so markup characters,
    quotes and non-ASCII become character references, a backslash four backslashes and
    a newline DOT's ``\\n``. The result holds no ``"`` and never ends in a backslash."""
    out = []
    for ch in str(text):
        if ch == "\\":
            out.append("\\\\\\\\")
        elif ch in "&<>\"'":
            out.append(f"&#{ord(ch)};")
        elif ch == "\n":
            out.append("\\n")
        elif _XML_FORBIDDEN(ch):
            out.append(ascii(ch)[1:-1].replace("\\", "\\\\\\\\"))
        elif ord(ch) > 126 or ord(ch) < 32:
            out.append(f"&#{ord(ch)};")
        else:
            out.append(ch)
    if out and out[-1].endswith("\\"):
        out.append(" ")  # DOT's lexer would read a final backslash pair as an escaped quote
    return "".join(out)


def _short(text: str, limit: int = MAX_TEXT) -> str:
    text = " ".join(str(text).split()) if "\n" in str(text) else str(text)
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def format_array(a) -> str:
    """PyTorch's printed numbers for small arrays (``15.``, ``[3., 3.]``); shape and a
    summary for large ones (see :mod:`autotrace.render.notation`)."""
    return array_text(a, whole=VALUE_ELEMENTS)


def _shape(shape) -> str:
    return shape_text(shape)


# -- drawing -------------------------------------------------------------------------------

def _label(title: str, lines=(), bold_title=True, small=()) -> str:
    """An HTML-like label: a title, then plain lines, then small grey lines (all escaped)."""
    parts = [f"<B>{html_text(title)}</B>" if bold_title else html_text(title)]
    for line in lines:
        if line:
            parts.append(html_text(line))
    for line in small:
        if line:
            parts.append(f'<FONT POINT-SIZE="9" COLOR="{SUB_COLOR}">{html_text(line)}</FONT>')
    return "<" + "<BR/>".join(parts) + ">"


FONT = "Helvetica"
# Helvetica first (the pictures look the same as without CJK), then faces that have CJK
# glyphs on Linux (Noto / Source Han, WenQuanYi), macOS and Windows; SVG viewers and
# Graphviz's own renderer take the first face that has each character.
CJK_FONTS = ("Helvetica,Noto Sans CJK SC,Source Han Sans SC,WenQuanYi Zen Hei,"
             "PingFang SC,Hiragino Sans GB,Microsoft YaHei,sans-serif")


def has_cjk(text: str) -> bool:
    """True when ``text`` holds a CJK ideograph, kana, hangul or CJK punctuation."""
    for ch in text:
        o = ord(ch)
        if (0x2E80 <= o <= 0x9FFF or 0xAC00 <= o <= 0xD7AF or 0xF900 <= o <= 0xFAFF
                or 0xFF00 <= o <= 0xFFEF or 0x20000 <= o <= 0x2FA1F):
            return True
    return False


def label_texts(trace):
    """The user text that can appear in the picture's labels."""
    yield trace.script
    for n in trace.nodes:
        if n.text:
            yield n.text
        if n.var_name:
            yield n.var_name
    yield from trace.variables
    if trace.error is not None:
        yield str(trace.error.get("message", ""))


def font_list(trace) -> str:
    """The fontname for the picture: :data:`CJK_FONTS` when a label holds CJK text."""
    return CJK_FONTS if any(has_cjk(t) for t in label_texts(trace)) else FONT


def _where(n) -> str:
    if n.text is None and n.line is None:
        return ""
    text = _short(n.text) if n.text else ""
    line = _t("label.line", line=n.line) if n.line else ""
    return " \u00b7 ".join(p for p in (text, line) if p)


def _tooltip(*lines) -> str:
    return attr_text("\n".join(line for line in lines if line))


def build(trace, opts: GraphOptions | None = None):
    """The DAG of ``trace`` as a ``graphviz.Digraph``."""
    import graphviz

    opts = opts or GraphOptions()
    if opts.max_nodes < 1:
        raise GraphError("--max-nodes must be at least 1")
    if opts.depth is not None and opts.depth < 1:
        raise GraphError("--depth counts from 1 (the modules the script calls)")
    lay = Layout(trace, of=opts.of, pass_number=opts.pass_number, all_passes=opts.all_passes,
                 collapse=opts.collapse, max_nodes=opts.max_nodes, depth=opts.depth, fold=opts.fold)
    nodes = trace.nodes

    # which backward pass the numbers and marks come from
    chosen = None
    if opts.pass_number is not None:
        chosen = trace.passes[opts.pass_number - 1]
    elif lay.chosen_pass is not None:
        chosen = lay.chosen_pass
    elif opts.values and trace.passes:
        chosen = trace.passes[-1]
    steps = {s.node: s for s in chosen.steps if s.node is not None} if chosen is not None else {}
    marked = set(steps) if opts.pass_number is not None else set()
    leaf_vars = {}
    for v in trace.variables.values():
        if v.kind == "tensor" and v.is_leaf and v.node is not None:
            leaf_vars.setdefault(v.node, v)

    fonts = font_list(trace)
    g = graphviz.Digraph("autotrace")
    g.attr("graph", rankdir="TB", nodesep="0.3", ranksep="0.35", fontname=fonts, fontsize="12",
           bgcolor="white", pad="0.2")
    g.attr("node", shape="box", style="filled,rounded", fillcolor=NODE_COLOR, color="#666666",
           fontname=fonts, fontsize="11", margin="0.12,0.05", height="0.3")
    g.attr("edge", color="#555555", arrowsize="0.7", fontname=fonts, fontsize="9")

    title = []
    if opts.title:
        title.append(f"{trace.script}" + (_t("graph.title_of", of=opts.of) if opts.of else ""))
    refused = trace.error is not None and trace.error.get("phase") == "parse"
    if trace.error is not None:
        e = trace.error
        if e.get("line"):
            title.append(_t("graph.refused_at" if refused else "graph.stopped_at", line=e["line"], type=e["type"],
                            message=_short(e["message"], 90)))
        else:
            title.append(_t("graph.refused" if refused else "graph.stopped", type=e["type"],
                            message=_short(e["message"], 90)))
    title.extend(lay.notes)
    if lay.omitted_units:
        title.append(_t("graph.omitted", count=lay.omitted_nodes, total=len(lay.included),
                        max_nodes=opts.max_nodes))
    if not lay.included and not refused:
        title.append(_t("graph.empty"))
    if title:
        g.attr("graph", label=_label(title[0], small=title[1:], bold_title=bool(opts.title)),
               labelloc="t", labeljust="l")

    def value_lines(c):
        if not opts.values:
            return []
        n = nodes[c]
        out = []
        if n.value is not None:
            out.append(_t("graph.value", value=format_array(n.value)))
        s = steps.get(c)
        if s is not None and s.grad_in and s.grad_in[0] is not None:
            out.append(_t("graph.grad", value=format_array(s.grad_in[0])))
        return out

    def mark(attrs, c_list):
        if any(c in marked for c in c_list):
            attrs["color"] = PASS_COLOR
            attrs["penwidth"] = "2.5"
        return attrs

    flags = {"saved": False, "none": False, "bad": False, "box": False}
    tail_edges = []          # (src, dst, attrs) drawn after the clusters

    def draw_unit(t, unit):
        run = lay.runs.get(unit)
        if run is not None:
            first, last = nodes[run[0]], nodes[run[-1]]
            period = next(p for p in range(1, 5)
                          if [nodes[c].name for c in run[p:2 * p]] == [nodes[c].name for c in run[:p]])
            pattern = " \u2192 ".join(nodes[c].name for c in run[:period])
            count = len(run) // period
            lines = [f"\u00d7 {count:,}" + (_t("graph.run_nodes", count=len(run)) if period > 1 else "")]
            if last.shape is not None:
                lines.append(f"{_shape(last.shape)} {last.dtype}")
            small = [_where(first), f"n{run[0]} \u2026 n{run[-1]}"]
            if opts.values and last.value is not None:
                lines.append(_t("graph.last_value", value=format_array(last.value)))
            attrs = {"label": _label(pattern, lines, small=small),
                     "tooltip": _tooltip(_t("graph.tip.run", count=count, pattern=pattern, first=run[0], last=run[-1]),
                                         first.statement and _t("graph.line_statement", line=first.line,
                                                                statement=first.statement)),
                     "style": "filled,rounded,dashed", "peripheries": "2"}
            t.node(unit, **mark(attrs, run))
            return
        call = lay.box_call.get(unit)
        if call is not None:
            flags["box"] = True
            members = lay.members[unit]
            inner = [c for c in members if not nodes[c].is_leaf]
            last = nodes[max(inner)] if inner else nodes[max(members)]
            name, cls = lay.module_label(call)
            params = [(lay.names_of.get(c) or [nodes[c].var_name])[0] for c in members if nodes[c].is_leaf]
            lines = [cls] if name != cls else []
            if last.shape is not None and not last.is_leaf:
                lines.append(f"\u2192 {_shape(last.shape)} {last.dtype}")
            if opts.values and not last.is_leaf and last.value is not None:
                lines.append(_t("graph.value", value=format_array(last.value)))
            small = [_t("graph.box.nodes", count=len(inner))
                     + (_t("graph.box.params", count=len(params)) if params else ""),
                     _t("label.line", line=call.line) if call.line else ""]
            attrs = {"label": _label(name, lines, small=small),
                     "tooltip": _tooltip(_t("graph.tip.box", name=name, cls=cls, depth=opts.depth),
                                         ", ".join(dict.fromkeys(nodes[c].name for c in inner)),
                                         params and _t("graph.tip.params", names=", ".join(p for p in params if p))),
                     "peripheries": "2"}
            t.node(unit, **mark(attrs, members))
            return
        c = int(unit[1:])
        n = nodes[c]
        if n.is_leaf:
            # the leaf tensor and its AccumulateGrad
            v = leaf_vars.get(c)
            names = lay.names_of.get(c) or ([n.var_name] if n.var_name else [])
            lines = [f"{_shape(n.shape)} {n.dtype}"]
            if opts.values:
                if v is not None and v.value is not None:
                    lines.append(_t("graph.value", value=format_array(v.value)))
                # .grad as the chosen pass left it (else as the script left it)
                grad = steps[c].after if c in steps and steps[c].after is not None else None
                if grad is None and v is not None:
                    grad = v.grad
                if grad is not None:
                    lines.append(_t("graph.grad", value=format_array(grad)))
            t.node(f"{unit}_leaf",
                   label=_label(", ".join(names) if names else _t("graph.unnamed_leaf"), lines,
                                small=[_where(n)] if not names else ()),
                   tooltip=_tooltip(_t("graph.tip.leaf", names=", ".join(names)).rstrip(),
                                    "requires_grad=True",
                                    n.line and _t("graph.tip.first_used", line=n.line, statement=n.statement or "")),
                   fillcolor=LEAF_COLOR)
            acc = []
            if opts.values and c in steps and steps[c].grad_in and steps[c].grad_in[0] is not None:
                acc.append(f"+= {format_array(steps[c].grad_in[0])}")
            t.node(unit, **mark({"label": _label(n.name, small=acc),
                                 "tooltip": _tooltip(_t("graph.tip.accumulate", node=c, name=names[0]) if names
                                                     else _t("graph.tip.accumulate_unnamed", node=c))}, [c]))
            tail_edges.append((f"{unit}_leaf", unit, {}))
            return
        names = lay.names_of.get(c) or ([n.var_name] if n.var_name else [])
        lines = [(", ".join(names) + " \u00b7 " if names else "") + f"{_shape(n.shape)} {n.dtype}"]
        lines += value_lines(c)
        attrs = {"label": _label(n.name, lines, small=[_where(n)]),
                 "tooltip": _tooltip(f"{n.name} (n{c})",
                                     n.line and _t("graph.line_statement", line=n.line, statement=n.statement or n.text or ""),
                                     n.text and _t("graph.tip.expression", expr=n.text))}
        t.node(unit, **mark(attrs, lay.members.get(unit, [c])))
        if opts.saved:
            for s in n.saved:
                flags["saved"] = True
                t.node(f"{unit}_saved_{s}", label=_label(f"_saved_{s}", bold_title=False),
                       tooltip=_tooltip(_t("graph.tip.saved", node=n.name, name=s)),
                       fillcolor=SAVED_COLOR, shape="box", style="filled", fontsize="9")
                tail_edges.append((f"{unit}_saved_{s}", unit, {"dir": "none", "style": "dashed",
                                                               "color": SAVED_COLOR}))
        out_names = lay.outputs.get(c)
        if out_names:
            lines = [f"{_shape(n.shape)} {n.dtype}"]
            v = trace.variables.get(out_names[0])
            bad = False
            if v is not None:
                bad = non_finite(v.value) or non_finite(v.grad) or non_finite(v.summary)
                if opts.values and v.value is not None:
                    lines.append(_t("graph.value", value=format_array(v.value)))
            flags["bad"] |= bad
            t.node(f"{unit}_out", label=_label(", ".join(out_names), lines),
                   tooltip=_tooltip(_t("graph.tip.output_bad" if bad else "graph.tip.output",
                                       names=", ".join(out_names), node=n.name)),
                   fillcolor=BAD_COLOR if bad else OUTPUT_COLOR)
            tail_edges.append((unit, f"{unit}_out", {}))

    def emit_group(parent, gid):
        grp = lay.groups[gid]
        with parent.subgraph(name=gid) as s:
            if grp.kind == "module":
                name, cls = lay.module_label(grp.call)
                label = f"<<B>{html_text(name)}</B>" + (f" &#183; {html_text(cls)}" if name != cls else "") + ">"
                s.attr(label=label, style="rounded", color=CLUSTER_COLOR, fontsize="10", labeljust="l",
                       tooltip=attr_text(_t("graph.tip.module_at", name=name, cls=cls, line=grp.call.line) if grp.call.line
                                         else _t("graph.tip.module", name=name, cls=cls)))
            else:
                f = grp.fold
                where = f.lines_text()
                s.attr(label=f"<<B>&#215;{f.count}</B> {html_text(_t('graph.fold.body'))}"
                       + (f" &#183; {html_text(where)}" if where else "")
                       + f'<BR ALIGN="LEFT"/><FONT POINT-SIZE="9" COLOR="{SUB_COLOR}">'
                       + html_text(_t("graph.fold.drawn_once", count=f.count)) + "</FONT>>",
                       style="dashed,rounded", color=FOLD_COLOR, fontsize="10", labeljust="l",
                       tooltip=attr_text(_t("graph.tip.fold", count=f.count, lo=f.lo, hi=f.hi)))
            for u in grp.units:
                draw_unit(s, u)
            for ch in sorted(grp.children, key=lambda k: lay.groups[k].lo):
                emit_group(s, ch)

    for u in lay.units:
        if lay.group_of.get(u) is None:
            draw_unit(g, u)
    for grp in sorted(lay.top_groups(), key=lambda x: x.lo):
        emit_group(g, grp.id)
    for src, dst, attrs in tail_edges:
        g.edge(src, dst, **attrs)

    # edges: input -> consumer, in creation order; edges that fold into one are drawn once
    edges, nones, pending_omitted = lay.edges()
    if opts.show_none:
        for c, k in nones:
            flags["none"] = True
            g.node(f"n{c}_none{k}", label=_label("None", bold_title=False),
                   tooltip=_tooltip(_t("graph.tip.none", k=k, node=nodes[c].name)),
                   shape="plaintext", style="", fontcolor="#888888", fontsize="9")
            g.edge(f"n{c}_none{k}", f"n{c}", style="dotted", color="#999999", arrowhead="none")
    for e in edges:
        attrs = {}
        if e.carry:
            attrs.update(style="dashed", color=FOLD_COLOR, constraint="false",
                         tooltip=_tooltip(_t("graph.tip.carry")))
        grad = edge_gradient(steps, e)
        if opts.values and grad is not None:
            attrs["label"] = f'<<FONT COLOR="{GRAD_COLOR}">{html_text(format_array(grad))}</FONT>>'
            attrs["tooltip"] = _tooltip(_t("graph.tip.edge", node=nodes[e.c].name, c=e.c, k=e.k,
                                           input=nodes[e.i].name, i=e.i))
        elif e.gather and e.count > 1:
            attrs["label"] = f"\u00d7{e.count}"
        if e.nr:
            attrs["taillabel"] = str(e.nr)
        g.edge(e.src, e.dst, **attrs)
    if pending_omitted:
        g.node("omitted", label=_label(_t("graph.more_nodes", count=lay.omitted_nodes), bold_title=False,
                                       small=[_t("graph.not_shown", max_nodes=opts.max_nodes)]),
               tooltip=_tooltip(_t("graph.tip.raise_max_nodes")),
               shape="box", style="dashed,rounded", fillcolor="white", color="#999999")
        for dst in dict.fromkeys(pending_omitted):
            g.edge("omitted", dst, style="dashed", color="#999999")

    if opts.legend and lay.included:
        _legend(g, opts, chosen, flags, bool(lay.runs), bool(lay.folds),
                any(gr.kind == "module" for gr in lay.groups.values()))
    return g


def edge_gradient(steps, e):
    """The gradient the chosen pass sent along edge ``e`` (None when not drawn itself)."""
    s = steps.get(e.c)
    if not e.own or s is None or e.k >= len(s.grads_out):
        return None
    return s.grads_out[e.k]


def _legend(g, opts, chosen, flags, collapsed_any, folded_any, clusters_any):
    rows = [(LEAF_COLOR, _t("graph.legend.leaf")), (NODE_COLOR, _t("graph.legend.node")),
            (OUTPUT_COLOR, _t("graph.legend.output"))]
    if flags["bad"]:
        rows.append((BAD_COLOR, _t("graph.legend.bad")))
    if flags["saved"]:
        rows.append((SAVED_COLOR, _t("graph.legend.saved")))
    if collapsed_any:
        rows.append((None, _t("graph.legend.collapsed")))
    if flags["box"]:
        rows.append((None, _t("graph.legend.box", depth=opts.depth)))
    if clusters_any:
        rows.append((None, _t("graph.legend.module")))
    if folded_any:
        rows.append((None, _t("graph.legend.fold")))
    if flags["none"]:
        rows.append((None, _t("graph.legend.none")))
    if opts.pass_number is not None:
        rows.append(("pass", _t("graph.legend.pass", number=opts.pass_number)))
    if opts.values and chosen is not None:
        rows.append((None, _t("graph.legend.edge", number=chosen.index + 1)))
    cells = []
    for color, text in rows:
        if color == "pass":
            swatch = f'<TD BGCOLOR="{NODE_COLOR}" COLOR="{PASS_COLOR}" WIDTH="14" HEIGHT="10" BORDER="2"></TD>'
        elif color:
            swatch = f'<TD BGCOLOR="{color}" WIDTH="14" HEIGHT="10" BORDER="1"></TD>'
        else:
            swatch = '<TD WIDTH="14" HEIGHT="10"></TD>'
        cells.append(f'<TR>{swatch}<TD ALIGN="LEFT">{html_text(text)}</TD></TR>')
    label = ('<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="2" CELLPADDING="1">'
             '<TR><TD COLSPAN="2" ALIGN="LEFT"><B>' + html_text(_t("graph.legend")) + '</B></TD></TR>' + "".join(cells) + "</TABLE>>")
    with g.subgraph(name="legend_rank") as s:
        s.attr(rank="sink")
        s.node("legend", label=label, shape="plaintext", style="", fontsize="9", tooltip=attr_text(_t("graph.legend")))


def render(trace, opts: GraphOptions | None = None) -> str:
    """DOT source of the DAG of ``trace`` (deterministic; ASCII)."""
    return build(trace, opts).source
