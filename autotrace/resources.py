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


def check_shape(shape, itemsize: int = 8) -> None:
    """Raise before allocating a tensor of ``shape`` with too many elements, or more
    bytes (``itemsize`` each) than the memory limit leaves (:func:`check_bytes`)."""
    n = 1
    for s in shape:
        n *= int(s)
    if n > max_elements:
        raise element_limit(n)
    check_bytes(n * itemsize, shape)


def check_broadcast_size(*shapes, itemsize: int = 8) -> None:
    """Raise before a broadcast of ``shapes`` would allocate too many elements or bytes;
    shapes that do not broadcast are left to the op's own error."""
    import numpy as np
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        return
    check_shape(shape, itemsize)


def check_count(n: int, itemsize: int = 8) -> None:
    """Raise when an array of ``n`` elements is over the limit (before allocating it)."""
    if n > max_elements:
        raise element_limit(n)
    check_bytes(n * itemsize, (n,))


# ---------------------------------------------------------------------------
# The memory limit. The CLI's ``--limit memory`` caps the process's address space
# (RLIMIT_AS): that cap holds for the peak whatever allocates, and numpy then raises
# MemoryError. Before a large array is made, its bytes are also compared with what the
# cap leaves (the cap minus the address space in use, /proc/self/statm), so the usual
# case is refused up front with the sizes in the message.

#: arrays smaller than this are not checked (reading /proc costs a few microseconds)
CHECK_BYTES_FROM = 16 * 1024 * 1024
MIB = 1024 * 1024


def memory_cap() -> float:
    """The address-space cap in bytes (inf when there is none)."""
    try:
        import resource
        soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, ValueError, OSError):  # pragma: no cover
        return float("inf")
    return float("inf") if soft == resource.RLIM_INFINITY else float(soft)


def memory_left() -> float:
    """Bytes of address space the cap leaves (inf when there is no cap or no /proc)."""
    cap = memory_cap()
    if cap == float("inf"):
        return cap
    try:
        import os
        with open("/proc/self/statm", "rb") as f:
            pages = int(f.read().split()[0])
        return cap - pages * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):  # pragma: no cover
        return float("inf")


def memory_limit(detail: str = "") -> MemoryError:
    """The MemoryError of the memory limit: ``memory limit of N MiB reached: DETAIL (use
    --limit memory=MiB to raise it)``."""
    cap = memory_cap()
    detail = f": {detail}" if detail else ""
    if cap == float("inf"):         # no cap: the machine itself is out of memory
        return MemoryError(f"out of memory{detail}")
    return MemoryError(f"memory limit of {int(cap) // MIB} MiB reached{detail} (use --limit memory=MiB to raise it)")


def check_bytes(nbytes: int, shape=None) -> None:
    """Raise the memory limit before allocating ``nbytes`` (an array of ``shape``) when
    the cap does not leave that many bytes."""
    if nbytes < CHECK_BYTES_FROM:
        return
    left = memory_left()
    if nbytes > left:
        what = f"an array of shape [{', '.join(map(str, shape))}]" if shape is not None else "an array"
        raise memory_limit(f"{what} needs {nbytes / MIB:.0f} MiB, {max(left, 0) / MIB:.0f} MiB are left")


def memory_error(exc: MemoryError) -> MemoryError:
    """``exc`` as the memory limit's error: autotrace's own limits keep their message;
    numpy's ``Unable to allocate ...`` (the address-space cap reached) gets the limit and
    the option around it, on one line."""
    msg = " ".join(str(exc).split())
    if msg.endswith("to raise it)"):
        return exc
    return memory_limit(msg)


# ---------------------------------------------------------------------------
# Work budget of single numpy calls. One numpy call cannot be interrupted by the time
# limit (signals are handled between bytecodes), so a call that would run far past it
# is refused before it starts. Cost is counted in float multiply-adds: numpy runs float
# matmuls through BLAS but integer and bool ones in a plain loop, about 25 times slower
# (measured: 8 GFLOP/s float64, 0.3 GFLOP/s int64 on one core); a sort compares
# n·log2(n) times at roughly a hundredth of BLAS speed.

DEFAULT_MAX_FLOPS = 50_000_000_000   # about 5-10 s of float BLAS work on one core
INT_MATMUL_FACTOR = 25
SORT_FACTOR = 100
ACCUMULATE_FACTOR = 1000     # a sequential log/exp per element (logaddexp.accumulate): ~130 ns

max_flops = DEFAULT_MAX_FLOPS


def work_limit(cost: float, what: str) -> MemoryError:
    return MemoryError(
        f"{what} would cost about {cost:.3g} floating-point operations, over the work limit of "
        f"{max_flops:.3g} for one operation (use --limit flops=N to raise it)")


def check_work(cost: float, what: str) -> None:
    """Refuse one uninterruptible numpy call whose ``cost`` (float-op equivalents) is over
    :data:`max_flops`. Raises MemoryError (reported as a limit, exit 1)."""
    if cost > max_flops:
        raise work_limit(cost, what)


def check_matmul(a, b) -> None:
    """Before ``a @ b`` (numpy arrays, matmul broadcasting rules): refuse it over the
    work budget, counting 2·m·k·n per batch element, ×25 for integer and bool dtypes."""
    import numpy as np
    sa, sb = a.shape, b.shape
    if not sa or not sb:
        return
    m = sa[-2] if len(sa) >= 2 else 1
    k = sa[-1]
    n = sb[-1] if len(sb) >= 2 else 1
    batch = 1
    try:
        for s in np.broadcast_shapes(sa[:-2], sb[:-2]):
            batch *= s
    except ValueError:
        return      # the op reports the shape error
    cost = 2.0 * batch * m * k * n
    if a.dtype.kind in "biu" or b.dtype.kind in "biu":
        cost *= INT_MATMUL_FACTOR
    if cost > max_flops:
        what = (f"a matrix product of {'x'.join(map(str, sa))} and {'x'.join(map(str, sb))} "
                f"({a.dtype.name})")
        raise work_limit(cost, what)


def check_sort(n: int, what: str = "a sort", along: int | None = None) -> None:
    """Before sorting ``n`` elements in rows of ``along`` (all of them when None): sort,
    argsort, topk, kthvalue, median, multinomial draws. Costs n·log2(row) compares."""
    import math
    row = n if along is None else along
    if n > 1 and row > 1:
        cost = SORT_FACTOR * n * math.log2(row)
        if cost > max_flops:
            raise work_limit(cost, f"{what} of {n:,} elements")


# ---------------------------------------------------------------------------
# The C allocator. The float32 kernels (SLEEF's functions, fma32, randn's Box-Muller)
# work through large arrays in cache-sized blocks, whose temporaries are a few hundred
# KiB each. glibc's malloc maps blocks that size with mmap and returns them at free (or
# trims its heap back to the system), so every block's temporaries fault their pages
# in again: for randn(30_000_000) that is 400,000 page faults and half a second of
# system time. The command line therefore serves blocks under 1 MiB from the heap and
# lets the heap keep up to 32 MiB free; larger arrays are still mapped and returned.

#: glibc's mallopt parameters
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


def tune_allocator() -> bool:
    """Set glibc's mmap threshold to 1 MiB and its trim threshold to 32 MiB; False where
    the C library has no ``mallopt`` (not glibc). For the command line: the settings
    hold for the whole process."""
    try:
        import ctypes
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):      # no mallopt, or (Windows) no CDLL(None)
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    ok = mallopt(_M_MMAP_THRESHOLD, 1 << 20) == 1
    return mallopt(_M_TRIM_THRESHOLD, 32 << 20) == 1 and ok
