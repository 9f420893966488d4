"""Every command's --json output validates against its JSON Schema, is deterministic
(byte-identical across runs, sorted keys, NaN/inf as strings, no addresses or
timestamps), and every field it emits is declared in the schema and documented in
docs/json.md."""

from __future__ import annotations

import json
import re

import pytest

jsonschema = pytest.importorskip("jsonschema")

from autotrace.render import json as render_json  # noqa: E402
from helpers import ROOT, SCENARIOS, run_cli  # noqa: E402

DOCS = (ROOT / "docs" / "json.md").read_text(encoding="utf-8")
SCHEMA_FILES = sorted((ROOT / "autotrace" / "schema").glob("*.json"))
SCENARIO_FILES = sorted(SCENARIOS.glob("*.py"))

EXPRS = {
    "nan_inf": ("import torch\nx = torch.tensor([0.0, 1.0], requires_grad=True)\ny = x.sqrt()\n"
                "z = torch.log(x)\nw = (y * z).sum()\nw.backward()\nbig = float('inf')\nn = 3\nok = True\n"),
    "higher_order": ("import torch\nx = torch.tensor(2.0, requires_grad=True)\ny = x ** 3\n"
                     "g, = torch.autograd.grad(y, x, create_graph=True)\ng.backward()\n"),
    "error": "import torch\nv = torch.ones(3, requires_grad=True)\nprint(v)\n(v * 2).backward()\n",
    "parse_error": "import os\n",
    "warning": "import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\nprint(y.grad)\ny.sum().backward()\n",
    "big": "import torch\nx = torch.ones(20000, requires_grad=True)\nx.sum().backward()\n",
    "ints": "import torch\ni = torch.tensor([0, 1, 2, 3])\nb = i > 1\n",
    "retain": "import torch\nx = torch.ones(2, requires_grad=True)\ny = x * 2\ny.retain_grad()\ny.sum().backward()\n",
}


def validator(name):
    return render_json.validator(name)


def assert_valid(doc, name="trace"):
    errors = sorted(validator(name).iter_errors(doc), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])


def test_schemas_are_valid_json_schema():
    for f in SCHEMA_FILES:
        schema = json.loads(f.read_text())
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["$id"].startswith("urn:autotrace:schema:")


def _run_json(*args, expect_code=None, **kw):
    r = run_cli("run", *args, "--json", **kw)
    if expect_code is not None:
        assert r.returncode == expect_code, r.stdout + r.stderr
    assert r.returncode in (0, 1), r.stdout + r.stderr
    return r


@pytest.mark.parametrize("script", SCENARIO_FILES, ids=lambda p: p.stem)
def test_run_json_of_scenarios_validates(script):
    r = _run_json(str(script))
    assert_valid(json.loads(r.stdout))


@pytest.mark.parametrize("name", sorted(EXPRS))
def test_run_json_of_edge_cases_validates(name):
    r = _run_json("-e", EXPRS[name])
    doc = json.loads(r.stdout)
    assert_valid(doc)
    assert (doc["error"] is not None) == (r.returncode == 1)


def test_nan_and_inf_are_strings():
    doc = json.loads(_run_json("-e", EXPRS["nan_inf"], expect_code=0).stdout)
    assert doc["variables"]["z"]["value"] == ["-inf", 0.0]
    assert doc["variables"]["big"] == {"kind": "number", "value": "inf"}
    assert doc["variables"]["ok"] == {"kind": "bool", "value": True}
    text = _run_json("-e", EXPRS["nan_inf"]).stdout
    assert "NaN" not in text and "Infinity" not in text


def test_big_tensor_has_summary_not_value():
    doc = json.loads(_run_json("-e", EXPRS["big"], expect_code=0).stdout)
    x = doc["variables"]["x"]
    assert x["value"] is None and x["summary"]["max"] == 1.0 and x["shape"] == [20000]


@pytest.mark.parametrize("args", [
    (str(SCENARIOS / "seed1_mul_sum.py"),),
    (str(SCENARIOS / "seed2_vector_backward_fixed.py"),),
    ("-e", EXPRS["error"]),
    ("-e", EXPRS["higher_order"]),
])
def test_run_json_is_byte_identical_across_runs(args):
    a = _run_json(*args).stdout
    b = _run_json(*args).stdout
    assert a == b
    assert not re.search(r"0x[0-9a-fA-F]{4,}", a), "a memory address leaked into the JSON"
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d:", a), "a timestamp in the JSON"
    doc = json.loads(a)
    assert a == render_json.dumps(doc) + "\n"            # sorted keys, stable layout


def test_node_ids_are_stable_and_next_functions_point_at_nodes():
    doc = json.loads(_run_json(str(SCENARIOS / "seed1_mul_sum.py"), expect_code=0).stdout)
    ids = [n["id"] for n in doc["nodes"]]
    assert ids == [f"n{i}" for i in range(len(ids))]
    for n in doc["nodes"]:
        for target, nr in n["next_functions"]:
            assert target is None or target in ids
    assert doc["backward_passes"] and doc["backward_passes"][0]["kind"] == "backward"


def test_run_json_error_document():
    r = _run_json("-e", EXPRS["error"], expect_code=1)
    doc = json.loads(r.stdout)
    assert_valid(doc)
    assert doc["stdout"] == "tensor([1., 1., 1.], requires_grad=True)\n"
    assert set(doc["error"]) == {"type", "message", "line", "column", "phase"}


# ------------------------------------------------------------------ check --json


def test_check_json_validates(tmp_path):
    (tmp_path / "t.py").write_text("import torch\nx = torch.ones(2, requires_grad=True)\n(x * 3).sum().backward()\n")
    (tmp_path / "u.py").write_text("import torch\nx = torch.ones(2, requires_grad=True)\n(x * 3).sum().backward()\n")
    r = run_cli("check", "t.py", "u.py", "--update", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert_valid(doc, "check")
    assert doc["summary"] == {"total": 2, "passed": 0, "failed": 0, "errors": 0, "updated": 2}

    (tmp_path / "u.py").write_text("import torch\nx = torch.ones(2, requires_grad=True)\n(x * 4).sum().backward()\n")
    r = run_cli("check", "t.py", "u.py", "--json", cwd=tmp_path)
    assert r.returncode == 3
    doc = json.loads(r.stdout)
    assert_valid(doc, "check")
    assert [res["status"] for res in doc["results"]] == ["pass", "fail"]
    diff = doc["results"][1]["differences"][0]
    assert diff["path"] == "variables.x.grad" and diff["expected"] == [3.0, 3.0] and diff["got"] == [4.0, 4.0]
    assert r.stdout == run_cli("check", "t.py", "u.py", "--json", cwd=tmp_path).stdout

    r = run_cli("check", "missing.py", "--json", cwd=tmp_path)
    assert r.returncode == 2
    doc = json.loads(r.stdout)
    assert_valid(doc, "check")
    assert doc["results"][0]["status"] == "error" and doc["results"][0]["reason"]


def test_goldens_validate():
    golden = {"$ref": "urn:autotrace:schema:trace-v1#/$defs/golden"}
    v = type(validator("trace"))(golden, registry=validator("trace")._registry)
    files = sorted(SCENARIOS.glob("*.expected.json"))
    files += sorted((ROOT / "tests" / "conformance").glob("*.expected.json"))
    assert files
    for f in files:
        errors = list(v.iter_errors(json.loads(f.read_text())))
        assert not errors, f"{f}: {errors[0].message}"


# ------------------------------------------------------------------ explain / graph, when they exist


def _has_json(name):
    r = run_cli(name, "--help")
    return r.returncode == 0 and "--json" in r.stdout


OTHER = {
    "explain": ("explain", str(SCENARIOS / "seed1_mul_sum.py"), "--json"),
    "explain-expr": ("explain", "-e", "z = (x*3).sum()", "--set", "x=[2.0, 3.0]", "--json"),
    "ops": ("ops", "--json"),
    "graph": ("graph", str(SCENARIOS / "seed1_mul_sum.py"), "--json"),
    "diff": ("diff", str(SCENARIOS / "seed1_mul_sum.py"), str(SCENARIOS / "seed1_mul_sum.py"), "--json"),
    "explain-expect": ("explain", str(SCENARIOS / "fan_in.py"), "--expect", "x.grad = 2*x + 1", "--json"),
}


@pytest.mark.parametrize("key", sorted(OTHER))
def test_other_commands_json_validates_and_is_stable(key):
    args = OTHER[key]
    if not _has_json(args[0]):
        pytest.skip(f"{args[0]} has no --json yet")
    a = run_cli(*args)
    assert a.returncode == 0, a.stderr
    doc = json.loads(a.stdout)
    assert a.stdout == render_json.dumps(doc) + "\n" or a.stdout == json.dumps(doc, sort_keys=True, indent=1, ensure_ascii=False) + "\n"
    schema = ROOT / "autotrace" / "schema" / f"{args[0]}-v1.json"
    if schema.exists():
        assert_valid(doc, args[0])
    if "schema_version" in doc:
        assert doc["schema_version"] == 1
    b = run_cli(*args)
    masked = re.compile(r"0x[0-9a-fA-F]{4,}")
    assert masked.sub("0x…", a.stdout) == masked.sub("0x…", b.stdout), "differs across runs beyond addresses"


@pytest.mark.parametrize("key", ["explain", "explain-expr", "ops", "graph"])
def test_other_commands_json_is_byte_identical(key):
    args = OTHER[key]
    if not _has_json(args[0]):
        pytest.skip(f"{args[0]} has no --json yet")
    a = run_cli(*args)
    assert a.returncode == 0, a.stderr
    assert a.stdout == run_cli(*args).stdout


# ------------------------------------------------------------------ schema ⇔ output ⇔ docs


def _keys(doc, prefix=""):
    """(path, key) of every object key in a document; variable and parameter names are not keys."""
    out = set()
    if isinstance(doc, dict):
        for k, v in doc.items():
            if prefix.endswith("variables") or prefix.endswith("parameters"):
                out |= _keys(v, prefix + ".*")
                continue
            out.add(k)
            out |= _keys(v, prefix + "." + k)
    elif isinstance(doc, list):
        for v in doc:
            out |= _keys(v, prefix)
    return out


def _schema_keys():
    keys = set()
    for f in SCHEMA_FILES:
        def walk(node):
            if isinstance(node, dict):
                for k in node.get("properties", {}):
                    keys.add(k)
                for v in node.values():
                    walk(v)
            elif isinstance(node, list):
                for v in node:
                    walk(v)
        walk(json.loads(f.read_text()))
    return keys


def test_every_emitted_field_is_declared_and_documented():
    emitted = set()
    for name in EXPRS:
        emitted |= _keys(json.loads(_run_json("-e", EXPRS[name]).stdout))
    emitted |= _keys(json.loads(_run_json(str(SCENARIOS / "seed2_best_practices.py")).stdout))
    declared = _schema_keys()
    assert emitted <= declared, f"not in the schema: {sorted(emitted - declared)}"
    undocumented = sorted(k for k in declared if f"`{k}`" not in DOCS)
    assert not undocumented, f"not documented in docs/json.md: {undocumented}"
