"""What the engine reports while a script runs, kept for the trace record.

A :class:`Recorder` is active during a run (``active``); the engine appends one
:class:`NodeRecord` per graph node it creates and one :class:`PassRecord` per backward
pass. Records hold ids, names, shapes and sites — never the live graph — so keeping them
does not keep graphs alive. With ``keep_values`` (explain, graph ``--values``) they also
keep the numbers: node outputs and every gradient the engine passes.
"""

from __future__ import annotations

from math import copysign as _copysign
from types import MappingProxyType

import numpy as np

from . import site as _site
from .dtypes import DType

#: ``NodeRecord.attrs``/``scalars`` of a record that has none: one shared read-only
#: mapping instead of two empty dicts per node (a record gets its own dict when it has entries)
EMPTY = MappingProxyType({})


class NodeRecord:
    """One graph node (a ``grad_fn`` or an ``AccumulateGrad``) as created.

    ``inputs`` are the node's ``next_functions`` as ``(node id | None, output index)``;
    ``line``/``col``/``text``/``statement`` locate the forward expression in the script
    (read from ``site``, the :class:`autotrace.site.Site` it was made at, or None);
    ``var_name`` is the script variable last bound to the node's output (or, for
    ``AccumulateGrad``, to its leaf); ``shape``/``dtype`` describe the output (the leaf).

    ``attrs`` holds the node's non-tensor attributes as plain data (``exponent``,
    ``alpha``, ``dim``, ``keepdim``, ``min``/``max``, ``p``, sizes ...: numbers, bools,
    strings, None and tuples of those; arrays and objects are left out). ``scalars``
    maps an input name to the value of a Python number the script passed for it (the 3
    in ``x * 3``). Both are read-only empty mappings (:data:`EMPTY`) when there is
    nothing to hold; assign a new dict rather than mutating them. For ``AccumulateGrad``, ``leaf_value`` is a copy of the leaf's value
    when the node was created (only with ``keep_values``).
    """

    __slots__ = ("id", "name", "inputs", "site", "shape", "dtype",
                 "var_name", "leaf_value", "leaf_grad", "value", "saved", "is_leaf", "op",
                 "attrs", "scalars")

    def __init__(self, id, name, inputs, site, shape, dtype, op=None, is_leaf=False):
        self.id = id
        self.name = name
        self.inputs = inputs
        self.site = site  # (a Site: line, col, text and statement read from it)
        self.shape = shape
        self.dtype = dtype
        self.var_name = None
        self.value = None
        self.leaf_value = None
        self.leaf_grad = None
        self.saved = ()
        self.is_leaf = is_leaf
        self.op = op
        self.attrs = EMPTY
        self.scalars = EMPTY

    def _site_field(name):
        def get(self):
            s = self.site
            return getattr(s, name) if s is not None else None

        def set_(self, value):  # a record built by hand (tests): a new Site with that field
            s = self.site or _site.Site(None, None, None, None, None, None)
            fields = {f: getattr(s, f) for f in _site.Site.__slots__}
            fields[name] = value
            self.site = _site.Site(**fields)
        return property(get, set_, doc=f"The site's ``{name}`` (None without a site).")

    line = _site_field("line")
    col = _site_field("col")
    text = _site_field("text")
    statement = _site_field("statement")
    del _site_field


_new = object.__new__
_OTHER = ("other",)


class StepRecord:
    """One node executed by a backward pass: the gradient it received per output
    (``grad_in``), what it passed on per input edge (``grads_out``, None where no input
    needs it), and for ``AccumulateGrad`` the leaf's ``.grad`` before and after.

    ``fan_in`` (only with ``keep_values``; else None): when the node received gradients
    along several edges that were summed, the contributions in arrival order as
    ``(from node id, gradient)`` — ``from`` is None for the seed of a root. For a node with
    several outputs, only outputs that received more than one contribution are listed
    (in output order).

    ``sum_back`` (only with ``keep_values``; else None): ``{edge index: gradient}`` for the
    edges whose gradient the engine summed back to the input's shape (the input was
    broadcast in the forward pass): the op's own output before that sum. ``grads_out``
    holds what the input receives, in the input's shape."""

    __slots__ = ("node", "grad_in", "grads_out", "before", "after", "fan_in", "sum_back")

    def __init__(self, node, grad_in, grads_out, before=None, after=None, fan_in=None):
        self.sum_back = None
        self.node = node
        self.grad_in = grad_in
        self.grads_out = grads_out
        self.before = before
        self.after = after
        self.fan_in = fan_in


class BareSteps:
    """``PassRecord.steps`` of a pass that kept no values (every gradient None): per node
    run, its record id (``nodes``) and its number of outputs and of edges; the
    :class:`StepRecord` of a step is built when it is read. A training loop keeps one of
    these per pass, three small lists instead of a record per node."""

    __slots__ = ("nodes", "outs", "edges")

    def __init__(self, nodes: list, outs: list, edges: list):
        self.nodes, self.outs, self.edges = nodes, outs, edges

    def __len__(self) -> int:
        return len(self.nodes)

    def __bool__(self) -> bool:
        return bool(self.nodes)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self.nodes)))]
        return StepRecord(self.nodes[i], [None] * self.outs[i], [None] * self.edges[i])

    def __iter__(self):
        for node, n_out, n_edges in zip(self.nodes, self.outs, self.edges):
            yield StepRecord(node, [None] * n_out, [None] * n_edges)

    def append(self, step):  # pragma: no cover - the pass is finished
        raise RuntimeError("a finished pass record takes no new steps")


class PassRecord:
    """One ``backward()`` or ``torch.autograd.grad`` call. ``error`` is
    ``"Type: message"`` when the call raised — also when it failed before the engine
    started (non-scalar root without ``gradient=``, a root without grad_fn, a gradient of
    the wrong shape): then ``steps`` is empty and ``seed`` holds None per root."""

    __slots__ = ("index", "kind", "roots", "seed", "line", "text", "retain_graph",
                 "create_graph", "steps", "error", "inputs")

    def __init__(self, index, kind, roots, seed, site, retain_graph, create_graph, inputs=()):
        self.index = index
        self.kind = kind
        self.roots = roots
        self.seed = seed
        self.line = site.line if site is not None else None
        self.text = site.statement if site is not None else None
        self.retain_graph = retain_graph
        self.create_graph = create_graph
        self.steps = []
        self.error = None
        self.inputs = inputs


def snapshot(array, limit: int):
    """A private copy of ``array`` when it has at most ``limit`` elements, else None."""
    if array is None:
        return None
    if array.size <= limit:
        return np.array(array, copy=True)
    return None


class GradEvent:
    """A script reset a leaf's ``.grad``: ``kind`` is ``"zero"`` (``x.grad.zero_()``,
    ``zero_grad(set_to_none=False)``) or ``"none"`` (``x.grad = None``, ``zero_grad()``).
    ``node`` is the id of the leaf's AccumulateGrad record (None when the leaf never
    entered a graph), ``name`` the script variable bound to the leaf (or None), ``line``
    the script line."""

    __slots__ = ("node", "name", "kind", "line", "after_pass")

    def __init__(self, node, name, kind, line, after_pass=0):
        self.node = node
        self.name = name
        self.kind = kind
        self.line = line
        self.after_pass = after_pass    # how many backward passes had run

    def __repr__(self) -> str:
        return f"GradEvent(node={self.node!r}, name={self.name!r}, kind={self.kind!r}, line={self.line!r})"


class ModuleCall:
    """One call of an ``nn.Module``: the graph nodes with ids in ``[start, end)`` were
    created while it ran (calls nest: an inner call's range lies inside its caller's).
    ``module`` numbers the module instance (the same for every call of one module),
    ``cls`` is its class name, ``parent`` the index of the enclosing call (or None),
    ``line`` the script line of the call. ``path`` is the name the script's variables
    reach the module by (``model``, ``model.0``, ``model.fc1``), filled in when the run
    ends; None for a module no variable reaches."""

    __slots__ = ("index", "module", "cls", "start", "end", "parent", "line", "path", "depth")

    def __init__(self, index, module, cls, start, parent, line):
        self.index = index
        self.module = module
        self.cls = cls
        self.start = start
        self.end = start
        self.parent = parent
        self.line = line
        self.path = None
        self.depth = 1          # 1 for a call the script made, 2 for a call inside that one, ...

    def __repr__(self) -> str:
        return f"ModuleCall({self.index}, {self.path or self.cls!r}, nodes {self.start}..{self.end})"


class Recorder:
    def __init__(self, keep_values: bool = False, value_limit: int = 100_000):
        self.keep_values = keep_values
        self.value_limit = value_limit
        if keep_values:
            self.nodes: list[NodeRecord] = []
            self.folder = None
        else:  # records without values: repeated loop steps are folded (autotrace.folding)
            from .folding import Folder, NodeList

            self.nodes = NodeList()
            self.folder = Folder()
        #: the list behind ``nodes`` that new records are appended to (the engine's fast path)
        self.node_items: list = self.nodes if keep_values else self.nodes._items
        self.passes: list[PassRecord] = []
        self.grad_events: list[GradEvent] = []
        self.module_calls: list[ModuleCall] = []
        self._call_stack: list[ModuleCall] = []
        self._module_ids: dict[int, int] = {}
        self._modules: list = []           # kept alive while recording, so ids stay unique
        self.events: list[Event] = []
        self._interned: dict = {}
        self._mappings: dict = {}
        self._attr_cache: dict = {}
        self._scalar_cache: dict = {}
        #: what fixed_attrs remembers, by save_other then id(attrs): (mapping, attrs) (the op
        #: fast paths read it inline)
        self.fixed_attrs_cache = ({}, {})

    def add_node(self, op, inputs, shape, dtype, saved=(), attrs=EMPTY):
        """Append the :class:`NodeRecord` of a node just made at ``site.current`` and return
        it: ``saved`` the (interned) names of its saved tensors, ``attrs`` its
        :meth:`node_attrs`; the other fields are NodeRecord's defaults."""
        items = self.node_items
        r = _new(NodeRecord)
        r.id = len(items)
        r.name = op.node
        r.inputs = inputs
        r.site = _site.current
        r.shape = shape
        r.dtype = dtype
        r.var_name = r.value = r.leaf_value = r.leaf_grad = None
        r.saved = saved
        r.is_leaf = False
        r.op = op
        r.attrs = attrs
        r.scalars = EMPTY
        items.append(r)
        return r

    def intern(self, value):
        """One shared copy of an equal tuple of names (records are read-only)."""
        return self._interned.setdefault(value, value)

    def intern_mapping(self, mapping: dict):
        """A read-only mapping equal to ``mapping`` (plain data), shared by every record
        with the same entries: most nodes of a loop carry identical attrs (``alpha=1``).
        Values compare by type too (1, 1.0 and True are different attrs)."""
        try:
            key = tuple([(k, _NEG_ZERO if v.__class__ is float and v == 0.0 and _copysign(1.0, v) < 0
                          else v.__class__, v) for k, v in mapping.items()])
            shared = self._mappings.get(key)
        except TypeError:  # an unhashable value
            return MappingProxyType(mapping)
        if shared is None:
            if any(v.__class__ is tuple for _, _, v in key):  # (1, 2) == (1.0, 2.0): not shared
                return MappingProxyType(mapping)
            shared = self._mappings[key] = MappingProxyType(mapping)
        return shared

    def node_attrs(self, attrs, saved, saved_names):
        """``NodeRecord.attrs`` of a node: ``intern_mapping(plain_attrs(...))`` (or
        :data:`EMPTY`), remembered by the entries' keys, types and values when they are all
        numbers, bools, strings or None — the usual case, so a loop's nodes skip the work."""
        key = [(k, v.__class__, v) for k, v in attrs.items()] if attrs else []
        if saved:
            key += [(k, v.__class__, v) for k, v in saved.items() if k not in saved_names]
        for n, (k, c, v) in enumerate(key):
            if c is float:
                if v == 0.0 and _copysign(1.0, v) < 0:
                    key[n] = (k, _NEG_ZERO, v)    # -0.0 == 0.0, but it is another attr
            elif c not in _SIMPLE:
                if c is tuple and all(e.__class__ is int for e in v):
                    key[n] = (k, _INTS, v)  # sizes: (1, 2) is not (1.0, 2.0), so such keys stay apart
                else:
                    key = None
                    break
        if key is not None:
            key = tuple(key)
            hit = self._attr_cache.get(key)
            if hit is not None:
                return hit
        plain = plain_attrs(attrs, saved, saved_names)
        mapping = self.intern_mapping(plain) if plain else EMPTY
        if key is not None:
            self._attr_cache[key] = mapping
        return mapping

    def fixed_attrs(self, attrs, save_other: bool = False):
        """:meth:`node_attrs` of a node whose ``attrs`` is None or a read-only mapping that
        lives as long as the process (``{"alpha": 1}`` of add and sub) and which saves
        nothing but tensors, or with ``save_other`` saves ``{"self": None, "other":
        <number>}`` (as ``make_number`` does; ``self`` is then an attr). Remembered per
        (``attrs`` object, ``save_other``)."""
        cache = self.fixed_attrs_cache[save_other]
        hit = cache.get(id(attrs))
        if hit is None:
            saved = {"self": None, "other": None} if save_other else None
            mapping = self.node_attrs(attrs or EMPTY, saved, _OTHER if save_other else ())
            hit = cache[id(attrs)] = (mapping, attrs)  # attrs kept: its id stays its own
        return hit[0]

    def node_scalars(self, scalars: dict):
        """``NodeRecord.scalars``: the Python numbers a node's op was given, as one shared
        read-only mapping per distinct set (:meth:`intern_mapping`; a loop's ``x * 2`` nodes
        share one)."""
        return self.intern_mapping(scalars)

    def node_scalar(self, name: str, value):
        """:meth:`node_scalars` of ``{name: value}``, remembered per ``(name, type, value)``
        (a loop's ``x * 2`` asks for the same one every time)."""
        if value == 0 or value != value:      # -0.0 == 0.0 and nan != nan: not keys
            return self.intern_mapping({name: value})
        key = (name, value.__class__, value)
        hit = self._scalar_cache.get(key)
        if hit is None:
            if len(self._scalar_cache) >= SHARED_SCALARS:
                # a number that changes with the loop counter (``x * i``) shares with nothing:
                # past this many distinct ones, each gets its own mapping, not a cache entry
                return MappingProxyType({name: value}) if key[1] in _NUMBERS else self.intern_mapping({name: value})
            if key[1] in _NUMBERS:  # intern_mapping's key for {name: value}, built directly
                hit = self._mappings.get((key,))
                if hit is None:
                    hit = self._mappings[(key,)] = MappingProxyType({name: value})
            else:
                hit = self.intern_mapping({name: value})
            self._scalar_cache[key] = hit
        return hit

    def keep(self, array):
        return snapshot(array, self.value_limit) if self.keep_values else None


_NUMBERS = (int, float, bool)
#: distinct Python numbers whose ``scalars`` mapping :meth:`Recorder.node_scalar` shares
SHARED_SCALARS = 4096
active: Recorder | None = None


def enter_module(module):
    """``Module.__call__`` is starting ``module``'s forward: returns the call's record (or
    None when nothing is recorded), to hand to :func:`exit_module` when it returns."""
    rec = active
    if rec is None:
        return None
    from . import site

    key = rec._module_ids.get(id(module))
    if key is None:
        key = rec._module_ids[id(module)] = len(rec._modules)
        rec._modules.append(module)
    parent = rec._call_stack[-1] if rec._call_stack else None
    here = site.current
    from .torch_api.module import module_name
    call = ModuleCall(len(rec.module_calls), key, module_name(module), len(rec.nodes),
                      parent.index if parent is not None else None,
                      here.line if here is not None else None)
    if parent is not None:
        call.depth = parent.depth + 1
    rec.module_calls.append(call)
    rec._call_stack.append(call)
    return call


def exit_module(call) -> None:
    rec = active
    if call is None or rec is None:
        return
    call.end = len(rec.nodes)
    while rec._call_stack and rec._call_stack.pop() is not call:
        pass


def name_modules(rec: Recorder, variables: dict) -> list:
    """Give each recorded module call its path from the script's variables (``model.0``:
    the first variable, in binding order, whose submodules reach it) and release the
    modules. Returns ``rec.module_calls``."""
    from .torch_api.nn import Module

    paths: dict[int, str] = {}
    for name, value in variables.items() if rec._modules else ():
        if isinstance(value, (list, tuple)):
            # modules kept in a Python list: layers[0], layers[1], ...
            stack = [(f"{name}[{i}]", m) for i, m in enumerate(value) if isinstance(m, Module)][::-1]
        elif isinstance(value, Module):
            stack = [(name, value)]
        else:
            continue
        while stack:
            path, m = stack.pop()
            k = rec._module_ids.get(id(m))
            if k is not None and k not in paths:
                paths[k] = path
            children = getattr(m, "_modules", None) or {}
            stack.extend((f"{path}.{n}", c) for n, c in reversed(list(children.items()))
                         if isinstance(c, Module))
    for call in rec.module_calls:
        call.path = paths.get(call.module)
    rec._modules = []
    rec._module_ids = {}
    return rec.module_calls


def grad_event(leaf, kind: str) -> None:
    """Record that ``leaf.grad`` was reset (``kind`` "zero" or "none"); callers check
    ``active`` first so nothing runs when no recorder is active."""
    rec = active
    if rec is None:
        return
    acc = leaf._acc
    node = acc.rec.id if acc is not None and acc.rec is not None else None
    here = _site.current
    rec.grad_events.append(GradEvent(node, leaf._name, kind, here.line if here is not None else None,
                                     len(rec.passes)))
    if rec.keep_values:  # (event's own check, without building its keyword arguments)
        event("grad_reset", node=node, name=leaf._name, how=kind)


class Event:
    """Something the script did that changes a gradient or a parameter outside a backward
    pass, for explain's timeline: ``kind`` is ``"optimizer_step"``, ``"clip_grad_norm"``,
    ``"clip_grad_value"``, ``"no_grad"``, ``"hook"`` or ``"warning"``; ``line`` the script
    line; ``after_pass`` how many backward passes had run; ``data`` plain values and small
    array copies (see the recording sites: torch_api/optim.py, torch_api/nn.py,
    grad_mode.py, engine.py, diagnostics.py)."""

    __slots__ = ("kind", "line", "after_pass", "data")

    def __init__(self, kind, line, after_pass, data):
        self.kind = kind
        self.line = line
        self.after_pass = after_pass
        self.data = data

    def __repr__(self) -> str:
        return f"Event({self.kind!r}, line={self.line!r}, after_pass={self.after_pass!r})"


def event(kind: str, **data) -> None:
    """Record an :class:`Event` (only when a recorder keeps values: explain)."""
    rec = active
    if rec is None or not rec.keep_values:
        return
    from . import site

    here = site.current
    rec.events.append(Event(kind, here.line if here is not None else None, len(rec.passes), data))


def leaf_ref(t) -> dict:
    """How an event names a leaf tensor: its AccumulateGrad record id and first name."""
    acc = t._acc
    return {"node": acc.rec.id if acc is not None and acc.rec is not None else None, "name": t._name}


def wants_events() -> bool:
    rec = active
    return rec is not None and rec.keep_values


_PLAIN = (int, float, bool, str, type(None))
_SIMPLE = frozenset(_PLAIN)
_INTS = object()  # node_attrs' key type of a tuple of ints
_NEG_ZERO = object()  # the key type of -0.0, which equals 0.0 but is another value


def plain(value):
    """``value`` as plain data (numbers, bools, strings, None, tuples of those), or the
    marker :data:`NOT_PLAIN`."""
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (tuple, list)):
        out = []
        for v in value:
            v = plain(v)
            if v is NOT_PLAIN:
                return NOT_PLAIN
            out.append(v)
        return tuple(out)
    if isinstance(value, DType):
        return value.name
    return NOT_PLAIN


NOT_PLAIN = object()


def plain_attrs(attrs, saved=None, saved_tensors=()) -> dict:
    """The plain-data entries of a node's ``attrs``, then of its ``saved`` values other
    than the tensors named in ``saved_tensors`` (an attr is not overridden by a saved value)."""
    out = {}
    for d, skip in ((attrs, ()), (saved, saved_tensors)):
        if not d:
            continue
        for k, v in d.items():
            if k in out or k == "out_meta" or k in skip:
                continue
            v = plain(v)
            if v is not NOT_PLAIN:
                out[k] = v
    return out
