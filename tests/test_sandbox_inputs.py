"""Hostile script input through the CLI, under a memory ulimit: every example ends as
the script's error (torch's message or a clear TypeError / LimitError), exit 1, never an
internal error (exit 70) and never an exhausted machine.

Part of the sandbox's hostile suite; the phases after the run, files and terminal
output have their own files (test_sandbox_phases.py, test_sandbox_files.py,
test_sandbox_terminal.py).
"""

from __future__ import annotations

import resource
import subprocess

import pytest

from helpers import autotrace_cmd

MEMORY_CAP = 3 * 1024 ** 3   # bytes of address space for each autotrace process


def _cap():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def run_capped(*args, cwd, input=None, timeout=60):
    """The installed ``autotrace`` under a 3 GiB address-space ulimit."""
    return subprocess.run(autotrace_cmd() + [str(a) for a in args], cwd=cwd, input=input, text=True,
                          capture_output=True, timeout=timeout, preexec_fn=_cap)


def _script_error(tmp_path, body, *extra):
    script = tmp_path / "s.py"
    script.write_text("import torch, math\n" + body + "\n", encoding="utf-8")
    proc = run_capped("run", script.name, "--no-color", "--timeout", "10", *extra, cwd=tmp_path)
    assert proc.returncode == 1, (proc.returncode, proc.stdout[-2000:], proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    line = next(ln for ln in proc.stderr.splitlines() if ln.startswith("s.py:"))
    return line.split(": error: ", 1)[1]


# (script, the error line after "error: ") -- messages are torch 2.13's where torch has one
INTERNAL = [
    ("x = torch.ones(2, requires_grad=True)\nprint((x*2).sum().grad_fn._saved_exponent)",
     "AttributeError: 'SumBackward0' object has no attribute '_saved_exponent'"),
    ("x = torch.ones(2, requires_grad=True)\nx.register_hook(lambda g: 5)\n(x*2).sum().backward()",
     "TypeError: expected Variable, but hook returned 'int'"),
    ("x = torch.ones(2, requires_grad=True)\ny = x*2\ny.grad_fn.register_hook(lambda gi, go: (5,))\n"
     "y.sum().backward()",
     "RuntimeError: hook '<lambda>' has returned an incorrect number of values (got 1, but expected 2)"),
    ("x = torch.ones(2, requires_grad=True)\ny = x*2\ny.grad_fn.register_hook(lambda gi, go: (5, None))\n"
     "y.sum().backward()", "TypeError: expected Variable, but hook returned 'int'"),
    ("x = torch.ones(2, requires_grad=True)\ny = x*2\ny.grad_fn.register_prehook(lambda go: 'a')\n"
     "y.sum().backward()", "TypeError: expected tuple, but hook returned 'str'"),
    ("x = torch.ones(2, requires_grad=True)\ny = x*2\ny.grad_fn.register_prehook(lambda go: [go[0]])\n"
     "y.sum().backward()", "TypeError: expected tuple, but hook returned 'list'"),
    ("x = torch.ones(2, requires_grad=True)\nopt = torch.optim.SGD([x], lr=0.1)\n"
     "opt.param_groups[0]['params'].append(3)\n(x*2).sum().backward()\nopt.step()",
     "AttributeError: 'int' object has no attribute 'grad'"),
    ('print("\\ud800")',
     "UnicodeEncodeError: 'utf-8' codec can't encode character '\\ud800' in position 0: surrogates not allowed"),
    ('torch.zeros(2, dtype="float32")', "TypeError: zeros(): argument 'dtype' must be torch.dtype, not str"),
    ("torch.zeros(2, dtype=5)", "TypeError: zeros(): argument 'dtype' must be torch.dtype, not int"),
    ("torch.ones(2, dtype=5)", "TypeError: ones(): argument 'dtype' must be torch.dtype, not int"),
    ("torch.full((2,), 1.0, dtype=5)", "TypeError: full(): argument 'dtype' must be torch.dtype, not int"),
    ('torch.tensor([1.0], dtype="x")', "TypeError: tensor(): argument 'dtype' must be torch.dtype, not str"),
    ("torch.arange(3, dtype=5)", "TypeError: arange(): argument 'dtype' must be torch.dtype, not int"),
    ("torch.randn(2, dtype=5)", "TypeError: randn(): argument 'dtype' must be torch.dtype, not int"),
    ("torch.ones(2).to(dtype=5)", "TypeError: to(): argument 'dtype' must be torch.dtype, not int"),
    ("torch.ones(2).sum(dtype='a')", "TypeError: sum(): argument 'dtype' must be torch.dtype, not str"),
    ("torch.zeros_like(5)", "TypeError: zeros_like(): argument 'input' (position 1) must be Tensor, not int"),
    ("torch.ones_like([1, 2])", "TypeError: ones_like(): argument 'input' (position 1) must be Tensor, not list"),
    ("torch.full_like(3, 2)", "TypeError: full_like(): argument 'input' (position 1) must be Tensor, not int"),
    ("torch.equal(1, 2)", "TypeError: equal(): argument 'input' (position 1) must be Tensor, not int"),
    ("torch.equal(torch.ones(1), 2)", "TypeError: equal(): argument 'other' (position 2) must be Tensor, not int"),
    ("torch.allclose(1, torch.ones(1))",
     "TypeError: allclose(): argument 'input' (position 1) must be Tensor, not int"),
    ("torch.nn.functional.nll_loss(torch.randn(3, 4), torch.tensor([0, 1, 2]), weight=5)",
     "TypeError: nll_loss_nd(): argument 'weight' (position 3) must be Tensor, not int"),
    ("torch.nn.functional.nll_loss(torch.randn(3, 4), torch.tensor([0, 1, 2]), weight=torch.ones(3))",
     "RuntimeError: weight tensor should be defined either for all 4 classes or no classes but got "
     "weight tensor of shape: [3]"),
    ("torch.nn.functional.cross_entropy(torch.randn(3, 4), torch.tensor([0, 1, 2]), weight=torch.ones(2, 2))",
     "RuntimeError: weight tensor should be defined either for all 4 classes or no classes but got "
     "weight tensor of shape: [2, 2]"),
]


@pytest.mark.parametrize("body, expected", INTERNAL, ids=[f"internal{i}" for i in range(len(INTERNAL))])
def test_script_input_is_the_scripts_error(tmp_path, body, expected):
    assert _script_error(tmp_path, body) == expected


def test_a_saved_list_attribute_is_a_fresh_tuple(tmp_path):
    """Clearing what a node saved cannot change the gradients (it used to empty the
    list backward reads, and then fail inside the engine)."""
    body = ("a = torch.ones(2, requires_grad=True)\nb = torch.ones(3, requires_grad=True)\n"
            "y = torch.cat([a, b])\ns = y.grad_fn._saved_sizes\nprint(s)\n"
            "(y * torch.arange(5.0)).sum().backward()\nprint(a.grad, b.grad)\n"
            "s.clear()")
    script = tmp_path / "s.py"
    script.write_text("import torch\n" + body + "\n", encoding="utf-8")
    proc = run_capped("run", "s.py", "--json", cwd=tmp_path)
    import json
    doc = json.loads(proc.stdout)
    assert doc["stdout"] == "(2, 3)\ntensor([0., 1.]) tensor([2., 3., 4.])\n", doc["stdout"]
    assert doc["error"]["message"] == "'tuple' object has no attribute 'clear'"


def test_a_huge_set_value_is_a_usage_error(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("y = x * 2\n", encoding="utf-8")
    proc = run_capped("run", "s.py", "--set", "x=" + "9" * 400, cwd=tmp_path)
    assert proc.returncode == 2 and "--set x: a number is too large for a float32 tensor" in proc.stderr


@pytest.mark.parametrize("depth", [100_000, 1_000])
def test_a_deeply_nested_golden_is_refused(tmp_path, depth):
    (tmp_path / "s.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "s.expected.json").write_text(
        '{"schema_version": 1, "variables": ' + "[" * depth + "]" * depth + "}", encoding="utf-8")
    proc = run_capped("check", "s.py", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "s.expected.json: nested too deeply to be a golden file" in proc.stderr
    assert "Traceback" not in proc.stderr


LIMIT = "size limit of 10000000 elements reached"
BITS = "integer size limit of 4096 bits reached"
ELEMENTS = "over the limit of 100,000,000 elements per tensor"

SIZES = [
    ("x = '{:>９９９９９９９９９}'.format(1)", LIMIT),
    ("x = f'{1:>９９９９９９９９９}'", LIMIT),
    ("x = format(1, '>９９９９９９９９９')", LIMIT),
    ("x = format(1.5, '.٩٩٩٩٩٩٩٩٩f')", LIMIT),
    ("x = math.comb(10**6, 5 * 10**5)", BITS),
    ("x = math.perm(10**6, 5 * 10**5)", BITS),
    ("x = math.factorial(5000)", BITS),
    ("x = int('1' * 10**7, 2)", BITS),
    ("x = int('f' * 100000, 16)", BITS),
    ("f = int\nx = f('1' * 10**6, base=2)", BITS),
    ("x = list(map(int, ['1' * 10**6]))", BITS),
    ("x = pow(2, 10**6)", BITS),
    ("x = 1 << 10**6", BITS),
    ("x = torch.ones(10**4, 10**4).tolist()", "tolist() would have 100000000 elements"),
    ("x = torch.ones(10**4, 10**4).numpy().tolist()", "tolist() would have 100000000 elements"),
    ("x = torch.ones(1, 10**5).numpy() * torch.ones(10**5, 1).numpy()", ELEMENTS),
    ("x = torch.ones(10**4).repeat(10**5)", ELEMENTS),
    ("x = torch.ones(1).repeat(10**5, 10**5)", ELEMENTS),
    ("x = torch.ones(10**4, 1) + torch.ones(1, 10**5)", ELEMENTS),
    ("x = torch.ones(10**4, 1).expand(10**4, 10**5).contiguous()", ELEMENTS),
]


@pytest.mark.parametrize("body, fragment", SIZES, ids=[f"size{i}" for i in range(len(SIZES))])
def test_sizes_are_counted_as_python_counts(tmp_path, body, fragment):
    line = _script_error(tmp_path, body)
    assert line.startswith("LimitError: ") and fragment in line, line


def test_small_results_still_work(tmp_path):
    script = tmp_path / "s.py"
    script.write_text("import torch\nprint(int('1' * 100, 2) % 7, int('0x' + 'f' * 1000, 0) % 10)\n"
                      "print('{:>３}'.format(1))\nprint((torch.ones(2, 1).numpy() + torch.ones(1, 3).numpy()).shape)\n"
                      "print(torch.ones(2).repeat(2, 2).shape)\n", encoding="utf-8")
    proc = run_capped("run", "s.py", "--json", cwd=tmp_path)
    import json
    assert json.loads(proc.stdout)["stdout"] == (
        f"{int('1' * 100, 2) % 7} {int('0x' + 'f' * 1000, 0) % 10}\n  1\n(2, 3)\ntorch.Size([2, 4])\n")


def test_verify_of_a_pass_the_failing_script_never_ran(tmp_path):
    """Found by the fuzz campaign: ``explain --pass 9 --verify`` of a script that fails
    before its first backward pass indexed a missing pass (exit 70)."""
    (tmp_path / "s.py").write_text("import torch\nb = torch.ones(3, requires_grad=True)\nb.backward()\n",
                                   encoding="utf-8")
    proc = run_capped("explain", "s.py", "--pass", "9", "--verify", cwd=tmp_path)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "s.py:3:1: error: RuntimeError: grad can be implicitly created only for scalar outputs" in proc.stderr
