"""Console view of a run: the script's own output, a table of its tensors and a tree of
each output's grad_fn chain (rich; plain text when piped or --no-color)."""

from __future__ import annotations

import numpy as np

from ..printing import one_line
from ..trace import Trace

PREVIEW = 6


def short_array(a, dtype: str | None = None, limit: int = 12) -> str:
    """A compact one-line rendering: PyTorch's numbers for small arrays, shape and a
    summary for large ones."""
    if a is None:
        return "None"
    if a.size <= limit:
        return one_line(a, dtype or _dtype_name(a))
    flat = a.reshape(-1).astype(np.float64)
    with np.errstate(all="ignore"):
        return (f"[{', '.join(f'{v:.4g}' for v in flat[:PREVIEW])}, …] "
                f"min {np.nanmin(flat):.4g} max {np.nanmax(flat):.4g} norm {np.sqrt(np.nansum(flat * flat)):.4g}")


def _dtype_name(a) -> str:
    return {"float32": "float32", "float64": "float64", "int64": "int64", "bool": "bool"}.get(str(a.dtype), str(a.dtype))


def run_report(trace: Trace, console, err_console=None) -> None:
    """The report on ``console``; warnings (diagnostics) on ``err_console`` when given."""
    from rich.text import Text
    from rich.tree import Tree

    if trace.stdout:
        from ..interpreter.errors import visible
        console.out(visible(trace.stdout), end="", highlight=False)  # rich would drop BEL and CR silently
    if trace.warnings:
        for w in trace.warnings:
            where = f"line {w['line']}: " if w.get("line") else ""
            (err_console or console).print(Text(f"[warning] {where}{w['category']}: {w['message']}", style="yellow"))

    tensors = [v for v in trace.variables.values() if v.kind == "tensor"]
    if tensors:
        if console.width >= WIDE:
            console.print(_tensor_table(tensors))
        else:
            _tensor_list(tensors, console)

    roots = _output_roots(trace)
    if roots:
        console.print(Text("grad_fn chains", style="bold"))
        for name, node_id in roots:
            tree = Tree(Text(f"{name}"))
            _grow(tree, trace, node_id)
            console.print(tree)


WIDE = 110  # columns needed for the one-row-per-tensor table; narrower consoles get a list

COLUMNS = ("name", "value", "shape", "dtype", "requires_grad", "is_leaf", "grad_fn", "grad")


def _cells(v):
    value = short_array(v.value, v.dtype) if v.value is not None else _summary(v)
    grad = short_array(v.grad, v.dtype) if v.grad is not None else "None"
    return (v.name, value, "[" + ", ".join(map(str, v.shape)) + "]", v.dtype,
            str(v.requires_grad), str(v.is_leaf), v.grad_fn or "None", grad)


def _tensor_table(tensors):
    from rich.table import Table

    table = Table(title="tensors", title_justify="left", show_lines=False)
    for col in COLUMNS:
        # short columns never break inside a word; values and grads wrap between numbers
        wide = col in ("value", "grad")
        table.add_column(col, overflow="fold" if wide else "ellipsis", no_wrap=not wide,
                         ratio=1 if wide else None)
    for v in tensors:
        table.add_row(*_cells(v))
    return table


def _tensor_list(tensors, console) -> None:
    """The same fields, one tensor per block: readable in 80 columns."""
    from rich.text import Text

    console.print(Text("tensors", style="bold"))
    for v in tensors:
        name, value, shape, dtype, rg, leaf, fn, grad = _cells(v)
        console.print(Text.assemble((name, "bold"), f"  shape {shape} {dtype}  requires_grad={rg}  "
                                    f"is_leaf={leaf}  grad_fn={fn}"))
        console.print(Text(f"    value {value}"))
        console.print(Text(f"    grad  {grad}"))


def _summary(v) -> str:
    s = v.summary or {}
    return f"shape {list(v.shape)}: min {s.get('min'):.4g} max {s.get('max'):.4g} norm {s.get('norm'):.4g}"


def _output_roots(trace: Trace):
    """Variables whose grad_fn no other recorded node points at: the graph's outputs."""
    used = set()
    for n in trace.nodes:
        for i, _ in n.inputs:
            if i is not None:
                used.add(i)
    roots = []
    for v in trace.variables.values():
        if v.kind == "tensor" and v.grad_fn is not None and v.node is not None and v.node not in used:
            roots.append((v.name, v.node))
    return roots


def _label(trace, node_id, nr=0):
    n = trace.nodes[node_id]
    if n.is_leaf:
        return f"AccumulateGrad → {n.var_name or '(leaf)'} {list(n.shape or ())}"
    bits = [n.name]
    if n.var_name:
        bits.append(f"→ {n.var_name}")
    if n.text:
        bits.append(f"  ({n.text}, line {n.line})")
    return " ".join(bits)


def _grow(tree, trace, root_id, max_nodes: int = 200):
    """Add the chain below ``root_id`` (iteratively; a node seen before is shown once)."""
    from rich.text import Text

    seen = set()
    stack = [(tree, root_id)]
    count = 0
    while stack:
        parent, nid = stack.pop()
        if nid is None:
            parent.add(Text("None (input needs no gradient)", style="dim"))
            continue
        if count >= max_nodes:
            parent.add(Text("… (more nodes; see autotrace graph)", style="dim"))
            break
        count += 1
        if nid in seen:
            parent.add(Text(f"{trace.nodes[nid].name} (shown above)", style="dim"))
            continue
        seen.add(nid)
        branch = parent.add(Text(_label(trace, nid)))
        # children in next_functions order (the stack pops the last pushed first)
        for i, nr in reversed(trace.nodes[nid].inputs):
            stack.append((branch, i))
