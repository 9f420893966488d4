"""Run a script: parse it, bind ``--set`` names, interpret it against the torch
namespace, and collect the :class:`~autotrace.trace.Trace`.

This is the one place that resets the engine's per-run state (grad mode, node
numbering, warnings, print options, the random generator) so runs are independent and
deterministic.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
from dataclasses import dataclass

from .trace import Trace, parameters_of, variable_of

#: digits after the point the views after the run show at most
MAX_VIEW_PRECISION = 30

DEFAULT_SEED = 67280421310721  # PyTorch's default CPU seed value; unseeded runs are repeatable


class UsageError(Exception):
    """A mistake in how autotrace was called (bad --set value, unbound name): exit 2."""


@dataclass
class Options:
    keep_values: bool = False     # keep gradients and node outputs for explain / graph --values
    of: str | None = None         # explain: backward from this variable if the script calls none
    #: explain --verify: ``{name: (index, delta)}`` — the first time the script binds a
    #: tensor without grad_fn to ``name``, its element ``index`` is moved by ``delta``
    #: (the tensor becomes float64), for central differences. See :func:`_perturbing`.
    perturb: dict | None = None
    #: explain --expect: ``(target, formula)`` source pairs (``("x.grad", "2*x + 1")``),
    #: evaluated after the script in the same sandbox, over its final names, with no graph
    #: recorded; the values land in ``Trace.expectations``. See :mod:`autotrace.expect`.
    expect: tuple = ()
    #: explain: when the script calls no backward() and ``of`` is not given, backward from
    #: the last single-number tensor with a grad_fn the script bound (``Trace.implicit_root``)
    auto_root: bool = False


def parse_set(text: str):
    """``NAME=VALUE`` → (name, nested Python numbers). VALUE is a number or a (nested)
    list of numbers, as in ``--set "w=[[1,2],[3,4]]"``; ``nan``, ``inf`` and ``-inf`` are
    accepted as numbers."""
    if "=" not in text:
        raise UsageError(f"--set expects NAME=VALUE, got {text!r}")
    name, _, value = text.partition("=")
    name = name.strip()
    if not name.isidentifier() or name.startswith("__"):
        raise UsageError(f"--set: {name!r} is not a valid variable name")
    try:
        parsed = _literal(value.strip())
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise UsageError(f"--set {name}: {value.strip()!r} is not a number or a list of numbers") from None
    if not _numeric(parsed):
        raise UsageError(f"--set {name}: {value.strip()!r} is not a number or a list of numbers")
    return name, parsed


_SPECIAL = {"nan": float("nan"), "inf": float("inf")}


def _literal(text: str):
    """A Python literal where the names nan and inf stand for those floats."""
    tree = ast.parse(text, mode="eval")
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            if node.id not in _SPECIAL:
                raise ValueError(node.id)
    return _value(tree.body)


def _value(node):
    if isinstance(node, ast.Name):
        return _SPECIAL[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        v = _value(node.operand)
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_value(e) for e in node.elts]
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return node.value
    raise ValueError("not a number")


def _numeric(v) -> bool:
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, bool) or not isinstance(x, (int, float)):
            return False
    return True


def _reset_state(seed: int = DEFAULT_SEED) -> None:
    from . import anomaly, diagnostics, dtypes, grad_mode, node, numpy_api, printing, random

    grad_mode.enabled = True
    grad_mode.inference = False
    anomaly.reset()
    dtypes.default_float = dtypes.float32
    node.reset_sequence()
    diagnostics.reset()
    printing.set_printoptions(profile="default")
    random.manual_seed(seed)
    numpy_api.reset()
    from .ops import storage
    storage.reset()


def run(source, filename: str, *, sets=(), limits=None, options: Options | None = None) -> Trace:
    """Run ``source`` (str or bytes) and return its trace. Script errors are in
    ``trace.error``; :class:`UsageError` for bad ``sets``; ``ScriptRejected`` is turned
    into a parse-phase error. Anything else propagating is a bug in autotrace."""
    from . import diagnostics, dtypes, record, site
    from .interpreter import Limits, ScriptRejected, free_names, needed_names, parse_script, run_program
    from .torch_api import creation, modules

    from .interpreter.limits import COMMAND
    COMMAND.phase = "running the script"
    options = options or Options()
    text = source.decode("utf-8", errors="replace") if isinstance(source, bytes) else source
    from . import anomaly
    anomaly.script = filename
    try:
        from .torch_api.static_check import check_api
        program = parse_script(source, filename, check=check_api)
    except ScriptRejected as rejected:
        e = rejected.error
        return Trace(script=filename, source=text, stdout="", error=_error_dict(e))

    parsed_sets = {}
    for item in sets:
        name, value = parse_set(item)
        if name in parsed_sets:
            raise UsageError(f"--set {name} is given twice")
        parsed_sets[name] = value
    free = free_names(program)
    unused = [n for n in parsed_sets if n not in free]
    if unused:
        raise UsageError(
            f"--set {unused[0]}: the script assigns {unused[0]} itself or never uses it; --set only "
            "gives values to names the script uses without assigning them")
    # only names the script's top-level code reads as values are asked for; a name read
    # only in a function, only called or only as a module (`nn.Linear` without the
    # import) is left to raise Python's NameError where it is reached, as under Python
    from .tensor import Tensor
    missing = [(n, line, col) for n, line, col in needed_names(program, lambda attr: hasattr(Tensor, attr))
               if n not in parsed_sets]
    if missing:
        names = ", ".join(n for n, _, _ in missing)
        example = " ".join(f'--set "{n}=[1.0, 2.0]"' for n, _, _ in missing[:2])
        where = f"{filename}:{missing[0][1]}:{missing[0][2]}"
        raise UsageError(
            f"{where}: the script uses {names} but never assigns {'it' if len(missing) == 1 else 'them'}; "
            f"give a value on the command line, e.g. {example}")

    _reset_state()
    rec = record.Recorder(keep_values=options.keep_values)
    record.active = rec
    perturbing = _perturbing(options.perturb)
    perturbing.__enter__()
    try:
        predefined = {}
        for name, value in parsed_sets.items():
            try:
                with numpy_quiet():  # 1e40 becomes inf in float32, silently as in torch
                    t = creation.tensor(value, dtype=dtypes.float32, requires_grad=True)
            except OverflowError:
                raise UsageError(f"--set {name}: a number is too large for a float32 tensor") from None
            except (ValueError, TypeError, RuntimeError) as e:
                raise UsageError(f"--set {name}: not a tensor: {e} (rows of a nested list must have equal "
                                 "lengths)") from None
            t._on_bind(name)
            predefined[name] = t
        limits = limits or Limits()
        # PyTorch computes 1/0 = inf and 0/0 = nan silently; so does the engine.
        with numpy_quiet(), _resource_limits(limits), _collector_for_graphs():
            result = run_program(program, modules=modules(), predefined=predefined, limits=limits)
        variables = dict(predefined)
        variables.update(result.globals)
        error = _error_dict(result.error) if result.error is not None else None
        implicit_root = as_left = params_left = None
        if options.of and error is None:
            with numpy_quiet():
                error = _implicit_backward(variables, options.of, rec)
        elif options.auto_root and not rec.passes and not (error and error.get("phase") in ("parse", "limit")):
            # also when the script stopped at an error: explain what ran before it (not after
            # a limit: the pass would run outside it)
            implicit_root = _last_scalar_root(variables)
            if implicit_root is not None:
                # the variables as the script left them: explain's own pass changes no .grad
                # the script could have seen
                as_left = _records(variables)
                params_left = parameters_of(variables)
                with numpy_quiet():
                    failed = _implicit_backward(variables, implicit_root, rec)
                error = error or failed
    finally:
        perturbing.__exit__(None, None, None)
        record.active = None
        site.current = None

    # the views after the run (tables, labels, explain) are autotrace's, not the script's
    # prints: a huge precision the script set (set_printoptions(precision=3_000_000))
    # would make each of 10,000 shown numbers millions of digits long
    from . import printing
    if isinstance(printing.options.precision, int):
        printing.options.precision = min(printing.options.precision, MAX_VIEW_PRECISION)
    out_vars = as_left if as_left is not None else _records(variables)
    params = params_left if params_left is not None else parameters_of(variables)
    plotted = _plotted()       # before --expect's formulas run (a run resets it)
    expectations = []
    if options.expect:
        # after the record is taken: a formula's side effects cannot change what the run showed
        from .expect import evaluate
        with numpy_quiet(), _resource_limits(limits):
            expectations = evaluate(options.expect, variables, modules(), limits)
    return Trace(
        script=filename, source=text, stdout=result.stdout, error=error,
        warnings=[{"category": w["category"], "message": w["message"], "line": w["line"]}
                  for w in diagnostics.warnings],
        variables=out_vars, nodes=rec.nodes, passes=rec.passes,
        grad_events=list(getattr(rec, "grad_events", ())),
        module_calls=record.name_modules(rec, variables),
        events=list(getattr(rec, "events", ())),
        parameters=params,
        sets={k: v for k, v in parsed_sets.items()},
        implicit_root=implicit_root,
        expectations=expectations,
        plotted=plotted,
    )


@contextlib.contextmanager
def numpy_quiet():
    """Around autotrace's own numpy work for a script: numpy's floating-point errors and
    its Python warnings (``Mean of empty slice``, ``Degrees of freedom <= 0 for slice``)
    never reach the user, as torch 2.13 computes ``tensor([]).mean()`` (nan) or 1/0 (inf)
    without a word. A script's ``np.*`` calls still record numpy's warnings as the
    script's (``numpy_api.values.numpy_warnings`` catches them inside this), and torch's
    own warnings are the run's diagnostics, not Python warnings."""
    import warnings

    import numpy as np

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _plotted() -> bool:
    import sys
    pyplot = sys.modules.get("autotrace.stdlib.pyplot")
    return pyplot is not None and pyplot.used()


@contextlib.contextmanager
def _perturbing(perturb):
    """Apply :attr:`Options.perturb` for the duration of a run: the first binding of each
    named tensor that has no grad_fn (a leaf, also one given with ``--set``) moves one
    element by a delta, in float64. Nothing is patched when ``perturb`` is empty."""
    if not perturb:
        yield
        return
    import numpy as np

    from . import dtypes
    from .tensor import Tensor

    orig = Tensor.__dict__["_on_bind"]
    done = set()

    def bind(self, name):
        if name in perturb and name not in done and self._grad_fn is None:
            done.add(name)
            index, delta = perturb[name]
            data = np.array(self._data, dtype=np.float64)
            data[index] += delta
            self._data, self._dtype = data, dtypes.float64
        orig(self, name)

    Tensor._on_bind = bind
    try:
        yield
    finally:
        Tensor._on_bind = orig


# The engine's graphs hold no reference cycles (a node keeps its own output as data, not
# as a tensor), so reference counting frees them. The cyclic collector's passes over a
# large live graph find nothing and cost more than the ops (35% of a 1e6-op chain). While
# a script runs, the collector runs less often, and whatever survives a pass is frozen
# (gc.freeze: never scanned again; reference counting still frees it), so each object is
# scanned at most once and no pass walks the whole live graph. Cyclic garbage that dies
# before the next pass (the usual case: an exception's traceback, a loop's temporary
# objects) is still collected; frozen objects go back to the collector when the run ends.
GC_THRESHOLD = 50_000
#: set by the command line, whose process ends after its views: what a run made stays
#: frozen (a collector pass over a finished trace finds nothing); a library caller's
#: objects go back to the collector when the run ends
KEEP_FROZEN = False


def _freeze_survivors(phase, info):
    if phase == "stop":
        import gc

        gc.freeze()


@contextlib.contextmanager
def _collector_for_graphs():
    import gc

    previous = gc.get_threshold()
    gc.set_threshold(max(previous[0], GC_THRESHOLD), *previous[1:])
    frozen_before = gc.get_freeze_count()
    gc.freeze()  # what exists before the script (modules, the op table) is not garbage
    added = _freeze_survivors not in gc.callbacks
    if added:
        gc.callbacks.append(_freeze_survivors)
    try:
        yield
    finally:
        if not KEEP_FROZEN:  # (the command line keeps this policy for its views, until exit)
            if added:
                gc.callbacks.remove(_freeze_survivors)
            gc.set_threshold(*previous)
            if not frozen_before:
                gc.unfreeze()


@contextlib.contextmanager
def _resource_limits(limits):
    """Apply the engine's per-tensor element cap and an address-space cap (RLIMIT_AS,
    where the platform has it) for the duration of a run; restore both after."""
    from . import resources

    prev_elements, prev_flops = resources.max_elements, resources.max_flops
    resources.max_elements = getattr(limits, "max_elements", resources.DEFAULT_MAX_ELEMENTS)
    resources.max_flops = getattr(limits, "max_flops", resources.DEFAULT_MAX_FLOPS)
    prev_as = None
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        want = int(getattr(limits, "max_memory", 8192)) * 1024 * 1024
        if hard != resource.RLIM_INFINITY:
            want = min(want, hard)
        if soft == resource.RLIM_INFINITY or want < soft:
            resource.setrlimit(resource.RLIMIT_AS, (want, hard))
            prev_as = (soft, hard)
    except (ImportError, ValueError, OSError):
        prev_as = None
    try:
        yield
    finally:
        resources.max_elements, resources.max_flops = prev_elements, prev_flops
        if prev_as is not None:
            import resource
            resource.setrlimit(resource.RLIMIT_AS, prev_as)


def _implicit_backward(variables, name, rec):
    from .tensor import Tensor

    if rec.passes:
        return None
    value = variables.get(name)
    if not isinstance(value, Tensor):
        raise UsageError(f"--of {name}: the script binds no tensor named {name!r}")
    try:
        value.backward(retain_graph=True)
    except RuntimeError as e:
        return {"type": "RuntimeError", "message": str(e), "line": None, "column": None, "phase": "run"}
    return None


def _records(variables) -> dict:
    out = {}
    seen = {}   # one record per tensor however many names it has (a = b = c = big)
    for name, value in variables.items():
        done = seen.get(id(value))
        if done is not None and done[0] is value:
            out[name] = dataclasses.replace(done[1], name=name)
            continue
        v = variable_of(name, value)
        if v is not None:
            out[name] = v
            seen[id(value)] = (value, v)
    return out


def _last_scalar_root(variables):
    """The name of the single-number tensor with a grad_fn made last (by node order) among
    the script's variables, or None."""
    from .tensor import Tensor

    best = None
    for name, value in variables.items():
        fn = value._grad_fn if isinstance(value, Tensor) else None  # as last set (nothing regenerated)
        if fn is not None and value._data.size == 1 and fn.rec is not None:
            key = fn.rec.id
            if best is None or key > best[0]:
                best = (key, name)
    return best[1] if best else None


def _error_dict(e) -> dict:
    out = {"type": e.type, "message": e.message, "line": e.line, "column": e.column, "phase": e.phase}
    if getattr(e, "end_column", None) is not None:
        out["end_column"] = e.end_column
    return out
