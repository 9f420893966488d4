"""The Mermaid view of a trace: the autograd DAG as a Mermaid flowchart, for Markdown
documents (GitHub, GitLab, MkDocs render it as a diagram).

It draws what the DOT view draws (:class:`~autotrace.render.graph_layout.Layout`: one
pass of a training loop, module clusters as ``subgraph``, loop bodies folded ×N), with
PyTorch's node names, the script's variable names, shapes as ``[2, 3]``, and with
``values`` the values, gradients and the gradient sent along each edge.

Deterministic: ids come from creation order, statements are written in a fixed order.
The grammar written is a small subset of Mermaid's flowchart syntax, checked by
``tests/test_graph_mermaid.py``::

    flowchart TB
      ID["label"]                      a node (ID: n<digits>[_leaf|_out] or m<digits>)
      ID["label"]:::CLASS              the same with a class
      ID --> ID   ID -.-> ID           an edge; dashed for the value a loop carries
      ID -->|"label"| ID               an edge with a label
      subgraph ID ["title"] ... end    a cluster
      classDef CLASS fill:#hex,stroke:#hex
      %% comment

Labels are always in double quotes; inside them every character but letters, digits,
spaces and ``.,:;+-*/=()[]_'!?`` and non-ASCII text is written as a Mermaid entity
(``#35;`` for ``#``, ``#quot;`` for ``"``), so no user text can end a label or start
markup. Line breaks are ``<br>``.
"""

from __future__ import annotations

from ..messages import text as _t
from .graph_layout import Layout
from .notation import array_text, non_finite, shape_text

SAFE = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .,:;+-*/=()[]_'!?")
CLASSES = {
    "leaf": "fill:#add8e6,stroke:#666666",
    "gradfn": "fill:#d3d3d3,stroke:#666666",
    "output": "fill:#caff70,stroke:#666666",
    "bad": "fill:#f5b7b1,stroke:#c0392b",
    "box": "fill:#d3d3d3,stroke:#333333,stroke-width:2px",
}


def text(s: str) -> str:
    """``s`` escaped for a double-quoted Mermaid label (see the module docstring)."""
    out = []
    for ch in str(s):
        if ch in SAFE or (ord(ch) > 127 and ch.isprintable()):
            out.append(ch)
        elif ch == '"':
            out.append("#quot;")
        elif ch == "\n":
            out.append("<br>")
        else:
            out.append(f"#{ord(ch)};")
    return "".join(out)


def _label(*lines) -> str:
    return '"' + "<br>".join(text(line) for line in lines if line) + '"'


def render(trace, values: bool = False, of=None, pass_number=None, all_passes=False,
           depth=None, fold=True, max_nodes=500, collapse=None) -> str:
    """Mermaid flowchart source of the DAG of ``trace`` (deterministic). Raises
    :class:`GraphError` when the options do not fit the trace."""
    lay = Layout(trace, of=of, pass_number=pass_number, all_passes=all_passes, collapse=collapse,
                 max_nodes=max_nodes, depth=depth, fold=fold)
    nodes = trace.nodes
    chosen = None
    if pass_number is not None:
        chosen = trace.passes[pass_number - 1]
    elif lay.chosen_pass is not None:
        chosen = lay.chosen_pass
    elif values and trace.passes:
        chosen = trace.passes[-1]
    steps = {s.node: s for s in chosen.steps if s.node is not None} if chosen is not None else {}

    out = ["flowchart TB", f"  %% autotrace graph of {_comment(trace.script)}"]
    for note in lay.notes:
        out.append(f"  %% {_comment(note)}")
    if lay.omitted_units:
        out.append(f"  %% {lay.omitted_nodes} of {len(lay.included)} nodes not shown (--max-nodes {max_nodes})")
    used = set()
    edges_after = []

    def val(a):
        return array_text(a)

    def unit_lines(u):
        """(statements for unit u) at the current indent."""
        stmts = []
        if u in lay.runs:
            run = lay.runs[u]
            names = []
            for c in run:
                if nodes[c].name in names:
                    break
                names.append(nodes[c].name)
            last = nodes[run[-1]]
            stmts.append(f'{u}[{_label(" -> ".join(names), _t("graph.mmd.collapsed", count=len(run) // len(names)), f"{shape_text(last.shape)} {last.dtype}")}]')
            return stmts
        call = lay.box_call.get(u)
        if call is not None:
            name, cls = lay.module_label(call)
            inner = [c for c in lay.members[u] if not nodes[c].is_leaf]
            last = nodes[max(inner)] if inner else None
            lines = [name, cls if cls != name else ""]
            if last is not None:
                lines.append(f"-> {shape_text(last.shape)} {last.dtype}")
                if values and last.value is not None:
                    lines.append(_t("graph.value", value=val(last.value)))
            stmts.append(f"{u}[{_label(*lines)}]:::box")
            used.add("box")
            return stmts
        c = int(u[1:])
        n = nodes[c]
        names = lay.names_of.get(c) or ([n.var_name] if n.var_name else [])
        if n.is_leaf:
            v = next((trace.variables[x] for x in names if x in trace.variables), None)
            lines = [", ".join(names) or _t("graph.unnamed_leaf"), f"{shape_text(n.shape)} {n.dtype}"]
            if values:
                if v is not None and v.value is not None:
                    lines.append(_t("graph.value", value=val(v.value)))
                grad = steps[c].after if c in steps and steps[c].after is not None else (v.grad if v else None)
                if grad is not None:
                    lines.append(_t("graph.grad", value=val(grad)))
            stmts.append(f"{u}_leaf[{_label(*lines)}]:::leaf")
            stmts.append(f'{u}["AccumulateGrad"]:::gradfn')
            used.update(("leaf", "gradfn"))
            edges_after.append(f"{u}_leaf --> {u}")
            return stmts
        lines = [n.name, (", ".join(names) + " · " if names else "") + f"{shape_text(n.shape)} {n.dtype}"]
        if values:
            if n.value is not None:
                lines.append(_t("graph.value", value=val(n.value)))
            s = steps.get(c)
            if s is not None and s.grad_in and s.grad_in[0] is not None:
                lines.append(_t("graph.grad", value=val(s.grad_in[0])))
        if n.text or n.line:
            lines.append(" · ".join(p for p in ((n.text or "")[:60], _t("label.line", line=n.line) if n.line else "") if p))
        stmts.append(f"{u}[{_label(*lines)}]:::gradfn")
        used.add("gradfn")
        outs = lay.outputs.get(c)
        if outs:
            v = trace.variables.get(outs[0])
            bad = v is not None and (non_finite(v.value) or non_finite(v.grad) or non_finite(v.summary))
            ol = [", ".join(outs), f"{shape_text(n.shape)} {n.dtype}"]
            if values and v is not None and v.value is not None:
                ol.append(_t("graph.value", value=val(v.value)))
            cls = "bad" if bad else "output"
            used.add(cls)
            stmts.append(f"{u}_out[{_label(*ol)}]:::{cls}")
            edges_after.append(f"{u} --> {u}_out")
        return stmts

    def emit_group(gid, indent):
        grp = lay.groups[gid]
        if grp.kind == "module":
            name, cls = lay.module_label(grp.call)
            title = f"{name} · {cls}" if name != cls else name
        else:
            where = grp.fold.lines_text()
            title = _t("graph.mmd.fold", count=grp.fold.count, where=f" · {where}" if where else "")
        out.append(f"{indent}subgraph {gid} [{_label(title)}]")
        for u in grp.units:
            out.extend(indent + "  " + st for st in unit_lines(u))
        for ch in sorted(grp.children, key=lambda k: lay.groups[k].lo):
            emit_group(ch, indent + "  ")
        out.append(f"{indent}end")

    for u in lay.units:
        if lay.group_of.get(u) is None:
            out.extend("  " + st for st in unit_lines(u))
    for grp in sorted(lay.top_groups(), key=lambda x: x.lo):
        emit_group(grp.id, "  ")
    out.extend("  " + e for e in edges_after)
    edges, _, omitted = lay.edges()
    for e in edges:
        arrow = "-.->" if e.carry else "-->"
        label = None
        s = steps.get(e.c)
        if values and e.own and s is not None and e.k < len(s.grads_out) and s.grads_out[e.k] is not None:
            label = val(s.grads_out[e.k])
        elif e.gather and e.count > 1:
            label = f"×{e.count}"
        out.append(f"  {e.src} {arrow}|{_label(label)}| {e.dst}" if label else f"  {e.src} {arrow} {e.dst}")
    if omitted:
        out.append(f'  omitted[{_label(_t("graph.mmd.omitted", count=lay.omitted_nodes, max_nodes=max_nodes))}]')
        for dst in omitted:
            out.append(f"  omitted -.-> {dst}")
    for cls in sorted(used):
        out.append(f"  classDef {cls} {CLASSES[cls]}")
    return "\n".join(out) + "\n"


def _comment(s: str) -> str:
    """Text for a ``%%`` comment line: one line, printable."""
    return "".join(ch if ch.isprintable() else " " for ch in str(s))
