"""A tensor and a Python number (``x * 3``, ``x + 1``, ``x - 0.5``, ``x / 2``): autotrace
computes these without wrapping the number as a tensor (``ops.make_number``), and the
result, its node and record, the saved number and the gradients must be PyTorch's, for
numbers at the edges of that path (ints past 2**53, bools, -0.0, nan, inf, overflow)."""

from __future__ import annotations

import contextlib
import io
import math

import pytest

from autotrace import runner
from helpers import require_torch

NUMBERS = ["3", "-7", "0.0", "-0.0", "1.000001", "1e308", "-1e-45", "float('nan')", "float('inf')",
           "2**53", "2**53 + 1", "-(2**60) + 3", "True"]
OPS = ["x * ({n})", "({n}) * x", "x + ({n})", "({n}) + x", "x - ({n})", "x / ({n})"]


def _script(expr, dtype, shape):
    data = [0.5, -1.5, 3.0] if shape else 0.75
    return f"""
import torch
x = torch.tensor({data}, dtype=torch.{dtype}, requires_grad=True)
y = {expr}
print(y.dtype, [float(v).hex() for v in y.detach().flatten()], y.grad_fn.name())
print([(None if f is None else f.name(), i) for f, i in y.grad_fn.next_functions])
s = getattr(y.grad_fn, '_saved_other', None)
if s is not None and hasattr(s, 'dtype'):
    print('saved', s.dtype, s.shape, float(s).hex())
y.sum().backward()
print(x.grad.dtype, [float(v).hex() for v in x.grad.flatten()])
"""


def _torch_run(src):
    """(stdout, error message or None) of ``src`` under torch."""
    torch = require_torch()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            exec(src, {"torch": torch})
        except RuntimeError as e:
            return out.getvalue(), str(e)
    return out.getvalue(), None


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [0, 3])
@pytest.mark.parametrize("op", OPS)
def test_number_operand_is_pytorchs(op, shape, dtype):
    for n in NUMBERS:
        src = _script(op.format(n=n), dtype, shape)
        trace = runner.run(src, "number.py")
        stdout, error = _torch_run(src)
        if error is not None:          # ``x - True``: PyTorch's error, as PyTorch words it
            assert trace.error is not None and trace.error["message"] == error, (op, n)
            continue
        assert trace.error is None, (op, n, trace.error)
        assert trace.stdout == stdout, (op, n)
        # the record keeps the number as the script wrote it: its type, and the sign of a zero
        number = eval(n)
        (node,) = [r for r in trace.nodes if r.scalars]
        (value,) = node.scalars.values()
        assert type(value) is type(number), (op, n)
        assert value == number or (math.isnan(value) and math.isnan(number))
        if isinstance(number, float) and number == 0:
            assert math.copysign(1, value) == math.copysign(1, number)
