"""An integer index is a view even when it selects one element (a 0-dim tensor), and so
are unbind's outputs (iterating a tensor): writing into them in place writes into the
tensor they came from, as in PyTorch (``p = w[1]; p -= 1`` changes ``w``). Checked
against torch."""

from __future__ import annotations

import contextlib
import io

import pytest

from autotrace import runner
from helpers import require_torch

SCRIPTS = {
    "sub_into_element": "w = torch.tensor([1.0, 2.0, 3.0])\np = w[1]\np -= 1\nprint(w, w._version, p._version)\n",
    "element_of_a_row": "m = torch.zeros(2, 3)\nm[1][2].add_(5)\nr = m[0, 1]\nr.fill_(-2)\nprint(m)\n",
    "negative_index": "w = torch.arange(4.0)\nw[-1].mul_(10)\nw.select(0, 0).zero_()\nprint(w)\n",
    "iterating_params": ("w = torch.tensor([1.0, -2.0], requires_grad=True)\n(w * w).sum().backward()\n"
                         "with torch.no_grad():\n    for p, g in zip(w, w.grad):\n        p -= 0.5 * g\n"
                         "print(w, w.grad)\n"),
    "saved_then_changed": ("w = torch.tensor([1.0, 2.0], requires_grad=True)\ny = w * 1\ns = y[0]\nz = s * s\n"
                           "s.add_(1)\ntry:\n    z.backward()\nexcept RuntimeError as e:\n    print(str(e)[:60])\n"),
    "copy_into_element": "w = torch.ones(3, dtype=torch.float64)\nw[2].copy_(torch.tensor(7.5))\nprint(w, w.dtype)\n",
    "int_tensor": "w = torch.tensor([1, 2, 3])\nq = w[0]\nq += 5\nprint(w)\n",
    "rows_of_a_matrix": "m = torch.zeros(3, 2)\nfor k, row in enumerate(m):\n    row += k\nprint(m)\n",
    "unbind_columns": "m = torch.ones(2, 3)\na, b, c = m.unbind(1)\nb.mul_(4)\nprint(m, b._version)\n",
}


def _torch_out(src):
    torch = require_torch()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(src, {"torch": torch})
    return out.getvalue()


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_writing_into_a_selected_element_writes_into_its_base(name):
    src = "import torch\n" + SCRIPTS[name]
    trace = runner.run(src, f"{name}.py")
    assert trace.error is None, trace.error
    assert trace.stdout == _torch_out(src)


ERRORS = {
    "iterating": "w = torch.ones(2, 2, requires_grad=True)\ny = w * 2\nfor r in y:\n    r += 1\n",
    "unbind": "y = torch.ones(4, requires_grad=True) * 2\na, b = torch.unbind(y.view(2, 2))\nb.mul_(3)\n",
    "split": "y = torch.ones(4, requires_grad=True) * 2\na, b = y.split(2)\na.add_(1)\n",
    "split_with_sizes": "y = torch.ones(4, requires_grad=True) * 2\na, b = y.split([1, 3])\nb.add_(1)\n",
    "chunk": "y = torch.ones(4, requires_grad=True) * 2\na, b = y.chunk(2)\nb.sub_(1)\n",
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_modifying_one_of_several_views_in_place_is_torchs_error(name):
    torch = require_torch()
    src = "import torch\n" + ERRORS[name]
    with pytest.raises(RuntimeError) as want:
        exec(src, {"torch": torch})
    trace = runner.run(src, f"{name}.py")
    assert trace.error is not None and trace.error["message"] == str(want.value)
