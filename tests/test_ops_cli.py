"""``autotrace ops``: the op table from the CLI (plain when piped, and --json)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from autotrace import ops


def _run(*args):
    exe = shutil.which("autotrace")
    cmd = [exe, *args] if exe else [sys.executable, "-m", "autotrace.cli.main", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


def test_ops_plain_lists_every_op():
    p = _run("ops")
    assert p.returncode == 0, p.stderr
    ops.load()
    lines = p.stdout.splitlines()
    names = {ln.split("\t")[0] for ln in lines}
    assert names == set(ops.OPS)
    assert "mul\tMulBackward0\tself\tgrad * other\tother" in lines


def test_ops_json_sorted_and_complete():
    p = _run("ops", "--json")
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    assert p.stdout.strip() == json.dumps(doc, sort_keys=True, indent=1, ensure_ascii=False)
    by = {r["op"]: r for r in doc["ops"]}
    ops.load()
    assert set(by) == set(ops.OPS)
    assert by["softmax"]["node"] == "SoftmaxBackward0"
    assert set(by["mul"]["vjp"]) == {"self", "other"}


def test_ops_one_name():
    p = _run("ops", "--json", "MseLossBackward0")
    assert p.returncode == 0, p.stderr
    assert [r["op"] for r in json.loads(p.stdout)["ops"]] == ["mse_loss"]
    assert _run("ops", "nope").returncode == 2


def test_ops_api_lists_functions_methods_and_modules():
    p = _run("ops", "--api")
    assert p.returncode == 0, p.stderr
    rows = dict(line.split("\t") for line in p.stdout.splitlines())
    assert rows["torch.einsum"] == "function"
    assert rows["torch.cuda.is_available"] == "function"
    assert rows["torch.autograd.Variable"] == "class"
    assert rows["torch.nn.Linear"] == "nn module"
    assert rows["Tensor.scatter_add_"] == "method"
    assert rows["Tensor.is_cuda"] == "attribute"
    assert rows["torch.float64"] == "dtype"
    assert rows["collections"] == rows["matplotlib.pyplot"] == "python module"
    assert rows["random.seed"] == rows["collections.OrderedDict"] == rows["itertools.product"] == "python"
    assert rows["matplotlib.pyplot.*"] == "python"
    assert "random.Random" not in rows and "math" not in rows and not any("._" in k for k in rows)
    j = _run("ops", "--api", "--json", "topk")
    assert {r["name"] for r in json.loads(j.stdout)["api"]} == {"torch.topk", "Tensor.topk"}


def test_every_torch_name_ops_api_lists_exists_in_torch():
    """The supported API is PyTorch's: no internal helper name reaches scripts as torch.X."""
    from helpers import require_torch
    torch = require_torch()
    p = _run("ops", "--api", "--json")
    missing = []
    for row in json.loads(p.stdout)["api"]:
        name = row["name"]
        if name.startswith("Tensor."):
            obj, parts = torch.Tensor, name.split(".")[1:]
        elif name.startswith("torch.") and not name.endswith(".*"):
            obj, parts = torch, name.split(".")[1:]
        else:
            continue
        for part in parts:
            if not hasattr(obj, part):
                missing.append(name)
                break
            obj = getattr(obj, part)
    assert missing == []


def test_ops_takes_no_color_like_every_command():
    """--no-color is accepted; piped it changes nothing, on a terminal the table has no
    escape sequences (rich's plain console)."""
    import os
    import pty

    plain = _run("ops", "mul")
    p = _run("ops", "mul", "--no-color")
    assert p.returncode == 0 and p.stdout == plain.stdout
    exe = shutil.which("autotrace")
    cmd = [exe, "ops", "mul", "--no-color"] if exe else [sys.executable, "-m", "autotrace.cli.main", "ops", "mul",
                                                          "--no-color"]
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")}
    proc = subprocess.run(cmd, stdout=slave, stderr=subprocess.PIPE, timeout=60, env={**env, "TERM": "xterm"})
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    text = out.decode()
    assert proc.returncode == 0, proc.stderr
    assert "MulBackward0" in text and "\x1b[" not in text
