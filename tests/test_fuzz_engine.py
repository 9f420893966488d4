"""Random PyTorch-style scripts through the whole pipeline (interpreter, engine, trace,
JSON): whatever a script does, autotrace reports it as the script's own error or runs
it — it never fails with an exception of its own (which the CLI would turn into exit 70).

AUTOTRACE_FUZZ_EXAMPLES raises the example count (default 600, a few seconds).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autotrace.interpreter import Limits
from autotrace.render import json as render_json
from autotrace.runner import Options, run

EXAMPLES = int(os.environ.get("AUTOTRACE_FUZZ_EXAMPLES", "600"))
LIMITS = Limits(timeout=5.0, max_steps=50_000, max_loop_iterations=200)

NAMES = ["a", "b", "c", "m", "i", "y", "v", "n"]
PRELUDE = """import torch
import torch.nn.functional as F
import copy, random, itertools
from collections import OrderedDict
import numpy as np
n = np.array([[1.0, -2.0, 0.0], [0.5, 3.0, -1.5]])
a = torch.tensor([[1.0, -2.0, 0.0], [0.5, 3.0, -1.5]], requires_grad=True)
b = torch.tensor([0.0, 2.0, -1.0], requires_grad=True)
c = torch.tensor(1.5, requires_grad=True)
m = torch.tensor([[True, False, True], [False, False, True]])
i = torch.tensor([0, 2])
y = a * 2
v = y[0]
lin = torch.nn.Linear(3, 2)
opt = torch.optim.SGD(lin.parameters(), lr=0.1)
"""

atoms = st.one_of(
    st.sampled_from(NAMES),
    st.sampled_from(["0", "1", "2", "-1", "0.5", "3.0", "-0.0", "float('nan')", "float('inf')", "True",
                     "torch.ones(3)", "torch.zeros(2, 3)", "torch.ones(2, 1)", "torch.arange(3)",
                     "torch.tensor(0.0)", "torch.ones(3, 3)", "torch.tensor([1, 2, 3])",
                     # not tensors: what operators, ops and autograd get by mistake
                     "None", "[1, 2]", "'x'", "(0, 1)", "a.shape", "lin", "lin.weight", "lin(b)",
                     # the standard library around real scripts
                     "copy.deepcopy(a)", "copy.deepcopy(y)", "copy.deepcopy(lin).weight", "copy.copy(b)",
                     "copy.deepcopy(opt).param_groups[0]['params'][0]", "lin.state_dict()['weight']",
                     "torch.nn.Sequential(OrderedDict(l=lin))(b)", "random.random()",
                     "torch.tensor(random.sample(range(5), 3))", "list(itertools.accumulate([a, b]))[1]",
                     # numpy values: arrays, scalars, dtypes, shared memory
                     "np.ones(3)", "np.arange(3)", "np.float32(2.5)", "n.sum()", "np.float64", "n > 0",
                     "a.detach().numpy()", "torch.from_numpy(n)", "np.random.rand(2, 3)", "np.int64"]),
)
METHODS = [".sum()", ".sum(0)", ".sum(-1, keepdim=True)", ".mean()", ".mean(1)", ".exp()", ".log()",
           ".sqrt()", ".abs()", ".relu()", ".sigmoid()", ".tanh()", ".t()", ".T", ".reshape(-1)",
           ".view(3, 2)", ".unsqueeze(0)", ".squeeze()", ".max()", ".max(0)[0]", ".amax(-1)", ".min()",
           ".norm()", ".clamp(min=0)", ".clamp(-1, 1)", ".pow(2)", ".pow(0.5)", "[0]", "[:, 1]", "[m]",
           "[i]", "[..., None]", ".detach()", ".clone()", ".float()", ".long()", ".cumsum(0)", ".prod()",
           ".var()", ".std(0)", ".logsumexp(0)", ".softmax(-1)", ".expand(2, 3)", ".flatten()",
           ".item()", ".tolist()", ".grad", ".grad_fn", ".is_leaf", ".requires_grad", ".shape",
           ".backward()", ".backward(retain_graph=True)", ".retain_grad()", ".zero_()", ".add_(1)",
           ".requires_grad_()", ".numpy()", ".data", "._version",
           ".sum((0, 0))", ".sum(2)", ".mean(1.0)", ".sum(dim=None)", ".max(dim=0).values", ".argmax()",
           "[1.0]", "[None, 0]", "[..., 0]", "[0, 0, 0]", "[:, None, 1]", "[m, 0]", "[i, i]", "[True]",
           ".transpose(0, 1)", ".view(-1)", ".expand(3, 2, 3)", ".mul_(2)", "[0].mul_(2)",
           ".unsqueeze(-1).add_(1)", ".t().zero_()", ".register_hook(lambda g: g * 2)",
           ".register_hook(lambda g: None)", ".register_hook(1)", ".backward(torch.ones(2, 3))",
           ".backward(1)", ".backward(inputs=[a])", ".backward(create_graph=True)", ".sum().backward()",
           ".retain_grad()", ".grad.zero_()", ".detach_()", ".masked_fill_(m, 0.0)"]
CALLS = ["torch.where(m, {0}, {1})", "torch.maximum({0}, {1})", "torch.cat([{0}, {1}])",
         "torch.stack([{0}, {1}])", "torch.matmul({0}, {1})", "F.relu({0})", "F.softmax({0}, dim=-1)",
         "F.log_softmax({0}, dim=0)", "F.mse_loss({0}, {1})", "F.cross_entropy({0}, i)",
         "torch.autograd.grad({0}.sum(), [a], allow_unused=True)", "torch.autograd.grad({0}, {1})",
         "{0}.backward({1})", "{0}.masked_fill(m, 0.0)", "torch.clamp({0}, max=1.0)", "{0} @ {1}",
         "lin({0})", "F.linear({0}, lin.weight, lin.bias)", "F.mse_loss({0}, {1}, reduction='sum')",
         "torch.autograd.grad({0}, [{1}], retain_graph=True)", "torch.autograd.grad({0}, {1}, torch.ones(3))",
         "torch.autograd.backward({0}, {1})", "torch.sum({0}, {1})", "torch.cat({0})", "torch.stack([{0}], dim=5)",
         "torch.clamp({0}, {1})", "{0}.expand_as({1})", "{0}.view_as({1})", "{0}.reshape({1})",
         "torch.where({0} > 0, {0}, {1})", "F.softmax({0}, {1})", "F.nll_loss({0}, {1})",
         "F.cross_entropy({0}, {1})", "F.binary_cross_entropy(torch.sigmoid({0}), {1})", "{0}.add({1}, alpha=2)",
         "torch.mm({0}, {1})", "{0}.sum({1})", "{0}[{1}]", "{0}.pow({1})", "torch.maximum({0}, {1})",
         "np.maximum({0}, {1})", "np.dot({0}, {1})", "torch.from_numpy({0})", "np.where({0} > 0, {0}, {1})",
         "np.concatenate([{0}, {1}])", "np.exp({0})", "np.array({0})", "np.sum({0}, axis={1})",
         "torch.as_tensor({0})", "np.reshape({0}, {1})", "np.zeros({0})", "{0}.astype({1})",
         "np.random.randn({0})", "np.clip({0}, {1}, 1)", "np.outer({0}, {1})", "np.tile({0}, {1})"]
BINOPS = ["+", "-", "*", "/", "**", "//", "%", "@", "<", "==", "&"]


def expr(depth):
    if depth <= 0:
        return atoms
    sub = expr(depth - 1)
    return st.one_of(
        atoms,
        st.tuples(sub, st.sampled_from(BINOPS), sub).map(lambda x: f"({x[0]} {x[1]} {x[2]})"),
        st.tuples(sub, st.sampled_from(METHODS)).map(lambda x: f"({x[0]}){x[1]}"),
        st.tuples(st.sampled_from(CALLS), sub, sub).map(lambda x: x[0].format(f"({x[1]})", f"({x[2]})")),
        sub.map(lambda x: f"(-{x})"),
    )


statement = st.one_of(
    st.tuples(st.sampled_from(NAMES), expr(2)).map(lambda x: f"{x[0]} = {x[1]}"),
    st.tuples(st.sampled_from(NAMES), st.sampled_from(["+=", "*=", "-="]), expr(1))
      .map(lambda x: f"{x[0]} {x[1]} {x[2]}"),
    st.tuples(st.sampled_from(NAMES), expr(1), expr(1)).map(lambda x: f"{x[0]}[{x[1]}] = {x[2]}"),
    expr(2).map(lambda x: f"print({x})"),
    expr(2).map(lambda x: f'print(f"{{{x}:.3f}}")'),
    expr(1).map(lambda x: f"with torch.no_grad():\n    y = {x}"),
    st.sampled_from(["a.grad = None", "y = a * 2", "c.grad = torch.tensor(1.0)", "opt.zero_grad()",
                     "opt.step()", "loss = lin(b).pow(2).sum()\nloss.backward()\nopt.step()",
                     "lin.weight.grad = None", "h = a.register_hook(lambda g: g * 0)\nh.remove()",
                     "v = y[0]", "v.add_(1)", "y.sum().backward(retain_graph=True)", "c.grad = 1.0",
                     "a.grad = torch.ones(3)", "b.requires_grad = False", "y.requires_grad = False",
                     "with torch.no_grad():\n    a.add_(1)", "with torch.no_grad():\n    v = a[0]\nv.add_(1)",
                     "random.seed(0)", "lin2 = copy.deepcopy(lin)\nlin2(b).sum().backward()",
                     "best = copy.deepcopy(lin.state_dict())\nlin.load_state_dict(best)"]),
)


def guarded(s: str) -> str:
    body = "\n".join("    " + line for line in s.split("\n"))
    return f"try:\n{body}\nexcept Exception as e:\n    print(repr(e))"


scripts = st.one_of(
    st.lists(statement, min_size=1, max_size=5).map(lambda xs: PRELUDE + "\n".join(xs) + "\n"),
    st.lists(statement, min_size=1, max_size=8).map(lambda xs: PRELUDE + "\n".join(guarded(x) for x in xs) + "\n"),
)


@settings(max_examples=EXAMPLES, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(scripts, st.booleans())
def test_random_scripts_never_break_autotrace(source, keep_values):
    trace = run(source, "fuzz.py", limits=LIMITS, options=Options(keep_values=keep_values))
    render_json.render(trace)  # the record always serialises
    if trace.error is not None:
        assert trace.error["phase"] in ("run", "limit"), trace.error


# ---------------------------------------------------------------- phases after the run
# The same scripts, plus hostile arguments, through what follows a run: explain (all
# three renderings), the graph (DOT, with values and saved tensors), and check (the
# golden of a run compares equal to the run it came from, and survives a JSON round trip).

HOSTILE = ["torch.zeros_like(1)", "torch.zeros(2, dtype='x')", "a.to(dtype=5)", "torch.equal(a, 1)",
           "a.grad_fn", "y.grad_fn._saved_exponent", "y.grad_fn._saved_other", "F.nll_loss(a, i, weight=b)",
           "y.grad_fn.register_hook(lambda gi, go: 1)", "a.register_hook(lambda g: 'x')",
           "'\\x1b]0;t\\x07\\u202e'", "format(1, '>９９９９９９')", "torch.ones(2).repeat(10**5, 10**4)",
           "int('1' * 5000, 2)", "opt.param_groups[0]['params'].append(1)", "print('\\ud800')"]
hostile_statement = st.one_of(
    statement,
    st.sampled_from(HOSTILE),
    st.tuples(st.sampled_from(NAMES), st.sampled_from(HOSTILE)).map(lambda x: f"{x[0]} = {x[1]}"),
)
phase_scripts = st.lists(hostile_statement, min_size=1, max_size=6).map(
    lambda xs: PRELUDE + "\n".join(guarded(x) if j % 2 else x for j, x in enumerate(xs)) + "\n")


@settings(max_examples=max(EXAMPLES // 4, 20), deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(phase_scripts, st.sampled_from([None, "y", "a", "b"]), st.sampled_from([None, 1, 2]))
def test_random_scripts_never_break_the_phases_after_the_run(source, of, pass_number):
    import io
    import json

    from rich.console import Console

    from autotrace import check, explain as ex_mod
    from autotrace.render import dot, explain_console, explain_json, explain_markdown

    trace = run(source, "fuzz.py", limits=LIMITS, options=Options(keep_values=True))
    if pass_number is not None and pass_number > len(trace.passes):
        pass_number = None
    ex = ex_mod.explain(trace, pass_number=pass_number)
    explain_console.render(ex, Console(file=io.StringIO(), width=100))
    explain_markdown.render(ex)
    json.loads(explain_json.render(ex))
    for opts in (dot.GraphOptions(), dot.GraphOptions(values=True, saved=True, show_none=True, max_nodes=3),
                 dot.GraphOptions(of=of, pass_number=pass_number, collapse=True)):
        try:
            dot.render(trace, opts)
        except dot.GraphError:
            pass        # a usage error the CLI reports (--of names no tensor, ...)
    golden = json.loads(check.dumps_golden(check.golden_of(trace, "fuzz.py")))
    assert check.compare(golden, trace) == []
