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
NAMES = ["a", "b", "c", "s", "l", "t", "d", "f", "K", "k"]
LIMITS = Limits(timeout=1.0, max_steps=20_000, max_loop_iterations=500, max_recursion=30,
                max_output=5_000, max_sequence=5_000, max_int_bits=512)

literals = st.one_of(
    st.integers(-3, 300).map(str),
    st.sampled_from(["10**9", "2**70", "-1", "0", "1e308", "1.5", "-0.0", "float('nan')", "float('inf')",
                     "'ab'", "''", "'x{}y'", "'%d'", "[1, 2]", "[]", "(1,)", "{'k': 1}", "{1, 2}",
                     "None", "True", "range(3)", "t", "torch.tensor(2.0)", "torch.tensor([1.0, 2.0])",
                     "...", "1j", "lambda v: v", "print", "len", "d", "f", "K", "K()", "k", "type(k)",
                     "super()", "type(a)", "k.__class__", "K.__name__", "getattr(k, 'x', 0)", "object()",
                     # the standard-library modules (imported by PRELUDE)
                     "itertools.count()", "itertools.cycle(l)", "itertools.repeat(s)", "itertools.product(l, repeat=9)",
                     "itertools.permutations(range(40))", "itertools.chain(l, s)", "itertools.islice(l, 2)",
                     "OrderedDict(d)", "defaultdict(list)", "defaultdict(K)", "deque(l, 2)", "Counter(s)",
                     "P(1, 2)", "P", "functools.partial(f, 1)", "random.random()", "copy.deepcopy(l)",
                     "copy.copy(k)", "List[int]", "Optional[K]", "time.perf_counter()", "fib", "plt.plot(l)"]),
)

BINOPS = ["+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^", "@", "and", "or",
          "<", "<=", "==", "!=", ">", "in", "not in", "is"]
CALLS = ["len", "abs", "min", "max", "sum", "str", "repr", "list", "tuple", "sorted", "bool", "int",
         "float", "set", "dict", "any", "all", "reversed", "enumerate", "iter", "next", "round",
         "format", "hasattr", "callable", "isinstance", "divmod", "pow", "zip", "map", "filter", "f",
         "type", "K", "getattr", "setattr", "issubclass", "hash", "super", "staticmethod", "property",
         "copy.deepcopy", "copy.copy", "random.choice", "random.shuffle", "random.sample", "itertools.chain",
         "itertools.product", "itertools.accumulate", "functools.reduce", "functools.partial", "deque",
         "Counter", "OrderedDict", "P", "P._make", "namedtuple", "fib", "time.sleep", "random.choices"]
METHODS = [".upper()", ".split()", ".append(1)", ".pop()", ".keys()", ".get(1)", ".format(1, 2)",
           ".join(['a'])", ".sum()", ".item()", ".value", ".grad", ".names", ".real", ".count(1)",
           ".replace('a', 'bb')", ".ljust(5)", ".index(1)", ".copy()", ".secret", "._hidden",
           ".add(1)", ".update({1: 2})", ".is_integer()", ".bit_length()", ".x", ".m()", ".m", ".p",
           "._sdict", "._cls", ".s()", ".c()", ".__name__", ".__class__", ".__init__", ".__add__(1)",
           ".most_common()", ".appendleft(1)", ".move_to_end(1)", "._asdict()", "._replace(x=2)", "._fields",
           ".func", ".args", ".keywords", ".cache_info()", ".elements()", ".rotate(10**9)", ".from_iterable(l)",
           ".default_factory", ".maxlen", "._gen", "._left", "._f", "._store", "._text"]

#: class bodies: special methods that return odd things, recurse, loop; properties,
#: static/class methods, a base that is a script class or something that is not a class
CLASS_BODIES = [
    "x = 1", "def __init__(self, *a):\n    self.x = a", "def __repr__(self):\n    return repr(self)",
    "def __repr__(self):\n    return 5", "def __len__(self):\n    return -1", "def __iter__(self):\n    return 1",
    "def __getitem__(self, i):\n    return self[i]", "def __add__(self, o):\n    return o + self",
    "def __radd__(self, o):\n    return NotImplemented", "def __eq__(self, o):\n    return self",
    "def __bool__(self):\n    return 1", "def __hash__(self):\n    return 'h'", "def __call__(self, *a):\n    return self(*a)",
    "def m(self):\n    return super().m()", "@property\ndef p(self):\n    return self.p",
    "@staticmethod\ndef s():\n    return K", "@classmethod\ndef c(cls):\n    return cls()",
    "def __enter__(self):\n    return self", "def __exit__(self, *e):\n    return True",
    "while True:\n    pass", "y = [0] * 10**9", "def __str__(self):\n    return str(self)",
    "def __contains__(self, v):\n    return v in self", "def __init__(self):\n    super().__init__(1)",
]
#: what a script does with a generator function ``G`` (the fuzzer's generator statements)
GENERATOR_USES = [
    "print(list(G()))", "for q in G():\n    print(q)", "g = G()\nprint(next(g), next(g, 0))",
    "g = G()\nnext(g)\nprint(g.send(2))", "g = G()\nnext(g)\ng.throw(ValueError('x'))", "g = G()\nnext(g)\ng.close()",
    "print(sum(G()), list(zip(G(), G())), [q for q in G()])", "g = G()\nprint(next(g), g.send(g))",
    "def H():\n    r = yield from G()\n    yield r\nprint(list(H()))", "g = G()\nnext(g)",
]
BASES = ["", "(object)", "(K)", "(ValueError)", "(int)", "(print)", "(torch.Tensor)", "(k)", "(type(k))"]
DECORATORS = ["@staticmethod", "@property", "@print", "@type", "@torch.no_grad()", "@(lambda g: g)",
              "@K", "@f", "@len", "@super"]


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
        e.map(lambda x: f"yield {x}"),
        e.map(lambda x: f"yield from {x}"),
        st.tuples(name, e).map(lambda x: f"{x[0]} = yield {x[1]}"),
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
        st.tuples(st.sampled_from(DECORATORS), name, body).map(
            lambda x: f"{x[0]}\ndef {x[1]}(v=1):\n{indent(x[2])}"),
        st.tuples(st.sampled_from(["K", "k", "B"]), st.sampled_from(BASES),
                  st.lists(st.sampled_from(CLASS_BODIES), min_size=1, max_size=4), body).map(
            lambda x: f"class {x[0]}{x[1]}:\n" + "\n".join(indent(b) for b in x[2]) + f"\n{x[0]}()\n{x[3]}"),
        st.tuples(name, body).map(lambda x: f"def {x[0]}():\n    global a\n{indent(x[1])}"),
        # a generator function and the ways scripts drive one
        st.tuples(name, body, st.sampled_from(GENERATOR_USES)).map(
            lambda x: f"def {x[0]}(v=1):\n{indent(x[1])}\n    yield v\n" + x[2].replace("G", x[0])),
        body.map(lambda x: f"with K() as k:\n{indent(x)}"),
        body.map(lambda x: f"with torch.no_grad():\n{indent(x)}"),
    )


def _guard(stmt: str) -> str:
    body = "\n".join("    " + line for line in stmt.split("\n"))
    return f"try:\n{body}\nexcept Exception as exc:\n    print(repr(exc))"


def _class_program(x):
    name, base, bodies, deco, uses = x
    body = "\n".join("\n".join("    " + line for line in b.split("\n")) for b in bodies)
    deco_line = f"{deco}\n" if deco else ""
    return (f"import torch\n{PRELUDE}{deco_line}class {name}{base}:\n{body}\n"
            + "\n".join(_guard(u) for u in uses))


#: programs centred on one class statement (its body, base, decorator) and its uses
class_programs = st.tuples(
    st.sampled_from(["K", "B"]), st.sampled_from(BASES), st.lists(st.sampled_from(CLASS_BODIES), min_size=1, max_size=5),
    st.sampled_from(["", "@print", "@type", "@(lambda c: c)", "@staticmethod", "@torch.no_grad()"]),
    st.lists(st.one_of(statement(1), st.sampled_from([
        "o = B()", "print(B())", "print(str(B()), len(B()))", "print(B() + 1, 1 + B())", "print(list(B()))",
        "print(1 in B(), B() == B(), hash(B()), bool(B()))", "print(B().m(), B().p, B.s(), B.c())",
        "with B() as q:\n    raise ValueError('x')", "print(B()(1))", "print(type(B()).__name__, B().__class__)",
        "print(isinstance(B(), K), issubclass(B, K))", "print(B()[0])", "setattr(B(), 'x', 1)",
        "print(getattr(B(), '__dict__', None))", "print(super(B, B()).m())"])), min_size=1, max_size=6),
).map(_class_program)

def _generator_program(x):
    bodies, uses = x
    body = "\n".join("\n".join("    " + line for line in b.split("\n")) for b in bodies)
    return (f"import torch\n{PRELUDE}def G(v=1):\n{body}\n    yield v\n"
            + "\n".join(_guard(u) for u in uses))


#: programs centred on one generator function (yields anywhere in its body) and its uses
generator_programs = st.tuples(
    st.lists(statement(1), min_size=1, max_size=4),
    st.lists(st.sampled_from(GENERATOR_USES), min_size=1, max_size=4),
).map(_generator_program)

programs = st.one_of(
    class_programs,
    generator_programs,
    st.lists(statement(2), min_size=1, max_size=6).map(lambda xs: "import torch\n" + PRELUDE + "\n".join(xs)),
    # every statement guarded, so that later statements run after earlier ones fail
    st.lists(statement(2), min_size=1, max_size=8).map(
        lambda xs: "import torch\n" + PRELUDE + "\n".join(_guard(x) for x in xs)),
)


PRELUDE = ("import itertools, functools, copy, random, time\n"
           "from collections import OrderedDict, defaultdict, deque, Counter, namedtuple\n"
           "from typing import List, Optional\nimport matplotlib.pyplot as plt\n"
           "P = namedtuple('P', 'x y')\n@functools.lru_cache(maxsize=4)\ndef fib(n):\n    return n\n"
           "class K:\n    def __init__(self, x=1):\n        self.x = x\n    def m(self):\n        return self.x\n"
           "    def __enter__(self):\n        return self\n    def __exit__(self, *e):\n        return False\n"
           "k = K()\n")


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
