"""Every supported construct, with real values asserted (stdout and globals)."""

from __future__ import annotations

import pytest

from autotrace.interpreter import free_names, needed_names, parse_script

from interp_stubs import FakeTensor, NoGrad, err, out, run


# -- assignment ---------------------------------------------------------------------------

def test_assign_and_globals_in_binding_order():
    r = run("""
        b = 2
        a = 1
        b = 3
        c, d = a, b
    """)
    assert r.error is None
    assert list(r.globals) == ["b", "a", "c", "d"]
    assert r.globals == {"b": 3, "a": 1, "c": 1, "d": 3}


def test_chained_assignment_and_swap():
    r = run("a = b = [1]\na.append(2)\nx, y = 1, 2\nx, y = y, x")
    assert r.globals["b"] == [1, 2] and r.globals["a"] is r.globals["b"]
    assert (r.globals["x"], r.globals["y"]) == (2, 1)


def test_tuple_unpacking_nested_and_starred():
    r = run("""
        (a, (b, c)), d = (1, (2, 3)), 4
        first, *mid, last = range(6)
        *init, tail = "abc"
        [p, q] = {"k": 1, "j": 2}
        head, *rest = [9]
    """)
    g = r.globals
    assert (g["a"], g["b"], g["c"], g["d"]) == (1, 2, 3, 4)
    assert (g["first"], g["mid"], g["last"]) == (0, [1, 2, 3, 4], 5)
    assert (g["init"], g["tail"]) == (["a", "b"], "c")
    assert (g["p"], g["q"]) == ("k", "j")
    assert (g["head"], g["rest"]) == (9, [])


@pytest.mark.parametrize("src, msg", [
    ("a, b = 1, 2, 3", "too many values to unpack (expected 2)"),
    ("a, b, c = [1, 2]", "not enough values to unpack (expected 3, got 2)"),
    ("a, b = 5", "cannot unpack non-iterable int object"),
    ("a, *b, c = [1]", "not enough values to unpack (expected at least 2, got 1)"),
    ("a, b = iter([1, 2, 3])", "too many values to unpack (expected 2)"),
])
def test_unpacking_errors(src, msg):
    e = err(src)
    assert e.message == msg
    assert e.type in ("ValueError", "TypeError")


def test_subscript_and_attribute_targets():
    r = run("""
        import torch
        d = {}
        d["k"] = 1
        d[1, 2] = "t"
        lst = [0, 1, 2, 3]
        lst[0] = 10
        lst[1:3] = [7, 8, 9]
        t = torch.tensor(1.0)
        t.grad = 5
        t.requires_grad = True
    """)
    g = r.globals
    assert g["d"] == {"k": 1, (1, 2): "t"}
    assert g["lst"] == [10, 7, 8, 9, 3]
    assert g["t"].grad == 5 and g["t"].requires_grad is True


def test_augmented_assignment_variants():
    r = run("""
        import torch
        n = 5
        n += 2
        n *= 3
        n -= 1
        n //= 4
        n **= 2
        n %= 7
        n <<= 2
        n >>= 1
        n |= 1
        n ^= 3
        n &= 6
        s = "ab"
        s += "c"
        s *= 2
        lst = [1]
        alias = lst
        lst += [2, 3]
        lst += (4,)
        d = {"a": 1}
        d["a"] += 10
        t = torch.tensor(1.0)
        before = t
        t += 2
        t.grad = 1.0
        t.grad += 0.5
        f = 1.0
        f /= 4
    """)
    g = r.globals
    n = 5
    n += 2; n *= 3; n -= 1; n //= 4; n **= 2; n %= 7; n <<= 2; n >>= 1; n |= 1; n ^= 3; n &= 6
    assert g["n"] == n
    assert g["s"] == "abcabc"
    assert g["lst"] == [1, 2, 3, 4] and g["alias"] is g["lst"]
    assert g["d"] == {"a": 11}
    assert g["t"] is g["before"]          # __iadd__: modified in place like PyTorch
    assert g["t"].value == 3.0 and g["t"]._version == 1
    assert g["t"].grad == 1.5
    assert g["f"] == 0.25


def test_annotated_assignment():
    r = run("x: int = 3\ny: float\nz: list = [x]")
    assert r.globals == {"x": 3, "z": [3]}


def test_delete():
    r = run("""
        a = 1
        b = [1, 2, 3]
        d = {"x": 1, "y": 2}
        del a, b[0], d["x"]
        def f():
            v = 1
            del v
            return v
        try:
            f()
        except NameError as e:
            msg = repr(e)
    """)
    assert "a" not in r.globals
    assert r.globals["b"] == [2, 3] and r.globals["d"] == {"y": 2}
    assert r.globals["msg"] == "UnboundLocalError(\"cannot access local variable 'v' where it is not associated with a value\")"
    e = err("del nothing_here")
    assert (e.type, e.message) == ("NameError", "name 'nothing_here' is not defined")


def test_walrus():
    r = run("""
        if (n := 10) > 5:
            big = n
        vals = [y for x in range(5) if (y := x * x) > 3]
        def f():
            out = [last := i for i in range(3)]
            return last, out
        res = f()
    """)
    g = r.globals
    assert g["big"] == 10 and g["vals"] == [4, 9, 16] and g["y"] == 16
    assert g["res"] == (2, [0, 1, 2])


# -- control flow ---------------------------------------------------------------------------

def test_if_elif_else():
    assert out("""
        for v in (-1, 0, 1):
            if v < 0:
                print("neg")
            elif v == 0:
                print("zero")
            else:
                print("pos")
    """) == "neg\nzero\npos\n"


def test_for_else_break_continue():
    assert out("""
        for i in range(5):
            if i == 1:
                continue
            if i == 3:
                break
            print(i)
        else:
            print("not reached")
        for i in []:
            pass
        else:
            print("empty else")
        for i, (a, b) in enumerate([(1, 2), (3, 4)]):
            print(i, a + b)
    """) == "0\n2\nempty else\n0 3\n1 7\n"


def test_while_else_break():
    assert out("""
        n = 0
        while n < 10:
            n += 1
            if n == 4:
                break
        else:
            print("no")
        print(n)
        while n > 0:
            n -= 2
        else:
            print("done", n)
        while True:
            n += 1
            if n > 2:
                break
        print(n)
    """) == "4\ndone 0\n3\n"


def test_nested_loops_break_inner_only():
    assert out("""
        pairs = []
        for i in range(3):
            for j in range(3):
                if j > i:
                    break
                pairs.append((i, j))
        print(pairs)
    """) == "[(0, 0), (1, 0), (1, 1), (2, 0), (2, 1), (2, 2)]\n"


def test_for_over_tensor_and_dict_items():
    assert out("""
        import torch
        for v in torch.tensor([1, 2]):
            print(v)
        for k, v in {"a": 1, "b": 2}.items():
            print(k, v)
    """) == "tensor(1)\ntensor(2)\na 1\nb 2\n"


# -- functions ---------------------------------------------------------------------------

def test_function_arguments():
    assert out("""
        def f(a, b=2, *args, c, d=4, **kw):
            return (a, b, args, c, d, kw)
        print(f(1, c=3))
        print(f(1, 5, 6, 7, c=3, d=0, z=9))
        def g(x, /, y):
            return x - y
        print(g(5, y=2), g(5, 2))
        print((lambda *a, **k: (a, k))(1, 2, x=3))
        args = [1, 2]
        kw = {"c": 9}
        print(f(*args, **kw), f(*args, 7, **kw, e=1))
    """) == ("(1, 2, (), 3, 4, {})\n(1, 5, (6, 7), 3, 0, {'z': 9})\n3 3\n((1, 2), {'x': 3})\n"
             "(1, 2, (), 9, 4, {}) (1, 2, (7,), 9, 4, {'e': 1})\n")


@pytest.mark.parametrize("src, msg", [
    ("def f(a, b): pass\nf(1)", "f() missing 1 required positional argument: 'b'"),
    ("def f(a, b, c): pass\nf()", "f() missing 3 required positional arguments: 'a', 'b', and 'c'"),
    ("def f(a): pass\nf(1, 2)", "f() takes 1 positional argument but 2 were given"),
    ("def f(a, b=1): pass\nf(1, 2, 3)", "f() takes from 1 to 2 positional arguments but 3 were given"),
    ("def f(): pass\nf(1)", "f() takes 0 positional arguments but 1 was given"),
    ("def f(a): pass\nf(b=1)", "f() got an unexpected keyword argument 'b'"),
    ("def f(a): pass\nf(1, a=1)", "f() got multiple values for argument 'a'"),
    ("def f(*, k): pass\nf()", "f() missing 1 required keyword-only argument: 'k'"),
    ("def f(a, /): pass\nf(a=1)", "f() got some positional-only arguments passed as keyword arguments: 'a'"),
    ("f = lambda x: x\nf()", "<lambda>() missing 1 required positional argument: 'x'"),
    ("def f(**k): pass\nf(**{1: 2})", "keywords must be strings"),
    ("def f(**k): pass\nf(**[1])", "argument after ** must be a mapping, not list"),
])
def test_argument_errors(src, msg):
    e = err(src)
    assert (e.type, e.message) == ("TypeError", msg)


def test_recursion_and_closures():
    assert out("""
        def fact(n):
            return 1 if n <= 1 else n * fact(n - 1)
        print(fact(20))
        def counter():
            count = [0]
            def inc(step=1):
                count[0] += step
                return count[0]
            return inc
        c = counter()
        c(); c(); print(c(10))
        def make_adders():
            return [lambda x, i=i: x + i for i in range(3)]
        print([f(10) for f in make_adders()])
        def late():
            fs = [lambda: i for i in range(3)]
            return [f() for f in fs]
        print(late())
        def outer():
            x = 1
            def mid():
                def inner():
                    return x + 1
                return inner()
            x = 5
            return mid()
        print(outer())
        def fib(n, memo={}):
            if n < 2:
                return n
            if n not in memo:
                memo[n] = fib(n - 1) + fib(n - 2)
            return memo[n]
        print(fib(60))
    """) == "2432902008176640000\n12\n[10, 11, 12]\n[2, 2, 2]\n6\n1548008755920\n"


def test_function_repr_and_default_return():
    o = out("def f():\n    pass\nprint(f(), repr(f)[:14], (lambda: 0))")
    assert o.startswith("None <function f at")
    assert "<function <lambda> at 0x" in o


def test_free_variable_unbound_message():
    e = err("""
        def outer():
            def inner():
                return v
            r = inner()
            v = 1
            return r
        outer()
    """)
    assert e.type == "NameError"
    assert e.message == "cannot access free variable 'v' where it is not associated with a value in enclosing scope"
    assert e.line == 4


def test_functions_see_globals_defined_later():
    assert out("def f():\n    return g() + 1\ndef g():\n    return 41\nprint(f())") == "42\n"


def test_return_inside_loops_and_try():
    assert out("""
        def first_even(xs):
            for x in xs:
                while True:
                    if x % 2 == 0:
                        return x
                    break
            return None
        def safe(x):
            try:
                return 10 / x
            except ZeroDivisionError:
                return "inf"
            finally:
                print("cleanup")
        print(first_even([1, 3, 4, 5]), first_even([1]))
        print(safe(2), safe(0))
    """) == "4 None\ncleanup\ncleanup\n5.0 inf\n"


# -- comprehensions -------------------------------------------------------------------------

def test_comprehensions():
    assert out("""
        xs = [1, 2, 3, 4]
        print([x * x for x in xs if x % 2 == 0])
        print({x % 3 for x in xs})
        print({k: v for k, v in zip("abcd", xs) if v > 1})
        print(sum(x for x in xs), list(x + 1 for x in xs))
        print([(i, j) for i in range(3) for j in range(i) if i + j > 1])
        print([[j for j in range(i)] for i in range(3)])
        g = (x for x in [7, 8])
        print(next(g), next(g), next(g, "end"))
    """) == ("[4, 16]\n{0, 1, 2}\n{'b': 2, 'c': 3, 'd': 4}\n10 [2, 3, 4, 5]\n"
             "[(2, 0), (2, 1)]\n[[], [0], [0, 1]]\n7 8 end\n")


def test_comprehension_scoping():
    r = run("""
        x = "outer"
        ys = [x for x in range(3)]
        n = 10
        zs = [n * i for i in range(2)]
        def f(k):
            return [k + j for j in range(2)]
        fs = f(5)
        first = 100
        w = [first + a for a in range(2) for first in range(1)]
    """)
    g = r.globals
    assert g["x"] == "outer" and g["ys"] == [0, 1, 2]
    assert g["zs"] == [0, 10] and g["fs"] == [5, 6]
    assert "i" not in g and "j" not in g and "a" not in g
    assert g["first"] == 100 and g["w"] == [0, 1]


def test_generator_expression_is_an_iterator():
    assert out("g = (i for i in range(3))\nprint(list(g), list(g))\nprint(repr(g)[:27])") == \
        "[0, 1, 2] []\n<generator object <genexpr>\n"


# -- expressions ----------------------------------------------------------------------------

def test_operators_and_comparisons():
    assert out("""
        print(7 // 2, -7 % 3, 2 ** -1, 1 / 4, 5 - 8, ~5, +3, -(-2), not 0)
        print(1 < 2 < 3, 3 > 2 > 2, 1 == 1.0 != 2, 1 in [1], 2 not in (1,), None is None, [] is not [])
        print(0 or "a", 1 and 2, 0 and 1, "" or 0 or [], 1 if [] else 2)
        print([1, 2] + [3], (1,) * 2, "ab" * 2, 3 * "c", {1, 2} | {3}, {1, 2} & {2}, 6 ^ 3, 6 & 3, 6 | 1)
        print(2 < 3.5, "a" < "b", (1, 2) < (1, 3), [1] == [1], {"a": 1} == {"a": 1})
        print(0.5 in range(3), 2.0 in range(3), 10 in range(0, 100, 5), 3 in range(0, 100, 5))
    """) == ("3 2 0.5 0.25 -3 -6 3 2 True\n"
             "True False True True True True True\n"
             "a 2 0 [] 2\n"
             "[1, 2, 3] (1, 1) abab ccc {1, 2, 3} {2} 5 2 7\n"
             "True True True True True\n"
             "False True True False\n")


def test_tensor_operators_use_engine_methods():
    r = run("""
        import torch
        x = torch.tensor(2.0)
        y = -x * 3 + 1 - x ** 2
        z = 10 * x
        w = 1 + x
        b = x < 3
    """)
    g = r.globals
    assert g["y"].value == -2 * 3 + 1 - 4 and g["z"].value == 20 and g["w"].value == 3 and g["b"] is True


def test_subscripts_and_slices():
    assert out("""
        s = "abcdef"
        l = list(range(10))
        print(s[1], s[-1], s[1:4], s[::2], s[::-1], l[2:8:3], l[:-7])
        d = {(1, 2): "x"}
        print(d[1, 2], d[(1, 2)])
        import torch
        t = torch.tensor([1, 2, 3])
        print(t[0], t[1:])
    """) == "b f bcd ace fedcba [2, 5] [0, 1, 2]\nx x\ntensor(1) tensor([2, 3])\n"


def test_literals():
    assert out("""
        a = [1, *range(2), *"ab"]
        t = (0, *a)
        s = {*a, 9}
        d = {"x": 1, **{"y": 2}, "x": 3}
        print(a, t, sorted(s, key=str), d, (), [], {}, (1,), ..., None, True, 1e3, 0x10, 1_000, 2j)
    """) == ("[1, 0, 1, 'a', 'b'] (0, 1, 0, 1, 'a', 'b') [0, 1, 9, 'a', 'b'] {'x': 3, 'y': 2} () [] {} (1,) "
             "Ellipsis None True 1000.0 16 1000 2j\n")


def test_fstrings():
    assert out("""
        import torch
        x = 3.14159
        n = 42
        w = 8
        s = "hi"
        t = torch.tensor(2.5)
        print(f"{x:.2f}|{n:>5}|{n:<5}|{n:^5}|{n:05d}|{n:,}|{n:x}|{n:#b}|{x:e}|{x:{w}.{2}f}|")
        print(f"{s!r} {s!s} {'é'!a} {n!r:>4} {{literal}} {x=:.1f}")
        print(f"{t} {t:.3f} {t!r} {[1, 2]} {None}")
        print(f"{'nested ' + f'{n}'}")
    """) == ("3.14|   42|42   | 42  |00042|42|2a|0b101010|3.141590e+00|    3.14|\n"
             "'hi' hi '\\xe9'   42 {literal} x=3.1\n"
             "2.5 2.500 tensor(2.5) [1, 2] None\n"
             "nested 42\n")


def test_str_methods_and_safe_format():
    assert out("""
        s = "  Hello World  "
        print(s.strip().upper(), s.lower().split(), "-".join(["a", "b"]), "a,b".split(","))
        print("x".ljust(3, "."), "x".rjust(3), "x".center(5, "*"), "7".zfill(3))
        print("abcabc".replace("b", "B"), "abc".startswith("a"), "abc".endswith("bc"), "abca".count("a"))
        print("{} + {} = {}".format(1, 2, 3), "{0}{1}{0}".format("a", "b"), "{x:>4}|{y!r}".format(x=1, y="q"))
        print("{:.2f} {:{w}}|".format(3.14159, 7, w=3), "%d-%s-%5.1f %%" % (4, "z", 2.25), "%(a)s" % {"a": 1})
        print("hello world".title(), "abc".capitalize(), "12".isdigit(), "ab".isalpha(), "a\\nb".splitlines())
        print("a=b".partition("="), "  x".lstrip(), "x  ".rstrip() + "|", "abc".find("c"))
    """) == ("HELLO WORLD ['hello', 'world'] a-b ['a', 'b']\n"
             "x.. ..x".replace("..x", "  x") + " **x** 007\n"
             "aBcaBc True True 2\n"
             "1 + 2 = 3 aba    1|'q'\n"
             "3.14   7| 4-z-  2.2 % 1\n"
             "Hello World Abc True True ['a', 'b']\n"
             "('a', '=', 'b') x x| 2\n")


def test_list_dict_set_methods():
    assert out("""
        l = [3, 1, 2]
        l.append(4); l.extend([5]); l.insert(0, 0); l.remove(3)
        l.sort(); l.reverse()
        print(l, l.pop(), l.index(2), l.count(1), l.copy())
        l.sort(key=lambda v: -v)
        print(l)
        d = {"a": 1}
        d.update({"b": 2}, c=3)
        print(d.get("a"), d.get("z", 0), d.setdefault("e", 5), d.pop("b"), sorted(d.keys()), list(d.values()), d)
        s = {1, 2}
        s.add(3); s.discard(1); s.update([7])
        print(sorted(s), s.union({0}) == {0, 2, 3, 7}, (1, 2, 1).count(1), (5, 6).index(6))
        print((3).bit_length(), (2.5).is_integer(), (1.5).as_integer_ratio(), (4).real, range(2, 9, 3).step)
    """) == ("[5, 4, 2, 1] 0 2 1 [5, 4, 2, 1]\n[5, 4, 2, 1]\n"
             "1 0 5 2 ['a', 'c', 'e'] [1, 3, 5] {'a': 1, 'c': 3, 'e': 5}\n"
             "[2, 3, 7] True 2 1\n2 False (3, 2) 4 3\n")


def test_builtins():
    assert out("""
        print(len([1, 2]), abs(-3), min(3, 1, 2), max([4, 9]), min([], default=0), max(["ab", "c"], key=len))
        print(sum([1, 2, 3]), sum([[1], [2]], []), sum([0.5, 0.25], 1), round(2.567, 2), round(2.5))
        print(float("1.5"), int("12"), int(3.9), bool([]), str(12), list("ab"), tuple([1]), dict(a=1), set([1, 1]))
        print(list(zip([1, 2], "ab")), list(enumerate("xy", 1)), sorted([3, 1], reverse=True), list(reversed([1, 2])))
        print(any([0, 1]), all([1, 0]), list(map(str, [1, 2])), list(filter(None, [0, 3])), pow(2, 10), pow(2, 10, 7))
        print(divmod(7, 2), repr("x"), format(3.5, ".1f"), next(iter([5])), callable(len), callable(3))
        print(isinstance(1, int), isinstance(1.0, (int, float)), isinstance("s", list), list(map(lambda a, b: a * b, [1, 2], [3, 4])))
        print(list(range(3)), list(range(5, 0, -2)), dict([("k", 1)]), str(), list(), dict({"a": 1}, b=2))
    """) == ("2 3 1 9 0 ab\n6 [1, 2] 1.75 2.57 2\n"
             "1.5 12 3 False 12 ['a', 'b'] (1,) {'a': 1} {1}\n"
             "[(1, 'a'), (2, 'b')] [(1, 'x'), (2, 'y')] [3, 1] [2, 1]\n"
             "True False ['1', '2'] [3] 1024 2\n"
             "(3, 1) 'x' 3.5 5 True False\n"
             "True True False [3, 8]\n"
             "[0, 1, 2] [5, 3, 1] {'k': 1}  [] {'a': 1, 'b': 2}\n")


def test_isinstance_with_script_visible_classes_and_hasattr():
    assert out("""
        import torch
        t = torch.tensor(1.0)
        print(isinstance(t, torch.Tensor), isinstance(3, torch.Tensor), hasattr(t, "grad"),
              hasattr(t, "secret"), hasattr(t, "nope"), hasattr("s", "upper"), hasattr(torch, "tensor"),
              hasattr(torch, "internal_helper"))
    """) == "True False True False False True True False\n"


def test_print_keywords():
    assert out('print(1, 2, sep="-", end="!\\n", flush=True)\nprint()\nprint("a", "b", sep=None, end=None)') \
        == "1-2!\n\na b\n"
    e = err("print(1, file=None, sep=3)")
    assert (e.type, e.message) == ("TypeError", "sep must be None or a string, not int")


# -- exceptions -----------------------------------------------------------------------------

def test_try_except_else_finally_flow():
    assert out("""
        def f(x):
            log = []
            try:
                log.append("try")
                if x == 1:
                    raise ValueError("bad")
                if x == 2:
                    {}["k"]
            except (ValueError, TypeError) as e:
                log.append("value:" + str(e))
            except LookupError as e:
                log.append("lookup:" + repr(e))
            else:
                log.append("else")
            finally:
                log.append("finally")
            return log
        print(f(0)); print(f(1)); print(f(2))
    """) == ("['try', 'else', 'finally']\n['try', 'value:bad', 'finally']\n"
             "['try', \"lookup:KeyError('k')\", 'finally']\n")


def test_exception_wrapper_prints_like_python():
    assert out("""
        import torch
        try:
            torch.raises_runtime("grad can be implicitly created only for scalar outputs")
        except RuntimeError as e:
            print(e)
            print(repr(e))
            print(e.args, isinstance(e, RuntimeError), isinstance(e, ValueError), f"{e}")
        try:
            raise ValueError("a", 1)
        except Exception as e:
            print(repr(e), e.args[1])
        try:
            raise KeyError
        except KeyError as e:
            print(repr(e), str(e) == "")
        try:
            [][1]
        except IndexError as e:
            print(type_name := "IndexError", e)
        print("e" in dir_ if (dir_ := []) else "e unbound after handler")
    """) == ("grad can be implicitly created only for scalar outputs\n"
             "RuntimeError('grad can be implicitly created only for scalar outputs')\n"
             "('grad can be implicitly created only for scalar outputs',) True False "
             "grad can be implicitly created only for scalar outputs\n"
             "ValueError('a', 1) 1\nKeyError() True\nIndexError list index out of range\n"
             "e unbound after handler\n")


def test_except_name_is_unbound_after_handler():
    e = err("try:\n    1/0\nexcept ZeroDivisionError as e:\n    pass\nprint(e)")
    assert (e.type, e.message, e.line) == ("NameError", "name 'e' is not defined", 5)


def test_reraise_and_raise_from():
    r = run("""
        log = []
        try:
            try:
                raise ValueError("inner")
            except ValueError:
                log.append("caught")
                raise
        except ValueError as e:
            log.append(str(e))
        try:
            try:
                1 / 0
            except ZeroDivisionError as e:
                raise RuntimeError("wrapped") from e
        except RuntimeError as e:
            log.append(str(e))
        try:
            raise
        except RuntimeError as e:
            log.append(str(e))
        caught = None
        try:
            raise TypeError
        except (ValueError, (KeyError, TypeError)) as e:
            caught = repr(e)
    """)
    assert r.error is None, r.error
    assert r.globals["log"] == ["caught", "inner", "wrapped", "No active exception to reraise"]
    assert r.globals["caught"] == "TypeError()"


def test_raise_caught_wrapper_reraises_original():
    e = err("""
        try:
            raise ValueError("orig")
        except ValueError as e:
            saved = e
        raise saved
    """)
    assert (e.type, e.message, e.line) == ("ValueError", "orig", 3)


def test_finally_return_overrides_and_break_in_finally_swallows():
    assert out("""
        def f():
            try:
                return 1
            finally:
                return 2
        def g():
            for i in range(3):
                try:
                    raise ValueError
                finally:
                    break
            return "swallowed"
        print(f(), g())
    """) == "2 swallowed\n"


def test_assert():
    assert out("assert 1 + 1 == 2, 'math'\nprint('ok')") == "ok\n"
    e = err("x = 3\nassert x > 5, f'x is {x}'")
    assert (e.type, e.message, e.line, e.phase) == ("AssertionError", "x is 3", 2, "run")
    e = err("assert []")
    assert (e.type, e.message) == ("AssertionError", "")
    assert out("try:\n    assert False, 'm'\nexcept AssertionError as e:\n    print(e)") == "m\n"


def test_catching_non_exception_class_is_type_error():
    e = err("try:\n    1/0\nexcept 5:\n    pass")
    assert (e.type, e.message) == ("TypeError", "catching classes that do not inherit from BaseException is not allowed")


# -- with -----------------------------------------------------------------------------------

def test_with_statement():
    NoGrad.log.clear()
    assert out("""
        import torch
        with torch.no_grad() as tok:
            print(tok)
        with torch.no_grad(), torch.no_grad():
            pass
        try:
            with torch.no_grad():
                raise ValueError("inside")
        except ValueError as e:
            print("propagated", e)
        with torch.suppress():
            1 / 0
        print("suppressed")
        def f():
            with torch.no_grad():
                return "returned"
        print(f())
    """) == "no-grad-token\npropagated inside\nsuppressed\nreturned\n"
    assert NoGrad.active == 0
    assert NoGrad.log == ["enter", ("exit", None), "enter", "enter", ("exit", None), ("exit", None),
                          "enter", ("exit", "ValueError"), "enter", ("exit", None)]


def test_with_refuses_other_objects():
    e = err("import torch\nwith torch.not_a_cm():\n    pass")
    assert e.type == "TypeError"
    assert e.message == "'NotAllowedCM' objects cannot be used in a 'with' statement in autotrace scripts"
    e = err("with 5:\n    pass")
    assert e.message == "'int' object does not support the context manager protocol"


def test_with_exit_runs_on_limit():
    from autotrace.interpreter import Limits
    NoGrad.active = 0
    r = run("import torch\nwith torch.no_grad():\n    while True:\n        pass", limits=Limits(max_steps=10_000))
    assert r.error.type == "LimitError"
    assert NoGrad.active == 0


# -- imports --------------------------------------------------------------------------------

def test_import_forms():
    r = run("""
        import torch
        import torch.nn as nn
        import torch.nn.functional as F
        import math
        from torch import nn as nn2
        from torch.nn.utils import clip_grad_norm_
        from torch.nn import functional as F2
        import torch.nn.utils
        y = F.relu(torch.tensor(-1.0))
        n = clip_grad_norm_([], max_norm=1.0)
        p = math.pi
    """)
    assert r.error is None, r.error
    assert r.globals["y"].value == 0 and r.globals["n"] == 5.0 and r.globals["p"] > 3.14
    assert "torch" not in r.globals and "nn" not in r.globals and "F2" not in r.globals  # modules left out
    assert "clip_grad_norm_" in r.globals


def test_import_errors_at_run_time():
    e = err("import torch.os")
    assert (e.type, e.message, e.phase) == ("ModuleNotFoundError", "No module named 'torch.os'", "run")
    e = err("from torch import does_not_exist")
    assert (e.type, e.message) == ("ImportError", "cannot import name 'does_not_exist' from 'torch'")
    e = err("from torch import internal_helper")
    assert e.type == "ImportError"
    e = err("import math", modules={"torch": object()})
    assert (e.type, e.message) == ("ModuleNotFoundError", "No module named 'math'")


# -- names, predefined, free names --------------------------------------------------------

def test_predefined_and_free_names():
    src = "z = (x * 3).sum()\ndef f():\n    return w + x\nq = f() if x else None\nprint(z.value, q.value)"
    p = parse_script(src, "t.py")
    assert free_names(p) == ["x", "w"]
    from autotrace.interpreter import run_program
    from interp_stubs import MODULES
    r = run_program(p, modules=MODULES, predefined={"x": FakeTensor(2.0), "w": 1})
    assert r.error is None, r.error
    assert list(r.globals)[:2] == ["x", "w"]
    assert r.stdout == "6.0 3.0\n"


def test_free_names_excludes_bound_builtins_and_imports():
    p = parse_script("import torch\nfrom math import pi\nfor i in range(3):\n    a = i + b\nprint([k for k in c])", "t.py")
    assert free_names(p) == ["b", "c"]


def test_needed_names_are_the_top_level_value_reads():
    src = ("import torch\n"
           "def report(loss):\n"
           "    return helpr(loss) + w\n"
           "class Net:\n"
           "    def f(self):\n"
           "        return q\n"
           "z = (x * 3).sum() + max(b, 1)\n"
           "loss = critrion(z, y)\n"
           "lam = lambda: u\n"
           "m = nn.Linear(2, 1)\n"
           "s = x.sum() + k.grad + sum(v for v in vs)\n")
    p = parse_script(src, "t.py")
    assert free_names(p) == ["helpr", "w", "q", "x", "b", "critrion", "y", "u", "nn", "k", "vs"]
    # every free name that the module's code reads as a value, at its first such read
    assert needed_names(p) == [("x", 7, 6), ("b", 7, 25), ("y", 8, 20), ("nn", 10, 5), ("k", 11, 15),
                               ("vs", 11, 39)]
    # with values that are tensors, `nn.Linear` is not a read of a value
    assert needed_names(p, lambda attr: attr in ("sum", "grad")) == [
        ("x", 7, 6), ("b", 7, 25), ("y", 8, 20), ("k", 11, 15), ("vs", 11, 39)]


def test_needed_names_columns_count_characters_and_skip_non_values():
    src = ("s = 'ü'; t = a\n"
           "@deco\n"
           "def f(d=dflt):\n"
           "    pass\n"
           "class C(Base):\n"
           "    attr = c\n"
           "try:\n"
           "    pass\n"
           "except (Err, Other):\n"
           "    pass\n")
    p = parse_script(src, "t.py")
    assert needed_names(p) == [("a", 1, 14), ("dflt", 3, 9), ("c", 6, 12)]


def test_an_unbound_name_that_is_not_needed_raises_where_it_is_reached():
    src = "def report(v):\n    return helpr(v)\nprint('ran')\nreport(1)\n"
    p = parse_script(src, "t.py")
    assert needed_names(p) == []
    from autotrace.interpreter import run_program
    from interp_stubs import MODULES
    r = run_program(p, modules=MODULES)
    assert r.stdout == "ran\n"
    assert (r.error.type, r.error.message, r.error.line, r.error.column) == \
        ("NameError", "name 'helpr' is not defined", 2, 12)


def test_builtins_can_be_shadowed():
    assert out("len = lambda x: 42\nprint(len([1]))\ninput = 5\nprint(input + 1)") == "42\n6\n"


def test_scripts_can_use_names_like_type_and_input_when_bound():
    r = run("input = [1, 2]\ntype = 'linear'\nprint(type, input)")
    assert r.error is None and r.stdout == "linear [1, 2]\n"


def test_docstrings_and_pass():
    assert out('"""doc"""\ndef f():\n    """doc"""\n    pass\nprint(f())') == "None\n"


def test_cyclic_and_view_printing():
    assert out("x = [1]\nx.append(x)\nprint(x)\nd = {'a': [1]}\nprint(d.keys(), d.values(), d.items())") == \
        "[1, [...]]\ndict_keys(['a']) dict_values([[1]]) dict_items([('a', [1])])\n"


def test_main_guard_runs_the_script():
    # a script always runs as the main program, as `python script.py` would
    assert out("if __name__ == '__main__':\n    print('main', __name__)") == "main __main__\n"


def test_elif_error_location():
    e = err("import torch\nx = 1\nif x > 5:\n    pass\nelif torch.raises_runtime('e'):\n    pass")
    assert (e.line, e.column, e.end_column) == (5, 6, 31)
