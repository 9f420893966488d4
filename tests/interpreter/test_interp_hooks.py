"""The hooks into the engine: autotrace.site.current, _on_bind, script functions
called from Python."""

from __future__ import annotations

from autotrace import site as site_mod
from autotrace.interpreter import Limits, ScriptFunction

from interp_stubs import FakeTensor, err, out, run


def test_site_is_set_before_operations():
    r = run("""
        import torch
        x = torch.tensor(2.0)
        y = x * 3
        z = -y
        s = (y + z).sum()
        w = torch.tensor([1.0, 2.0])[0]
        if True:
            q = torch.tensor(5.0) ** 2
        def f(a):
            return a - 1
        g = f(x)
    """)
    g = r.globals
    x_site = g["x"].site
    assert (x_site.line, x_site.col, x_site.text) == (3, 4, "torch.tensor(2.0)")
    assert x_site.statement == "x = torch.tensor(2.0)"
    assert (g["y"].site.text, g["y"].site.statement, g["y"].site.line) == ("x * 3", "y = x * 3", 4)
    assert g["z"].site.text == "-y"
    assert g["s"].site.text == "(y + z).sum()"
    assert g["w"].site.text == "torch.tensor([1.0, 2.0])[0]"
    assert (g["q"].site.text, g["q"].site.statement) == ("torch.tensor(5.0) ** 2", "q = torch.tensor(5.0) ** 2")
    assert (g["g"].site.text, g["g"].site.statement) == ("a - 1", "return a - 1")
    assert (g["y"].site.end_line, g["y"].site.end_col) == (4, 9)
    assert site_mod.current is None


def test_site_for_augassign_and_compare_and_header_statements():
    seen = []

    class Probe:
        _script_attrs = frozenset()

        def __lt__(self, o):
            seen.append(site_mod.current.text)
            return True

        def __iadd__(self, o):
            seen.append(site_mod.current.text)
            return self

    r = run("p += 1\nwhile p < 3:\n    break\nfor i in [p < 4]:\n    pass", predefined={"p": Probe()})
    assert r.error is None, r.error
    assert seen == ["p += 1", "p < 3", "p < 4"]


def test_site_statement_of_compound_headers():
    r = run("""
        import torch
        for t in [torch.tensor(1.0)]:
            pass
        with torch.no_grad():
            u = torch.tensor(2.0)
    """)
    assert r.globals["t"].site.statement == "for t in [torch.tensor(1.0)]"
    assert r.globals["u"].site.statement == "u = torch.tensor(2.0)"


def test_on_bind_called_for_simple_name_targets():
    r = run("""
        import torch
        a = torch.tensor(1.0)
        b = c = a
        d, (e, f) = torch.tensor(2.0), [torch.tensor(3.0), 4]
        for g in [torch.tensor(5.0)]:
            pass
        h = torch.tensor(6.0)
        h += 1
        if (k := torch.tensor(7.0)):
            pass
        def fn():
            local = torch.tensor(8.0)
            return local
        m = fn()
        items = [torch.tensor(9.0)]
        items[0] = torch.tensor(10.0)
    """)
    g = r.globals
    assert g["a"].names == ["a", "b", "c"]
    assert g["d"].names == ["d"] and g["e"].names == ["e"]
    assert g["g"].names == ["g"]
    assert g["h"].names == ["h", "h"]
    assert g["k"].names == ["k"]
    assert g["m"].names == ["local", "m"]
    assert g["items"][0].names == []


def test_with_as_binds_name():
    class CM:
        _script_context_manager = True

        def __enter__(self):
            return FakeTensor(1.0)

        def __exit__(self, *a):
            return False

    r = run("with cm as v:\n    pass", predefined={"cm": CM()})
    assert r.globals["v"].names == ["v"]


def test_script_functions_are_plain_callables_for_engine_code():
    r = run("""
        import torch
        calls = []
        def hook(g):
            calls.append(g)
            return g * 10
        t = torch.tensor(1.0)
        t.register_hook(hook)
        t.register_hook(lambda g: g + 1)
        t.backward()
        via_engine = t.apply(lambda v, k=2: v.value * k)
        nested = torch.call_twice(lambda v: torch.call_twice(lambda w: w + 1, v), 0)
    """)
    assert r.error is None, r.error
    assert r.globals["calls"] == [1.0]
    assert r.globals["t"].grad == 11.0
    assert r.globals["via_engine"] == 2.0
    assert r.globals["nested"] == 4
    assert isinstance(r.globals["hook"], ScriptFunction)


def test_script_function_call_from_engine_counts_steps_and_recursion():
    e = err("""
        import torch
        def f(v):
            return torch.call_twice(f, v)
        f(1)
    """, limits=Limits(max_recursion=30))
    assert (e.type, e.phase) == ("LimitError", "limit")
    assert "recursion limit of 30" in e.message


def test_engine_call_restores_site():
    seen = []

    def engine(fn):
        before = site_mod.current
        fn(FakeTensor(1.0))
        seen.append(site_mod.current is before)

    assert out("engine(lambda t: t * 2)\nprint('ok')", predefined={"engine": engine}) == "ok\n"
    assert seen == [True]


def test_hooks_and_allow_lists_patched_between_runs_are_seen():
    class T:
        _script_attrs = frozenset({"a"})

        def __init__(self):
            self.a = 1
            self.b = 2
            self.bound = []

        def _on_bind(self, name):
            self.bound.append(name)

    r = run("x = t\ny = t.a", predefined={"t": T()})
    assert r.error is None and r.globals["t"].bound == ["x"]
    assert run("y = t.b", predefined={"t": T()}).error.type == "AttributeError"
    orig = T._on_bind
    T._on_bind = lambda self, name: self.bound.append(name.upper())
    T._script_attrs = frozenset({"a", "b"})
    try:
        r = run("x = t\ny = t.b", predefined={"t": T()})
        assert r.error is None and r.globals["y"] == 2 and r.globals["t"].bound == ["X"]
    finally:
        T._on_bind = orig
