"""autotrace's script interpreter: a safe interpreter for an allow-listed subset of Python.

Typical use::

    from autotrace.interpreter import parse_script, run_program, format_error, ScriptRejected

    try:
        program = parse_script(source, "script.py")
    except ScriptRejected as e:
        print(format_error("script.py", source, e.error))
    else:
        result = run_program(program, modules={"torch": torch_ns, "math": math_ns},
                             predefined={"x": x_tensor})

Contract with the engine and the torch namespace
------------------------------------------------
* Attributes: scripts read ``obj.name`` only when ``name`` is in ``_script_attrs`` (a
  frozenset class attribute, looked up in the classes' ``__dict__`` along the MRO) and
  assign it only when it is in ``_script_setattrs``; a type whose script-visible
  attributes are data (a namespace's members, a Module's registries) defines
  ``_script_getattr(obj, name)`` (returning :data:`.classes.NOT_FOUND` for a miss) and
  ``_script_setattr(obj, name, value)`` on the class. Nothing is read from instances.
  Classes exposed to scripts allow ``_script_class_attrs``. Allow-lists and hooks are
  re-read at the start of every run.
* Script classes (:mod:`.classes`) are autotrace objects; a library class may be a base
  when it declares ``_script_subclassable = True`` (then instances are of a fixed
  subclass with the :class:`~.classes.ScriptObject` mixin, and the class may define
  ``_script_class_getattr(cls, name)`` for class-level attributes such as
  ``Function.apply``). ``type(x)`` hands out only script classes, builtin types, the
  classes listed in :data:`.typeobj.EXPOSED` and opaque :class:`~.typeobj.TypeName` objects.
* ``with`` accepts objects whose type has ``_script_context_manager = True``;
  ``__exit__`` is called even when a limit ends the run.
* After a value is bound to a plain name the interpreter calls
  ``type(value)._on_bind(value, name)`` when the type defines it.
* ``autotrace.site.current`` is the :class:`~autotrace.site.Site` of the call, operator,
  subscript, comparison or augmented assignment being performed (columns are
  0-based characters), None outside runs.
* Script functions (:class:`ScriptFunction`) are plain callables: calling one from
  engine code runs it under the active run's limits; their exceptions propagate with
  their original class. Calling one when no run is active raises RuntimeError.
* Calling a script generator function returns a
  :class:`~.generators.GeneratorObject`, a Python iterator (``send``/``throw``/``close``
  too): engine code may iterate it during the run (the body runs then, lazily);
  generators left suspended are closed at the end of the run, and resuming one when no
  run is active raises RuntimeError.
* Errors: RuntimeError, ValueError, TypeError, LookupError, ArithmeticError,
  AssertionError, StopIteration and warnings are the script's (catchable, reported with
  phase "run"). A KeyError/AttributeError/NameError coming *out of engine code* counts as
  an engine bug and propagates out of ``run_program``; wrap one that mirrors PyTorch
  with :func:`script_visible`. LimitExceeded is a BaseException: do not catch it.
* Engine code that consumes an iterable given by a script should use
  :func:`autotrace.interpreter.ops.take` (step-counted, size-limited) rather than
  ``list(x)``: a C-level loop over ``iter(int, 1)`` cannot be interrupted.

Modules: :mod:`.validate` (static allow-list check), :mod:`.scope` (name resolution),
:mod:`.compile` (AST -> closures), :mod:`.guard` (attribute allow-lists),
:mod:`.builtins` (what scripts see), :mod:`.classes` (script classes and their
special methods), :mod:`.methods` (static/class methods, properties, bound methods), :mod:`.typeobj` (``type()``, ``isinstance``), :mod:`.ops` (size-checked operators),
:mod:`.values` (script functions and wrappers), :mod:`.limits`, :mod:`.errors`,
:mod:`.source`, :mod:`.program` (the entry points re-exported here).
"""

from .errors import ScriptError, ScriptRejected, format_error, script_visible
from .limits import Limits
from .program import Program, ScriptResult, free_names, needed_names, parse_script, run_program
from .builtins import ScriptNamespace, make_math_module
from .values import ScriptFunction

__all__ = [
    "Limits", "ScriptError", "ScriptResult", "ScriptRejected", "Program", "parse_script",
    "free_names", "needed_names", "run_program", "format_error", "ScriptNamespace", "make_math_module",
    "ScriptFunction", "script_visible",
]
