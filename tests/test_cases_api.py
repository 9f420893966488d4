"""The real-PyTorch cases (tests/conformance/C*.py, with what PyTorch 2.13 did beside each
in C*.expected.json) run through autotrace's Python API.

Each case script is executed as ordinary Python with ``import torch`` (and
``torch.nn``, ``torch.nn.functional`` ...) bound to autotrace's namespaces instead of
real PyTorch; the printed output (object addresses masked), the final error, the
warnings and every top-level tensor/number (shape, dtype, value, grad, grad_fn name,
requires_grad, is_leaf) must equal what PyTorch 2.13 recorded in ``.expected.json``
(floats to rtol 1e-4, atol 1e-5, as the cases' README specifies).
"""

from __future__ import annotations

import builtins
import contextlib
import io
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from autotrace import diagnostics
from autotrace.tensor import Tensor
from autotrace.torch_api import modules

CASES = Path(__file__).resolve().parent / "conformance"
FILES = sorted(p for p in CASES.glob("C*.py") if p.with_name(p.stem + ".expected.json").exists())


def _importer(mods):
    def imp(name, globals=None, locals=None, fromlist=(), level=0):
        if name in mods:
            if fromlist:
                return mods[name]
            return mods[name.split(".")[0]]
        raise ImportError(f"case scripts may only import torch and math, not {name!r}")
    return imp


def run_case(path: Path):
    """Execute a case script on autotrace; returns (stdout, exception or None, globals)."""
    mods = modules()
    b = dict(vars(builtins))
    b["__import__"] = _importer(mods)
    g = {"__builtins__": b, "__name__": "__main__"}
    diagnostics.reset()
    out = io.StringIO()
    err = None
    with contextlib.redirect_stdout(out), np.errstate(all="ignore"):
        try:
            exec(compile(path.read_text(), str(path), "exec"), g)
        except Exception as e:  # the script's final uncaught error is part of the case
            err = e
    return out.getvalue(), err, g


def _mask(s: str) -> str:
    return re.sub(r"0x[0-9a-fA-F]+", "0x…", s)


def _to_json(v):
    if isinstance(v, list):
        return [_to_json(x) for x in v]
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
    return v


def _close(a, b, path="value"):
    if isinstance(b, list):
        assert isinstance(a, list) and len(a) == len(b), f"{path}: {a!r} != {b!r}"
        for i, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{path}[{i}]")
    elif isinstance(b, str) or b is None or isinstance(b, bool):
        assert a == b, f"{path}: {a!r} != {b!r}"
    else:
        assert not isinstance(a, str), f"{path}: {a!r} != {b!r}"
        assert math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-5), f"{path}: {a!r} != {b!r}"


def _describe(v):
    if isinstance(v, Tensor):
        g = v._grad
        return {
            "kind": "tensor", "shape": list(v.shape), "dtype": v.dtype.name,
            "value": _to_json(v._data.tolist()), "requires_grad": v.requires_grad,
            "is_leaf": v.is_leaf, "grad_fn": v.grad_fn.op.node if v.grad_fn is not None else None,
            "grad": _to_json(g._data.tolist()) if g is not None else None,
        }
    if isinstance(v, bool):
        return {"kind": "bool", "value": v}
    if isinstance(v, (int, float)):
        return {"kind": "number", "value": _to_json(v)}
    return None


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_case(path):
    expected = json.loads(path.with_suffix("").with_suffix(".expected.json").read_text()) \
        if not path.with_name(path.stem + ".expected.json").exists() else \
        json.loads(path.with_name(path.stem + ".expected.json").read_text())
    stdout, err, g = run_case(path)
    assert _mask(stdout) == _mask(expected["stdout"])
    exp_err = expected["error"]
    if exp_err is None:
        assert err is None, f"unexpected {type(err).__name__}: {err}"
    else:
        assert err is not None, "expected an error"
        assert type(err).__name__ == exp_err["type"]
        assert str(err) == exp_err["message"]
    got_warn = [(w["category"], w["message"]) for w in diagnostics.warnings]
    exp_warn = [(w["category"], w["message"]) for w in expected.get("warnings", [])]
    assert got_warn == exp_warn
    for name, exp in expected["variables"].items():
        assert name in g, f"variable {name} not bound"
        got = _describe(g[name])
        assert got is not None, f"{name}: {type(g[name]).__name__} is not a tensor/number"
        assert got["kind"] == exp["kind"], name
        for field in ("shape", "dtype", "requires_grad", "is_leaf", "grad_fn"):
            if field in exp:
                assert got[field] == exp[field], f"{name}.{field}: {got[field]!r} != {exp[field]!r}"
        _close(got["value"], exp["value"], f"{name}.value")
        if "grad" in exp:
            _close(got["grad"], exp["grad"], f"{name}.grad")


def test_the_cases_are_there():
    assert len(FILES) >= 20
