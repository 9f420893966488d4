"""Random small programs: parse_script/run_program never raise anything but
ScriptRejected, whatever the program does. AUTOTRACE_FUZZ_EXAMPLES raises the example
count (default 200)."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autotrace import site as site_mod
from autotrace.interpreter import Limits, ScriptRejected, ScriptResult, parse_script, run_program

from interp_stubs import MODULES, FakeTensor

EXAMPLES = int(os.environ.get("AUTOTRACE_FUZZ_EXAMPLES", "200"))
NAMES = ["a", "b", "c", "s", "l", "t", "d", "f"]
LIMITS = Limits(timeout=1.0, max_steps=20_000, max_loop_iterations=500, max_recursion=30,
                max_output=5_000, max_sequence=5_000, max_int_bits=512)

literals = st.one_of(
    st.integers(-3, 300).map(str),
    st.sampled_from(["10**9", "2**70", "-1", "0", "1e308", "1.5", "-0.0", "float('nan')", "float('inf')",
                     "'ab'", "''", "'x{}y'", "'%d'", "[1, 2]", "[]", "(1,)", "{'k': 1}", "{1, 2}",
                     "None", "True", "range(3)", "t", "torch.tensor(2.0)", "torch.tensor([1.0, 2.0])",
                     "...", "1j", "lambda v: v", "print", "len", "d", "f"]),
)

BINOPS = ["+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "@", "and", "or",
          "<", "<=", "==", "!=", ">", "in", "not in", "is"]
CALLS = ["len", "abs", "min", "max", "sum", "str", "repr", "list", "tuple", "sorted", "bool", "int",
         "float", "set", "dict", "any", "all", "reversed", "enumerate", "iter", "next", "round",
         "format", "hasattr", "callable", "isinstance", "divmod", "pow", "zip", "map", "filter", "f"]
METHODS = [".upper()", ".split()", ".append(1)", ".pop()", ".keys()", ".get(1)", ".format(1, 2)",
           ".join(['a'])", ".sum()", ".item()", ".value", ".grad", ".names", ".real", ".count(1)",
           ".replace('a', 'bb')", ".ljust(5)", ".index(1)", ".copy()", ".secret", "._hidden",
           ".add(1)", ".update({1: 2})", ".is_integer()", ".bit_length()"]


def expr(depth):
    if depth <= 0:
        return st.one_of(literals, st.sampled_from(NAMES))
    sub = expr(depth - 1)
    return st.one_of(
        literals,
        st.sampled_from(NAMES),
        st.tuples(sub, st.sampled_from(BINOPS), sub).map(lambda x: f"({x[0]} {x[1]} {x[2]})"),
        st.tuples(st.sampled_from(["-", "not ", "~", "+"]), sub).map(lambda x: f"({x[0]}{x[1]})"),
        st.tuples(st.sampled_from(CALLS), st.lists(sub, max_size=2)).map(lambda x: f"{x[0]}({', '.join(x[1])})"),
        st.tuples(sub, st.sampled_from(METHODS)).map(lambda x: f"({x[0]}){x[1]}"),
        st.tuples(sub, sub).map(lambda x: f"({x[0]})[{x[1]}]"),
        st.tuples(sub, sub, sub).map(lambda x: f"({x[0]} if {x[1]} else {x[2]})"),
        st.tuples(sub, st.sampled_from(["", ":>4", ":.2f", "!r", ":x", ":{a}"])).map(lambda x: f"f'{{{x[0]}{x[1]}}}'"),
        st.tuples(sub, sub).map(lambda x: f"[{x[0]} for v in ({x[1]})]"),
        st.tuples(sub, sub).map(lambda x: f"{{v: {x[0]} for v in {x[1]}}}"),
        sub.map(lambda x: f"(lambda v: {x})"),
        sub.map(lambda x: f"[*{x}]"),
        sub.map(lambda x: f"'%s-%d' % {x}"),
    )


def statement(depth):
    e = expr(2)
    name = st.sampled_from(NAMES)
    simple = st.one_of(
        st.tuples(name, e).map(lambda x: f"{x[0]} = {x[1]}"),
        st.tuples(name, st.sampled_from(["+=", "-=", "*=", "**=", "<<=", "//=", "|="]), e)
          .map(lambda x: f"{x[0]} {x[1]} {x[2]}"),
        st.tuples(name, name, e).map(lambda x: f"{x[0]}, {x[1]} = {x[2]}"),
        st.tuples(name, e, e).map(lambda x: f"{x[0]}[{x[1]}] = {x[2]}"),
        st.tuples(name, e).map(lambda x: f"{x[0]}.grad = {x[1]}"),
        e.map(lambda x: f"print({x})"),
        e.map(lambda x: f"assert {x}"),
        e.map(lambda x: f"raise ValueError({x})"),
        name.map(lambda x: f"del {x}"),
        st.sampled_from(["pass", "break", "continue", "return 1", "import torch", "import math",
                         "from torch import nn", "import os", "x = ().__class__", "eval('1')"]),
    )
    if depth <= 0:
        return simple

    def indent(body):
        return "\n".join("    " + line for line in body.split("\n"))

    body = st.lists(statement(depth - 1), min_size=1, max_size=3).map(lambda xs: "\n".join(xs))
    return st.one_of(
        simple,
        st.tuples(e, body, body).map(lambda x: f"if {x[0]}:\n{indent(x[1])}\nelse:\n{indent(x[2])}"),
        st.tuples(name, e, body).map(lambda x: f"for {x[0]} in {x[1]}:\n{indent(x[2])}"),
        st.tuples(e, body).map(lambda x: f"while {x[0]}:\n{indent(x[1])}"),
        st.tuples(body, body).map(lambda x: f"try:\n{indent(x[0])}\nexcept (ValueError, TypeError) as err:\n"
                                            f"{indent(x[1])}\nfinally:\n    pass"),
        st.tuples(name, body).map(lambda x: f"def {x[0]}(v, *a, k=1, **kw):\n{indent(x[1])}"),
        body.map(lambda x: f"with torch.no_grad():\n{indent(x)}"),
    )


def _guard(stmt: str) -> str:
    body = "\n".join("    " + line for line in stmt.split("\n"))
    return f"try:\n{body}\nexcept Exception as exc:\n    print(repr(exc))"


programs = st.one_of(
    st.lists(statement(2), min_size=1, max_size=6).map(lambda xs: "import torch\n" + "\n".join(xs)),
    # every statement guarded, so that later statements run after earlier ones fail
    st.lists(statement(2), min_size=1, max_size=8).map(
        lambda xs: "import torch\n" + "\n".join(_guard(x) for x in xs)),
)


def predefined():
    return {"a": 1, "b": 2.5, "c": -3, "s": "abc", "l": [1, 2, 3], "t": FakeTensor(1.5),
            "d": {1: "one"}, "f": lambda *a: len(a)}


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(programs)
def test_random_programs_never_escape(src):
    try:
        program = parse_script(src, "fuzz.py")
    except ScriptRejected as e:
        assert e.error.phase == "parse"
        return
    result = run_program(program, modules=MODULES, predefined=predefined(), limits=LIMITS)
    assert isinstance(result, ScriptResult)
    assert site_mod.current is None
    if result.error is not None:
        assert result.error.phase in ("run", "limit")
        assert result.error.type


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(st.text(alphabet=st.sampled_from(list("ab()[]{}:=+-*/%<>!,.'\"\\ \n\t_#@0123456789xyz;lfor inwhile"
                                             "\x00\ufe4d\u00e9")), max_size=80))
def test_random_text_is_parsed_or_rejected(src):
    try:
        program = parse_script(src, "fuzz.py")
    except ScriptRejected as e:
        assert e.error.phase == "parse"
        return
    result = run_program(program, modules=MODULES, predefined=predefined(), limits=LIMITS)
    assert isinstance(result, ScriptResult)
