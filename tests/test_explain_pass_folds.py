"""explain on loops of many backward passes: passes that repeat the same numbers (a graph
walked again with retain_graph=True, or the same graph rebuilt from unchanged leaves) are
folded into one table once there are enough of them, the table's numbers are PyTorch's,
and the work is linear in the passes."""

from __future__ import annotations

import numpy as np
import pytest

from autotrace import explain as E
from autotrace.explain import folding, timeline

# W22's pattern (a loss computed once, outside the loop): every pass walks the same graph
STALE_LOSS = """\
import torch

x = torch.tensor(0.0, requires_grad=True)
y = (x - 2) ** 2
opt = torch.optim.Adam([x], lr=0.001)
for i in range({n}):
    opt.zero_grad()
    y.backward(retain_graph=True)
    opt.step()
"""

# the same graph built again each iteration from a leaf that does not change
REBUILT = """\
import torch

w = torch.tensor(1.5, requires_grad=True)
for i in range({n}):
    loss = w ** 2
    loss.backward()
"""


def _explain(src, **kw):
    return E.explain(E.run(src, "t.py"), **kw)


def _render(ex) -> str:
    import io

    from rich.console import Console

    from autotrace.render import explain_console
    con = Console(no_color=True, width=100, highlight=False, file=io.StringIO())
    explain_console.render(ex, con)
    return con.file.getvalue()


def test_a_stale_loss_walked_many_times_is_one_table_with_torchs_values():
    torch = pytest.importorskip("torch")
    n = 40
    ex = _explain(STALE_LOSS.format(n=n))
    (fold,) = ex.folds
    assert (fold.first, fold.last, len(fold.rows)) == (1, n, n)
    assert [p.number for p in ex.passes] == [1]
    assert "walk one graph again and again" in fold.remark and "built once from line(s) 4" in fold.remark
    tx = torch.tensor(0.0, requires_grad=True)
    ty = (tx - 2) ** 2
    opt = torch.optim.Adam([tx], lr=0.001)
    for row in fold.rows:
        before = float(tx.detach())
        opt.zero_grad()
        ty.backward(retain_graph=True)
        assert row.loss == float(ty.detach()) == 4.0
        assert row.grads == [float(tx.grad)] == [-4.0]
        assert row.values == [before]
        opt.step()
    text_ = _render(ex)
    assert "Same steps and the same numbers" not in text_
    assert len(text_.splitlines()) < 80


def test_the_same_graph_rebuilt_each_time_keeps_the_define_by_run_remark():
    ex = _explain(REBUILT.format(n=8))
    (fold,) = ex.folds
    assert (fold.first, fold.last) == (1, 8)
    assert "Each of the 8 iterations builds a new graph" in fold.remark
    assert [row.grads for row in fold.rows] == [[3.0]] * 8


@pytest.mark.parametrize("n", [2, folding.FOLD_SAME_MIN - 1])
def test_a_few_passes_with_the_same_numbers_stay_compact(n):
    ex = _explain(REBUILT.format(n=n))
    assert ex.folds == []
    assert [p.same_as for p in ex.passes] == [None] + [1] * (n - 1)
    assert _render(ex).count("Same steps and the same numbers as pass 1") == n - 1


def test_the_fold_threshold_for_repeated_numbers():
    ex = _explain(REBUILT.format(n=folding.FOLD_SAME_MIN))
    (fold,) = ex.folds
    assert fold.last == folding.FOLD_SAME_MIN


def test_pass_folding_and_grad_resets_are_linear_in_the_passes(monkeypatch):
    """Each pass's structure is computed once and each leaf's reset wording once (they were
    recomputed per starting pass and per reset: quadratic on a 3,000-pass loop)."""
    calls = {"structure": 0, "reset": 0}
    structure, reset_how = folding.structure, timeline._reset_how

    def counted_structure(p):
        calls["structure"] += 1
        return structure(p)

    def counted_reset(*a):
        calls["reset"] += 1
        return reset_how(*a)

    monkeypatch.setattr(folding, "structure", counted_structure)
    monkeypatch.setattr(timeline, "_reset_how", counted_reset)
    n = 60
    ex = _explain(STALE_LOSS.format(n=n))
    # once per pass for the folds, twice per neighbouring pair for the branch remarks
    assert calls == {"structure": n + 2 * (n - 1), "reset": 1}
    (fold,) = ex.folds
    assert fold.rows[-1].values == [pytest.approx(0.059, abs=1e-3)]   # Adam: about lr per step
    assert np.isfinite([r.values[0] for r in fold.rows]).all()


def test_jacobian_rows_walk_one_graph_with_other_numbers():
    """autograd.grad over one retained graph with a different grad_outputs each time: one
    graph, different numbers (neither "a new graph each iteration" nor "the same numbers")."""
    torch = pytest.importorskip("torch")
    src = ("import torch\nx = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)\ny = x ** 3\n"
           "rows = []\nfor i in range(3):\n    e = torch.zeros(3)\n    e[i] = 1.0\n"
           "    (g,) = torch.autograd.grad(y, x, e, retain_graph=True)\n    rows.append(g)\n")
    ex = _explain(src)
    (fold,) = ex.folds
    assert fold.remark.startswith("These 3 passes walk one graph again and again")
    assert "same numbers" not in fold.remark and "builds a new graph" not in fold.remark
    tx = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    jac = torch.autograd.functional.jacobian(lambda t: t ** 3, tx)
    for k in range(3):                      # each pass's PowBackward0 passes on row k
        (p,) = _explain(src, pass_number=k + 1).passes
        (step,) = [s for s in p.steps if s.node_name == "PowBackward0"]
        assert step.edges[0].grad.tolist() == jac[k].tolist()
