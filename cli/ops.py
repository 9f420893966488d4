"""``autotrace ops``: the op table — every differentiable op with PyTorch's node name,
the gradient each input receives (the vjp rule) and the local derivative.

Generated from :data:`autotrace.ops.OPS`, the same table the engine and ``explain`` use.
"""

from __future__ import annotations

import json
import sys
from typing import Optional

import typer

HELP = ("List the op table: op name, PyTorch grad_fn node name, the vector-Jacobian "
        "product per input and the local derivative. --json for machine-readable output; "
        "NAME shows one op (by op name or node name).")


def _rows(name: Optional[str]):
    from autotrace import ops
    ops.load()
    rows = []
    for key in sorted(ops.OPS):
        o = ops.OPS[key]
        if name is not None and name not in (o.name, o.node):
            continue
        rows.append({
            "op": o.name,
            "node": o.node,
            "inputs": list(o.inputs),
            "vjp": {k: o.vjp.get(k) for k in o.inputs},
            "local": {k: v for k, v in (o.local or {}).items()},
        })
    return rows


def command(json_out: bool = typer.Option(False, "--json", help="Print the table as JSON (sorted keys)."),
            name: Optional[str] = typer.Argument(None, help="Show only this op (op name or node name).")):
    """Print the op table."""
    rows = _rows(name)
    if name is not None and not rows:
        from autotrace.messages import text
        typer.echo("error: " + text("ops.unknown", name=repr(name)), err=True)
        raise typer.Exit(2)
    if json_out:
        typer.echo(json.dumps({"ops": rows}, sort_keys=True, indent=1, ensure_ascii=False))
        return
    if not sys.stdout.isatty():
        for r in rows:
            for inp in r["inputs"]:
                local = r["local"].get(inp) or "-"
                typer.echo(f"{r['op']}\t{r['node']}\t{inp}\t{r['vjp'][inp]}\t{local}")
        return
    from rich.console import Console
    from rich.table import Table
    from autotrace.messages import rule_words, text
    table = Table(title=text("ops.title"))
    for col in (text("ops.col.op"), text("ops.col.node"), text("ops.col.input"), text("ops.col.vjp"), text("ops.col.local")):
        table.add_column(col)
    for r in rows:
        for i, inp in enumerate(r["inputs"]):
            table.add_row(r["op"] if i == 0 else "", r["node"] if i == 0 else "", inp, rule_words(r["vjp"][inp]),
                          rule_words(r["local"].get(inp) or "-"))
    Console().print(table)
