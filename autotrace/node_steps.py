"""The steps the backward engine takes at one node (:mod:`autotrace.engine` runs the pass).

Each as PyTorch's engine does it (torch 2.13, ``torch/csrc/autograd/engine.cpp`` and
``input_buffer.cpp``): tensor pre-hooks and ``retain_grad`` before a node runs, the
node's formula, ``validate_outputs`` (a broadcast gradient summed back to the input's
shape and cast to its dtype), the sum of gradients arriving at one input (fan-in), and
AccumulateGrad by the gradient layout contract.
"""

from __future__ import annotations

import weakref

import numpy as np

from . import grad_mode, record
from .grad_layout import check_contract, first_grad, sum_layout
from .node import SAVED_FREED, Context
from .ops.arith import _exact
from .tensor import Tensor


def _fan_in(contribs):
    """StepRecord.fan_in from ``[(output_nr, from id, gradient)]``: the contributions to
    outputs that received more than one, as ``[(from id, gradient)]``."""
    if len(contribs) < 2:
        return []
    counts = {}
    for nr, _, _ in contribs:
        counts[nr] = counts.get(nr, 0) + 1
    return [(src, g) for nr in sorted(counts) if counts[nr] > 1 for n, src, g in contribs if n == nr]


def _kept(rec, grads):
    """The gradients a step received, as the record keeps them (keep_values)."""
    return [rec.keep(g._data) if g is not None else None for g in grads]


def _add_to(buffers, fn, nr, g):
    slot = buffers.get(fn)
    if slot is None:
        slot = buffers[fn] = [None] * fn.n_outputs
    prev = slot[nr]
    slot[nr] = g if prev is None else _sum(prev, g)


def _sum(prev, g):
    """Two gradients arriving at one input (fan-in): ``prev + g``."""
    if not grad_mode.enabled and prev._dtype is g._dtype and prev._data.shape == g._data.shape \
            and prev.__class__ is Tensor and g.__class__ is Tensor:
        # what ``prev + g`` computes for two tensors of one dtype and shape, without the op's
        # checks (0-dim float32/float64 on Python floats, as ``add`` does: arith._exact)
        a, b = prev._data, g._data
        if a.ndim == 0 and (a.dtype.char == "f" or a.dtype.char == "d"):
            return Tensor._make(_exact(a.item() + b.item(), a, b, np.add), prev._dtype)
        return Tensor._make(np.asarray(a + b), prev._dtype)
    return prev + g


def _pre_hooks(fn, grads):
    hooks = fn.pre_hooks
    if hooks:
        grads = list(grads)
        for nr, hook in list(hooks):
            if nr == -1:
                new = hook(tuple(grads))
                if new is not None:
                    grads = _hook_grads(hook, new, len(grads))
            elif grads[nr] is not None:
                new = hook(grads[nr])
                if new is not None:
                    if not isinstance(new, Tensor):
                        raise TypeError(f"expected Variable, but hook returned '{_type_name(new)}'")
                    if record.wants_events() and fn.rec is not None:
                        record.event("hook", node=fn.rec.id, before=grads[nr]._data.copy(), after=new._data.copy())
                    grads[nr] = new
    retains = fn.retains_grad
    if retains:
        for nr, ref in retains.items():
            t = ref()
            g = grads[nr]
            if t is None or g is None:
                continue
            if t._grad is None:
                t._grad = Tensor._make(g._data.copy()) if not grad_mode.enabled else g.clone()
            else:
                t._grad = sum_layout(t._grad + g, t._grad._data, g._data)
    return grads


def _type_name(v) -> str:
    from .interpreter.values import display_name
    return display_name(v)


def _hook_grads(hook, new, n: int) -> list:
    """The gradients a node hook returned, checked as PyTorch does: a tuple of ``n``
    tensors or Nones (torch 2.13's messages)."""
    if type(new) is not tuple:
        raise TypeError(f"expected tuple, but hook returned '{_type_name(new)}'")
    if len(new) != n:
        name = getattr(getattr(hook, "_code", None), "name", None) or getattr(hook, "__name__", "hook")
        raise RuntimeError(f"hook '{name}' has returned an incorrect number of values "
                           f"(got {len(new)}, but expected {n})")
    for g in new:
        if g is not None and not isinstance(g, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{_type_name(g)}'")
    return list(new)


def _call(fn, grads):
    if fn.saved is None and fn.had_saved:
        raise RuntimeError(SAVED_FREED)
    if fn.n_outputs == 1 and "out_meta" not in fn.attrs:  # multi-output ops take a list
        g = grads[0]
        if g is None:
            return [None] * len(fn.next_functions)
        return list(fn.op.backward(Context(fn), g))
    if all(g is None for g in grads):
        return [None] * len(fn.next_functions)
    return list(fn.op.backward(Context(fn), grads))


def _validated(outs, nexts, in_meta) -> list:
    """``outs`` with each gradient for a next node checked by :func:`_validate`."""
    outs = list(outs)
    for k, ((nxt, _), g, meta) in enumerate(zip(nexts, outs, in_meta)):
        if nxt is not None and g is not None and meta is not None \
                and (g._data.shape != meta[0] or g._dtype is not meta[1]):
            outs[k] = _validate(g, meta)
    return outs


def _validate(g: Tensor, meta):
    """Sum a broadcast gradient back to the input's shape and cast it to its dtype
    (PyTorch's ``validate_outputs``)."""
    if meta is None:
        return g
    shape, dtype = meta
    if g._data.shape != shape:
        from .ops.shape import sum_to
        try:
            g = sum_to(g, shape)
        except Exception:
            raise RuntimeError(
                f"Function backward returned an invalid gradient at index 0 - got "
                f"[{', '.join(map(str, g._data.shape))}] but expected shape compatible with "
                f"[{', '.join(map(str, shape))}]") from None
    if g._dtype is not dtype:
        g = g.to(dtype)
    return g


def _accumulate(fn, g, create_graph, step, rec):
    """AccumulateGrad, as torch 2.13's ``accumulateGrad``: ``leaf.grad = g`` the first time
    (a copy laid out by the gradient layout contract, :func:`.grad_layout.first_grad`), then
    ``leaf.grad += g`` in place (its layout kept) — or ``leaf.grad = leaf.grad + g`` when
    building a graph (create_graph; TensorIterator's layout, :func:`.grad_layout.sum_layout`). A sum that
    leaves ``.grad`` out of the contract warns once, as torch's ``CHECK_RESULT`` does."""
    t = fn.variable
    if t is None or g is None:
        return
    before = t._grad
    if step is not None:
        step.before = rec.keep(before._data) if before is not None else None
    if before is None:
        t._grad = first_grad(g, t, create_graph)
    elif create_graph or grad_mode.enabled:
        t._grad = sum_layout(before + g, before._data, g._data)
        check_contract(t._grad._data, t._data, "sum")
    else:
        np.add(before._data, g._data, out=before._data, casting="unsafe")
        before._version_counter.value += 1
        check_contract(before._data, t._data, "in place")
    if rec is not None and t._grad is not before:
        t._grad._grad_of = weakref.ref(t)
    if step is not None:
        step.after = rec.keep(t._grad._data)
