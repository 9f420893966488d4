"""``dataclasses`` in scripts: generated dataclass definitions print what CPython 3.11 prints
(repr, equality, ordering, hashing, asdict/astuple/fields/replace, frozen assignment, the
definition-time and call-time errors), and none of it hands a script a path to Python's
internals or unbounded work."""

from __future__ import annotations

import random
import textwrap

import pytest

from autotrace.interpreter import Limits, ScriptRejected
from test_interp_stdlib import cpython, out, run

HEADER = ("from dataclasses import dataclass, field, fields, asdict, astuple, replace, is_dataclass, "
          "FrozenInstanceError, KW_ONLY, InitVar, MISSING\n"
          "from typing import Optional, ClassVar, List\n"
          "import dataclasses\n")

_ANNOTATIONS = ["int", "float", "str", "list", "Optional[int]", "List[int]", "object", "tuple"]
_VALUES = ["0", "1", "-2", "2.5", "'a'", "'b'", "None", "(1, 2)", "True", "()", "(1, 'x')"]
_FACTORIES = ["list", "dict", "lambda: [1, 2]", "lambda: {'k': 1}", "tuple"]


def _field_source(rng, name: str, kw_tail: bool) -> tuple[str, bool]:
    """One field line and whether it has a default."""
    ann = rng.choice(_ANNOTATIONS)
    kind = rng.random()
    if kind < 0.35:
        return f"    {name}: {ann}", False
    if kind < 0.6:
        return f"    {name}: {ann} = {rng.choice(_VALUES)}", True
    opts = []
    has_default = True
    r = rng.random()
    if r < 0.4:
        opts.append(f"default={rng.choice(_VALUES)}")
    elif r < 0.8:
        opts.append(f"default_factory={rng.choice(_FACTORIES)}")
    else:
        has_default = False
    for flag in ("repr", "compare", "init"):
        if rng.random() < 0.15 and (flag != "init" or has_default):
            opts.append(f"{flag}=False")
    if rng.random() < 0.1:
        opts.append("hash=" + rng.choice(["True", "False"]))
    if rng.random() < 0.1 and not kw_tail:
        opts.append("kw_only=True")
    if rng.random() < 0.1:
        opts.append("metadata={'unit': 'ms'}")
    return f"    {name}: {ann} = field({', '.join(opts)})", has_default


def _class_source(rng, name: str, base: str | None) -> str:
    flags = []
    for flag, p in (("eq", 0.15), ("order", 0.35), ("frozen", 0.3), ("unsafe_hash", 0.15), ("repr", 0.1),
                    ("init", 0.05), ("kw_only", 0.15)):
        if rng.random() < p:
            flags.append(f"{flag}={flag not in ('eq', 'repr', 'init')}")
    deco = f"@dataclass({', '.join(flags)})" if flags or rng.random() < 0.5 else "@dataclass"
    lines = [deco, f"class {name}({base}):" if base else f"class {name}:"]
    kw_tail = False
    for i in range(rng.randint(0, 5)):
        if not kw_tail and rng.random() < 0.1:
            lines.append("    _: KW_ONLY")
            kw_tail = True
        lines.append(_field_source(rng, f"f{name.lower()}{i}", kw_tail)[0])
    if rng.random() < 0.15:
        lines.append("    count: ClassVar[int] = 3")
    if rng.random() < 0.15:
        lines.append("    scale: InitVar[int] = 2")
        lines.append("    def __post_init__(self, scale):")
        lines.append("        self.extra = scale * 10")
    elif rng.random() < 0.15:
        lines.append("    def __post_init__(self):")
        lines.append("        self.extra = 'post'")
    if rng.random() < 0.1:
        lines.append("    def describe(self):\n        return 'I am ' + repr(self)")
    if len(lines) == 2:
        lines.append("    pass")
    return "\n".join(lines)


_ARGS = ["", "1", "1, 2", "'x', 2.5, None", "1, 2, 3, 4, 5, 6, 7", "fa0=1", "fb1=[1]", "1, fa0=2", "nope=3",
         "(1,), [2], 'z'"]


def _script(seed: int) -> str:
    rng = random.Random(seed)
    parts = [HEADER, "def show(label, f):\n    try:\n        r = repr(f())\n        if ' at 0x' in r:\n            r = r[:r.index(' at 0x')]\n"
             "        print(label, r)\n"
             "    except Exception as e:\n        print(label, type(e).__name__, e)\n"]
    classes = []
    for name in ("A", "B"):
        base = classes[-1] if classes and rng.random() < 0.4 else None
        src = _class_source(rng, name, base)
        parts.append("try:\n" + textwrap.indent(src, "    ") + f"\n    {name}_ok = True\n"
                     f"except Exception as e:\n    {name}_ok = False\n    print('define {name}', type(e).__name__, e)\n")
        classes.append(name)
    for name in classes:
        parts.append(f"if {name}_ok:")
        objs = []
        for j in range(3):
            args = rng.choice(_ARGS)
            parts.append(f"    show({'make ' + name + '(' + args + ')'!r}, lambda: {name}({args}))")
            parts.append(f"    try:\n        o{j} = {name}({args})\n    except Exception:\n        o{j} = None")
            objs.append(f"o{j}")
        parts.append(f"    show('fields', lambda: [(f.name, f.default is MISSING or f.default, f.default_factory is MISSING, "
                     f"f.init, f.repr, f.compare, f.hash, f.kw_only, f.metadata) for f in fields({name})])")
        for a, b in ((objs[0], objs[1]), (objs[1], objs[2]), (objs[0], objs[0])):
            parts.append(f"    if {a} is not None and {b} is not None:")
            for expr in (f"{a} == {b}", f"{a} != {b}", f"{a} < {b}", f"{a} >= {b}", f"hash({a}) == hash({b})",
                         f"asdict({a})", f"astuple({a})", f"replace({a})", f"is_dataclass({a})",
                         f"{a}.__class__.__qualname__", f"sorted([{b}, {a}]) == [{a}, {b}]"):
                parts.append(f"        show({expr!r}, lambda: {expr})")
            parts.append(f"        show('repr', lambda: repr({a}))")
            parts.append(f"        show('set', lambda: setattr({a}, 'fa0', 99) or {a})")
            parts.append(f"        show('new', lambda: setattr({a}, 'brand_new', 1) or {a}.brand_new)")
            parts.append(f"        show('describe', lambda: {a}.describe())")
            parts.append(f"        show('extra', lambda: {a}.extra)")
            parts.append(f"        show('class attr', lambda: {name}.fa0)")
    return "\n".join(parts) + "\n"


@pytest.mark.parametrize("seed", range(60))
def test_generated_dataclasses_print_what_cpython_prints(seed):
    src = _script(seed)
    assert out(src) == cpython(src), src


def test_the_generated_scripts_cover_the_features():
    srcs = "".join(_script(s) for s in range(60))
    for feature in ("frozen=True", "order=True", "unsafe_hash=True", "eq=False", "default_factory", "KW_ONLY",
                    "InitVar", "ClassVar", "__post_init__", "kw_only=True", "init=False", "class B(A)"):
        assert feature in srcs, feature


CASES = {
    "config": """
        from dataclasses import dataclass, field
        @dataclass
        class Config:
            lr: float = 0.1
            epochs: int = 3
            layers: list = field(default_factory=lambda: [4, 8])
            name: str = 'run'
        c = Config(lr=0.01)
        print(c, c == Config(0.01), c.layers is Config().layers)
        c.epochs += 1
        print(c.epochs, Config.lr, Config.__qualname__)
    """,
    "errors": """
        from dataclasses import dataclass, field, fields, asdict, replace
        for make in (lambda: field(default=1, default_factory=list),):
            try:
                make()
            except ValueError as e:
                print('ValueError', e)
        try:
            @dataclass
            class Bad:
                a: list = []
        except ValueError as e:
            print(e)
        try:
            @dataclass
            class Bad2:
                a: int = 1
                b: int
        except TypeError as e:
            print(e)
        try:
            @dataclass
            class Bad3:
                a = field(default=1)
        except TypeError as e:
            print(e)
        try:
            @dataclass(order=True, eq=False)
            class Bad4:
                a: int
        except ValueError as e:
            print(e)
        try:
            @dataclass(order=True)
            class Bad5:
                a: int
                def __lt__(self, other):
                    return True
        except TypeError as e:
            print(e)
        try:
            @dataclass(unsafe_hash=True)
            class Bad6:
                a: int
                def __hash__(self):
                    return 1
        except TypeError as e:
            print(e)
        @dataclass(frozen=True)
        class F:
            a: int
        try:
            @dataclass
            class G(F):
                b: int = 0
        except TypeError as e:
            print(e)
        @dataclass
        class H:
            a: int
            b: int = field(init=False, default=3)
        for bad in (lambda: fields(1), lambda: asdict(H), lambda: replace(H(1), b=2), lambda: replace(1),
                    lambda: H(), lambda: H(1, 2), lambda: H(a=1, c=2), lambda: H(1, a=1)):
            try:
                bad()
            except (TypeError, ValueError) as e:
                print(type(e).__name__, e)
    """,
    "frozen": """
        from dataclasses import dataclass, FrozenInstanceError
        import dataclasses
        @dataclass(frozen=True)
        class P:
            x: int
            y: int = 0
            def moved(self, dx):
                return P(self.x + dx, self.y)
        p = P(1)
        for attempt in ('x', 'z'):
            try:
                setattr(p, attempt, 5)
            except FrozenInstanceError as e:
                print(repr(e), isinstance(e, AttributeError), type(e))
        try:
            p.x = 3
        except AttributeError as e:
            print(e)
        try:
            p.x = 3
        except dataclasses.FrozenInstanceError as e:
            print('caught', e)
        print(p.moved(2), hash(p) == hash((1, 0)), {p: 1}[P(1, 0)], P(1) in {P(1)})
    """,
    "frozen_post_init": """
        from dataclasses import dataclass, field
        @dataclass(frozen=True)
        class Shape:
            h: int
            w: int = 2
            area: int = field(init=False, default=0)
            def __post_init__(self):
                object.__setattr__(self, 'area', self.h * self.w)
                object.__setattr__(self, 'note', 'derived')
        s = Shape(3)
        print(s, s.area, s.note, s == Shape(3), hash(s) == hash(Shape(3)))
        class Plain:
            @property
            def v(self):
                return 1
            @v.setter
            def v(self, x):
                print('set', x)
        p = Plain()
        object.__setattr__(p, 'v', 5)
        object.__setattr__(p, 'w', 6)
        print(p.w)
        for args in ((1, 'x', 2), (p, 3, 2)):
            try:
                object.__setattr__(*args)
            except (TypeError, AttributeError) as e:
                print(type(e).__name__, e)
    """,
    "recursive_repr": """
        from dataclasses import dataclass, field
        @dataclass
        class Node:
            value: int
            children: list = field(default_factory=list)
        n = Node(1)
        n.children.append(n)
        n.children.append(Node(2))
        print(n)
        @dataclass
        class Pair:
            a: object = None
        p = Pair()
        p.a = p
        print(p, p == p)
    """,
    "asdict_nested": """
        from dataclasses import dataclass, field, asdict, astuple
        from collections import namedtuple, OrderedDict
        Pt = namedtuple('Pt', 'x y')
        @dataclass
        class Inner:
            v: int = 1
        @dataclass
        class Outer:
            inner: Inner = field(default_factory=Inner)
            items: list = field(default_factory=lambda: [Inner(2), (Inner(3), 4)])
            table: dict = field(default_factory=lambda: {'k': Inner(5)})
            pt: object = Pt(Inner(6), 7)
        o = Outer()
        print(asdict(o))
        print(astuple(o))
        print(asdict(o, dict_factory=OrderedDict))
        print(asdict(o, dict_factory=lambda kv: [k for k, _ in kv]))
        d = asdict(o)
        d['items'].append(9)
        print(o.items[-1], type(asdict(o)['pt']).__name__)
    """,
    "inheritance_and_post_init": """
        from dataclasses import dataclass, field, fields, InitVar, KW_ONLY
        @dataclass
        class Base:
            a: int
            b: int = 2
        @dataclass
        class Child(Base):
            c: int = 3
            a: int = 10
            scale: InitVar[int] = 1
            def __post_init__(self, scale):
                self.total = (self.a + self.b + self.c) * scale
        ch = Child(scale=2)
        print(ch, ch.total, [f.name for f in fields(ch)], Child(1, 2, 3, 4).total)
        @dataclass(kw_only=True)
        class K:
            a: int
            b: int = 0
        print(K(a=1), K(b=2, a=3))
        try:
            K(1)
        except TypeError as e:
            print(e)
        @dataclass
        class Kw:
            a: int
            _: KW_ONLY
            b: int = 1
            c: int
        print(Kw(0, c=2))
        class Plain(Base):
            pass
        print(Plain(5), Plain(5) == Base(5), Base(5) == Base(5))
    """,
    "order_and_eq": """
        from dataclasses import dataclass, field
        @dataclass(order=True)
        class Version:
            major: int
            minor: int = 0
            note: str = field(default='', compare=False)
        vs = [Version(1, 2, 'b'), Version(0, 9), Version(1, 0, 'a'), Version(1, 2, 'a')]
        print(sorted(vs), max(vs), Version(1, 2, 'x') == Version(1, 2, 'y'))
        try:
            Version(1) < 3
        except TypeError as e:
            print(e)
        @dataclass(eq=False)
        class Id:
            a: int
        print(Id(1) == Id(1), hash(Id(1)) != 0)
        @dataclass
        class Plain:
            a: int
        try:
            hash(Plain(1))
        except TypeError as e:
            print(e)
        @dataclass(unsafe_hash=True)
        class U:
            a: int
            b: list = field(default_factory=list, hash=False)
        print(hash(U(1)) == hash((1,)))
    """,
    "decorator_forms": """
        import dataclasses
        from dataclasses import dataclass, is_dataclass
        deco = dataclass(repr=False)
        @deco
        class R:
            a: int = 1
        print(R() == R(), repr(R()).startswith('<__main__.R object'), is_dataclass(R), is_dataclass(R()))
        @dataclasses.dataclass()
        class S:
            a: int = 1
            def __repr__(self):
                return 'custom'
        print(S(), dataclasses.fields(S)[0].type, dataclasses.fields(S)[0].name)
        @dataclass(init=False)
        class T:
            a: int = 4
        t = T()
        print(t, t.a)
        def make():
            @dataclass
            class Local:
                v: int = 0
            return Local
        print(make()(3))
        print(dataclasses.MISSING is dataclasses.MISSING, is_dataclass(3))
        iv = dataclasses.InitVar[int]
        print(iv, type(iv).__name__, dataclasses.InitVar)
        import copy
        @dataclass(frozen=True)
        class Fz:
            a: int
            b: list = dataclasses.field(default_factory=list)
        f = Fz(1, [Fz(2)])
        g = copy.deepcopy(f)
        print(g, g == f, g.b[0] is f.b[0], copy.copy(f) == f, dataclass(dataclass(Fz))(3))
    """,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_same_output_as_cpython(name):
    src = textwrap.dedent(CASES[name])
    assert out(src) == cpython(src)


# -- the sandbox ---------------------------------------------------------------------

HOSTILE = [
    ("from dataclasses import fields, dataclass\n@dataclass\nclass C:\n    a: int = 1\nfields(C)[0].name = 'b'\n",
     "AttributeError", "attribute 'name' of 'Field' objects is not writable"),
    ("from dataclasses import fields, dataclass\n@dataclass\nclass C:\n    a: int = 1\n"
     "setattr(fields(C)[0], 'default', 2)\n", "AttributeError", "not writable"),
    ("from dataclasses import fields, dataclass\n@dataclass\nclass C:\n    a: int = 1\n"
     "fields(C)[0].metadata['x'] = 1\n", "TypeError", "'mappingproxy' object does not support item assignment"),
    ("from dataclasses import fields, dataclass\n@dataclass\nclass C:\n    a: int = 1\nx = fields(C)[0]._field_type\n",
     "AttributeError", "attribute '_field_type' of 'Field' objects is not available"),
    ("from dataclasses import dataclass\n@dataclass\nclass C:\n    a: int = 1\ng = C.__init__\nx = getattr(g, '_code')\n",
     "AttributeError", "attribute '_code' of 'function' objects is not available"),
    ("from dataclasses import dataclass\n@dataclass\nclass C:\n    a: int = 1\nx = getattr(C.__init__, 'cls')\n",
     "AttributeError", "attribute 'cls' of 'function' objects is not available"),
    ("from dataclasses import dataclass, field\n@dataclass\nclass C:\n    a: list = field(default_factory=lambda: [0] * 10**9)\n"
     "C()\n", "LimitError", "size limit"),
    ("from dataclasses import dataclass, field\ndef spin():\n    while True:\n        pass\n@dataclass\nclass C:\n"
     "    a: list = field(default_factory=spin)\nC()\n", "LimitError", "loop iteration limit"),
    ("from dataclasses import dataclass\n@dataclass\nclass C:\n    a: int = 0\n    def __post_init__(self):\n"
     "        C(self.a + 1)\nC()\n", "LimitError", "recursion limit"),
    ("from dataclasses import dataclass, asdict\n@dataclass\nclass C:\n    a: object = None\nc = C()\nl = [c]\n"
     "l.append(l)\nc.a = l\nasdict(c)\n", "LimitError", "recursion limit"),
    ("from dataclasses import dataclass\n@dataclass\nclass C:\n    a: object = None\nx = None\n"
     "for i in range(100000):\n    x = C(x)\nprint(len(repr(x)))\n", "LimitError", "recursion limit"),
    ("from dataclasses import dataclass\n@dataclass\nclass C:\n    a: int = 0\nwhile True:\n    C()\n",
     "LimitError", "loop iteration limit"),
    ("import dataclasses\ndataclasses.make_dataclass('X', ['a'])\n", "AttributeError", "is not available"),
    ("import dataclasses\nx = dataclasses._process_class\n", "AttributeError", "is not available"),
    ("from dataclasses import dataclass\nimport torch.nn as nn\n@dataclass\nclass M(nn.Module):\n    a: int = 1\n",
     "TypeError", "not supported yet"),
    ("from dataclasses import dataclass\n@dataclass(slots=True)\nclass C:\n    a: int = 1\n", "TypeError",
     "not supported yet"),
    ("from dataclasses import dataclass\ndataclass(int)\n", "TypeError", "classes defined by the script"),
    ("from dataclasses import dataclass\n@dataclass\nclass C:\n    a: int = 1\nx = C.__init__.__globals__\n",
     "AttributeError", "'__globals__' is not available"),
    ("from dataclasses import fields, dataclass\n@dataclass\nclass C:\n    a: int = 1\n"
     "x = type(fields(C)[0]).__subclasses__()\n", "AttributeError", "'__subclasses__' is not available"),
    ("from dataclasses import dataclass\n@dataclass\nclass C:\n    a: int = 1\nx = C().__class__.__dict__\n",
     "AttributeError", "'__dict__' is not available"),
    ("from dataclasses import dataclass, FrozenInstanceError\nx = FrozenInstanceError.__mro__\n",
     "AttributeError", "'__mro__' is not available"),
    ("from dataclasses import dataclass\n@dataclass(frozen=True)\nclass C:\n    a: int = 1\nC.__setattr__ = None\n",
     "AttributeError", "'__setattr__' is not available"),
    ("from dataclasses import dataclass\n@dataclass(frozen=True)\nclass C:\n    a: int = 1\n"
     "setattr(C, '__setattr__', None)\n", "AttributeError", "assigning attribute '__setattr__'"),
    ("class A:\n    pass\nobject.__setattr__(A(), '__class__', int)\n", "AttributeError",
     "assigning attribute '__class__' is not supported"),
    ("x = (1).__setattr__\n", "AttributeError", "attribute '__setattr__' of 'int' objects is not available"),
    ("f = object.__setattr__\nx = f.__self__\n", "AttributeError", "'__self__' is not available"),
    ("from dataclasses import dataclass, field\n@dataclass\nclass C:\n    a: dict = field(metadata=3)\n",
     "TypeError", "mappingproxy() argument must be a mapping, not int"),
]


@pytest.mark.parametrize("src, type_, fragment", HOSTILE, ids=[str(i) for i in range(len(HOSTILE))])
def test_hostile_dataclass_scripts_are_stopped(src, type_, fragment):
    try:
        res = run(src, Limits(timeout=20, max_loop_iterations=100_000))
    except ScriptRejected as e:       # refused before it runs
        error = e.error
    else:
        assert res.error is not None, res.stdout
        error = res.error
    assert error.type == type_, error
    assert fragment in error.message, error


def test_a_frozen_instance_stays_frozen_whatever_the_script_tries():
    res = run("""
        from dataclasses import dataclass, replace, fields
        @dataclass(frozen=True)
        class C:
            a: int = 1
        c = C()
        for how in (lambda: setattr(c, 'a', 2), lambda: setattr(c, 'b', 2)):
            try:
                how()
            except AttributeError as e:
                print(e)
        d = replace(c, a=5)
        print(c, d, fields(c)[0].default)
    """)
    assert res.error is None, res.error
    assert res.stdout == "cannot assign to field 'a'\ncannot assign to field 'b'\nC(a=1) C(a=5) 1\n"
