"""More ``np.*`` functions for scripts: ``copy``, ``diff``, ``pad``, ``roll``, ``split``,
``array_split``, ``einsum``, ``linalg.eigh`` and the ``np.r_``/``np.c_`` index tricks.

Each is numpy's own function on unwrapped arrays (so results, dtypes and numpy's errors
are numpy's) after the sandbox's checks: the result's size against the element limit
before numpy allocates it, the work of ``einsum`` (numpy's naive FLOP count) and of
``eigh`` (n³ per matrix) against the work budget, the number of pieces ``split`` makes
against the sequence limit, and arguments numpy would call back into (a callable pad
``mode``) refused.
"""

from __future__ import annotations

import math
import re

import numpy as np

from .. import resources
from .ndarray import NDArray, _axis
from .values import numpy_warnings, operand, to_numpy, wrap


def copy(a, order="K"):
    """``np.copy``: a new array with ``a``'s values (a tensor's too)."""
    from .functions import _copy_warning
    x = to_numpy(a)
    resources.check_count(x.size)
    _copy_warning(a)      # numpy copies a tensor through its __array__, which warns
    return wrap(np.array(x, copy=True, order=order))


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """``np.diff``: the n-th discrete difference along ``axis``. An ``n`` past the axis
    length gives the same empty result numpy's loop reaches, without looping ``n`` times."""
    x = to_numpy(a)
    if type(n) is not int:
        n = int(n)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n!r}")
    if x.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    ax = _axis(axis)
    parts = [x]
    for extra, front in ((prepend, True), (append, False)):
        if extra is not None:
            e = np.asarray(operand(extra))
            if e.ndim == 0:
                shape = list(x.shape)
                shape[ax] = 1
                e = np.broadcast_to(e, shape)
            resources.check_count(e.size)
            parts.insert(0 if front else len(parts), e)
    if len(parts) > 1:
        resources.check_count(sum(p.size for p in parts))
        x = np.concatenate(parts, axis=ax)
    length = x.shape[ax]
    n = min(n, length)
    resources.check_work(float(n) * x.size, "np.diff")
    with numpy_warnings():
        return wrap(np.diff(x, n=n, axis=ax))


_PAD_MODES = ("constant", "edge", "linear_ramp", "maximum", "mean", "median", "minimum", "reflect",
              "symmetric", "wrap", "empty")
_PAD_KEYS = {"constant": ("constant_values",), "linear_ramp": ("end_values",),
             "maximum": ("stat_length",), "mean": ("stat_length",), "median": ("stat_length",),
             "minimum": ("stat_length",), "reflect": ("reflect_type",), "symmetric": ("reflect_type",)}


def pad(array, pad_width, mode="constant", **kwargs):
    """``np.pad``: the padded size is checked first; modes that repeat the array
    (reflect, symmetric, wrap) also count their passes against the work budget."""
    x = to_numpy(array)
    if not isinstance(mode, str):
        raise TypeError("np.pad(mode=...) takes one of numpy's mode names in autotrace scripts, not a function")
    if mode not in _PAD_MODES:
        raise ValueError(f"mode '{mode}' is not supported")
    allowed = _PAD_KEYS.get(mode, ())
    bad = [k for k in kwargs if k not in allowed]
    if bad:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {set(bad)}")
    pw = np.asarray(operand(pad_width))
    if pw.dtype.kind not in "iub":
        raise TypeError("`pad_width` must be of integral type.")
    if pw.size and pw.min() < 0:
        raise ValueError("index can't contain negative values")
    pairs = np.broadcast_to(np.round(pw).astype(np.int64, copy=False), (x.ndim, 2)) if x.ndim else pw
    out_shape = [int(s) + int(a) + int(b) for s, (a, b) in zip(x.shape, pairs)] if x.ndim else []
    resources.check_shape(out_shape, x.dtype.itemsize)
    if mode in ("reflect", "symmetric", "wrap"):
        passes = sum(-(-int(max(a, b)) // max(int(s) - 1, 1)) for s, (a, b) in zip(x.shape, pairs))
        resources.check_work(float(math.prod(out_shape)) + 1e4 * passes, "np.pad")
    kw = {k: (v if isinstance(v, str) else operand(v)) for k, v in kwargs.items()}
    with numpy_warnings():
        return wrap(np.pad(x, pairs if x.ndim else pw, mode=mode, **kw))


def roll(a, shift, axis=None):
    """``np.roll``: elements shifted along ``axis`` (the flattened array when None)."""
    x = to_numpy(a)
    resources.check_count(x.size)
    sh = shift if type(shift) is int else tuple(int(s) for s in shift) if isinstance(shift, (list, tuple)) \
        else int(shift)
    return wrap(np.roll(x, sh, axis=_axis(axis)))


def _pieces(x, indices_or_sections, axis, equal):
    from ..interpreter.limits import RT
    ax = _axis(axis)
    if isinstance(indices_or_sections, (list, tuple, NDArray)):
        idx = [int(i) for i in indices_or_sections]
        RT.check_len(len(idx) + 1, "the list of pieces")
        return np.split(x, idx, axis=ax) if equal else np.array_split(x, idx, axis=ax)
    sections = int(indices_or_sections)
    if equal and x.shape[ax] % sections:      # numpy's own order: the modulo (0 divides by zero) first
        raise ValueError("array split does not result in an equal division")
    if sections <= 0:
        raise ValueError("number sections must be larger than 0.")
    RT.check_len(sections, "the list of pieces")
    return np.split(x, sections, axis=ax) if equal else np.array_split(x, sections, axis=ax)


def split(ary, indices_or_sections, axis=0):
    """``np.split``: a list of sub-arrays (views, as numpy's)."""
    return wrap(_pieces(to_numpy(ary), indices_or_sections, axis, True))


def array_split(ary, indices_or_sections, axis=0):
    """``np.array_split``: like split, the first ``len % n`` pieces one longer."""
    return wrap(_pieces(to_numpy(ary), indices_or_sections, axis, False))


_FLOPS = re.compile(r"Naive FLOP count:\s*([0-9.e+]+)")
_LARGEST = re.compile(r"Largest intermediate:\s*([0-9.e+]+)")


def einsum(*operands, optimize=False, dtype=None):
    """``np.einsum`` (numpy's default unoptimised contraction unless ``optimize`` is True or
    'greedy'). numpy's own ``einsum_path`` gives the naive FLOP count and the largest
    array made from the shapes alone; both are checked before the contraction runs."""
    from .values import as_dtype
    if optimize not in (False, True, "greedy"):
        raise ValueError("np.einsum(optimize=...) takes False, True or 'greedy' in autotrace scripts")
    args = [a if isinstance(a, str) else
            [int(i) if type(i) is int else i for i in a] if isinstance(a, list) else to_numpy(a)
            for a in operands]
    if not args:
        raise ValueError("No input operands")
    try:
        with numpy_warnings():
            _, report = np.einsum_path(*args, optimize="greedy" if optimize else False)
    except (ValueError, TypeError):
        # bad subscripts or shapes: numpy's einsum words it its own way, before any work
        np.einsum(*args)
        raise
    flops = _FLOPS.search(report)
    largest = _LARGEST.search(report)
    resources.check_work(float(flops.group(1)) if flops else 0.0, "np.einsum")
    if largest:
        resources.check_count(int(float(largest.group(1))))
    kw = {"dtype": as_dtype(dtype)} if dtype is not None else {}
    with numpy_warnings():
        return wrap(np.einsum(*args, optimize=optimize, **kw))


_EIGH_RESULT = []


def _eigh_result():
    """numpy's ``EighResult`` named tuple type (made once)."""
    if not _EIGH_RESULT:
        from ..interpreter import typeobj
        from ..stdlib.collections_ import namedtuple
        t = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
        typeobj.QUALIFIED[t] = "numpy.linalg._linalg.EighResult"
        _EIGH_RESULT.append(t)
    return _EIGH_RESULT[0]


def eigh(a, UPLO="L"):
    """``np.linalg.eigh``: ``EighResult(eigenvalues, eigenvectors)`` — eigenvalues ascending,
    eigenvectors as columns — of a symmetric (Hermitian) matrix or a stack of them."""
    x = to_numpy(a)
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    if x.ndim >= 2:
        n = x.shape[-1]
        resources.check_work(float(x.size // max(n * n, 1)) * n ** 3 * 10, "a symmetric eigendecomposition")
    w, v = np.linalg.eigh(x, UPLO)
    return _eigh_result()(wrap(w), wrap(v))


class _Concatenator:
    """``np.r_`` / ``np.c_``: ``np.r_[a, b, 0:3, 1:2:5j]`` joins arrays, scalars and slice
    ranges (numpy's index trick). Slices are counted before numpy expands them."""

    _script_attrs = frozenset()

    def __init__(self, target):
        self._target = target

    def __getitem__(self, key):
        items = key if isinstance(key, tuple) else (key,)
        conv = []
        total = 0
        for it in items:
            if isinstance(it, slice):
                total += _slice_count(it)
                conv.append(it)
            elif isinstance(it, str):
                conv.append(it)
            else:
                v = operand(it)
                total += int(np.size(v))
                conv.append(v)
        resources.check_count(total)
        with numpy_warnings():
            return wrap(self._target[tuple(conv) if isinstance(key, tuple) else conv[0]])

    def __len__(self):
        return 0

    def __repr__(self):
        return f"<numpy.lib._index_tricks_impl.{type(self._target).__name__} object at 0x{id(self):x}>"


def _slice_count(s: slice) -> int:
    for v in (s.start, s.stop, s.step):
        if v is not None and not isinstance(v, (int, float, complex)):
            raise TypeError(f"slice indices must be numbers, not {type(v).__name__}")
    step = 1 if s.step is None else s.step
    if isinstance(step, complex):
        return int(abs(step))
    start = 0 if s.start is None else s.start
    stop = s.stop
    if stop is None:
        raise ValueError("a slice in np.r_/np.c_ needs a stop")
    if step == 0:
        raise ValueError("a slice in np.r_/np.c_ needs a nonzero step")
    n = (stop - start) / step
    if not math.isfinite(n):
        raise ValueError("Maximum allowed size exceeded")
    return max(math.ceil(n), 0)


r_ = _Concatenator(np.r_)
c_ = _Concatenator(np.c_)


def members() -> dict:
    return {"copy": copy, "diff": diff, "pad": pad, "roll": roll, "split": split, "array_split": array_split,
            "einsum": einsum, "r_": r_, "c_": c_}


def linalg_members() -> dict:
    return {"eigh": eigh}
