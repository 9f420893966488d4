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

Modules: :mod:`.validate` (static allow-list check), :mod:`.scope` (name resolution),
:mod:`.compile` (AST -> closures), :mod:`.guard` (attribute allow-lists),
:mod:`.builtins` (what scripts see), :mod:`.ops` (size-checked operators),
:mod:`.values` (script functions and wrappers), :mod:`.limits`, :mod:`.errors`,
:mod:`.source`, :mod:`.program` (the entry points re-exported here).
"""

from .errors import ScriptError, ScriptRejected, format_error
from .limits import Limits
from .program import Program, ScriptResult, free_names, parse_script, run_program
from .builtins import ScriptNamespace, make_math_module
from .values import ScriptFunction

__all__ = [
    "Limits", "ScriptError", "ScriptResult", "ScriptRejected", "Program", "parse_script",
    "free_names", "run_program", "format_error", "ScriptNamespace", "make_math_module",
    "ScriptFunction",
]
