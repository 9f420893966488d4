"""Hostile scripts: every escape attempt is refused with a clean script error, before
the run (phase "parse") or when it reaches the forbidden operation (phase "run"/"limit").
Nothing else may escape from parse_script/run_program."""

from __future__ import annotations

import time

import pytest

from autotrace.interpreter import Limits, ScriptRejected, parse_script, run_program

from interp_stubs import MODULES

FW = "\ufe4d"   # DASHED LOW LINE: NFKC-normalises to "_"

HOSTILE = [
    # (source, phase, type, message fragment)
    ("().__class__.__bases__[0].__subclasses__()", "parse", "AttributeError",
     "attribute '__bases__' is not available in autotrace scripts"),
    ("print.__self__", "parse", "AttributeError", "attribute '__self__' is not available"),
    ("[].copy.__self__", "parse", "AttributeError", "attribute '__self__' is not available"),
    ("x = (lambda: 0).__code__", "parse", "AttributeError", "attribute '__code__' is not available"),
    ("x = (x for x in []).gi_frame", "run", "AttributeError", "'generator' object has no attribute 'gi_frame'"),
    ("g = (i for i in [1])\nc = g.gi_code", "run", "AttributeError", "'generator' object has no attribute 'gi_code'"),
    ("f = lambda: 0\nc = f._code", "run", "AttributeError",
     "attribute '_code' of 'function' objects is not available in autotrace scripts"),
    ("def f(): pass\nf.func_globals", "run", "AttributeError", "'function' object has no attribute 'func_globals'"),
    ('x = "{0.__class__}".format(1)', "run", "ValueError",
     "format field {0.__class__} is not supported in autotrace scripts"),
    ('x = "{0[0]}".format([1])', "run", "ValueError", "format field {0[0]} is not supported"),
    ('x = "{0.real}".format(1)', "run", "ValueError", "format field {0.real} is not supported"),
    ('x = "{a.b}".format(a=1)', "run", "ValueError", "format field {a.b} is not supported"),
    ('f = "{}".format\nx = f._obj', "run", "AttributeError",
     "attribute '_obj' of 'builtin_function_or_method' objects is not available"),
    ('x = str.format("{0.__class__}", 1)', "run", "AttributeError",
     "attribute 'format' of type object 'str' is not available in autotrace scripts"),
    ("x = int.from_bytes", "run", "AttributeError", "attribute 'from_bytes' of type object 'int' is not available"),
    ("x = ValueError.mro()", "run", "AttributeError", "attribute 'mro' of type object 'ValueError' is not available"),
    ("getattr(print, '__self__')", "run", "AttributeError",
     "attribute '__self__' of 'function' objects is not available in autotrace scripts"),
    ("getattr(1, '__class__').__subclasses__", "parse", "AttributeError", "attribute '__subclasses__'"),
    ("x = getattr(type(1), 'mro')", "run", "AttributeError", "attribute 'mro' of type object 'int' is not available"),
    ("setattr(1, 'x', 2)", "run", "AttributeError", "'int' object has no attribute 'x'"),
    ("def f(): pass\nsetattr(f, '__code__', 1)", "run", "AttributeError", "assigning attribute '__code__' is not supported"),
    ("eval('1+1')", "parse", "NameError", "name 'eval' is not available in autotrace scripts"),
    ("exec('import os')", "parse", "NameError", "name 'exec' is not available"),
    ("open('/etc/passwd').read()", "parse", "NameError", "name 'open' is not available"),
    ("__import__('os').system('true')", "parse", "NameError", "name '__import__' is not available"),
    ("globals()['x'] = 1", "parse", "NameError", "name 'globals' is not available"),
    ("locals()", "parse", "NameError", "name 'locals' is not available"),
    ("vars()", "parse", "NameError", "name 'vars' is not available"),
    ("dir(1)", "parse", "NameError", "name 'dir' is not available"),
    ("type(print)()", "run", "TypeError", "cannot create 'builtin_function_or_method' instances"),
    ("type('X', (), {})", "run", "TypeError", "type() with 3 arguments (building a class) is not supported yet"),
    ("object.__subclasses__()", "parse", "AttributeError", "attribute '__subclasses__' is not available"),
    ("x = object.__init_subclass__", "parse", "AttributeError", "attribute '__init_subclass__' is not available"),
    ("super()", "run", "RuntimeError", "super(): no arguments"),
    ("def f(x):\n    return super()\nf(1)", "run", "RuntimeError", "super(): __class__ cell not found"),
    ("breakpoint()", "parse", "NameError", "name 'breakpoint' is not available"),
    ("input()", "parse", "NameError", "name 'input' is not available"),
    ("compile('1', 'f', 'eval')", "parse", "NameError", "name 'compile' is not available"),
    ("memoryview(b'')", "parse", "SyntaxError", "bytes literals are not supported"),
    ("x = memoryview", "parse", "NameError", "name 'memoryview' is not available"),
    ("help()", "parse", "NameError", "name 'help' is not available"),
    ("exit()", "parse", "NameError", "name 'exit' is not available"),
    ("quit()", "parse", "NameError", "name 'quit' is not available"),
    ("raise SystemExit", "parse", "NameError", "name 'SystemExit' is not available"),
    ("raise KeyboardInterrupt", "parse", "NameError", "name 'KeyboardInterrupt' is not available"),
    ("x = __builtins__", "parse", "NameError", "name '__builtins__' is not available"),
    ("x = __file__", "parse", "NameError", "name '__file__' is not available"),
    ("__name__ = 'x'", "parse", "NameError", "name '__name__' is not available"),
    ("x = id(1)", "parse", "NameError", "name 'id' is not available"),
    ("f = lambda x=print: x.__self__", "parse", "AttributeError", "attribute '__self__' is not available"),
    ("f = lambda g=vars: g", "parse", "NameError", "name 'vars' is not available"),
    ("x = sorted([1], key=vars)", "parse", "NameError", "name 'vars' is not available"),
    ("import os", "parse", "ImportError",
     "import of 'os' is not allowed: scripts may import torch (and its submodules), math, random, typing, "
     "collections, copy, itertools, functools, time, warnings, dataclasses, matplotlib, matplotlib.pyplot, numpy and __future__"),
    ("import os.path", "parse", "ImportError", "import of 'os.path' is not allowed"),
    ("from os import system", "parse", "ImportError", "import of 'os' is not allowed"),
    ("import subprocess as torch", "parse", "ImportError", "import of 'subprocess' is not allowed"),
    ("import torchvision", "parse", "ImportError", "import of 'torchvision' is not allowed"),
    ("import torch._C", "parse", "ImportError", "import of 'torch._C' is not allowed"),
    ("from . import torch", "parse", "ImportError", "relative imports are not supported"),
    ("from torch import *", "parse", "SyntaxError", "star imports ('from torch import *') are not supported"),
    ("import math as __builtins__", "parse", "SyntaxError", "the name '__builtins__' is not allowed"),
    ("from __future__ import braces", "parse", "SyntaxError", "not a chance"),
    ("from __future__.x import y", "parse", "SyntaxError", "the name '__future__.x' is not allowed"),
    ("import __future__", "parse", "ImportError", "import of '__future__' is not allowed"),
    ("from __main__ import x", "parse", "SyntaxError", "the name '__main__' is not allowed"),
    ("import torch.os", "run", "ModuleNotFoundError", "No module named 'torch.os'"),
    ("class A(metaclass=type):\n    pass", "parse", "SyntaxError", "class keyword arguments (metaclass=...) are not supported yet"),
    ("class A(int, float):\n    pass", "parse", "SyntaxError", "multiple inheritance is not supported yet"),
    ("def f():\n    global __builtins__", "parse", "SyntaxError", "the name '__builtins__' is not allowed"),
    ("class A:\n    def __getattribute__(self, n):\n        pass", "parse", "SyntaxError",
     "defining the special method '__getattribute__' is not supported yet"),
    ("class A:\n    def __init_subclass__(cls):\n        pass", "parse", "SyntaxError",
     "defining the special method '__init_subclass__' is not supported yet"),
    ("class A:\n    __slots__ = ()", "parse", "NameError", "name '__slots__' is not available"),
    ("class A(int):\n    pass", "run", "TypeError", "subclassing int is not supported yet"),
    ("async def f():\n    pass", "parse", "SyntaxError", "'async def' is not supported"),
    ("f = lambda: (yield 1)", "parse", "SyntaxError", "'yield' in a lambda is not supported"),
    ("def g():\n    print((yield from []))", "parse", "SyntaxError", "'yield from' inside an expression is not supported"),
    ("match 1:\n    case 1:\n        pass", "parse", "SyntaxError", "'match' statements are not supported"),
    ("@property\ndef f():\n    pass\nx = f.fget.__code__", "parse", "AttributeError", "attribute '__code__' is not available"),
    ("def f(__class__):\n    pass", "parse", "SyntaxError", "the name '__class__' is not allowed"),
    ("def __init__():\n    pass", "parse", "SyntaxError", "the name '__init__' is not allowed"),
    ("print(1, __x__=2)", "parse", "SyntaxError", "the name '__x__' is not allowed"),
    ("try:\n    pass\nexcept Exception as __e__:\n    pass", "parse", "SyntaxError", "the name '__e__' is not allowed"),
    ("del [].append", "parse", "SyntaxError", "deleting attributes is not supported"),
    (f"x = 1\ny = x._{FW}dict{FW}{FW}", "parse", "AttributeError", "attribute '__dict__' is not available"),
    (f"_{FW}import{FW}{FW}('os')", "parse", "NameError", "name '__import__' is not available"),
    (f"x = [].__class__.__base__", "parse", "AttributeError", "attribute '__base__' is not available"),
    ("try:\n    1/0\nexcept Exception as e:\n    tb = e.__traceback__", "parse", "AttributeError",
     "attribute '__traceback__' is not available"),
    ("try:\n    1/0\nexcept Exception as e:\n    c = e.args[0].__class__.__dict__", "parse", "AttributeError",
     "attribute '__dict__' is not available"),
    ("try:\n    1/0\nexcept Exception as e:\n    f = e.with_traceback", "run", "AttributeError",
     "attribute 'with_traceback' of 'ZeroDivisionError' objects is not available"),
    ("try:\n    1/0\nexcept Exception as e:\n    x = e._exc", "run", "AttributeError",
     "attribute '_exc' of 'ZeroDivisionError' objects is not available"),
    ("x = f'{().__class__.__mro__}'", "parse", "AttributeError", "attribute '__mro__' is not available"),
    ("import torch\nx = torch.internal_helper()", "run", "AttributeError",
     "attribute 'internal_helper' of module 'torch' is not available in autotrace scripts"),
    ("import torch\nx = torch._name", "run", "AttributeError", "attribute '_name' of module 'torch' is not available"),
    ("import torch\nx = torch.nothing", "run", "AttributeError", "torch.nothing is not supported by autotrace"),
    ("import torch\ntorch.tensor = print", "run", "AttributeError", "attribute 'tensor' of 'TorchNS' objects is not writable"),
    ("import torch\nt = torch.tensor(1.0)\ns = t.secret", "run", "AttributeError",
     "attribute 'secret' of 'FakeTensor' objects is not available in autotrace scripts"),
    ("import torch\nt = torch.tensor(1.0)\nt.hidden_method()", "run", "AttributeError",
     "attribute 'hidden_method' of 'FakeTensor' objects is not available"),
    ("import torch\nt = torch.tensor(1.0)\nh = t._hooks", "run", "AttributeError", "attribute '_hooks' of 'FakeTensor' objects"),
    ("import torch\nt = torch.tensor(1.0)\nt.value = 3", "run", "AttributeError",
     "attribute 'value' of 'FakeTensor' objects is not writable"),
    ("import torch\nt = torch.tensor(1.0)\nt.new_attr = 3", "run", "AttributeError",
     "'FakeTensor' object has no attribute 'new_attr'"),
    ("import torch\nc = torch.Tensor.hidden_method", "run", "AttributeError",
     "attribute 'hidden_method' of type object 'FakeTensor' is not available"),
    ("x = print.x", "run", "AttributeError", "'function' object has no attribute 'x'"),
    ("x = len.x", "run", "AttributeError", "'builtin_function_or_method' object has no attribute 'x'"),
    ("(1).real = 2", "run", "AttributeError", "attribute 'real' of 'int' objects is not writable"),
    ("print('x', file=None)\nprint('y', file=[])", "run", "TypeError", "print(file=...) is not supported"),
    ("x = 10**10**10", "limit", "LimitError", "integer size limit of 4096 bits"),
    ("x = 'a' * 10**10", "limit", "LimitError", "size limit of 10000000 elements"),
    ("x = [0] * 10**10", "limit", "LimitError", "size limit of 10000000 elements"),
    ("x = 2 << 10**10", "limit", "LimitError", "integer size limit"),
    ("def f(n):\n    return f(n) + 1\nf(1)", "limit", "LimitError", "recursion limit of 200"),
    ("f = lambda f: f(f)\nf(f)", "limit", "LimitError", "recursion limit of 200"),
    ("(" * 5000 + "1" + ")" * 5000, "parse", "SyntaxError", "too many nested parentheses"),
    ("x = " + "-" * 100000 + "1", "parse", "SyntaxError", "nested too deeply"),
    ("x = " + "1+" * 100000 + "1", "parse", "SyntaxError", "nested too deeply"),
    ("x = " + "1+" * 600 + "1", "parse", "SyntaxError", "nested too deeply (more than 500 levels)"),
    ("x = " + "-" * 700 + "1", "parse", "SyntaxError", "nested too deeply (more than 500 levels)"),
    ("x = a" + ".b" * 100000, "parse", "SyntaxError", "nested too deeply"),
    ("x = " + "not " * 100000 + "1", "parse", "SyntaxError", "nested too deeply"),
    ("x = 1\n" + "if x:\n" + "".join(" " * i + "if x:\n" for i in range(1, 120)) + " " * 120 + "pass\n",
     "parse", "IndentationError", "too many levels of indentation"),
    ("x = '" + "a" * (10 * 1024 * 1024) + "'", "parse", "LimitError", "script is too large"),
    (b"x = 1\x00\n", "parse", "SyntaxError", "script contains NUL bytes"),
    ("x = 1\n\x00", "parse", "SyntaxError", "script contains NUL bytes"),
    (b"\xff\xfe x = 1", "parse", "SyntaxError", "script is not valid UTF-8 text (invalid byte 0xff)"),
    (b"x = '\xe9'", "parse", "SyntaxError", "script is not valid UTF-8"),
    ("", "parse", "SyntaxError", "empty script"),
    (b"", "parse", "SyntaxError", "empty script"),
    ("   \n\n\t\n", "parse", "SyntaxError", "empty script"),
    ("# only a comment\n", "parse", "SyntaxError", "empty script"),
    ("x = b'bytes'", "parse", "SyntaxError", "bytes literals are not supported"),
    ("try:\n    pass\nexcept* ValueError:\n    pass", "parse", "SyntaxError", "'except*' is not supported"),
    ("x = [i async for i in y]", "parse", "SyntaxError", None),
    ("def f():\n    await g()", "parse", "SyntaxError", None),
    ("while True:\n    pass", "limit", "LimitError", "time limit of 0.3 s"),
    # C-level loops that no step counter would see
    ("x = 'x' in iter(int, 1)", "limit", "LimitError", "time limit of 0.3 s"),
    ("x = list(iter(int, 1))", "limit", "LimitError", None),
    ("x = sorted(iter(int, 1))", "limit", "LimitError", None),
    ("x = ''.join(map(str, iter(int, 1)))", "limit", "LimitError", None),
    ("x = range(10**18).count(0.5)", "run", "AttributeError",
     "attribute 'count' of 'range' objects is not available"),
    ("x = list[int](range(10**9))", "run", "TypeError", "type 'list' is not subscriptable in autotrace scripts"),
    ("x = [0]\nfor i in range(60):\n    x = [x, x]\nd = {'k': x}\nprint(d.values())", "limit", "LimitError",
     "size limit"),
    ("x = (0,)\nfor i in range(60):\n    x = (x, x)\nd = dict([(x, 1)])", "limit", "LimitError", "size limit"),
]


def _attempt(src):
    try:
        program = parse_script(src, "evil.py")
    except ScriptRejected as e:
        return e.error
    r = run_program(program, modules=MODULES, limits=Limits(timeout=0.3))
    assert r.error is not None, f"ran without error: stdout={r.stdout!r}"
    return r.error


def test_there_are_many_hostile_cases():
    assert len(HOSTILE) >= 40


@pytest.mark.parametrize("src, phase, type_, fragment", HOSTILE,
                         ids=[(s[:40] if isinstance(s, str) else repr(s[:30])) for s, *_ in HOSTILE])
def test_hostile_script_is_refused(src, phase, type_, fragment):
    t0 = time.monotonic()
    e = _attempt(src)
    assert time.monotonic() - t0 < 5
    assert (e.phase, e.type) == (phase, type_), e
    if fragment is not None:
        assert fragment in e.message, e.message


def test_refusals_carry_positions():
    e = _attempt("x = 1\ny = eval('x')")
    assert (e.line, e.column, e.end_column) == (2, 5, 9)
    e = _attempt("import torch\nt = torch.tensor(1.0)\ns = t.secret")
    assert (e.line, e.column) == (3, 5)


def test_bound_names_shadow_refused_builtins():
    r = run_program(parse_script("def open(p):\n    return 'mine ' + p\nprint(open('f'))", "t.py"), modules=MODULES)
    assert r.error is None and r.stdout == "mine f\n"


def test_globals_never_hold_interpreter_internals():
    r = run_program(parse_script("f = print\ng = len\nh = lambda: 0\nx = [f, g, h]", "t.py"), modules=MODULES)
    assert r.error is None
    import builtins
    assert r.globals["g"] is builtins.len       # harmless C builtin, no attributes reachable
    assert r.globals["f"] is not builtins.print  # print is the captured-output version


def test_exception_wrapper_hides_traceback_objects():
    r = run_program(parse_script("try:\n    1/0\nexcept ZeroDivisionError as e:\n    keep = e", "t.py"),
                    modules=MODULES)
    keep = r.globals["keep"]
    assert type(keep).__name__ == "CaughtException"
    assert repr(keep) == "ZeroDivisionError('division by zero')"


def test_lambda_default_capturing_builtins_cannot_reach_internals():
    r = run_program(parse_script("f = lambda p=print: p\ng = f()\ng('hi')\nx = g.__name__" if False else
                                 "f = lambda p=print: p\ng = f()\ng('hi')\nx = g.n", "t.py"), modules=MODULES)
    assert r.stdout == "hi\n"
    assert r.error.type == "AttributeError" and r.error.message == "'function' object has no attribute 'n'"
