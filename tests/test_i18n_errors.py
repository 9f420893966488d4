"""The Chinese edition of autotrace's own errors: refusals, limits (in the run and in the
phases after it), unreadable scripts and usage errors are recorded in English and shown in
Chinese with their names, options and numbers kept; every such message in the code has a
catalog sentence; PyTorch's and Python's messages are never translated."""

from __future__ import annotations

import re

import pytest

from autotrace import messages
from helpers import ROOT, run_cli
from test_i18n import POWER, zh  # noqa: F401 - the zh fixture


REFUSED = [
    "import os",
    "from os import path",
    "from . import x",
    "from torch import *",
    "match 1:\n    case 1:\n        pass",
    "def f():\n    print((yield 1))",
    "async def f():\n    pass",
    "x = b'1'",
    "x = [1].__dict__",
    "x = (lambda: 1).__code__",
    "def f(__x__):\n    pass",
    "def __f__():\n    pass",
    "f = lambda: 1\nf(__k__=1)",
    "x = " + "-" * 700 + "1",
    "while True:\n    pass",
    "x = [1]\nwhile True:\n    x = x + x",
    "x = 2 ** 100000",
    "def f(n):\n    return f(n + 1)\nf(0)",
    "while True:\n    print('x' * 1000)",
    "class A(metaclass=type):\n    pass",
    "class A(int, float):\n    pass",
    "b = ()\nclass A(*b):\n    pass",
    "class A:\n    def __del__(self):\n        pass",
    "f = lambda: (yield)",
    "class A(dict):\n    pass",
    "x = type('A', (), {})",
    "x = super(1)",
    "import torch\ntorch.frobnicate(1)",
    "import math\nx = math._x",
    "x = (1).real\nx = (1).__sizeof__",
    "class A:\n    pass\nsetattr(A(), '__x__', 1)",
    "print(1, file=2)",
    "x = list[int]",
    "import torch\nt = torch.zeros(100000, 100000)",
    "x = []\nfor i in range(200):\n    x = [x]\nprint(x)",
    "from dataclasses import dataclass\n@dataclass(slots=True)\nclass A:\n    pass",
    "from dataclasses import dataclass\nimport torch.nn as nn\n@dataclass\nclass M(nn.Module):\n    pass",
    "from dataclasses import dataclass\ndataclass(3)",
    "getattr(len, '__self__')",
    " ",
]


@pytest.mark.parametrize("src", REFUSED, ids=lambda s: s.split("\n")[-1][:30])
def test_autotrace_own_errors_are_recorded_in_english_and_shown_in_chinese(src, zh):
    from autotrace.interpreter import Limits
    from autotrace.runner import run
    trace = run(src + "\n", "t.py", limits=Limits(timeout=5, max_loop_iterations=10_000, max_sequence=10_000,
                                                   max_recursion=50, max_output=100_000))
    assert trace.error is not None
    message = trace.error["message"]
    assert not re.search(r"[\u4e00-\u9fff]", message)           # the record (JSON, goldens) stays English
    chinese = messages.localize(message)
    assert chinese is not None, message
    assert re.search(r"[\u4e00-\u9fff]", chinese)
    for quoted in re.findall(r"'[^']*'|--[\w-]+(?:=N)?|\b\d+\b", message):
        assert quoted in chinese                                   # names, options and numbers kept


@pytest.mark.parametrize("source", [b"x = 1\n\xff\n", b"x\x00", "x = '\ud800'", "x = 1\n" * 2_000_000])
def test_unreadable_scripts_are_refused_in_chinese(source, zh):
    from autotrace.interpreter.source import decode_source
    _, problem = decode_source(source)
    chinese = messages.localize(problem[1])
    assert chinese is not None and re.search(r"[\u4e00-\u9fff]", chinese), problem


def _phases():
    """Every phase a command names for its limit messages (``common.phase("...")``)."""
    found = {"reading the script", "running the script"}
    for f in (ROOT / "cli").glob("*.py"):
        for m in re.finditer(r'phase\(f?"([^"]+)"\)', f.read_text()):
            found.add(re.sub(r"\{[^}]*\}", "SVG", m.group(1)))
    return sorted(found)


@pytest.mark.parametrize("phase", _phases())
def test_limits_reached_after_the_run_name_their_phase_in_chinese(phase, zh):
    from autotrace.interpreter.limits import COMMAND, command_memory, command_timeout
    saved = COMMAND.phase, COMMAND.timeout, COMMAND.memory
    try:
        COMMAND.phase, COMMAND.timeout, COMMAND.memory = phase, 2.5, 512
        for e in (command_timeout(), command_memory()):
            chinese = messages.localize(e.message)
            assert chinese is not None, e.message
            assert not re.search(r"[a-z]{3,}", re.sub(r"--[\w-]+( [\w-]+=\w+)?|MiB|SVG|JSON", "", chinese)), chinese
            assert ("2.5" if e.limit == "timeout" else "512 MiB") in chinese
    finally:
        COMMAND.phase, COMMAND.timeout, COMMAND.memory = saved


def test_a_command_time_limit_in_chinese_and_english():
    src = "import torch\nx = torch.ones(2, requires_grad=True)\ny = x\nfor i in range(300000):\n    y = y * 1.0\n"
    zh = run_cli("explain", "-e", src, "--timeout", "0.3", "--lang", "zh")
    en = run_cli("explain", "-e", src, "--timeout", "0.3")
    assert zh.returncode == en.returncode == 1
    assert re.search(r"<expr>(:\d+:\d+)?: error: LimitError: .*达到了 0\.3 秒的时间限制（用 --timeout 放宽限制）", zh.stderr)
    assert "reached" not in zh.stderr
    assert re.search(r"LimitError: time limit of 0\.3 s reached.*\(use --timeout to raise it\)", en.stderr)


def _own_messages():
    """Every message the code words as autotrace's own ('... in autotrace scripts', '... by
    autotrace yet'), its f-string values filled with a name ('what': a word of its group)."""
    import ast
    found = []
    for f in sorted((ROOT / "autotrace").rglob("*.py")):
        if f.name in ("messages.py", "catalog.py"):
            continue
        tree = ast.parse(f.read_text())
        skip = set()
        for n in ast.walk(tree):
            if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant):
                skip.add(id(n.value))          # docstrings
            elif isinstance(n, ast.JoinedStr):
                skip.update(id(v) for v in n.values)
        for n in ast.walk(tree):
            if id(n) in skip:
                continue
            if isinstance(n, ast.Constant) and isinstance(n.value, str):
                text = n.value
            elif isinstance(n, ast.JoinedStr):
                text = "".join(v.value if isinstance(v, ast.Constant) else
                               "function" if ast.unparse(v.value) == "what" else
                               "'x'" if v.conversion == ord("r") else "x" for v in n.values)
            else:
                continue
            if "autotrace scripts" in text or "by autotrace yet" in text:
                found.append(pytest.param(text, id=f"{f.name}:{n.lineno}"))
    return found


@pytest.mark.parametrize("message", _own_messages())
def test_every_own_message_in_the_code_has_a_chinese_sentence(message, zh):
    chinese = messages.localize(message)
    assert chinese is not None and re.search(r"[\u4e00-\u9fff]", chinese), message


def test_pytorch_and_python_messages_are_never_localized(zh):
    for m in ["grad can be implicitly created only for scalar outputs", "name 'x' is not defined",
              "unsupported operand type(s) for +: 'int' and 'str'"]:
        assert messages.localize(m) is None


@pytest.mark.parametrize("args, want", [
    (["explain", POWER, "--pass", "3"], "--pass 3：脚本只运行了 1 次反向传播"),
    (["run", "nope.py"], "nope.py：没有这个文件"),
    (["run", "-e", "y = x * 2"], "<expr>:1:5：脚本用到了 x，但从未给它赋值；请在命令行上给出它的值，例如 --set \"x=[1.0, 2.0]\""),
    (["run", POWER, "--limit", "foo=1"], "--limit 'foo=1'：没有名为 'foo' 的限制"),
    (["run", POWER, "--timeout", "0"], "--timeout 必须是正的秒数"),
    (["run", "-e", "x = 1", "--set", "x=1"], "--set x：脚本自己给 x 赋了值，或者根本没有用到它"),
    (["run", "-e", "y = x * 2", "--set", "x=[[1], [1, 2]]"], "--set x：不是张量：expected sequence of length 1 at dim 1 (got 2)（嵌套列表的各行长度必须相同）"),
    (["explain", POWER, "--format", "pdf"], "--format 只能是 text、md 或 html，不能是 'pdf'"),
    (["diff", POWER, POWER, "--format", "pdf"], "--format 只能是 text 或 md，不能是 'pdf'"),
    (["diff", "-", "-"], "A 和 B 中只能有一个是 -（标准输入）"),
    (["run", POWER, "--depth", "0"], "--depth 至少为 1"),
    (["check", POWER, "--expect", "/nonexistent/g.json"], "/nonexistent/g.json：没有这个基准文件（用 --update 生成）"),
    (["graph", POWER, "-o", "/nonexistent/g.svg"], "-o /nonexistent/g.svg：目录 /nonexistent 不存在；请先创建它"),
])
def test_usage_errors_in_chinese(args, want):
    proc = run_cli(*args, "--lang", "zh")
    assert proc.returncode == 2, proc.stderr
    assert want in proc.stderr
    en = run_cli(*args)
    assert not re.search(r"[\u4e00-\u9fff]", en.stderr)


def test_a_script_error_in_chinese_keeps_the_location_and_pytorch_message():
    src = "import torch\nx = torch.ones(3, requires_grad=True)\n(x * 2).backward()\n"
    proc = run_cli("run", "-", "--lang", "zh", input=src)
    assert proc.returncode == 1
    lines = proc.stderr.splitlines()
    assert lines[0] == "<stdin>:3:1: error: RuntimeError: grad can be implicitly created only for scalar outputs"
    assert lines[-1].startswith("（这是 PyTorch 或 Python 给出的原始报错，保持原文")
    proc = run_cli("run", "-e", "class A:\n    pass", "--lang", "zh")
    assert "<expr>:1:1: error: SyntaxError: autotrace 脚本不支持类定义" in proc.stderr or \
        "error:" not in proc.stderr      # classes may become supported
