"""The backward engine: ``Tensor.backward`` and ``torch.autograd.grad``.

Like PyTorch's engine it is iterative (no recursion, so a 100,000-node chain works):

1. From the roots' ``grad_fn``, walk the graph once to count, for every node, how many
   edges lead into it (its dependencies). For ``autograd.grad`` only the nodes from
   which a requested input can be reached are counted and run (torch's exec_info): a root
   none is reached from is not run, so a freed graph no input uses raises nothing.
2. Run ready nodes (all dependencies in) from a priority queue ordered by sequence
   number, newest first; ``AccumulateGrad`` outranks everything (PyTorch's order). When
   every edge leads to an older node (a graph built forward), that order is known in
   advance and the loop takes the nodes sorted instead (``_run_ordered``).
   Gradients arriving at the same input of a node are summed (fan-in).
3. Before a node runs, its tensor pre-hooks (``register_hook``) run, then the
   ``retain_grad`` hooks, so ``.grad`` of a non-leaf sees hook-modified values
   (torch 2.13 ordering).
4. Each node's outputs are checked against its inputs' metadata: a broadcast gradient
   is summed back to the input's shape and cast to its dtype (``validate_outputs``).
5. Without ``retain_graph`` each node frees its saved tensors after it runs; running it
   again raises PyTorch's "backward through the graph a second time" error.
6. AccumulateGrad lays ``.grad`` out by torch's gradient layout contract: a first gradient
   gets the leaf's strides (contiguous for a leaf that is not dense) unless its own already
   obey; later ones are added in place (create_graph: summed as TensorIterator lays out).

Gradient arithmetic runs with grad mode off unless ``create_graph`` is set, in which
case the backward formulas (written with Tensor ops) record a graph of their own.
"""

from __future__ import annotations

import heapq
from collections import deque
from operator import attrgetter

import numpy as np

from . import anomaly as _anomaly, grad_mode, record, site
from .node import AccumulateGrad, SAVED_FREED, Context
from .node_steps import (_accumulate, _add_to, _fan_in, _hook_grads, _kept, _pre_hooks, _sum, _validate,
                         _validated)
from .tensor import Tensor

NO_GRAD_FN = "element {i} of tensors does not require grad and does not have a grad_fn"
SCALAR_ONLY = "grad can be implicitly created only for scalar outputs"
CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and "
    "its gradient which can cause a memory leak. We recommend using autograd.grad when creating the graph "
    "to avoid this. If you have to use this function, make sure to reset the .grad fields of your "
    "parameters to None after use to break the cycle and avoid the leak.")


def _size(shape) -> str:
    return "torch.Size([" + ", ".join(str(s) for s in shape) + "])"


def _make_seeds(outputs, grad_outputs, is_grads_batched=False):
    """PyTorch's ``_make_grads``: ones for scalar outputs, the given gradient (checked for
    shape) otherwise."""
    seeds = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs)):
        if not isinstance(out, Tensor):
            raise AssertionError("Expected output to be a torch.Tensor")
        if g is None:
            if out._requires_grad:
                if out._data.size != 1:
                    raise RuntimeError(SCALAR_ONLY)
                if out._dtype.category != 2:
                    raise RuntimeError(
                        f"grad can be implicitly created only for real scalar outputs but got {out._dtype!r}")
                seeds.append(Tensor._make(np.ones(out._data.shape, dtype=out._data.dtype)))
            else:
                seeds.append(None)
        else:
            if not isinstance(g, Tensor):
                raise TypeError(
                    f"gradients can be either Tensors or None, but got {type(g).__name__}")
            if g._data.shape != out._data.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of {_size(g._data.shape)} and "
                    f"output[{i}] has a shape of {_size(out._data.shape)}.")
            seeds.append(g)
    if len(seeds) != len(outputs):  # zip stopped at the shorter: torch's engine counts
        raise RuntimeError(f"got {len(outputs)} tensors and {len(seeds)} gradients")
    return seeds


def _tensors_tuple(x):
    """torch's ``_tensor_or_tensors_to_tuple``: a Tensor alone, else ``tuple(x)``
    (Python's TypeError for a number: "'int' object is not iterable")."""
    return (x,) if isinstance(x, Tensor) else tuple(x)


def _check_inputs(inputs):
    """The engine's checks of ``inputs`` (torch's run_backward), in its order."""
    for t in inputs:
        if not isinstance(t, Tensor):
            raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}")
        if not t._requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")


def _edges_of_roots(outputs):
    edges = []
    for i, out in enumerate(outputs):
        if out.grad_fn is None and not out._requires_grad:
            raise RuntimeError(NO_GRAD_FN.format(i=i))
        edges.append(out._edge())
    return edges


# Former names. explain.py once wrapped these to learn about calls that fail before the
# engine starts; the engine now records those itself (see _prepare), so they are no
# longer called.
_seed_grads = _make_seeds
_root_edges = _edges_of_roots


def _prepare(kind, outputs, grad_outputs, retain_graph, create_graph):
    """Seeds and root edges; when that fails (non-scalar root, a root without grad_fn, a
    gradient of the wrong shape) the pass is still recorded, with its error."""
    try:
        return _make_seeds(outputs, grad_outputs), _edges_of_roots(outputs)
    except (RuntimeError, TypeError, AssertionError) as exc:
        rec = record.active
        if rec is not None:
            roots = []
            for t in outputs:
                node = t.grad_fn if isinstance(t, Tensor) and t.grad_fn is not None else getattr(t, "_acc", None)
                roots.append(node.rec.id if node is not None and node.rec is not None else None)
            pr = record.PassRecord(len(rec.passes), kind, roots, [None] * len(roots), site.current,
                                   bool(retain_graph), bool(create_graph))
            pr.error = f"{type(exc).__name__}: {exc}"
            rec.passes.append(pr)
        raise


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """``torch.autograd.backward``: accumulate d(tensors)/d(leaf) · grad_tensors into
    every reachable leaf's ``.grad`` (or only ``inputs``'). ``retain_graph`` defaults to
    ``create_graph``."""
    if inputs is not None:
        inputs = _tensors_tuple(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    tensors = _tensors_tuple(tensors)
    if grad_tensors is None:
        grad_tensors = (None,) * len(tensors)
    else:
        grad_tensors = _tensors_tuple(grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    seeds, edges = _prepare("backward", tensors, grad_tensors, retain_graph, create_graph)
    if inputs is not None:
        for t in inputs:
            if not isinstance(t, Tensor):
                raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}")
            if t.grad_fn is not None:
                t.retain_grad()
    if create_graph:
        for t in tensors:
            if t._requires_grad:
                from . import diagnostics
                diagnostics.warn(CREATE_GRAPH_WARNING)
                break
    _run(edges, seeds, retain_graph, create_graph, tensors, capture_inputs=inputs, accumulate=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """``torch.autograd.grad``: the gradients of ``outputs`` w.r.t. ``inputs`` as a tuple,
    without touching ``.grad``. An input no path reaches raises PyTorch's error unless
    ``allow_unused`` (then None, or zeros with ``materialize_grads``)."""
    if allow_unused is None:
        allow_unused = materialize_grads
    outputs = _tensors_tuple(outputs)
    inputs = _tensors_tuple(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    else:
        grad_outputs = _tensors_tuple(grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    seeds, edges = _prepare("grad", outputs, grad_outputs, retain_graph, create_graph)
    _check_inputs(inputs)
    results = _run(edges, seeds, retain_graph, create_graph, outputs, capture_inputs=inputs, accumulate=False)
    out = []
    for i, (t, g) in enumerate(zip(inputs, results)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
                    "Set allow_unused=True if this is the desired behavior.")
            if materialize_grads:
                g = Tensor._make(np.zeros_like(t._data))
        out.append(g)
    return tuple(out)


def _capture_key(t: Tensor):
    """The (node, output_nr) at which the gradient of input ``t`` is read."""
    if t.grad_fn is not None:
        return (t.grad_fn, t._output_nr)
    return (t._grad_accumulator(), 0)


def _run(edges, seeds, retain_graph, create_graph, roots, capture_inputs=None, accumulate=True):
    rec = record.active
    prev_mode = grad_mode.enabled
    pass_rec = None
    if rec is not None:
        pass_rec = record.PassRecord(
            len(rec.passes), "backward" if accumulate else "grad",
            [e[0].rec.id if e[0] is not None and e[0].rec is not None else None for e in edges],
            [rec.keep(s._data) if s is not None else None for s in seeds],
            site.current, bool(retain_graph), bool(create_graph),
            inputs=tuple(capture_inputs and [(_capture_key(t)[0].rec.id if _capture_key(t)[0].rec else None) for t in capture_inputs] or ()))
        rec.passes.append(pass_rec)

    captures = None
    targets = None
    if capture_inputs is not None:
        captures = {}
        targets = {}
        for i, t in enumerate(capture_inputs):
            key = _capture_key(t)
            targets.setdefault(key[0], []).append((key[1], i))

    # 1. dependencies (only along edges out of nodes that will run); roots start at 0
    roots_nodes = [fn for fn, _ in edges if fn is not None]
    needed = _needed(roots_nodes, targets) if targets is not None else None
    unique_roots = list(dict.fromkeys(roots_nodes))  # two roots may share a node (outputs of one split)
    deps = dict.fromkeys(unique_roots, 0)
    stack = list(unique_roots)
    # ``newer``: every edge leads to an older node (a lower sequence number) or to an
    # AccumulateGrad, as in any graph built forward: then every node runs, and the queue's
    # order is known in advance (see the loop below)
    newer = False
    while stack:
        fn = stack.pop()
        if targets is not None and fn in targets and not accumulate and fn.__class__ is AccumulateGrad:
            continue
        seq = fn.seq
        for nxt, _ in fn.next_functions:
            if nxt is None or (needed is not None and nxt not in needed):
                continue
            if nxt.seq >= seq and nxt.__class__ is not AccumulateGrad:
                newer = True
            c = deps.get(nxt)
            if c is None:
                deps[nxt] = 1
                stack.append(nxt)
            else:
                deps[nxt] = c + 1

    # 2. seed the input buffers
    buffers: dict = {}
    keep = pass_rec is not None and rec.keep_values
    fanin = {} if keep else None
    for (fn, nr), g in zip(edges, seeds):
        if fn is None or g is None:
            continue
        _add_to(buffers, fn, nr, g)
        if fanin is not None:
            fanin.setdefault(fn, []).append((nr, None, rec.keep(g._data)))
    ready = []
    counter = 0
    # values recorded (explain) or only some nodes run (autograd.grad): the queue's loop,
    # with a step record per node; else _run_ordered, or the queue for a graph it cannot order
    general = keep or needed is not None
    # The queue pops the ready node of the highest sequence number, AccumulateGrad first
    # (first come, first served among them). When every edge leads to an older node or an
    # AccumulateGrad, the newest node not yet run is always ready (whatever feeds it is
    # newer, so it ran), and every counted node runs: the order is the nodes by descending
    # sequence number, with each AccumulateGrad run as soon as its last input is in. Only
    # AccumulateGrad's dependencies are then counted down (``order``/``acc_ready``).
    order = acc_ready = None
    if not general and not newer:
        order = sorted([fn for fn in deps if fn.__class__ is not AccumulateGrad], key=_seq)  # popped from the end
        acc_ready = deque([fn for fn in unique_roots if fn.__class__ is AccumulateGrad and deps[fn] == 0])
    else:
        # torch's engine runs only the nodes an input is reached from (exec_info): with one
        # root edge the root is the graph root, reached but not run (its tensor pre-hooks do
        # run, as below); with several, GraphRoot passes nothing to a root no input is reached from
        one_root = len(edges) == 1
        for fn in unique_roots:
            if deps[fn] == 0 and (needed is None or one_root or fn in needed):
                heapq.heappush(ready, (-fn.seq, counter, fn))
                counter += 1

    grad_mode.enabled = bool(create_graph)
    heappop, step_record = heapq.heappop, record.StepRecord
    # steps without values are all alike (no gradients kept): the loop lists the nodes it
    # runs, kept compactly when the pass ends (_bare_steps)
    add_step = ran = None
    if pass_rec is not None:
        if general:
            add_step = pass_rec.steps.append
        else:
            ran = []
    step = None
    # one Context for the pass, pointed at each node in turn (a formula reads it while it
    # runs; a nested pass, from a hook or a custom Function, has its own)
    ctx = Context(None)
    fn = None
    try:
        if order is not None:
            _run_ordered(order, acc_ready, deps, buffers, ran, ctx, retain_graph, create_graph, rec)
        while order is None and ready:
            fn = heappop(ready)[2]
            # the last node's gradients go now, not when rebound below: they would be alive
            # during this node's backward (one more gradient-sized array at the peak)
            outs = g = None
            grads = _waiting(fn, buffers)
            if needed is not None and fn not in needed:
                continue  # the one root, no input reached from it: not run (no freed-graph error)
            if ran is not None:
                ran.append(fn)
            elif add_step is not None:
                r = fn.rec
                if keep:
                    step = step_record(r.id if r is not None else None, _kept(rec, grads), [])
                    step.fan_in = _fan_in(fanin.pop(fn, ()))
                else:
                    step = step_record(r.id if r is not None else None, [None] * len(grads), [])
                add_step(step)
            if targets is not None and fn in targets:
                for nr, i in targets[fn]:
                    captures[i] = grads[nr]
                if fn.__class__ is AccumulateGrad:
                    if accumulate:
                        _accumulate(fn, grads[0], create_graph, step, rec)
                    continue
                if needed is not None and not any(n in needed for n, _ in fn.next_functions if n is not None):
                    continue
            if fn.__class__ is AccumulateGrad:
                if accumulate:
                    _accumulate(fn, grads[0], create_graph, step, rec)
                continue
            outs, raw = _apply(fn, grads, ctx, retain_graph)
            if ran is not None and len(outs) != len(fn.next_functions):
                ran[-1] = (fn, min(len(outs), len(fn.next_functions), len(fn.in_meta)))
            counter = _edges_general(fn, outs, step, buffers, deps, ready, counter, needed, fanin, rec, raw)
    except Exception as exc:
        if pass_rec is not None:
            pass_rec.error = f"{type(exc).__name__}: {exc}"
            if ran and ran[-1] is fn:
                ran[-1] = (fn, 0)  # the node that raised passed nothing on
        raise
    finally:
        grad_mode.enabled = prev_mode
        if ran:
            pass_rec.steps = _bare_steps(ran)
        if pass_rec is not None and rec.folder is not None:
            rec.folder.pass_done(rec)
    if captures is not None:
        return [captures.get(i) for i in range(len(capture_inputs))]
    return None


def _run_ordered(order, acc_ready, deps, buffers, ran, ctx, retain_graph, create_graph, rec):
    """:func:`_run`'s loop when the order is known in advance (every edge leads to an older
    node or an AccumulateGrad; ``backward()`` without recording values): the nodes of
    ``order`` from its end, each AccumulateGrad of ``acc_ready`` first as soon as its last
    input is in (``deps`` counts down only theirs). The same steps as the general loop,
    without its queue and its checks for ``autograd.grad``. ``ctx``: the pass's Context."""
    add_ran = ran.append if ran is not None else None
    pop, pop_acc = order.pop, acc_ready.popleft
    fn = None
    try:
        while True:
            if acc_ready:
                fn = pop_acc()
                grads = _waiting(fn, buffers)
                if add_ran is not None:
                    add_ran(fn)
                _accumulate(fn, grads[0], create_graph, None, rec)
                continue
            if not order:
                return
            fn = pop()
            # the last node's gradients go now (one gradient-sized array less at the peak)
            outs = g = None
            if add_ran is not None:
                add_ran(fn)
            slot = buffers.get(fn)
            if slot is not None and slot[0] is not None and fn.n_outputs == 1 and not (
                    fn.pre_hooks or fn.retains_grad or fn.post_hooks or _anomaly.enabled) \
                    and "out_meta" not in fn.attrs:
                # the usual node: one output, a gradient for it, no hooks: _apply's steps
                # that apply (the formula, the release) without its calls and checks
                del buffers[fn]
                if fn.saved is None and fn.had_saved:
                    raise RuntimeError(SAVED_FREED)
                ctx.node = fn
                outs = fn.op.backward(ctx, slot[0])
                slot = None
                if outs.__class__ is not tuple and outs.__class__ is not list:
                    outs = list(outs)
                if not retain_graph and fn.had_saved:
                    fn.saved = None  # Node.release
            else:
                slot = None
                outs = _apply(fn, _waiting(fn, buffers), ctx, retain_graph)[0]
            nexts = fn.next_functions
            if add_ran is not None and len(outs) != len(nexts):
                ran[-1] = (fn, min(len(outs), len(nexts), len(fn.in_meta)))
            for (nxt, nr), g, meta in zip(nexts, outs, fn.in_meta):
                if nxt is None:
                    continue
                if g is not None:
                    if meta is not None and (g._data.shape != meta[0] or g._dtype is not meta[1]):
                        g = _validate(g, meta)
                    slot = buffers.get(nxt)
                    if slot is None:
                        if nxt.n_outputs == 1:
                            buffers[nxt] = [g]
                        else:
                            slot = buffers[nxt] = [None] * nxt.n_outputs
                            slot[nr] = g
                    else:
                        prev = slot[nr]
                        slot[nr] = g if prev is None else _sum(prev, g)
                if nxt.__class__ is AccumulateGrad:
                    left = deps[nxt] - 1
                    deps[nxt] = left
                    if left == 0:
                        acc_ready.append(nxt)
    except Exception:
        if ran and ran[-1] is fn:
            ran[-1] = (fn, 0)  # the node that raised passed nothing on
        raise


def _waiting(fn, buffers) -> list:
    """The gradients that came for node ``fn`` (None for an output none came to), taken
    out of ``buffers``, after its tensor pre-hooks and ``retain_grad`` hooks ran."""
    grads = buffers.pop(fn, None)
    if grads is None:
        grads = [None] * fn.n_outputs
    if fn.pre_hooks or fn.retains_grad:
        grads = _pre_hooks(fn, grads)
    return grads


def _apply(fn, grads, ctx, retain_graph):
    """Run node ``fn`` on its gradients ``grads`` (PyTorch's ``call_function`` and
    ``evaluate_function``): the formula, then — with post hooks or anomaly mode's nan
    check — the outputs checked against the inputs' metadata (``validate_outputs``), the
    post hooks, the node released (no ``retain_graph``), and the nan check, in torch's
    order. Returns ``(outputs, the formula's own outputs)``."""
    if fn.saved is None and fn.had_saved:
        raise RuntimeError(SAVED_FREED)
    ctx.node = fn
    if fn.n_outputs == 1 and "out_meta" not in fn.attrs:  # multi-output ops take a list
        g = grads[0]
        outs = [None] * len(fn.next_functions) if g is None else fn.op.backward(ctx, g)
    elif all(g is None for g in grads):
        outs = [None] * len(fn.next_functions)
    else:
        outs = fn.op.backward(ctx, grads)
    if outs.__class__ is not tuple and outs.__class__ is not list:
        outs = list(outs)
    raw = outs
    nan_check = _anomaly.enabled and _anomaly.check_nan
    if fn.post_hooks or nan_check:
        outs = _validated(outs, fn.next_functions, fn.in_meta)
        if fn.post_hooks:
            for hook in list(fn.post_hooks):
                new = hook(tuple(outs), tuple(grads))
                if new is not None:
                    outs = _hook_grads(hook, new, len(outs))
    if not retain_graph and fn.had_saved:
        fn.saved = None  # Node.release
    if nan_check:
        _anomaly.check_outputs(fn, outs)
    return outs, raw


_rec_id = attrgetter("rid")
_seq = attrgetter("seq")
_n_outputs = attrgetter("n_outputs")
_next_functions = attrgetter("next_functions")


def _bare_steps(ran):
    """The steps of a pass without values (:class:`record.BareSteps`) from ``ran``, the
    nodes it ran in order: per node its record id, outputs and edges (AccumulateGrad has
    none); ``(node, count)`` in ``ran`` gives another count of edges."""
    try:  # the usual case, each column in one C-level pass
        return record.BareSteps(list(map(_rec_id, ran)), list(map(_n_outputs, ran)),
                                list(map(len, map(_next_functions, ran))))
    except AttributeError:  # a (node, count) pair
        pass
    nodes, outs, edges = [], [], []
    for fn in ran:
        if fn.__class__ is tuple:
            fn, n = fn
        else:
            n = len(fn.next_functions)
        nodes.append(fn.rid)
        outs.append(fn.n_outputs)
        edges.append(n)
    return record.BareSteps(nodes, outs, edges)


def _edges_general(fn, outs, step, buffers, deps, ready, counter, needed, fanin, rec, raw):
    """The queue's loop: pass a node's gradients on along its edges, recording what each
    edge carries (``keep_values``) and skipping the nodes ``autograd.grad`` does not run
    (not in ``needed``); a node whose last input is in joins the queue. ``raw``: the
    outputs as the formula returned them (before a broadcast sum-back, which the record
    shows). Returns the queue's next counter."""
    keep = fanin is not None
    for (nxt, nr), g, meta, g0 in zip(fn.next_functions, outs, fn.in_meta, raw):
        skip = nxt is None or (needed is not None and nxt not in needed)
        if g is not None and not skip:
            if g0 is None or g0._data.shape == g._data.shape:
                g0 = g
            if meta is not None and (g._data.shape != meta[0] or g._dtype is not meta[1]):
                g = _validate(g, meta)
            if keep and g is not g0 and g0._data.shape != g._data.shape:
                # the broadcast sum-back (validate_outputs' sum_to): the record keeps what
                # the input receives, and the op's own output before the sum
                if step.sum_back is None:
                    step.sum_back = {}
                step.sum_back[len(step.grads_out)] = rec.keep(g0._data)
        if step is not None:
            step.grads_out.append(rec.keep(g._data) if keep and g is not None and nxt is not None else None)
        if skip:
            continue
        if g is not None:
            _add_to(buffers, nxt, nr, g)
            if keep:
                fanin.setdefault(nxt, []).append(
                    (nr, fn.rec.id if fn.rec is not None else None, rec.keep(g._data)))
        left = deps[nxt] - 1
        deps[nxt] = left
        if left == 0:
            heapq.heappush(ready, (-nxt.seq, counter, nxt))
            counter += 1
    return counter


def _needed(roots, targets):
    """Nodes from which some target node can be reached (targets included), found
    without recursion by a post-order walk."""
    needed = set()
    state = {}
    stack = [(fn, False) for fn in roots]
    while stack:
        fn, done = stack.pop()
        if done:
            if fn in targets or any(n in needed for n, _ in fn.next_functions if n is not None):
                needed.add(fn)
            continue
        if fn in state:
            continue
        state[fn] = True
        stack.append((fn, True))
        for nxt, _ in fn.next_functions:
            if nxt is not None and nxt not in state:
                stack.append((nxt, False))
    # a node reachable only through nodes visited earlier is resolved by a fixed point
    changed = True
    while changed:
        changed = False
        for fn in state:
            if fn not in needed and any(n in needed for n, _ in fn.next_functions if n is not None):
                needed.add(fn)
                changed = True
    return needed
