"""The ``%%autotrace`` cell magic: a cell of PyTorch code, run and shown under the cell.

::

    %load_ext autotrace

    %%autotrace explain --set "x=[2.0, 3.0]"
    z = (x * 3).sum()
    z.backward()

The first word picks the view: ``explain`` (the default), ``run``, ``graph`` (``--values``
for values and edge gradients) or ``html`` (the step-through page). ``--set NAME=VALUE``
binds names the cell uses but never assigns; ``--of NAME`` the tensor to backpropagate
from when the cell calls no ``backward()``. The cell runs in autotrace's sandbox, not in
the notebook's Python: it sees none of the notebook's variables and binds none.
"""

from __future__ import annotations

import shlex

VIEWS = ("explain", "run", "graph", "html")


class MagicUsage(ValueError):
    """A mistake in the magic's line (unknown view or option)."""


def parse_line(line: str) -> dict:
    """``explain --set x=1 --values`` → ``{"view": "explain", "sets": ["x=1"], ...}``."""
    words = shlex.split(line)
    opts = {"view": "explain", "sets": [], "values": False, "of": None}
    if words and not words[0].startswith("-"):
        opts["view"] = words.pop(0)
    if opts["view"] not in VIEWS:
        raise MagicUsage(f"%%autotrace {opts['view']}: the view is one of {', '.join(VIEWS)}")
    while words:
        w = words.pop(0)
        if w == "--values":
            opts["values"] = True
        elif w in ("--set", "--of") and words:
            v = words.pop(0)
            if w == "--set":
                opts["sets"].append(v)
            else:
                opts["of"] = v
        elif w.startswith("--set="):
            opts["sets"].append(w[len("--set="):])
        else:
            raise MagicUsage(f"%%autotrace: unknown option {w!r} (options: --set NAME=VALUE, --of NAME, --values)")
    return opts


def show(line: str, cell: str):
    """The object the magic displays for ``line`` over ``cell``."""
    from .api import run_source

    opts = parse_line(line)
    result = run_source(cell, "<cell>", sets=opts["sets"], of=opts["of"])
    view = opts["view"]
    if view == "explain":
        return result.explain()
    if view == "graph":
        return result.graph(values=opts["values"])
    if view == "html":
        return result.html()
    return result


def register(ipython) -> None:
    def autotrace(line, cell):
        from IPython.display import display
        from .runner import UsageError

        try:
            obj = show(line, cell)
        except (MagicUsage, UsageError) as e:
            print(f"error: {e}")
            return
        display(obj)

    ipython.register_magic_function(autotrace, magic_kind="cell", magic_name="autotrace")
