"""Anomaly mode: torch 2.13's warnings, nan error and forward traceback (compared with the
messages torch prints when it runs the same script directly)."""

from __future__ import annotations

from helpers import run_json

SCRIPT = '''import torch
x = torch.tensor([0.0, 1.0], requires_grad=True)
with torch.autograd.detect_anomaly():
    try:
        torch.autograd.grad(x.sqrt().sum() * 0, x)
    except RuntimeError as e:
        print(e)
print(torch.is_anomaly_enabled())
torch.autograd.set_detect_anomaly(True)
print(torch.is_anomaly_enabled())
ok = (x * 2).sum()
ok.backward()
a = torch.tensor([-1.0], requires_grad=True)
b = a.sqrt()
b.backward()
'''


def test_anomaly_mode(tmp_path):
    p = tmp_path / "anom.py"
    p.write_text(SCRIPT)
    got = run_json(p)
    assert got["stdout"] == "Function 'SqrtBackward0' returned nan values in its 0th output.\nFalse\nTrue\n"
    assert got["error"]["message"] == "Function 'SqrtBackward0' returned nan values in its 0th output."
    assert got["error"]["line"] == 15
    msgs = [w["message"] for w in got["warnings"]]
    assert msgs[0] == ("Anomaly Detection has been enabled. This mode will increase the runtime and should only be "
                       "enabled for debugging.")
    assert msgs[1] == ("Error detected in SqrtBackward0. Traceback of forward call that caused the error:\n"
                       f'  File "{p}", line 5, in <module>\n    torch.autograd.grad(x.sqrt().sum() * 0, x)\n')
    assert msgs[2].endswith(f'  File "{p}", line 14, in <module>\n    b = a.sqrt()\n')
    assert len(msgs) == 3
    assert got["variables"]["x"]["grad"] == [2.0, 2.0]


def test_anomaly_mode_is_reset_between_runs():
    from autotrace import runner
    runner.run("import torch\ntorch.autograd.set_detect_anomaly(True)\n", "a.py")
    assert runner.run("import torch\nprint(torch.is_anomaly_enabled())\n", "b.py").stdout == "False\n"
