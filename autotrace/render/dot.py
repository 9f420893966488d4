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

import numpy as np

from .. import messages

# torchviz's palette
LEAF_COLOR = "lightblue"
NODE_COLOR = "lightgrey"
OUTPUT_COLOR = "darkolivegreen1"
SAVED_COLOR = "orange"
PASS_COLOR = "#c0392b"
GRAD_COLOR = "#b03a2e"
SUB_COLOR = "#555555"

MAX_PERIOD = 4          # collapse repeating patterns of up to this many node names
MIN_COLLAPSE = 6        # ... covering at least this many nodes
MIN_REPEATS = 3
COLLAPSE_ABOVE = 200    # --collapse is on by default for graphs bigger than this
MAX_TEXT = 60           # characters of a source expression shown in a label
VALUE_ELEMENTS = 8      # elements of a tensor shown whole in a label


class GraphError(ValueError):
    """The options do not fit the trace (``--of`` names no tensor, ``--pass`` out of range)."""


@dataclass
class GraphOptions:
    values: bool = False           # values, grads, and the gradient along each edge
    saved: bool = False            # saved tensors
    show_none: bool = False        # (None, 0) inputs
    of: str | None = None          # draw only what this variable depends on
    pass_number: int | None = None  # 1-based: mark the nodes this backward pass visited
    collapse: bool | None = None   # None: on when the graph has more than COLLAPSE_ABOVE nodes
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
        elif ord(ch) > 126 or ord(ch) < 32:
            out.append(f"&#{ord(ch)};")
        else:
            out.append(ch)
        prev = ch
    return "".join(out)


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
    summary for large ones."""
    if a is None:
        return "None"
    a = np.asarray(a)
    if a.size <= VALUE_ELEMENTS:
        from ..printing import one_line
        kind = a.dtype.kind
        return one_line(a, "bool" if kind == "b" else ("int64" if kind in "iu" else "float32"))
    flat = a.reshape(-1).astype(np.float64)
    with np.errstate(all="ignore"):
        return (f"{_shape(a.shape)} min {np.nanmin(flat):.4g} max {np.nanmax(flat):.4g} "
                f"norm {np.sqrt(np.nansum(flat * flat)):.4g}")


def _shape(shape) -> str:
    if shape is None:
        return "?"
    shape = tuple(int(s) for s in shape)
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


# -- selecting and collapsing -------------------------------------------------------------

class _Layout:
    """Which recorded nodes are drawn, as which box (``unit``), and what was left out."""

    def __init__(self, trace, opts: GraphOptions):
        self.trace = trace
        nodes = trace.nodes
        self.names_of: dict[int, list[str]] = {}
        for v in trace.variables.values():
            if v.kind == "tensor" and v.node is not None and 0 <= v.node < len(nodes):
                self.names_of.setdefault(v.node, []).append(v.name)

        # what to draw: everything recorded, or what --of depends on
        if opts.of is not None:
            v = trace.variables.get(opts.of)
            if v is None or v.kind != "tensor":
                raise GraphError(f"--of {opts.of}: the script binds no tensor named {opts.of!r}")
            if v.node is None:
                raise GraphError(f"--of {opts.of}: {opts.of} is not part of an autograd graph "
                                 f"(it does not require grad)")
            included = self._reachable([v.node])
        else:
            included = set(range(len(nodes)))
        self.included = included

        self.consumers: dict[int, list[int]] = {}
        for c in sorted(included):
            for i, _ in nodes[c].inputs:
                if i is not None and i in included:
                    self.consumers.setdefault(i, []).append(c)

        # outputs: named non-leaf tensors whose node nothing consumes (and the --of root)
        outputs: dict[int, list[str]] = {}
        for v in trace.variables.values():
            if (v.kind == "tensor" and v.node is not None and v.node in included
                    and not nodes[v.node].is_leaf
                    and (v.node not in self.consumers or v.name == opts.of)):
                outputs.setdefault(v.node, []).append(v.name)
        self.outputs = outputs

        # units: each drawn box is one node or one collapsed run of nodes
        self.unit_of: dict[int, str] = {c: f"n{c}" for c in included}
        self.runs: dict[str, list[int]] = {}
        self.collapse = opts.collapse if opts.collapse is not None else len(included) > COLLAPSE_ABOVE
        if self.collapse:
            self._collapse()

        # --max-nodes: keep the units nearest the outputs
        units = sorted(set(self.unit_of.values()), key=self._unit_key)
        self.omitted_nodes = 0
        self.kept = set(units)
        if len(units) > opts.max_nodes:
            self.kept = self._nearest(opts.max_nodes)
            self.omitted_nodes = sum(1 for c in included if self.unit_of[c] not in self.kept)
        self.units = [u for u in units if u in self.kept]
        self.omitted_units = len(units) - len(self.units)

    def _unit_key(self, unit: str):
        run = self.runs.get(unit)
        return (run[0] if run else int(unit[1:]), unit)

    def _reachable(self, roots):
        seen = set()
        stack = list(roots)
        nodes = self.trace.nodes
        while stack:
            c = stack.pop()
            if c in seen:
                continue
            seen.add(c)
            for i, _ in nodes[c].inputs:
                if i is not None and i not in seen:
                    stack.append(i)
        return seen

    def _link(self, c):
        """The one input ``c`` continues a chain from, or None."""
        nodes = self.trace.nodes
        n = nodes[c]
        if n.is_leaf or c in self.outputs:
            return None
        ins = [i for i, _ in n.inputs if i is not None and i in self.included]
        if len(ins) != 1:
            return None
        p = ins[0]
        if nodes[p].is_leaf or p in self.outputs or self.consumers.get(p) != [c]:
            return None
        return p

    def _collapse(self):
        nodes = self.trace.nodes
        pred = {}
        for c in sorted(self.included):
            p = self._link(c)
            if p is not None:
                pred[c] = p
        succ = {p: c for c, p in pred.items()}
        for head in sorted(succ):
            if head in pred:
                continue
            chain = [head]
            while chain[-1] in succ:
                chain.append(succ[chain[-1]])
            names = [nodes[c].name for c in chain]
            i = 0
            while i < len(chain):
                best = (0, 0)
                for period in range(1, MAX_PERIOD + 1):
                    pattern = names[i:i + period]
                    if len(pattern) < period:
                        break
                    r = 1
                    while names[i + r * period:i + (r + 1) * period] == pattern:
                        r += 1
                    if r >= MIN_REPEATS and r * period >= MIN_COLLAPSE and r * period > best[0] * best[1]:
                        best = (period, r)
                period, r = best
                if period:
                    members = chain[i:i + period * r]
                    unit = f"n{members[0]}_n{members[-1]}"
                    self.runs[unit] = members
                    for c in members:
                        self.unit_of[c] = unit
                    i += period * r
                else:
                    i += 1

    def _nearest(self, limit: int):
        """Breadth-first from the sinks (newest first) along inputs: the first ``limit`` units."""
        nodes = self.trace.nodes
        sinks = sorted((c for c in self.included if c not in self.consumers or c in self.outputs),
                       reverse=True)
        kept: list[str] = []
        seen_units = set()
        seen = set()
        queue = list(sinks)
        head = 0
        while head < len(queue) and len(kept) < limit:
            c = queue[head]
            head += 1
            if c in seen:
                continue
            seen.add(c)
            u = self.unit_of[c]
            if u not in seen_units:
                seen_units.add(u)
                kept.append(u)
                members = self.runs.get(u, [c])
            else:
                members = [c]
            for m in members:
                for i, _ in nodes[m].inputs:
                    if i is not None and i in self.included and i not in seen:
                        queue.append(i)
        return set(kept)


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


def _where(n) -> str:
    if n.text is None and n.line is None:
        return ""
    text = _short(n.text) if n.text else ""
    line = messages.text("label.line", line=n.line) if n.line else ""
    return " \u00b7 ".join(p for p in (text, line) if p)


def _tooltip(*lines) -> str:
    return attr_text("\n".join(line for line in lines if line))


def build(trace, opts: GraphOptions | None = None):
    """The DAG of ``trace`` as a ``graphviz.Digraph``."""
    import graphviz

    opts = opts or GraphOptions()
    if opts.max_nodes < 1:
        raise GraphError("--max-nodes must be at least 1")
    lay = _Layout(trace, opts)
    nodes = trace.nodes

    # which backward pass the numbers and marks come from
    chosen = None
    if opts.pass_number is not None:
        if not 1 <= opts.pass_number <= len(trace.passes):
            raise GraphError(messages.text("graph.no_pass", number=opts.pass_number, count=len(trace.passes))
                             if trace.passes else messages.text("graph.no_pass_at_all", number=opts.pass_number))
        chosen = trace.passes[opts.pass_number - 1]
    elif opts.values and trace.passes:
        chosen = trace.passes[-1]
    steps = {s.node: s for s in chosen.steps if s.node is not None} if chosen is not None else {}
    marked = set(steps) if opts.pass_number is not None else set()
    leaf_vars = {}
    for v in trace.variables.values():
        if v.kind == "tensor" and v.is_leaf and v.node is not None:
            leaf_vars.setdefault(v.node, v)

    g = graphviz.Digraph("autotrace")
    g.attr("graph", rankdir="TB", nodesep="0.3", ranksep="0.35", fontname="Helvetica", fontsize="12",
           bgcolor="white", pad="0.2")
    g.attr("node", shape="box", style="filled,rounded", fillcolor=NODE_COLOR, color="#666666",
           fontname="Helvetica", fontsize="11", margin="0.12,0.05", height="0.3")
    g.attr("edge", color="#555555", arrowsize="0.7", fontname="Helvetica", fontsize="9")

    title = []
    if opts.title:
        title.append(f"{trace.script}" + (messages.text("graph.title_of", of=opts.of) if opts.of else ""))
    if trace.error is not None and trace.error.get("phase") != "parse":
        e = trace.error
        key = "graph.stopped_at" if e.get("line") else "graph.stopped"
        title.append(messages.text(key, line=e.get("line"), type=e["type"], message=_short(e["message"], 90)))
    if lay.omitted_units:
        title.append(messages.text("graph.omitted", count=lay.omitted_nodes, total=len(lay.included),
                                   max_nodes=opts.max_nodes))
    if not lay.included:
        title.append(messages.text("graph.empty"))
    if title:
        g.attr("graph", label=_label(title[0], small=title[1:], bold_title=bool(opts.title)),
               labelloc="t", labeljust="l")

    def value_lines(c):
        if not opts.values:
            return []
        n = nodes[c]
        out = []
        if n.value is not None:
            out.append(messages.text("graph.value", value=format_array(n.value)))
        s = steps.get(c)
        if s is not None and s.grad_in and s.grad_in[0] is not None:
            out.append(f"grad {format_array(s.grad_in[0])}")
        return out

    def mark(attrs, c_list):
        if any(c in marked for c in c_list):
            attrs["color"] = PASS_COLOR
            attrs["penwidth"] = "2.5"
        return attrs

    saved_any = none_any = False
    for unit in lay.units:
        run = lay.runs.get(unit)
        if run is not None:
            first, last = nodes[run[0]], nodes[run[-1]]
            period = next(p for p in range(1, MAX_PERIOD + 1)
                          if [nodes[c].name for c in run[p:2 * p]] == [nodes[c].name for c in run[:p]])
            pattern = " \u2192 ".join(nodes[c].name for c in run[:period])
            count = len(run) // period
            lines = [f"\u00d7 {count:,}" + (f" ({len(run):,} nodes)" if period > 1 else "")]
            if last.shape is not None:
                lines.append(f"{_shape(last.shape)} {last.dtype}")
            where = _where(first)
            small = [where, f"n{run[0]} \u2026 n{run[-1]}"]
            if opts.values and last.value is not None:
                lines.append(messages.text("graph.last_value", value=format_array(last.value)))
            attrs = {"label": _label(pattern, lines, small=small),
                     "tooltip": _tooltip(f"{count} \u00d7 {pattern} (n{run[0]} \u2026 n{run[-1]}), collapsed",
                                         first.statement and f"line {first.line}: {first.statement}"),
                     "style": "filled,rounded,dashed", "peripheries": "2"}
            g.node(unit, **mark(attrs, run))
            continue
        c = int(unit[1:])
        n = nodes[c]
        if n.is_leaf:
            # the leaf tensor and its AccumulateGrad
            v = leaf_vars.get(c)
            names = lay.names_of.get(c) or ([n.var_name] if n.var_name else [])
            lines = [f"{_shape(n.shape)} {n.dtype}"]
            if opts.values:
                if v is not None and v.value is not None:
                    lines.append(messages.text("graph.value", value=format_array(v.value)))
                # .grad as the chosen pass left it (else as the script left it)
                grad = steps[c].after if c in steps and steps[c].after is not None else None
                if grad is None and v is not None:
                    grad = v.grad
                if grad is not None:
                    lines.append(f"grad {format_array(grad)}")
            g.node(f"{unit}_leaf",
                   label=_label(", ".join(names) if names else messages.text("graph.unnamed_leaf"), lines,
                                small=[_where(n)] if not names else ()),
                   tooltip=_tooltip(f"leaf tensor {', '.join(names)}".rstrip(),
                                    "requires_grad=True",
                                    n.line and f"first used on line {n.line}: {n.statement or ''}"),
                   fillcolor=LEAF_COLOR)
            acc = []
            if opts.values and c in steps and steps[c].grad_in and steps[c].grad_in[0] is not None:
                acc.append(f"+= {format_array(steps[c].grad_in[0])}")
            g.node(unit, **mark({"label": _label(n.name, small=acc),
                                 "tooltip": _tooltip(f"AccumulateGrad (n{c}): adds incoming gradients "
                                                     f"into {names[0] if names else 'the leaf'}.grad")}, [c]))
            g.edge(f"{unit}_leaf", unit)
            continue
        names = lay.names_of.get(c) or ([n.var_name] if n.var_name else [])
        lines = [(", ".join(names) + " \u00b7 " if names else "") + f"{_shape(n.shape)} {n.dtype}"]
        lines += value_lines(c)
        attrs = {"label": _label(n.name, lines, small=[_where(n)]),
                 "tooltip": _tooltip(f"{n.name} (n{c})",
                                     n.line and f"line {n.line}: {n.statement or n.text or ''}",
                                     n.text and f"expression: {n.text}")}
        g.node(unit, **mark(attrs, [c]))
        if opts.saved:
            for s in n.saved:
                saved_any = True
                g.node(f"{unit}_saved_{s}", label=_label(f"_saved_{s}", bold_title=False),
                       tooltip=_tooltip(f"{n.name}._saved_{s}: a tensor saved for backward"),
                       fillcolor=SAVED_COLOR, shape="box", style="filled", fontsize="9")
                g.edge(f"{unit}_saved_{s}", unit, dir="none", style="dashed", color=SAVED_COLOR)
        out_names = lay.outputs.get(c)
        if out_names:
            lines = [f"{_shape(n.shape)} {n.dtype}"]
            if opts.values:
                v = trace.variables.get(out_names[0])
                if v is not None and v.value is not None:
                    lines.append(messages.text("graph.value", value=format_array(v.value)))
            g.node(f"{unit}_out", label=_label(", ".join(out_names), lines),
                   tooltip=_tooltip(f"output {', '.join(out_names)} (grad_fn={n.name})"),
                   fillcolor=OUTPUT_COLOR)
            g.edge(unit, f"{unit}_out")

    # edges: input -> consumer, in creation order
    pending_omitted = []
    for c in sorted(lay.included):
        dst = lay.unit_of[c]
        if dst not in lay.kept:
            continue
        s = steps.get(c)
        for k, (i, nr) in enumerate(nodes[c].inputs):
            if i is None:
                if opts.show_none and dst == f"n{c}":
                    none_any = True
                    g.node(f"n{c}_none{k}", label=_label("None", bold_title=False),
                           tooltip=_tooltip(f"next_functions[{k}] of {nodes[c].name} is (None, 0): "
                                            f"this input needs no gradient"),
                           shape="plaintext", style="", fontcolor="#888888", fontsize="9")
                    g.edge(f"n{c}_none{k}", dst, style="dotted", color="#999999", arrowhead="none")
                continue
            if i not in lay.included:
                continue
            src = lay.unit_of[i]
            if src == dst:
                continue
            if src not in lay.kept:
                pending_omitted.append(dst)
                continue
            attrs = {}
            if opts.values and s is not None and k < len(s.grads_out) and s.grads_out[k] is not None:
                attrs["label"] = f'<<FONT COLOR="{GRAD_COLOR}">{html_text(format_array(s.grads_out[k]))}</FONT>>'
                attrs["tooltip"] = _tooltip(f"gradient passed from {nodes[c].name} (n{c}) "
                                            f"to input {k} ({nodes[i].name}, n{i})")
            if nr:
                attrs["taillabel"] = str(nr)
            g.edge(src, dst, **attrs)
    if pending_omitted:
        g.node("omitted", label=_label(f"\u2026 {lay.omitted_nodes:,} more nodes", bold_title=False,
                                       small=[f"not shown (--max-nodes {opts.max_nodes})"]),
               tooltip=_tooltip("raise --max-nodes to draw them"),
               shape="box", style="dashed,rounded", fillcolor="white", color="#999999")
        for dst in dict.fromkeys(pending_omitted):
            g.edge("omitted", dst, style="dashed", color="#999999")

    if opts.legend and lay.included:
        _legend(g, opts, chosen, saved_any, none_any, bool(lay.runs))
    return g


def _legend(g, opts, chosen, saved_any, none_any, collapsed_any):
    t = messages.text
    rows = [(LEAF_COLOR, t("graph.legend.leaf")), (NODE_COLOR, t("graph.legend.node")),
            (OUTPUT_COLOR, t("graph.legend.output"))]
    if saved_any:
        rows.append((SAVED_COLOR, t("graph.legend.saved")))
    if collapsed_any:
        rows.append((None, t("graph.legend.collapsed")))
    if none_any:
        rows.append((None, t("graph.legend.none")))
    if opts.pass_number is not None:
        rows.append(("pass", t("graph.legend.pass", number=opts.pass_number)))
    if opts.values and chosen is not None:
        rows.append((None, t("graph.legend.edge", number=chosen.index + 1)))
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
             f'<TR><TD COLSPAN="2" ALIGN="LEFT"><B>{html_text(t("graph.legend"))}</B></TD></TR>' + "".join(cells) + "</TABLE>>")
    with g.subgraph(name="legend_rank") as s:
        s.attr(rank="sink")
        s.node("legend", label=label, shape="plaintext", style="", fontsize="9", tooltip="legend")


def render(trace, opts: GraphOptions | None = None) -> str:
    """DOT source of the DAG of ``trace`` (deterministic; ASCII)."""
    return build(trace, opts).source
