"""``autotrace ops``: the op table — every differentiable op with PyTorch's node name,
the gradient each input receives (the vjp rule) and the local derivative.

Generated from :data:`autotrace.ops.OPS`, the same table the engine and ``explain`` use.
"""

from __future__ import annotations

import json
import sys
from typing import Optional

import typer

from . import common

HELP = ("List the op table: op name, PyTorch grad_fn node name, the vector-Jacobian "
        "product per input and the local derivative. --json for machine-readable output; "
        "NAME shows one op (by op name or node name). --api lists the supported PyTorch API instead "
        "(functions, Tensor methods and attributes, nn modules, classes).")


def api_rows():
    """Every name a script can reach, generated from the registrations: ``torch.*`` and
    its submodules (functions, classes, nn modules, dtypes, constants), the Tensor
    methods and attributes, and the Python standard-library modules scripts may import
    (``random.seed``, ``collections.OrderedDict``, ...; kind ``python module``/``python``).
    Rows are ``{"name", "kind"}`` sorted by name."""
    from autotrace.tensor import Tensor
    from autotrace.torch_api import modules
    from autotrace.torch_api.namespace import Namespace
    from autotrace.interpreter.builtins import ScriptNamespace
    from autotrace import dtypes

    mods = modules()
    module_base = getattr(mods["torch.nn"], "Module", None)
    rows = {}

    def kind(v):
        if isinstance(v, Namespace):
            return "module"
        if isinstance(v, dtypes.DType):
            return "dtype"
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return "constant"
        if isinstance(v, type):
            if module_base is not None and isinstance(module_base, type) and issubclass(v, module_base):
                return "nn module"
            return "class"
        return "function"

    for mod_name, ns in mods.items():
        if isinstance(ns, ScriptNamespace) and mod_name not in ("math", "__future__"):
            rows[mod_name] = "python module"
            if mod_name == "matplotlib.pyplot":     # every name accepted, nothing drawn
                rows["matplotlib.pyplot.*"] = "python"
                continue
            for n in sorted(ns._members):
                if not n.startswith("_") and not isinstance(ns._members[n], ScriptNamespace):
                    rows[f"{mod_name}.{n}"] = "python"
    todo = [(k, v) for k, v in mods.items() if isinstance(v, Namespace)]
    seen = set()
    while todo:
        mod_name, ns = todo.pop()
        if mod_name in seen:
            continue
        seen.add(mod_name)
        for n in sorted(ns._script_attrs):
            if n.startswith("_"):
                continue
            v = getattr(ns, n)
            rows[f"{mod_name}.{n}"] = kind(v)
            if isinstance(v, Namespace):
                todo.append((f"{mod_name}.{n}", v))
    for n in sorted(Tensor._script_attrs):
        if n.startswith("_"):
            continue
        v = getattr(Tensor, n, None)
        rows[f"Tensor.{n}"] = "attribute" if isinstance(v, property) or v is None else "method"
    return [{"name": k, "kind": rows[k]} for k in sorted(rows)]


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
            api: bool = typer.Option(False, "--api", help="List the supported PyTorch API (functions, methods, "
                                                          "modules) instead of the op table."),
            name: Optional[str] = typer.Argument(None, help="Show only this op (op name or node name)."),
            no_color: bool = common.NoColorOpt):
    """Print the op table."""
    if api:
        rows = api_rows()
        if name is not None:
            rows = [r for r in rows if name in r["name"]]
        if json_out:
            typer.echo(json.dumps({"api": rows}, sort_keys=True, indent=1, ensure_ascii=False))
        else:
            for r in rows:
                typer.echo(f"{r['name']}\t{r['kind']}")
        return
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
    from rich.table import Table
    from autotrace.messages import rule_words, text
    table = Table(title=text("ops.title"))
    for col in (text("ops.col.op"), text("ops.col.node"), text("ops.col.input"), text("ops.col.vjp"), text("ops.col.local")):
        table.add_column(col)
    for r in rows:
        for i, inp in enumerate(r["inputs"]):
            table.add_row(r["op"] if i == 0 else "", r["node"] if i == 0 else "", inp, rule_words(r["vjp"][inp]),
                          rule_words(r["local"].get(inp) or "-"))
    common.console(no_color=no_color).print(table)
