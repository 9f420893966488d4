"""The nn / optim / data library objects scripts get: hostile scripts cannot reach their
internals, and the pieces that are not exercised against torch elsewhere behave as
torch 2.13 (values checked by hand)."""

from __future__ import annotations

import pytest

from autotrace import runner

PRELUDE = (
    "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
    "from torch.utils.data import DataLoader, TensorDataset\n"
    "net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.Flatten(), nn.Linear(2, 1))\n"
    "ml = nn.ModuleList([nn.Linear(1, 1)])\n"
    "emb = nn.Embedding(3, 2)\n"
    "lstm = nn.LSTM(2, 2)\n"
    "opt = torch.optim.SGD(net.parameters(), lr=0.1)\n"
    "sched = torch.optim.lr_scheduler.StepLR(opt, 1)\n"
    "ds = TensorDataset(torch.zeros(4, 1), torch.zeros(4))\n"
    "loader = DataLoader(ds, batch_size=2, shuffle=True)\n"
    "it = iter(loader)\n"
)


def run(src):
    trace = runner.run(PRELUDE + src, "<test>", options=runner.Options(keep_values=False))
    return trace.stdout, trace.error


HOSTILE = [
    "x = net._modules",
    "x = net[0]._params",
    "x = net[1]._buffers",
    "x = ml._modules",
    "x = opt._update",
    "x = opt._state",
    "x = sched.__dict__",
    "x = sched._is_initial",
    "x = loader._Obj",
    "x = it._loader",
    "x = it._gen",
    "x = ds.__getitem__",
    "x = emb.weight._data",
    "x = nn.Embedding.from_pretrained.__func__",
    "x = nn.init._gen",
    "x = nn.init._write",
    "x = torch.utils.data.default_collate.__globals__",
    "x = lstm._layer",
    "x = lstm._step",
    "x = nn.Conv2d._nd",
    "x = net[0].reset_parameters.__self__",
    "x = F.conv2d.__wrapped__",
    "x = torch.optim.lr_scheduler.LRScheduler.__subclasses__()",
]


@pytest.mark.parametrize("src", HOSTILE)
def test_internals_are_out_of_reach(src):
    stdout, err = run(src)
    assert err is not None and err["type"] == "AttributeError", (src, err)
    assert "not available in autotrace scripts" in err["message"] or "has no attribute" in err["message"] \
        or "not supported by autotrace" in err["message"], err


def test_library_objects_do_not_hand_out_python_objects():
    stdout, err = run(
        "print(len(loader), len(ds), len(ml), len(net))\n"
        "print(sched)\n"
        "print(loader)\n")
    assert err is None, err
    lines = stdout.splitlines()
    assert lines[0] == "2 4 1 4"
    assert lines[1].startswith("<torch.optim.lr_scheduler.StepLR object at 0x")
    assert lines[2].startswith("<torch.utils.data.dataloader.DataLoader object at 0x")


def test_script_callables_run_inside_the_library():
    """lr_lambda and collate_fn are script functions called back by the library."""
    stdout, err = run(
        "s2 = torch.optim.lr_scheduler.LambdaLR(torch.optim.SGD(net.parameters(), lr=2.0), lambda e: 1 / (e + 1))\n"
        "s2.optimizer.step()\n"
        "s2.step()\n"
        "print(s2.get_last_lr())\n"
        "dl = DataLoader([1, 2, 3], batch_size=2, collate_fn=lambda b: sum(b))\n"
        "print([b for b in dl])\n")
    assert err is None, err
    assert stdout.splitlines() == ["[1.0]", "[3, 3]"]


def test_bad_arguments_are_torch_errors():
    cases = [
        ("nn.Conv2d(3, 2, 3, padding='full')", "ValueError",
         "Invalid padding string 'full', should be one of {'valid', 'same'}"),
        ("nn.Conv2d(2, 2, 3, stride=2, padding='same')", "ValueError",
         "padding='same' is not supported for strided convolutions"),
        ("nn.LayerNorm(3)(torch.zeros(2, 4))", "RuntimeError",
         "Given normalized_shape=[3], expected input with shape [*, 3], but got input of size[2, 4]"),
        ("nn.GroupNorm(2, 3)", "ValueError", "num_channels must be divisible by num_groups"),
        ("nn.Embedding(3, 2, padding_idx=5)", "AssertionError", "Padding_idx must be within num_embeddings"),
        ("F.embedding(torch.tensor([0.5]), emb.weight)", "RuntimeError",
         "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
         "but got torch.FloatTensor instead (while checking arguments for embedding)"),
        ("nn.init.eye_(torch.zeros(2, 2, 2))", "ValueError", "Only tensors with 2 dimensions are supported"),
        ("nn.init.calculate_gain('swish')", "ValueError", "Unsupported nonlinearity swish"),
        ("torch.optim.SGD([{'params': {net[3].weight}}], lr=0.1)", "TypeError",
         "optimizer parameters need to be organized in ordered collections, but the ordering of tensors in sets "
         "will change between runs. Please use a list instead."),
        ("torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=2.0)", "ValueError", "Factor should be < 1.0."),
        ("torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0)", "ValueError",
         "You must define either total_steps OR (epochs AND steps_per_epoch)"),
        ("nn.GRU(2, 2, proj_size=1)", "ValueError", "proj_size argument is only supported for LSTM, not RNN or GRU"),
        ("nn.LSTM(2, 2, proj_size=-1)", "ValueError",
         "proj_size should be a positive integer or zero to disable projections"),
        ("nn.LSTM(2, 3, proj_size=1)(torch.zeros(4, 1, 2), (torch.zeros(1, 1, 3), torch.zeros(1, 1, 3)))",
         "RuntimeError", "Expected hidden[0] size (1, 1, 1), got [1, 1, 3]"),
        ("nn.GRU(2, 3, bidirectional=True)(torch.zeros(4, 1, 2), torch.zeros(1, 1, 3))", "RuntimeError",
         "Expected hidden size (2, 1, 3), got [1, 1, 3]"),
        ("F.pad(torch.zeros(2), (1,))", "RuntimeError", "Padding length must be divisible by 2"),
        ("F.fold(torch.zeros(1, 4, 5), (3, 3), 2)", "RuntimeError",
         "Given output_size=(3, 3), kernel_size=(2, 2), dilation=(1, 1), padding=(0, 0), stride=(1, 1), "
         "expected size of input's dimension 2 to match the calculated number of sliding blocks 2 * 2 = 4, "
         "but got input.size(2)=5."),
    ]
    for src, type_, msg in cases:
        _, err = run(src + "\n")
        assert err is not None, src
        assert (err["type"], err["message"]) == (type_, msg), src


def test_batchnorm_momentum_none_is_a_cumulative_average():
    stdout, err = run(
        "bn = nn.BatchNorm1d(1, momentum=None)\n"
        "bn(torch.tensor([[1.0], [3.0]]))\n"
        "bn(torch.tensor([[5.0], [9.0]]))\n"
        "print(bn.running_mean.item(), bn.running_var.item(), bn.num_batches_tracked.item())\n")
    assert err is None, err
    # batch means 2 and 7, unbiased variances 2 and 8: running = plain averages
    assert stdout.split() == ["4.5", "5.0", "2"]


def test_register_buffer_and_state_dict_order():
    stdout, err = run(
        "m = nn.Linear(1, 1)\n"
        "m.register_buffer('steps', torch.zeros(1))\n"
        "m.register_buffer('tmp', torch.ones(1), persistent=False)\n"
        "print(list(m.state_dict().keys()), [n for n, _ in m.named_buffers()])\n")
    assert err is None, err
    assert stdout.splitlines() == ["['weight', 'bias', 'steps'] ['steps', 'tmp']"]


def test_lstm_layer_node_has_exact_first_and_second_derivatives():
    """The one-node LSTM layer (MkldnnRnnLayerBackward0) against the same layer built from
    cells, in float64: values, gradients, and gradients of a gradient (create_graph)."""
    import numpy as np

    from autotrace import engine
    from autotrace.ops import rnn as R
    from autotrace.tensor import Tensor

    rng = np.random.default_rng(0)

    def leaves():
        shapes = [(3, 2, 2), (1 * 8, 2), (8, 2), (8,), (8,), (2, 2), (2, 2)]
        return [Tensor._make(rng_copy.standard_normal(s)).requires_grad_(True) for s in shapes]

    rng_copy = np.random.default_rng(1)
    a = leaves()
    rng_copy = np.random.default_rng(1)
    b = leaves()
    out_a = R.lstm_layer(*a[:1], a[5], a[6], *a[1:5])
    out_b = R._lstm_steps(b[0], b[5], b[6], *b[1:5])
    assert out_a[0].grad_fn.name() == "MkldnnRnnLayerBackward0"
    assert out_b[0].grad_fn.name() == "StackBackward0"
    ups = [Tensor._make(rng.standard_normal(o._data.shape)) for o in out_a]
    for x, y in zip(out_a, out_b):
        np.testing.assert_allclose(x._data, y._data, rtol=1e-12, atol=1e-12)
    ga = engine.grad(list(out_a), a, ups, create_graph=True)
    gb = engine.grad(list(out_b), b, ups, create_graph=True)
    for x, y in zip(ga, gb):
        np.testing.assert_allclose(x._data, y._data, rtol=1e-10, atol=1e-12)
    sa = sum(((g * g).sum() for g in ga), Tensor._make(np.array(0.0)))
    sb = sum(((g * g).sum() for g in gb), Tensor._make(np.array(0.0)))
    for x, y in zip(engine.grad(sa, a), engine.grad(sb, b)):
        np.testing.assert_allclose(x._data, y._data, rtol=1e-9, atol=1e-11)


def test_lazy_name_lists_match_the_modules():
    from importlib import import_module

    import autotrace.torch_api as api
    for mod, names in api.LAZY_NN.items():
        assert set(names) == set(import_module(f"autotrace.torch_api.{mod}").MEMBERS), mod
    assert set(api.LAZY_INIT) == set(import_module("autotrace.torch_api.init").MEMBERS)
    assert set(api.LAZY_SCHEDULERS) == set(import_module("autotrace.torch_api.lr_scheduler").MEMBERS)
    assert set(api.LAZY_DATA) == set(import_module("autotrace.torch_api.data").MEMBERS)
