"""Engine-side resource limits: how large one tensor may be.

The interpreter bounds steps, time, recursion and Python data; the engine bounds tensor
sizes, so that ``torch.ones(100000, 100000)`` is a clear script error instead of an
exhausted machine. Going over raises :class:`MemoryError`, which a run reports as a
limit error (exit 1). The runner sets :data:`max_elements` from the command line.
"""

from __future__ import annotations

DEFAULT_MAX_ELEMENTS = 100_000_000

max_elements = DEFAULT_MAX_ELEMENTS


def element_limit(n: int) -> MemoryError:
    return MemoryError(
        f"a tensor of {n:,} elements is over the limit of {max_elements:,} elements per tensor "
        "(use --limit elements=N to raise it)")


def check_shape(shape) -> None:
    """Raise before allocating a tensor of ``shape`` with too many elements."""
    n = 1
    for s in shape:
        n *= int(s)
    if n > max_elements:
        raise element_limit(n)


def check_broadcast_size(*shapes) -> None:
    """Raise before a broadcast of ``shapes`` would allocate too many elements; shapes
    that do not broadcast are left to the op's own error."""
    import numpy as np
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        return
    check_shape(shape)


def check_count(n: int) -> None:
    """Raise when an array of ``n`` elements is over the limit (before allocating it)."""
    if n > max_elements:
        raise element_limit(n)
