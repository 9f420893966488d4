"""Run a script under real PyTorch and report what it did, in the fields of
``autotrace run --json``: stdout, error (type, message, line), warnings and the
top-level variables (tensors, numbers, bools), and the parameters of top-level modules
(``model.fc1.weight``). Used only by the tests, as the oracle.

usage: python torch_oracle.py SCRIPT [--set NAME=VALUE ...]   (prints one JSON document)
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import math
import sys
import traceback
import re
import warnings

# torch appends where in its C++ source a warning came from in some environments
TRIGGERED = re.compile(r" \(Triggered internally at [^)]*\)$")


def _number(x):
    if isinstance(x, bool):
        return x
    if isinstance(x, int):
        return x
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return x


def _walk(v):
    if isinstance(v, list):
        return [_walk(x) for x in v]
    return _number(v)


def _array(t):
    import torch

    if t is None:
        return None
    t = t.detach()
    if t.dtype == torch.bool or not t.is_floating_point():
        return t.tolist()
    return _walk(t.double().tolist())


def _variable(value):
    import torch

    if isinstance(value, torch.Tensor):
        return {
            "kind": "tensor", "shape": list(value.shape), "dtype": str(value.dtype).replace("torch.", ""),
            "value": _array(value), "requires_grad": value.requires_grad, "is_leaf": value.is_leaf,
            "grad_fn": type(value.grad_fn).__name__ if value.grad_fn is not None else None,
            # a non-leaf's .grad is None unless it retains it (reading it would warn)
            "grad": _array(value.grad) if value.is_leaf or value.retains_grad else None,
        }
    if isinstance(value, bool):
        return {"kind": "bool", "value": value}
    if isinstance(value, (int, float)):
        return {"kind": "number", "value": _number(value)}
    return None


def run(path: str, sets=()) -> dict:
    import torch

    torch.manual_seed(67280421310721)
    source = open(path, encoding="utf-8").read()
    namespace = {"__name__": "__main__"}
    for s in sets:
        name, _, value = s.partition("=")
        namespace[name.strip()] = torch.tensor(ast.literal_eval(value.strip()), dtype=torch.float32,
                                               requires_grad=True)
    out = io.StringIO()
    error = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with contextlib.redirect_stdout(out):
            try:
                exec(compile(source, path, "exec"), namespace)
            except Exception as e:  # noqa: BLE001 - the script's own error is data here
                line = None
                for frame in traceback.extract_tb(e.__traceback__):
                    if frame.filename == path:
                        line = frame.lineno
                error = {"type": type(e).__name__, "message": str(e), "line": line}
    variables = {}
    for name, value in namespace.items():
        if name.startswith("__"):
            continue
        v = _variable(value)
        if v is not None:
            variables[name] = v
    parameters = {}
    seen = set()
    for name, value in namespace.items():
        if isinstance(value, torch.nn.Module) and not name.startswith("__"):
            for pname, p in value.named_parameters():
                if id(p) not in seen:
                    seen.add(id(p))
                    parameters[f"{name}.{pname}"] = _variable(p)
    return {
        "stdout": out.getvalue(), "error": error, "parameters": parameters,
        "warnings": [{"category": w.category.__name__, "message": TRIGGERED.sub("", str(w.message))}
                     for w in caught],
        "variables": variables,
    }


if __name__ == "__main__":
    args = sys.argv[1:]
    sets = [args[i + 1] for i, a in enumerate(args) if a == "--set"]
    print(json.dumps(run(args[0], sets), sort_keys=True, indent=1))
