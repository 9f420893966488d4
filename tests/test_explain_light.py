"""explain with many passes explains each light first (numbers and edge targets) and
writes out in full only the passes it shows: a light pass compares like the full one, and
what is shown is the same as when every pass was written out."""

from __future__ import annotations

from pathlib import Path

import pytest

from autotrace import explain as E
from autotrace.explain import chains as chains_mod
from autotrace.explain import steps as steps_mod
from autotrace.explain.steps import _Explainer

ROOT = Path(__file__).resolve().parent.parent
MULTI = [p for p in sorted((ROOT / "scenarios").glob("*.py"))
         if p.read_text().count("backward(") + p.read_text().count("autograd.grad(") > 0]

LOOP = """\
import torch

torch.manual_seed(0)
x = torch.linspace(-1.0, 1.0, 8)
y = 2 * x - 1
w = torch.zeros(1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
for step in range({n}):
    loss = ((w * x + b - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        b -= 0.1 * b.grad
        w.grad.zero_()
        b.grad.zero_()
"""


@pytest.mark.parametrize("path", MULTI, ids=lambda p: p.stem)
def test_a_light_pass_compares_like_the_full_one(path):
    trace = E.run(path.read_text(), str(path.relative_to(ROOT)))
    ex = _Explainer(trace)
    for k, p in enumerate(trace.passes):
        light = ex.explain_pass(p, k + 1, len(trace.passes), light=True)
        full = ex.explain_pass(p, k + 1, len(trace.passes))
        assert _Explainer.signature(light) == _Explainer.signature(full)
        assert [(s.node, s.kind, s.output, s.before, s.increment, s.after) for s in light.steps] == \
            [(s.node, s.kind, s.output, s.before, s.increment, s.after) for s in full.steps] or \
            _same_arrays(light, full)
        assert light.chains == [] and light.table == []


def _same_arrays(a, b) -> bool:
    import numpy as np

    def eq(x, y):
        return (x is None and y is None) or (x is not None and y is not None and np.array_equal(x, y, equal_nan=True))
    return all(s.node == t.node and s.kind == t.kind and s.output == t.output and eq(s.before, t.before)
               and eq(s.increment, t.increment) and eq(s.after, t.after) for s, t in zip(a.steps, b.steps))


def test_only_the_shown_passes_are_written_out(monkeypatch):
    calls = []
    real = chains_mod.chains

    def counted(ex, p, out, root_id):
        calls.append(out.number)
        return real(ex, p, out, root_id)

    monkeypatch.setattr(steps_mod, "chains", counted)
    ex = E.explain(E.run(LOOP.format(n=40), "t.py"))
    (fold,) = ex.folds
    assert (fold.first, fold.last) == (1, 40)
    assert calls == [1] and [p.number for p in ex.passes] == [1]
    calls.clear()
    ex = E.explain(E.run(LOOP.format(n=40), "t.py"), pass_number=17)
    assert calls == [17] and [p.number for p in ex.passes] == [17]
    assert ex.passes[0].chains and ex.passes[0].table


NAN_LOOP = """\
import torch

w = torch.tensor(4.0, requires_grad=True)
for i in range(8):
    y = torch.sqrt(w - 2.0 * i)
    y.backward()
    w.grad = None
"""


def _everything_in_full(monkeypatch):
    real = _Explainer.explain_pass

    def full(self, *a, light=False, **kw):
        return real(self, *a, **kw)

    monkeypatch.setattr(_Explainer, "explain_pass", full)


@pytest.mark.parametrize("src", [LOOP.format(n=30), NAN_LOOP] + [p.read_text() for p in MULTI],
                         ids=["loop", "nan_loop"] + [p.stem for p in MULTI])
@pytest.mark.parametrize("select", [{}, {"pass_number": 2}])
def test_the_explanation_is_the_one_with_every_pass_written_out(src, select, monkeypatch):
    from autotrace.render import explain_json

    got = explain_json.render(E.explain(E.run(src, "t.py"), **select))
    _everything_in_full(monkeypatch)
    want = explain_json.render(E.explain(E.run(src, "t.py"), **select))
    assert got == want


def test_a_nan_born_in_a_folded_pass_is_explained_with_its_rule():
    """The diagnostic needs the pass's sentences: that pass is written out in full."""
    ex = E.explain(E.run(NAN_LOOP, "t.py"))
    nans = [d for d in ex.diagnostics if d.kind == "nan"]
    assert nans and all("SqrtBackward0" in d.title and d.why for d in nans)
    assert {p.number for p in ex.passes} <= {1, 2, 3, 4, 5, 6, 7, 8}
