"""``import warnings`` in scripts (autotrace/stdlib/warnings_.py): CPython's filter order
and actions on generated filter lists, PyTorch's own warnings filtered like the script's,
and no path from the module to Python's real warnings machinery."""

from __future__ import annotations

import contextlib
import io
import textwrap
import warnings as py_warnings

import pytest
from hypothesis import given, settings, strategies as st

from autotrace.interpreter import Limits, parse_script, run_program
from autotrace.torch_api import modules


def run(src: str):
    prog = parse_script(textwrap.dedent(src), "t.py")
    return run_program(prog, modules=modules(), limits=Limits())


def recorded(src: str):
    """(stdout, [(category, message)]) of a script under autotrace."""
    from autotrace import diagnostics
    diagnostics.reset()
    res = run(src)
    assert res.error is None, res.error
    return res.stdout, [(w["category"], w["message"]) for w in diagnostics.warnings for _ in range(w["count"])]


def cpython(src: str):
    """The same under CPython, recorded as a caller that shows everything would."""
    buf = io.StringIO()
    with py_warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(buf):
        py_warnings.simplefilter("always")
        exec(compile(textwrap.dedent(src), "t.py", "exec"), {"__name__": "__main__"})
    return buf.getvalue(), [(w.category.__name__, str(w.message)) for w in caught]


ACTIONS = ["ignore", "always", "default", "once", "module"]
CATEGORIES = ["Warning", "UserWarning", "DeprecationWarning", "FutureWarning", "RuntimeWarning"]
MESSAGES = ["", "a", "A.*", "b", ".*x", "ab?c", "[ab]x"]
TEXTS = ["a one", "b two", "abc", "x", "Ax", "bx"]

filters = st.lists(st.tuples(st.sampled_from(ACTIONS), st.sampled_from(MESSAGES), st.sampled_from(CATEGORIES),
                             st.booleans()), max_size=4)
emissions = st.lists(st.tuples(st.sampled_from(TEXTS), st.sampled_from(CATEGORIES[1:])), min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(filters, emissions, st.booleans())
def test_filter_semantics_are_cpythons(fs, ws, reset_first):
    lines = ["import warnings"]
    if reset_first:
        lines.append("warnings.resetwarnings()")
    for action, msg, cat, append in fs:
        lines.append(f"warnings.filterwarnings({action!r}, message={msg!r}, category={cat}, append={append})")
    lines.append("for i in range(2):")
    for text, cat in ws:
        lines.append(f"    warnings.warn({text!r}, {cat})")
    src = "\n".join(lines) + "\n"
    assert recorded(src) == cpython(src)


def test_pytorchs_warnings_obey_the_scripts_filters():
    src = """
    import warnings
    import torch
    x = torch.ones(2, requires_grad=True)
    y = x * 2
    y.grad
    warnings.filterwarnings("ignore")
    y.grad
    torch.nn.functional.mse_loss(torch.ones(3), torch.ones(3, 1))
    """
    _, ws = recorded(src)
    assert [c for c, _ in ws] == ["UserWarning"] and ws[0][1].startswith("The .grad attribute")


def test_error_action_raises_the_warning_at_the_line():
    res = run("import warnings\nwarnings.simplefilter('error')\nwarnings.warn('stop', RuntimeWarning)\n")
    assert (res.error.type, res.error.message, res.error.line) == ("RuntimeWarning", "stop", 3)


def test_catch_warnings_restores_filters_and_records_inside():
    src = """
    import warnings
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("ignore")
        warnings.warn("hidden")
    with warnings.catch_warnings(record=True) as w2:
        warnings.warn("kept inside", FutureWarning)
    print(len(w), len(w2), w2[0].category.__name__, str(w2[0].message))
    warnings.warn("after")
    """
    assert recorded(src) == cpython(src)
    assert recorded(src)[1] == [("UserWarning", "after")]


@pytest.mark.parametrize("call, message", [
    ("warnings.filterwarnings('loud')", "invalid action: 'loud'"),
    ("warnings.filterwarnings('ignore', category=int)", "category must be a Warning subclass"),
    ("warnings.filterwarnings('ignore', category=3)", "category must be a class"),
    ("warnings.filterwarnings('ignore', message=3)", "message must be a string"),
    ("warnings.simplefilter('ignore', lineno=-1)", "lineno must be an int >= 0"),
])
def test_bad_arguments_raise_cpythons_assertion(call, message):
    res = run(f"import warnings\n{call}\n")
    assert (res.error.type, res.error.message) == ("AssertionError", message)


# -- hostile ---------------------------------------------------------------------------

@pytest.mark.parametrize("pattern", ["(a+)+$", "a|b", "x" * 201, "a*" * 9, "(?i)a"])
def test_patterns_that_could_run_away_are_refused(pattern):
    res = run(f"import warnings\nwarnings.filterwarnings('ignore', message={pattern!r})\n")
    assert res.error is not None and res.error.type == "ValueError"
    assert "not supported in autotrace scripts" in res.error.message


@pytest.mark.parametrize("src", [
    "import warnings\nwarnings._filters",
    "import warnings\nwarnings.showwarning",
    "import warnings\nwarnings.filters",
    "import warnings\nwarnings.catch_warnings()._saved",
    "import warnings\nwith warnings.catch_warnings(record=True) as w:\n    warnings.warn('x')\nw[0].__init__",
])
def test_internals_are_out_of_reach(src):
    res = run(src)
    assert res.error is not None and res.error.type in ("AttributeError", "NameError", "SyntaxError"), res.error


def test_filters_do_not_leak_between_runs():
    assert run("import warnings\nwarnings.filterwarnings('error')\n").error is None
    _, ws = recorded("import warnings\nwarnings.warn('fresh run')\n")
    assert ws == [("UserWarning", "fresh run")]


def test_a_warning_flood_under_once_is_one_record():
    _, ws = recorded("import warnings\nwarnings.simplefilter('once')\nfor i in range(100000):\n    warnings.warn('same')\n")
    assert ws == [("UserWarning", "same")]
