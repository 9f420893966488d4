"""Script classes, decorators, super(), type()/isinstance/getattr, global/nonlocal, with over
script classes: each positive program runs under CPython too and must print the same;
each hostile one must end in a clean script error (never an escape, never an internal
error)."""

from __future__ import annotations

import contextlib
import io
import time

import pytest

from autotrace.interpreter import Limits, ScriptRejected, parse_script, run_program
from autotrace.interpreter.classes import ScriptClass, ScriptInstance

from interp_stubs import MODULES


def _python(src: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(src, "<py>", "exec"), {"__name__": "__main__"})
    return out.getvalue()


def _ours(src: str, **kw):
    r = run_program(parse_script(src, "t.py"), modules=MODULES, **kw)
    return r


SAME_AS_PYTHON = {
    "special_methods": """
class V:
    def __init__(self, x):
        self.x = x
    def __add__(self, o):
        return V(self.x + (o.x if isinstance(o, V) else o))
    def __radd__(self, o):
        return self + o
    def __mul__(self, o):
        return V(self.x * (o.x if isinstance(o, V) else o))
    __rmul__ = __mul__
    def __neg__(self):
        return V(-self.x)
    def __sub__(self, o):
        return self + (-o)
    def __rsub__(self, o):
        return (-self) + o
    def __truediv__(self, o):
        return V(self.x / o)
    def __pow__(self, k):
        return V(self.x ** k)
    def __eq__(self, o):
        return isinstance(o, V) and o.x == self.x
    def __lt__(self, o):
        return self.x < o.x
    def __hash__(self):
        return hash(self.x)
    def __repr__(self):
        return f"V({self.x})"
a, b = V(2), V(5)
print(a + b, 1 + a, a * 3, 3 * a, -a, a - 1, 10 - a, b / 2, a ** 3, a == V(2), a != b, a < b)
print(sorted([b, a]), max(a, b), sum([a, b], V(0)), {a, V(2), b} == {a, b}, f"{a!r}|{a}", str([a]))
x = V(1)
x += 4
x *= 2
print(x, abs(-3), divmod(7, 2))
""",
    "containers_and_protocols": """
class Bag:
    def __init__(self, *items):
        self.items = list(items)
    def __len__(self):
        return len(self.items)
    def __getitem__(self, i):
        return self.items[i]
    def __setitem__(self, i, v):
        self.items[i] = v
    def __delitem__(self, i):
        del self.items[i]
    def __contains__(self, v):
        return v in self.items
    def __iter__(self):
        return iter(self.items)
    def __bool__(self):
        return bool(self.items)
    def __call__(self, *a, **k):
        return (a, sorted(k))
    def __str__(self):
        return "Bag" + str(self.items)
class Seq:
    def __getitem__(self, i):
        if i >= 3:
            raise IndexError(i)
        return i * 10
class Count:
    def __init__(self, n):
        self.n = n
    def __iter__(self):
        return self
    def __next__(self):
        if self.n == 0:
            raise StopIteration
        self.n -= 1
        return self.n
g = Bag(1, 2, 3)
g[0] = 9
del g[1]
print(len(g), g[0], g[-1], 3 in g, 2 in g, list(g), bool(Bag()), g(1, b=2, a=3), str(g), g)
print(list(Seq()), [v for v in Count(3)], sum(Count(4)), tuple(Count(2)), 20 in Seq())
p, q = Bag(4, 5)
print(p, q, *Bag(7, 8))
""",
    "inheritance_super_properties": """
class A:
    tag = "a"
    def __init__(self, v):
        self.v = v
    def who(self):
        return "A" + str(self.v)
    @property
    def double(self):
        return self.v * 2
    @double.setter
    def double(self, d):
        self.v = d // 2
    @staticmethod
    def helper(x):
        return x + 1
    @classmethod
    def make(cls, v):
        return cls(v)
class B(A):
    tag = "b"
    def __init__(self, v, w=0):
        super().__init__(v)
        self.w = w
    def who(self):
        return "B/" + super().who()
class C(B):
    def who(self):
        return "C/" + super(C, self).who()
c = C.make(3)
c.double = 10
print(c.who(), c.v, c.double, c.tag, A.tag, C.helper(1), c.helper(2), type(c).__name__, c.__class__.__name__)
print(isinstance(c, A), isinstance(c, (int, B)), issubclass(C, A), issubclass(A, C), issubclass(C, (int, A)))
print(type(c) is C, type(c) == B, hasattr(c, "w"), hasattr(c, "zz"), getattr(c, "w"), getattr(c, "zz", -1))
setattr(c, "w", 7)
A.tag = "changed"
print(c.w, B.tag, A.tag, C.who(c), A.who(c), C.__name__, c.who.__name__ if False else "ok")
try:
    c.nothing
except AttributeError as e:
    print("AttributeError", e)
try:
    C(1, 2, 3)
except TypeError as e:
    print("TypeError", e)
""",
    "decorators_global_nonlocal_with": """
log = []
def tag(name):
    def deco(fn):
        def wrapper(*a, **k):
            log.append(name + ":" + fn.__name__)
            return fn(*a, **k)
        return wrapper
    return deco
@tag("x")
@tag("y")
def add(a, b=1, *, c=0):
    return a + b + c
print(add(1), add(1, 2, c=3), log, add.__name__)
total = 0
def bump():
    global total
    total += 1
def counter():
    n = 0
    def step():
        nonlocal n
        n += 1
        return n
    return step
bump(); bump()
s = counter(); s(); s()
print(total, s())
class CM:
    def __init__(self, swallow):
        self.swallow = swallow
        self.seen = []
    def __enter__(self):
        self.seen.append("in")
        return self
    def __exit__(self, et, ev, tb):
        self.seen.append(et.__name__ if et else None)
        return self.swallow
with CM(True) as m:
    raise KeyError("k")
try:
    with CM(False) as m2:
        raise ValueError("v")
except ValueError as e:
    print("escaped", e)
with CM(False) as m3:
    pass
print(m.seen, m2.seen, m3.seen)
class Err(ValueError):
    def __init__(self, msg, code):
        super().__init__(msg)
        self.code = code
try:
    raise Err("bad", 4)
except ValueError as e:
    print(type(e).__name__, e, e.code, e.args, repr(e))
if __name__ == "__main__":
    print("main")
""",
}


@pytest.mark.parametrize("name", sorted(SAME_AS_PYTHON))
def test_same_output_as_python(name):
    src = SAME_AS_PYTHON[name]
    r = _ours(src)
    assert r.error is None, r.error
    assert r.stdout == _python(src)


def test_script_classes_are_autotraces_own_objects():
    r = _ours("class A:\n    def __init__(self):\n        self.x = 1\na = A()")
    assert type(r.globals["A"]) is ScriptClass
    assert type(r.globals["a"]) is ScriptInstance
    assert not isinstance(r.globals["A"], type)


def test_uncaught_error_inside_a_method_points_at_the_method_line():
    r = _ours("class A:\n    def f(self):\n        return [][0]\nA().f()")
    assert (r.error.type, r.error.message, r.error.line) == ("IndexError", "list index out of range", 3)


def test_operator_errors_name_the_script_class():
    for src, msg in [("class A:\n    pass\nA() + 1", "unsupported operand type(s) for +: 'A' and 'int'"),
                     ("class A:\n    pass\n1 - A()", "unsupported operand type(s) for -: 'int' and 'A'"),
                     ("class A:\n    pass\nA() < A()", "'<' not supported between instances of 'A' and 'A'"),
                     ("class A:\n    pass\n-A()", "bad operand type for unary -: 'A'"),
                     ("class A:\n    pass\nlen(A())", "object of type 'A' has no len()"),
                     ("class A:\n    pass\nA()[0]", "'A' object is not subscriptable"),
                     ("class A:\n    pass\nA()()", "'A' object is not callable"),
                     ("class A:\n    pass\nfor x in A():\n    pass", "'A' object is not iterable"),
                     ("class A:\n    def __eq__(self, o):\n        return True\nhash(A())", "unhashable type: 'A'"),
                     ("class A:\n    pass\nwith A():\n    pass", "'A' object does not support the context manager protocol")]:
        r = _ours(src)
        assert (r.error.type, r.error.message) == ("TypeError", msg), src
        with pytest.raises(TypeError) as e:
            _python(src)
        assert str(e.value) == msg


HOSTILE = [
    # (source, phase, type, message fragment)
    # escaping through a method's or a class's attributes
    ("class A:\n    def f(self):\n        pass\nx = A.f.__globals__", "parse", "AttributeError", "'__globals__'"),
    ("class A:\n    def f(self):\n        pass\nx = A().f.__func__", "parse", "AttributeError", "'__func__'"),
    ("class A:\n    def f(self):\n        pass\nx = A().f._f", "run", "AttributeError",
     "attribute '_f' of 'method' objects is not available"),
    ("class A:\n    pass\nx = A().__dict__", "parse", "AttributeError", "'__dict__'"),
    ("class A:\n    pass\nx = A.__mro__", "parse", "AttributeError", "'__mro__'"),
    ("class A:\n    pass\nx = A.ns", "run", "AttributeError", "type object 'A' has no attribute 'ns'"),
    ("class A:\n    pass\nx = A().__class__.__bases__", "parse", "AttributeError", "'__bases__'"),
    ("class A:\n    pass\nx = A()._sdict", "run", "AttributeError", "attribute '_sdict' of 'A' objects is not available"),
    ("class A:\n    pass\nx = A()._cls", "run", "AttributeError", "attribute '_cls' of 'A' objects is not available"),
    ("class A:\n    pass\nx = getattr(A(), '__dict__')", "run", "AttributeError", "'__dict__' of 'A' objects is not available"),
    ("class A:\n    pass\nx = getattr(A, '__subclasses__')", "run", "AttributeError", "'__subclasses__'"),
    ("class A:\n    pass\nsetattr(A(), '__class__', int)", "run", "AttributeError", "assigning attribute '__class__'"),
    ("class A:\n    pass\nx = A.__init__.__globals__", "parse", "AttributeError", "'__globals__'"),
    ("x = super.__self__", "parse", "AttributeError", "'__self__'"),
    ("class A:\n    pass\nx = type(A()).__init__", "run", "AttributeError", "type object 'A' has no attribute '__init__'"),
    ("x = type(print).__init__", "run", "AttributeError", "attribute '__init__' of 'type' objects is not available"),
    # special methods that return the wrong thing
    ("class A:\n    def __repr__(self):\n        return 5\nprint(A())", "run", "TypeError", "__repr__ returned non-string (type int)"),
    ("class A:\n    def __str__(self):\n        return print\nprint(A())", "run", "TypeError", "__str__ returned non-string"),
    ("class A:\n    def __len__(self):\n        return 'x'\nlen(A())", "run", "TypeError", "'str' object cannot be interpreted as an integer"),
    ("class A:\n    def __iter__(self):\n        return 5\nlist(A())", "run", "TypeError", "iter() returned non-iterator of type 'int'"),
    ("class A:\n    def __bool__(self):\n        return 1\nif A():\n    pass", "run", "TypeError", "__bool__ should return bool"),
    ("class A:\n    def __hash__(self):\n        return 'h'\n{A()}", "run", "TypeError", "__hash__ method should return an integer"),
    ("class A:\n    def __index__(self):\n        return 10**9\nx = [0] * A()", "parse", "SyntaxError",
     "defining the special method '__index__' is not supported yet"),
    ("class A:\n    def __getattr__(self, n):\n        return n", "parse", "SyntaxError", "'__getattr__' is not supported yet"),
    ("class A:\n    def __new__(cls):\n        return 1", "parse", "SyntaxError", "'__new__' is not supported yet"),
    ("class A:\n    def __del__(self):\n        pass", "parse", "SyntaxError", "'__del__' is not supported yet"),
    ("class A:\n    def __init__(self):\n        return 1\nA()", "run", "TypeError", "__init__() should return None, not 'int'"),
    # decorators that try to capture frames or internals
    ("def d(f):\n    return f._code\n@d\ndef g():\n    pass", "run", "AttributeError", "'_code' of 'function' objects is not available"),
    ("def d(f):\n    return f.__code__\n@d\ndef g():\n    pass", "parse", "AttributeError", "'__code__'"),
    ("def d(f):\n    return f.__closure__\n@d\ndef g():\n    pass", "parse", "AttributeError", "'__closure__'"),
    ("def d(f):\n    return f._env\n@d\ndef g():\n    pass", "run", "AttributeError", "'_env' of 'function' objects is not available"),
    ("@property\ndef p():\n    pass\nx = p.fget._code", "run", "AttributeError", "'_code' of 'function' objects"),
    ("@staticmethod\ndef p():\n    pass\nx = p.f", "run", "AttributeError", "attribute 'f' of 'staticmethod' objects"),
    ("def d(f):\n    return print\n@d\ndef g():\n    pass\nx = g.__self__", "parse", "AttributeError", "'__self__'"),
    ("def d(f):\n    return print\n@d\ndef g():\n    pass\nx = g.__name__.__class__.__subclasses__", "parse",
     "AttributeError", "'__subclasses__'"),
    # type(x) as a constructor of internal types
    ("type(print)()", "run", "TypeError", "cannot create 'builtin_function_or_method' instances"),
    ("def f():\n    pass\ntype(f)(1, 2)", "run", "TypeError", "cannot create 'function' instances"),
    ("class A:\n    def m(self):\n        pass\ntype(A().m)(print, 1)", "run", "TypeError", "cannot create 'method' instances"),
    ("type((i for i in []))()", "run", "TypeError", "cannot create 'generator' instances"),
    ("import torch\nx = type(torch)('m')", "run", "TypeError", "cannot create"),
    ("class A:\n    def f(self):\n        return super()\ntype(A().f())(A, 1)", "run", "TypeError", "cannot create 'super' instances"),
    ("type('A', (object,), {'x': 1})", "run", "TypeError", "type() with 3 arguments"),
    ("class A(type(print)):\n    pass", "run", "TypeError", "subclassing builtin_function_or_method is not supported yet"),
    ("class A(type):\n    pass", "run", "TypeError", "subclassing type is not supported yet"),
    ("def f():\n    pass\nclass A(f):\n    pass", "run", "TypeError", "the base must be a class"),
    # super() outside a class
    ("super()", "run", "RuntimeError", "super(): no arguments"),
    ("def f(self):\n    return super()\nf(1)", "run", "RuntimeError", "super(): __class__ cell not found"),
    ("class A:\n    def f():\n        return super()\nA.f()", "run", "RuntimeError", "super(): no arguments"),
    ("super(int, 1)", "run", "TypeError", "super() argument 1 must be a class defined by the script"),
    ("class A:\n    pass\nsuper(A, 1)", "run", "TypeError", "obj must be an instance or subtype of type"),
    ("class A:\n    pass\nx = super(A, A()).__init__.__self__", "parse", "AttributeError", "'__self__'"),
    ("class A:\n    pass\nsuper(A, A()).nothing", "run", "AttributeError", "'super' object has no attribute 'nothing'"),
    # recursion through special methods
    ("class A:\n    def __repr__(self):\n        return repr(self)\nprint(A())", "limit", "LimitError", "recursion"),
    ("class A:\n    def __getitem__(self, i):\n        return self[i]\nA()[0]", "limit", "LimitError", "recursion"),
    ("class A:\n    def __add__(self, o):\n        return self + o\nA() + 1", "limit", "LimitError", "recursion"),
    ("class A:\n    def __eq__(self, o):\n        return self == o\nA() == 1", "limit", "LimitError", "recursion"),
    ("class A:\n    def __init__(self):\n        A()\nA()", "limit", "LimitError", "recursion"),
    ("class A:\n    @property\n    def p(self):\n        return self.p\nA().p", "limit", "LimitError", "recursion"),
    ("class A:\n    def __iter__(self):\n        return self\n    def __next__(self):\n        return 1\nlist(A())",
     "limit", "LimitError", None),
    # class bodies that loop forever or allocate without bound
    ("class A:\n    while True:\n        pass", "limit", "LimitError", "time limit"),
    ("class A:\n    x = [0] * 10**9", "limit", "LimitError", "size limit"),
    ("class A:\n    x = []\n    while True:\n        x.append(x)", "limit", "LimitError", None),
    ("class A:\n    for i in range(10**12):\n        pass", "limit", "LimitError", None),
    # a script __exit__ cannot swallow a limit
    ("class CM:\n    def __enter__(self):\n        return self\n    def __exit__(self, *e):\n        return True\n"
     "with CM():\n    while True:\n        pass", "limit", "LimitError", "time limit"),
    # class statements outside the language
    ("class A(metaclass=type):\n    pass", "parse", "SyntaxError", "metaclass"),
    ("class A(int, str):\n    pass", "parse", "SyntaxError", "multiple inheritance is not supported yet"),
    ("class __A__:\n    pass", "parse", "SyntaxError", "the name '__A__' is not allowed"),
    ("def __add__(a, b):\n    pass", "parse", "SyntaxError", "the name '__add__' is not allowed"),
    ("class A:\n    def f(self):\n        def __repr__(s):\n            pass", "parse", "SyntaxError", "the name '__repr__' is not allowed"),
]


def _attempt(src):
    try:
        program = parse_script(src, "evil.py")
    except ScriptRejected as e:
        return e.error
    r = run_program(program, modules=MODULES, limits=Limits(timeout=0.5))
    assert r.error is not None, f"ran without error: stdout={r.stdout!r}"
    return r.error


@pytest.mark.parametrize("src, phase, type_, fragment", HOSTILE, ids=[s[:50] for s, *_ in HOSTILE])
def test_hostile_class_script_is_refused(src, phase, type_, fragment):
    t0 = time.monotonic()
    e = _attempt(src)
    assert time.monotonic() - t0 < 5
    assert (e.phase, e.type) == (phase, type_), e
    if fragment is not None:
        assert fragment in e.message, e.message


def test_script_methods_are_never_called_after_the_run():
    r = _ours("class A:\n    def __repr__(self):\n        return 'mine'\n    def __len__(self):\n        return 1\na = A()")
    a = r.globals["a"]
    assert repr(a).startswith("<__main__.A object at 0x")
    with pytest.raises(RuntimeError, match="outside of a script run"):
        len(a)
