"""The Python standard library modules scripts may import, as autotrace's own objects.

Real PyTorch scripts wrap their tensor code in plain Python: ``from typing import List``,
``from collections import OrderedDict``, ``import random``, ``copy.deepcopy(model)``,
``itertools.product``, ``functools.partial``, a loss curve drawn with
``matplotlib.pyplot``. :func:`modules` returns the namespaces such scripts get (each a
:class:`~autotrace.interpreter.builtins.ScriptNamespace`: only the listed members, no
path to the real module). The names scripts may import are
:data:`autotrace.interpreter.validate.STDLIB_MODULES`.
"""

from __future__ import annotations

_cache: dict | None = None


def modules() -> dict:
    """Importable name → namespace for the standard-library modules (built once)."""
    global _cache
    if _cache is None:
        from . import collections_, copying, dataclasses_, functools_, iters, misc, pyrandom, warnings_
        out = {}
        out.update(misc.modules())
        out["random"] = pyrandom.make_module()
        out["collections"] = collections_.make_module()
        out["copy"] = copying.make_module()
        out["itertools"] = iters.make_module()
        out["functools"] = functools_.make_module()
        out["warnings"] = warnings_.make_module()
        out["dataclasses"] = dataclasses_.make_module()
        from ..interpreter.program import RUN_HOOKS
        from . import pyplot
        RUN_HOOKS.extend((pyrandom.reset, pyplot.reset))
        _cache = out
    return _cache
