"""autotrace: run PyTorch-style scripts on a numpy autograd engine and explain the gradients.

The data flows script -> :mod:`autotrace.interpreter` -> engine (:mod:`autotrace.tensor`,
:mod:`autotrace.ops`, :mod:`autotrace.engine`) -> :mod:`autotrace.trace` -> ``autotrace.render``.
Importing this package imports nothing heavy; each command imports what it needs.
"""

__version__ = "0.1.0"
