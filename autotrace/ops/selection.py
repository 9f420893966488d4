"""Which index torch's CPU kernels return among tied values.

``topk`` runs ``std::partial_sort`` (when ``k * 64 <= n``) or ``std::nth_element`` then
``std::sort`` of the first ``k - 1`` entries over (value, index) pairs compared by value
only; ``mode`` runs ``std::sort`` by value and keeps the last index of the longest run;
``kthvalue`` runs ATen's own median-of-three quickselect. None of these is stable, so
with ties the index depends on the algorithms' exact steps. This module re-implements
those steps (libstdc++'s introselect / introsort / heap select, ATen's
``quick_select_template``) on Python lists so the same input gives the same indices.

Rows without ties have only one answer and take numpy's path in the callers; rows
with ties are small in practice, and past :data:`MAX_EMULATED` elements per call the
callers fall back to a stable order (the values stay right, a tied index may differ).
"""

from __future__ import annotations

import math

MAX_EMULATED = 200_000
_THRESHOLD = 16  # libstdc++'s _S_threshold


def _lg(n: int) -> int:
    return n.bit_length() - 1


# -- heap primitives (libstdc++ stl_heap.h) ------------------------------------------------

def _push_heap(a, first, hole, top, value, less):
    parent = (hole - 1) // 2
    while hole > top and less(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    a[first + hole] = value


def _adjust_heap(a, first, hole, length, value, less):
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if less(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if (length & 1) == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    _push_heap(a, first, hole, top, value, less)


def _make_heap(a, first, last, less):
    length = last - first
    if length < 2:
        return
    parent = (length - 2) // 2
    while True:
        _adjust_heap(a, first, parent, length, a[first + parent], less)
        if parent == 0:
            return
        parent -= 1


def _pop_heap(a, first, last, result, less):
    value = a[result]
    a[result] = a[first]
    _adjust_heap(a, first, 0, last - first, value, less)


def _heap_select(a, first, middle, last, less):
    _make_heap(a, first, middle, less)
    for i in range(middle, last):
        if less(a[i], a[first]):
            _pop_heap(a, first, middle, i, less)


def _sort_heap(a, first, last, less):
    while last - first > 1:
        last -= 1
        _pop_heap(a, first, last, last, less)


# -- sorting primitives (libstdc++ stl_algo.h) -----------------------------------------------

def _move_median_to_first(a, result, x, y, z, less):
    if less(a[x], a[y]):
        if less(a[y], a[z]):
            m = y
        elif less(a[x], a[z]):
            m = z
        else:
            m = x
    elif less(a[x], a[z]):
        m = x
    elif less(a[y], a[z]):
        m = z
    else:
        m = y
    a[result], a[m] = a[m], a[result]


def _unguarded_partition(a, first, last, pivot, less):
    while True:
        while less(a[first], a[pivot]):
            first += 1
        last -= 1
        while less(a[pivot], a[last]):
            last -= 1
        if not first < last:
            return first
        a[first], a[last] = a[last], a[first]
        first += 1


def _unguarded_partition_pivot(a, first, last, less):
    mid = first + (last - first) // 2
    _move_median_to_first(a, first, first + 1, mid, last - 1, less)
    return _unguarded_partition(a, first + 1, last, first, less)


def _unguarded_linear_insert(a, last, less):
    val = a[last]
    nxt = last - 1
    while less(val, a[nxt]):
        a[last] = a[nxt]
        last = nxt
        nxt -= 1
    a[last] = val


def _insertion_sort(a, first, last, less):
    if first == last:
        return
    for i in range(first + 1, last):
        if less(a[i], a[first]):
            val = a[i]
            a[first + 1:i + 1] = a[first:i]
            a[first] = val
        else:
            _unguarded_linear_insert(a, i, less)


def _introsort_loop(a, first, last, depth, less):
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_select(a, first, last, last, less)
            _sort_heap(a, first, last, less)
            return
        depth -= 1
        cut = _unguarded_partition_pivot(a, first, last, less)
        _introsort_loop(a, cut, last, depth, less)
        last = cut


def stl_sort(a, first, last, less) -> None:
    """``std::sort(a + first, a + last, less)``."""
    if first == last:
        return
    _introsort_loop(a, first, last, _lg(last - first) * 2, less)
    if last - first > _THRESHOLD:
        _insertion_sort(a, first, first + _THRESHOLD, less)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(a, i, less)
    else:
        _insertion_sort(a, first, last, less)


def stl_nth_element(a, nth, less) -> None:
    """``std::nth_element(a, a + nth, a + len(a), less)``."""
    first, last = 0, len(a)
    if first == last or nth == last:
        return
    depth = _lg(last - first) * 2
    while last - first > 3:
        if depth == 0:
            _heap_select(a, first, nth + 1, last, less)
            a[first], a[nth] = a[nth], a[first]
            return
        depth -= 1
        cut = _unguarded_partition_pivot(a, first, last, less)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(a, first, last, less)


def stl_partial_sort(a, middle, less) -> None:
    """``std::partial_sort(a, a + middle, a + len(a), less)``."""
    _heap_select(a, 0, middle, len(a), less)
    _sort_heap(a, 0, middle, less)


# -- torch's kernels --------------------------------------------------------------------------

def _isnan(v) -> bool:
    return isinstance(v, float) and math.isnan(v)


def _greater(x, y) -> bool:
    return (_isnan(x[0]) and not _isnan(y[0])) or x[0] > y[0]


def _smaller(x, y) -> bool:
    return (not _isnan(x[0]) and _isnan(y[0])) or x[0] < y[0]


def topk_row(values: list, k: int, largest: bool, sorted_: bool) -> list[int]:
    """The indices ``topk`` returns for one row (torch 2.13's topk_impl_loop)."""
    q = [(v, j) for j, v in enumerate(values)]
    less = _greater if largest else _smaller
    if k * 64 <= len(q):
        stl_partial_sort(q, k, less)
    else:
        stl_nth_element(q, k - 1, less)
        if sorted_:
            stl_sort(q, 0, k - 1, less)
    return [j for _, j in q[:k]]


def kthvalue_row(values: list, k: int) -> int:
    """The index ``kthvalue`` returns for one row (ATen's quick_select_template with
    NaN as the largest value)."""
    arr = list(values)
    idx = list(range(len(arr)))

    def gt(x, y):
        return (_isnan(x) and not _isnan(y)) or x > y

    def swap(i, j):
        arr[i], arr[j] = arr[j], arr[i]
        idx[i], idx[j] = idx[j], idx[i]

    k -= 1
    lo, hi = 0, len(arr) - 1
    while True:
        if hi <= lo:
            break
        if hi == lo + 1:
            if gt(arr[lo], arr[hi]):
                swap(lo, hi)
            break
        p = (lo + hi) >> 1
        swap(p, lo + 1)
        if gt(arr[lo + 1], arr[hi]):
            swap(lo + 1, hi)
        if gt(arr[lo], arr[hi]):
            swap(lo, hi)
        if gt(arr[lo + 1], arr[lo]):
            swap(lo + 1, lo)
        i, j = lo + 1, hi
        piv = arr[lo]
        while True:
            i += 1
            while gt(piv, arr[i]):
                i += 1
            j -= 1
            while gt(arr[j], piv):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return idx[k]


def mode_row(values: list) -> tuple:
    """(value, index) ``mode`` returns for one row: ``std::sort`` by value, the longest
    run (the first such run on equal lengths), the index at the end of that run."""
    q = [(v, j) for j, v in enumerate(values)]
    stl_sort(q, 0, len(q), lambda x, y: x[0] < y[0])
    best, best_i, run, freq = None, 0, 0, 0
    for i, (v, j) in enumerate(q):
        run += 1
        if i == len(q) - 1 or v != q[i + 1][0]:
            if run > freq:
                best, best_i, freq = v, j, run
            run = 0
    return best, best_i
