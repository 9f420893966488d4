"""Builtins scripts use (``chr``, ``ord``, ``bin``, ``hex``, ``oct``, ``ascii``, ``frozenset``,
``slice``) and the Python protocol details around script classes (``!=`` from ``__eq__``,
ordering errors inside ``sorted``, ``__hash__`` results, ``print`` stopping mid-way, the
argument binder's messages): each compared with CPython on generated inputs; sizes against
the sandbox's limits."""

from __future__ import annotations

import random

import pytest

from autotrace.interpreter import Limits, ScriptRejected, parse_script
from test_interp_stdlib import cpython, out, run

_VALUES = ["0", "65", "0x10FFFF", "0x110000", "-1", "2**31", "2**40", "-2**40", "2**100", "1.5", "'a'", "'ab'", "''",
           "'é'", "'\\U0001F600'", "True", "False", "None", "[1]", "(1,)", "-255", "7", "1j", "A()", "E()"]


def _script(seed: int) -> str:
    rng = random.Random(seed)
    lines = ["class A:\n    pass", "class E:\n    def __eq__(self, o):\n        return True",
             "def show(f, *a):\n    try:\n        r = repr(f(*a))\n        if ' at 0x' in r:\n            r = r[:r.index(' at 0x')]\n"
             "        print(f.__name__, r)\n"
             "    except Exception as e:\n        print(f.__name__, type(e).__name__, e)"]
    for _ in range(40):
        f = rng.choice(["chr", "ord", "bin", "hex", "oct", "ascii", "frozenset", "slice"])
        nargs = 1 if f != "slice" else rng.randint(1, 3)
        args = ", ".join(rng.choice(_VALUES) for _ in range(nargs))
        lines.append(f"show({f}, {args})")
    n = rng.randint(0, 2**64)
    lines.append(f"print(bin({n}), hex(-{n}), oct({n}), chr({n} % 0x110000) == chr(ord(chr({n} % 0x110000))))")
    lines.append(f"s = slice({rng.randint(-9, 9)}, {rng.randint(-9, 9)}, {rng.choice([1, 2, -1, -3])})")
    lines.append(f"print(s, s.start, s.stop, s.step, s.indices({rng.randint(0, 12)}), list(range(12))[s])")
    lines.append(f"print(frozenset({[rng.randint(0, 5) for _ in range(6)]}) | {{9}}, ascii({chr(rng.randint(128, 5000))!r}))")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("seed", range(25))
def test_builtins_agree_with_cpython_on_generated_inputs(seed):
    src = _script(seed)
    assert out(src) == cpython(src), src


PROTOCOL = [
    # != falls back to the inverse of __eq__ (object.__ne__)
    """
class E:
    def __init__(self, v):
        self.v = v
    def __eq__(self, o):
        return isinstance(o, E) and self.v == o.v
class N:
    def __eq__(self, o):
        return NotImplemented
class Both:
    def __eq__(self, o):
        return True
    def __ne__(self, o):
        return 'custom'
print(E(1) != E(1), E(1) != E(2), E(1) != 1, 1 != E(1), [E(1)] != [E(1)], N() != N(), Both() != 1)
""",
    # ordering errors name the script classes, in sorted/min/max/list.sort too
    """
class A:
    pass
class B:
    def __lt__(self, o):
        return NotImplemented
class C:
    def __init__(self, v):
        self.v = v
    def __gt__(self, o):
        return self.v > o.v
    def __repr__(self):
        return f'C({self.v})'
for items in ([A(), A()], [B(), A()], [A(), B()], [B(), B()], [C(2), C(1), C(3)]):
    for f in (sorted, max, min, lambda l: l.sort() or l):
        try:
            print(f(items))
        except TypeError as e:
            print(e)
for op in (lambda: A() < A(), lambda: A() >= B(), lambda: C(1) < C(2), lambda: C(1) <= C(2), lambda: 1 < A()):
    try:
        print(op())
    except TypeError as e:
        print(e)
""",
    # __hash__ results: kept when they fit in 64 bits, reduced past that, -1 becomes -2
    """
class H:
    def __init__(self, v):
        self.v = v
    def __hash__(self):
        return self.v
for v in [5, -1, 2**62, -2**63, 2**63 - 1, 2**63, 2**70, -2**70, True, 2**61 - 1, 2**61, -2**61]:
    print(hash(H(v)))
class U:
    __hash__ = None
try:
    hash(U())
except TypeError as e:
    print(e)
""",
    # print writes the arguments before the one whose str() fails
    """
class Bad:
    def __str__(self):
        raise ValueError('no')
for args in (('a', 1, Bad(), 3), (Bad(), 1), ('x', Bad())):
    try:
        print(*args, sep='--')
    except ValueError:
        print('|')
""",
    # keyword arguments are matched before too many positional ones are reported
    """
def f(a, *, k=1):
    pass
def g(a, b=2, *, k, m=3):
    pass
def h():
    pass
class K:
    def m(self, a):
        pass
for call in (lambda: f(1, 2, k=3), lambda: f(1, 2), lambda: g(1, 2, 3, k=1, m=2), lambda: g(1, 2, 3, 4),
             lambda: h(1), lambda: h(1, x=2), lambda: f(1, 2, a=3), lambda: g(1, 2, 3), lambda: g(1, 2, 3, m=1),
             lambda: K().m(1, 2), lambda: K().m(1, 2, z=1)):
    try:
        call()
    except TypeError as e:
        print(e)
""",
]


@pytest.mark.parametrize("src", PROTOCOL, ids=["ne", "ordering", "hash", "print", "binding"])
def test_protocol_details_agree_with_cpython(src):
    assert out(src) == cpython(src)


HOSTILE = [
    ("x = frozenset(range(10**9))", "LimitError", "size limit"),
    ("x = [[1] * 10**3] * 10**5\ny = ascii(x)", "LimitError", "size limit"),
    ("x = slice(1, 2).indices(2**100000)", "LimitError", "integer size limit"),
    ("s = slice(1, 2)\ns.start = 5", "AttributeError", "not writable"),
    ("x = chr(2**40)", "OverflowError", "Python int too large to convert to C int"),
    ("x = chr(-1)", "ValueError", "chr() arg not in range(0x110000)"),
    ("x = ord('ab')", "TypeError", "ord() expected a character, but string of length 2 found"),
    ("class A:\n    pass\nx = ord(A())", "TypeError", "ord() expected string of length 1, but A found"),
    ("class A:\n    pass\nx = bin(A())", "TypeError", "'A' object cannot be interpreted as an integer"),
    ("x = hex(1.5)", "TypeError", "'float' object cannot be interpreted as an integer"),
    ("x = slice(1, 2).__reduce__()", "AttributeError", "'__reduce__' is not available"),
    ("while True:\n    x = chr(65)", "LimitError", "loop iteration limit"),
]


@pytest.mark.parametrize("src, type_, fragment", HOSTILE, ids=[h[0][:30] for h in HOSTILE])
def test_builtin_misuse_is_stopped(src, type_, fragment):
    try:
        res = run(src, Limits(timeout=20, max_loop_iterations=100_000))
    except ScriptRejected as e:
        error = e.error
    else:
        assert res.error is not None, res.stdout
        error = res.error
    assert error.type == type_, error
    assert fragment in error.message, error


def test_bin_of_an_integer_past_the_sequence_limit_is_refused_before_it_is_built():
    res = run("x = 1 << 5000\ny = bin(x)", Limits(max_int_bits=10_000, max_sequence=4_000))
    assert res.error is not None and res.error.type == "LimitError" and "size limit" in res.error.message


@pytest.mark.parametrize("name", ["vars", "dir", "globals", "locals", "eval", "exec", "compile", "open", "input",
                                  "breakpoint", "memoryview", "bytearray", "bytes", "delattr", "id", "__import__"])
def test_builtins_that_reach_internals_or_the_outside_stay_refused(name):
    with pytest.raises(ScriptRejected) as e:
        parse_script(f"x = {name}\n", "t.py")
    assert e.value.error.type == "NameError"
