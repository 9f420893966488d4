"""Error mapping (types, messages, locations, phases), internal errors, format_error."""

from __future__ import annotations

import pytest

from autotrace.interpreter import ScriptError, ScriptRejected, format_error, parse_script

from interp_stubs import err, out, reject, run


@pytest.mark.parametrize("src, type_, message, line, column", [
    ("x = 1\ny = x + nope", "NameError", "name 'nope' is not defined", 2, 9),
    ("a = 1\nb = a / 0", "ZeroDivisionError", "division by zero", 2, 5),
    ("d = {}\nv = d['a']", "KeyError", "'a'", 2, 5),
    ("[1][5]", "IndexError", "list index out of range", 1, 1),
    ("x = 1 + 'a'", "TypeError", "unsupported operand type(s) for +: 'int' and 'str'", 1, 5),
    ("x = [1].nope", "AttributeError", "'list' object has no attribute 'nope'", 1, 5),
    ("x = int('q')", "ValueError", "invalid literal for int() with base 10: 'q'", 1, 5),
    ("next(iter([]))", "StopIteration", "", 1, 1),
    ("raise NotImplementedError('later')", "NotImplementedError", "later", 1, 1),
    ("x = 2.0 ** 10000", "OverflowError", "(34, 'Numerical result out of range')", 1, 5),
    ("raise Exception('plain')", "Exception", "plain", 1, 1),
    ("raise UserWarning('w')", "UserWarning", "w", 1, 1),
    ("raise AttributeError('mine')", "AttributeError", "mine", 1, 1),
    ("def f():\n    x = y\n    y = 1\nf()", "UnboundLocalError",
     "cannot access local variable 'y' where it is not associated with a value", 2, 9),
])
def test_run_errors(src, type_, message, line, column):
    e = err(src)
    assert (e.type, e.message, e.line, e.column, e.phase) == (type_, message, line, column, "run")


def test_innermost_expression_location():
    e = err("import torch\nx = torch.tensor(1.0)\ny = (x + 1) * torch.raises_runtime('inner')")
    assert (e.type, e.message, e.line, e.column, e.end_column) == ("RuntimeError", "inner", 3, 15, 44)


def test_error_inside_function_reports_the_inner_line():
    e = err("def f(v):\n    return v['missing']\n\nf({})")
    assert (e.type, e.line, e.column) == ("KeyError", 2, 12)


def test_error_in_hook_called_by_engine_points_into_the_hook():
    e = err("""
        import torch
        def hook(g):
            return g / 0
        t = torch.tensor(1.0)
        t.register_hook(hook)
        t.backward()
    """)
    assert (e.type, e.line) == ("ZeroDivisionError", 4)


def test_stdout_and_globals_kept_on_error():
    r = run("a = 1\nprint('before')\nb = a / 0\nc = 3")
    assert r.stdout == "before\n"
    assert r.globals == {"a": 1}
    assert r.error.line == 3


def test_internal_engine_errors_propagate_unchanged():
    # an engine bug raising KeyError/AttributeError is not a script error
    with pytest.raises(KeyError, match="engine internal state"):
        run("import torch\ntorch.engine_bug()")
    with pytest.raises(AttributeError, match="engine forgot"):
        run("import torch\ntorch.engine_attr_bug()")


def test_scripts_cannot_catch_internal_errors():
    with pytest.raises(KeyError):
        run("import torch\ntry:\n    torch.engine_bug()\nexcept Exception:\n    pass\nexcept:\n    pass")
    with pytest.raises(AttributeError):
        run("import torch\ntry:\n    torch.engine_attr_bug()\nexcept AttributeError:\n    print('caught')")


def test_script_attribute_errors_are_catchable():
    assert out("try:\n    [].nope\nexcept AttributeError as e:\n    print(e)") == \
        "'list' object has no attribute 'nope'\n"
    assert out("try:\n    undefined\nexcept NameError as e:\n    print(repr(e))") == \
        "NameError(\"name 'undefined' is not defined\")\n"


def test_errors_from_script_functions_propagate_through_engine_code():
    assert out("""
        import torch
        def bad(v):
            raise ValueError("from script fn")
        try:
            torch.call_twice(bad, 1)
        except ValueError as e:
            print("caught", e)
        print(torch.call_twice(lambda v: v * 2, 3))
    """) == "caught from script fn\n12\n"


def test_script_function_called_outside_a_run():
    r = run("def f(x):\n    return x + 1\nprint(f(1))")
    f = r.globals["f"]
    with pytest.raises(RuntimeError, match="outside of a script run"):
        f(1)


@pytest.mark.parametrize("src, type_, message, line, column", [
    ("x = (1 +\n", "SyntaxError", "'(' was never closed", 1, 5),
    ("x = = 1", "SyntaxError", "invalid syntax", 1, 5),
    ("def f():\nreturn 1", "IndentationError", "expected an indented block after function definition on line 1", 2, 1),
    ("return 5", "SyntaxError", "'return' outside function", 1, 1),
    ("break", "SyntaxError", "'break' outside loop", 1, 1),
    ("def f(a, a): pass", "SyntaxError", "duplicate argument 'a' in function definition", 1, 10),
])
def test_parse_errors(src, type_, message, line, column):
    e = reject(src)
    assert (e.type, e.message, e.line, e.column) == (type_, message, line, column)


def test_parse_error_column_counts_characters():
    e = reject("s = 'éé' + $")
    assert (e.line, e.column) == (1, 12)
    e = reject("s = 'éé'\nt = ().__dict__")
    assert (e.line, e.column, e.end_column) == (2, 7, 16)
    e = err("s = 'éé' + nope")
    assert (e.column, e.end_column) == (12, 16)


# -- format_error ----------------------------------------------------------------------------

def test_format_error_with_span():
    src = "x = 1\ny = x + nope\n"
    e = ScriptError("NameError", "name 'nope' is not defined", 2, 9, "run", 13)
    assert format_error("s.py", src, e) == (
        "s.py:2:9: error: NameError: name 'nope' is not defined\n"
        "    y = x + nope\n"
        "            ^~~~")


def test_format_error_single_caret_and_no_line_and_no_column():
    src = "a = 1\nb = a / 0"
    assert format_error("s.py", src, ScriptError("ZeroDivisionError", "division by zero", 2, 5, "run")) == (
        "s.py:2:5: error: ZeroDivisionError: division by zero\n"
        "    b = a / 0\n"
        "        ^")
    assert format_error("s.py", src, ScriptError("SyntaxError", "empty script", None, None, "parse")) == \
        "s.py: error: SyntaxError: empty script"
    assert format_error("s.py", src, ScriptError("LimitError", "x", 1, None, "limit")) == \
        "s.py:1: error: LimitError: x\n    a = 1"
    # a line beyond the source: no source shown
    assert format_error("s.py", src, ScriptError("E", "m", 9, 1, "run")) == "s.py:9:1: error: E: m"


def test_format_error_keeps_tabs_aligned_and_empty_message():
    src = "if 1:\n\tx = nope"
    e = ScriptError("NameError", "", 2, 6, "run", 10)
    assert format_error("s.py", src, e) == "s.py:2:6: error: NameError\n    \tx = nope\n    \t    ^~~~"


def test_format_error_clips_long_lines():
    src = "x = [" + "1, " * 2000 + "nope" + ", 2" * 2000 + "]"
    col = src.index("nope") + 1
    text = format_error("s.py", src, ScriptError("NameError", "m", 1, col, "run", col + 4))
    lines = text.split("\n")
    assert len(lines[1]) < 200 and lines[1].startswith("    ...") and lines[1].endswith("...")
    caret = lines[2].index("^")
    assert lines[1][caret:caret + 4] == "nope" and lines[2].endswith("^~~~")


def test_format_error_end_to_end_from_parse_and_run():
    src = "import os\n"
    with pytest.raises(ScriptRejected) as e:
        parse_script(src, "bad.py")
    assert format_error("bad.py", src, e.value.error) == (
        "bad.py:1:1: error: ImportError: import of 'os' is not allowed: scripts may import torch "
        "(and its submodules), math, random, typing, collections, copy, itertools, functools, time, "
        "warnings, dataclasses, matplotlib, matplotlib.pyplot, numpy and __future__\n    import os\n    ^~~~~~~~~")
    src = "total = 0\nfor i in range(3):\n    total += i / (i - 2)\n"
    r = run(src)
    assert format_error("t.py", src, r.error) == (
        "t.py:3:14: error: ZeroDivisionError: division by zero\n"
        "        total += i / (i - 2)\n"
        "                 ^~~~~~~~~~~")


def test_engine_can_mark_lookup_errors_as_the_scripts():
    from autotrace.interpreter import script_visible

    def lookup(k):
        raise script_visible(KeyError(k))

    assert out("try:\n    lookup('w')\nexcept KeyError as e:\n    print('caught', e)", predefined={"lookup": lookup}) == \
        "caught 'w'\n"
    e = err("lookup('w')", predefined={"lookup": lookup})
    assert (e.type, e.message) == ("KeyError", "'w'")
