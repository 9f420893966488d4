"""Text from the script reaches a terminal with its control characters and bidi
overrides made visible (``\\x1b``, ``\\u202e``), the rule errors use; --json keeps the
exact text, with the characters a terminal acts on written as JSON escapes."""

from __future__ import annotations

import json

import pytest

from test_sandbox_inputs import run_capped

RAW = "\x1b]0;title\x07 \x1b[2J \u202eevil\u202c \x1b]52;c;aGk=\x07 \x9b"
SCRIPT = (
    "import torch\n"
    f"print({RAW!r})\n"
    "x = torch.ones(2, requires_grad=True)\n"
    # a raw ESC and a bidi override inside a string literal of the source
    "y = (x * len(\"\x1b[2J\u202e\")).sum()\n"
    "y.backward()\n"
)

UNSAFE = ["\x1b", "\x07", "\u202e", "\u202c", "\x9b"]


def _script(tmp_path):
    (tmp_path / "t.py").write_text(SCRIPT, encoding="utf-8")
    return "t.py"


@pytest.mark.parametrize("args", [
    ["run", "--no-color"], ["run"], ["explain", "--no-color"], ["explain", "--format", "md"],
    ["check", "--update"],
], ids=lambda a: " ".join(a))
def test_no_raw_control_characters_reach_the_terminal(tmp_path, args):
    name = _script(tmp_path)
    env_color = {} if "--no-color" in args else {"FORCE_COLOR": "1"}
    import os
    import subprocess
    from helpers import autotrace_cmd
    proc = subprocess.run(autotrace_cmd() + [args[0], name] + args[1:], cwd=tmp_path, capture_output=True,
                          env={**os.environ, **env_color}, timeout=120)
    out = proc.stdout.decode("utf-8") + proc.stderr.decode("utf-8")
    assert proc.returncode == 0, out
    text = out
    if env_color:   # rich's own styling: SGR sequences only
        import re
        text = re.sub(r"\x1b\[[0-9;]*m", "", out)
    for c in UNSAFE:
        assert c not in text, (c, out[:3000])
    if args[0] != "check":
        assert "\\x1b]0;title" in out and "\\u202e" in out


def test_json_keeps_the_exact_text(tmp_path):
    name = _script(tmp_path)
    proc = run_capped("run", name, "--json", cwd=tmp_path)
    for c in UNSAFE:
        assert c not in proc.stdout
    doc = json.loads(proc.stdout)
    assert doc["stdout"] == RAW + "\n"


def test_error_messages_keep_escaping(tmp_path):
    (tmp_path / "e.py").write_text('raise ValueError("\\x1b[2J\\u202e")\n', encoding="utf-8")
    proc = run_capped("run", "e.py", cwd=tmp_path)
    assert proc.returncode == 1 and "\x1b" not in proc.stderr and "\u202e" not in proc.stderr
    assert "ValueError: \\x1b[2J\\u202e" in proc.stderr
