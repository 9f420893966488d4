"""Every scenario and every conformance script agrees with real PyTorch 2.13.

Each script runs twice: under real torch (tests/torch_oracle.py, in a subprocess) and
under ``autotrace run --json``. Printed output must be equal once object addresses are
masked; errors must have the same type and message; every variable the torch run left
bound must have the same kind, shape, dtype, requires_grad, is_leaf and grad_fn, and the
same value and grad within rtol 1e-4 / atol 1e-5 (nan equal to nan); so must the parameters
of every module bound at top level (``model.fc1.weight``).
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys

import pytest

from helpers import CONFORMANCE, ROOT, SCENARIOS, require_torch, run_json

ADDR = re.compile(r"0x[0-9a-fA-F]+")
SCRIPTS = sorted(SCENARIOS.glob("*.py")) + sorted(CONFORMANCE.glob("*.py"))


def oracle(path):
    require_torch()
    proc = subprocess.run([sys.executable, str(ROOT / "tests" / "torch_oracle.py"), str(path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def close(a, b) -> bool:
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    if isinstance(a, str) or isinstance(b, str) or isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if a is None or b is None:
        return a is b
    return math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-5)


def differences(expected: dict, got: dict) -> list[str]:
    diffs = []
    if ADDR.sub("0x…", expected["stdout"]) != ADDR.sub("0x…", got["stdout"]):
        diffs.append(f"stdout:\n--- torch\n{expected['stdout']}\n--- autotrace\n{got['stdout']}")
    ee, ge = expected["error"], got["error"]
    if (ee is None) != (ge is None) or (ee and (ee["type"], ee["message"]) != (ge["type"], ge["message"])):
        diffs.append(f"error: torch {ee} autotrace {ge}")
    elif ee and ee["line"] != ge["line"]:
        diffs.append(f"error line: torch {ee['line']} autotrace {ge['line']}")
    ew = [(w["category"], w["message"]) for w in expected["warnings"]]
    gw = [(w["category"], w["message"]) for w in got["warnings"]]
    if ew != gw:
        diffs.append(f"warnings: torch {ew} autotrace {gw}")
    pairs = [(name, ev, got["variables"].get(name)) for name, ev in expected["variables"].items()]
    pairs += [(name, ev, got.get("parameters", {}).get(name)) for name, ev in expected.get("parameters", {}).items()]
    for name, ev, gv in pairs:
        if gv is None:
            diffs.append(f"variable {name} missing")
            continue
        for key in ("kind", "shape", "dtype", "requires_grad", "is_leaf", "grad_fn"):
            if key in ev and ev[key] != gv.get(key):
                diffs.append(f"{name}.{key}: torch {ev[key]!r} autotrace {gv.get(key)!r}")
        for key in ("value", "grad"):
            if key in ev and not close(ev[key], gv.get(key)):
                diffs.append(f"{name}.{key}: torch {str(ev[key])[:200]} autotrace {str(gv.get(key))[:200]}")
    return diffs


@pytest.mark.parametrize("script", SCRIPTS, ids=[p.name for p in SCRIPTS])
def test_agrees_with_pytorch(script):
    expected = oracle(script)
    got = run_json(script)
    assert differences(expected, got) == []
