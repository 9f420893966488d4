"""autotrace: run PyTorch-style scripts on a numpy autograd engine and explain the gradients.

The data flows script -> :mod:`autotrace.interpreter` -> engine (:mod:`autotrace.tensor`,
:mod:`autotrace.ops`, :mod:`autotrace.engine`) -> :mod:`autotrace.trace` -> ``autotrace.render``.
Importing this package imports nothing heavy; each command imports what it needs.
"""

__version__ = "0.1.0"


def run(source_or_path, **kwargs):
    """Run a script (source text or a ``.py`` path) and return its
    :class:`autotrace.api.Result`: ``.explain()``, ``.graph()``, ``.html()``,
    ``.to_json()``, each shown richly in notebooks. See :mod:`autotrace.api`."""
    from .api import run as _run
    return _run(source_or_path, **kwargs)


def load_ipython_extension(ipython):
    """``%load_ext autotrace``: registers the ``%%autotrace`` cell magic
    (see :mod:`autotrace.notebook`)."""
    from .notebook import register
    register(ipython)
