"""``run --json`` streams the document (render/json.write_trace) with exactly the bytes
of the one-shot encoder (``render``): checked on every scenario and conformance script,
on keep_values traces (values, steps with gradients), and on hand-made documents."""

import io
import json
from pathlib import Path

import pytest

from autotrace.render import json as render_json
from autotrace.runner import Options, run

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = sorted(ROOT.glob("scenarios/*.py")) + sorted((ROOT / "tests" / "conformance").glob("*.py"))


def _streamed(trace) -> str:
    buf = io.StringIO()
    render_json.write_trace(trace, buf)
    return buf.getvalue()


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.stem)
def test_stream_has_the_one_shot_bytes(path):
    src = path.read_text(encoding="utf-8")
    for keep in (False, True):
        trace = run(src, path.name, options=Options(keep_values=keep))
        assert _streamed(trace) == render_json.render(trace)


@pytest.mark.parametrize("doc", [
    {}, [], {"a": []}, {"a": {}}, {"b": [1, [2, []], {}], "a": "x\ny\u00e9", "c": None},
    {"z": {"y": {"x": [1.5, True, None]}}},
])
def test_write_matches_dumps_with_lazy_lists(doc):
    def lazify(v):
        if isinstance(v, list):
            return render_json.Lazy(lazify(x) for x in v)
        if isinstance(v, dict):
            return {k: lazify(x) for k, x in v.items()}
        return v

    for d in (doc, lazify(doc)):
        buf = io.StringIO()
        render_json.write(d, buf)
        assert buf.getvalue() == json.dumps(doc, sort_keys=True, indent=1, ensure_ascii=False)
