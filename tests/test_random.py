"""autotrace.random against the real PyTorch CPU generator (torch is the oracle only).

Every comparison is exact (bit-identical values, same dtype and shape): the module
documents no tolerance anywhere.  Without torch the module is skipped, except under CI
(the ``CI`` environment variable), where a missing torch is an error.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from fractions import Fraction

import numpy as np
import pytest

try:
    import torch
    import torch.nn.functional as F
except ImportError:  # pragma: no cover - depends on the environment
    if os.environ.get("CI"):
        raise
    pytest.skip("torch (the test oracle) is not installed", allow_module_level=True)

from hypothesis import given, settings
from hypothesis import strategies as st

from autotrace import random as R

SEEDS = [0, 1, 42, 2**32 + 5, 2**63 - 1]
SHAPES = [(), (1,), (15,), (16,), (17,), (100,), (3, 4), (7, 5, 3)]
DTYPES = [("float32", torch.float32), ("float64", torch.float64)]


def same(mine: np.ndarray, theirs: torch.Tensor) -> None:
    """Exact equality of values (bitwise, so -0.0 != 0.0 and NaNs compare), dtype and shape."""
    ref = theirs.detach().numpy()
    assert isinstance(mine, np.ndarray)
    assert mine.dtype == ref.dtype, (mine.dtype, ref.dtype)
    assert mine.shape == ref.shape, (mine.shape, ref.shape)
    if mine.dtype.kind == "f":
        ib = np.int32 if mine.dtype == np.float32 else np.int64
        m, r = mine.reshape(-1), ref.reshape(-1)
        bad = np.nonzero(m.view(ib) != r.view(ib))[0]
        assert bad.size == 0, (
            f"{bad.size} of {m.size} differ, first at {bad[:5]}: {m[bad][:5]} vs {r[bad][:5]}"
        )
    else:
        np.testing.assert_array_equal(mine, ref)


# ----------------------------------------------------------------------------- seeding


@pytest.mark.parametrize("seed", SEEDS + [-1, -5, -(2**63), 2**64 - 1, 2**32, 7.9, True])
def test_manual_seed_and_initial_seed(seed):
    torch.manual_seed(seed)
    g = R.Generator(seed)
    assert g.initial_seed() == torch.initial_seed()
    same(g.rand((5,)), torch.rand(5))
    assert R.manual_seed(seed) is R.default_generator
    assert R.initial_seed() == torch.initial_seed()


@pytest.mark.parametrize("seed", [2**64, -(2**63) - 1])
def test_seed_out_of_range(seed):
    with pytest.raises(ValueError):
        torch.manual_seed(seed)
    with pytest.raises(ValueError):
        R.Generator(seed)


def test_unseeded_generators_differ_and_reseed():
    a, b = R.Generator(), R.Generator()
    assert a.initial_seed() != b.initial_seed()
    s = a.seed()
    assert a.initial_seed() == s
    torch.manual_seed(s)
    same(a.rand((4,)), torch.rand(4))


def test_torch_generator_default_seed():
    g = R.Generator(R.DEFAULT_RNG_SEED)
    tg = torch.Generator()
    assert tg.initial_seed() == R.DEFAULT_RNG_SEED
    same(g.randn((20,)), torch.randn(20, generator=tg))


# ------------------------------------------------------------------ rand / randn per shape


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype,tdtype", DTYPES)
def test_rand(seed, shape, dtype, tdtype):
    torch.manual_seed(seed)
    g = R.Generator(seed)
    same(g.rand(shape, dtype), torch.rand(shape, dtype=tdtype))
    same(g.rand(shape, dtype), torch.rand(shape, dtype=tdtype))


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype,tdtype", DTYPES)
def test_randn(seed, shape, dtype, tdtype):
    torch.manual_seed(seed)
    g = R.Generator(seed)
    same(g.randn(shape, dtype), torch.randn(shape, dtype=tdtype))
    # a second call continues from the same state (and, for small shapes, the cache)
    same(g.randn(shape, dtype), torch.randn(shape, dtype=tdtype))
    same(g.rand((3,), dtype), torch.rand(3, dtype=tdtype))


@pytest.mark.parametrize("seed", [0, 3, 2**40 + 17])
def test_randn_sizes_around_blocks(seed):
    torch.manual_seed(seed)
    g = R.Generator(seed)
    for n in list(range(0, 50)) + [63, 64, 65, 623, 624, 625, 1000, 4099]:
        for dtype, tdtype in DTYPES:
            same(g.randn((n,), dtype), torch.randn(n, dtype=tdtype))


def test_randn_large():
    torch.manual_seed(123)
    g = R.Generator(123)
    same(g.randn((300_001,)), torch.randn(300_001))
    same(g.randn((100_003,), "float64"), torch.randn(100_003, dtype=torch.float64))


def test_small_normal_cache_carries_across_calls_and_dtypes():
    torch.manual_seed(9)
    g = R.Generator(9)
    plan = [(1, 0), (1, 1), (3, 0), (16, 1), (5, 1), (2, 0), (40, 0), (1, 0), (7, 1), (1, 1)]
    for n, d in plan:
        dtype, tdtype = DTYPES[d]
        same(g.randn((n,), dtype), torch.randn(n, dtype=tdtype))
    # manual_seed clears the cache
    g.randn((1,))
    torch.randn(1)
    torch.manual_seed(9)
    g.manual_seed(9)
    same(g.randn((1,)), torch.randn(1))


# -------------------------------------------------------------------- interleaved calls


@pytest.mark.parametrize("seed", SEEDS + [7, 2**31, 123456789])
def test_interleaved(seed):
    torch.manual_seed(seed)
    g = R.Generator(seed)
    same(g.rand((3, 4)), torch.rand(3, 4))
    same(g.randn((5,)), torch.randn(5))
    same(g.randint(0, 10, (6,)), torch.randint(0, 10, (6,)))
    same(g.randn((17,), "float64"), torch.randn(17, dtype=torch.float64))
    same(g.rand((), "float64"), torch.rand((), dtype=torch.float64))
    same(g.randn(()), torch.randn(()))
    same(g.bernoulli(0.3, (9,)), torch.empty(9).bernoulli_(0.3))
    same(g.randperm(10), torch.randperm(10))
    same(g.uniform_((2, 3), -2.0, 5.0), torch.empty(2, 3).uniform_(-2.0, 5.0))
    same(g.normal_((33,), 1.5, 0.25), torch.empty(33).normal_(1.5, 0.25))
    same(g.randint(-(2**40), 2**40, (4,)), torch.randint(-(2**40), 2**40, (4,)))
    same(g.randn((700,)), torch.randn(700))
    same(g.rand((2000,)), torch.rand(2000))


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(min_value=-(2**63), max_value=2**64 - 1),
    ops=st.lists(
        st.tuples(
            st.sampled_from(["rand", "randn", "randint", "bernoulli", "uniform", "normal"]),
            st.lists(st.integers(min_value=0, max_value=6), max_size=3),
            st.sampled_from([0, 1]),
        ),
        min_size=1,
        max_size=8,
    ),
)
def test_interleaved_hypothesis(seed, ops):
    torch.manual_seed(seed)
    g = R.Generator(seed)
    for op, dims, d in ops:
        shape = tuple(dims)
        dtype, tdtype = DTYPES[d]
        if op == "rand":
            same(g.rand(shape, dtype), torch.rand(shape, dtype=tdtype))
        elif op == "randn":
            same(g.randn(shape, dtype), torch.randn(shape, dtype=tdtype))
        elif op == "randint":
            same(g.randint(-7, 300, shape), torch.randint(-7, 300, shape))
        elif op == "bernoulli":
            same(g.bernoulli(0.25, shape, dtype), torch.empty(shape, dtype=tdtype).bernoulli_(0.25))
        elif op == "uniform":
            same(g.uniform_(shape, -0.3, 0.7, dtype), torch.empty(shape, dtype=tdtype).uniform_(-0.3, 0.7))
        else:
            same(g.normal_(shape, -2.0, 3.0, dtype), torch.empty(shape, dtype=tdtype).normal_(-2.0, 3.0))


# -------------------------------------------------------------------- uniform_ / normal_


@pytest.mark.parametrize("dtype,tdtype", DTYPES)
@pytest.mark.parametrize(
    "a,b",
    [(0.0, 1.0), (-0.3, 0.7), (-1 / 3, 1 / 3), (2.5, 1000.0), (-0.07, 0.07), (1.1, 1.2),
     (1.0, 1.0000001), (-5.0, -4.999), (0.0, 0.0), (-1e30, 1e30)],
)
def test_uniform_(a, b, dtype, tdtype):
    torch.manual_seed(11)
    g = R.Generator(11)
    for n in (1, 17, 50_000):
        same(g.uniform_((n,), a, b, dtype), torch.empty(n, dtype=tdtype).uniform_(a, b))


@pytest.mark.parametrize("dtype,tdtype", DTYPES)
@pytest.mark.parametrize("mean,std", [(0.0, 1.0), (0.3, 1.7), (-1 / 3, 0.1), (5.0, 1 / 7), (2.0, 0.0), (1e3, 1e-3)])
@pytest.mark.parametrize("n", [1, 2, 15, 16, 31, 1000])
def test_normal_(mean, std, n, dtype, tdtype):
    torch.manual_seed(n)
    g = R.Generator(n)
    for _ in range(3):
        same(g.normal_((n,), mean, std, dtype), torch.empty(n, dtype=tdtype).normal_(mean, std))


def test_float32_normal_kernel_over_all_uniforms():
    """The float32 Box-Muller kernel, fed (through a crafted mt19937 state) a spread of
    the 2**24 possible uniforms in both the radius and the angle role."""
    words = np.concatenate(
        [
            np.arange(0, 2**24, 61, dtype=np.uint32),
            np.arange(0, 4096, dtype=np.uint32),
            np.arange(2**24 - 4096, 2**24, dtype=np.uint32),
        ]
    )
    words = words[: words.size // 8 * 8].reshape(-1, 8)
    words = np.concatenate([words, words], axis=1).ravel()  # each word as u1 and as u2
    g = R.Generator(0)
    per = 38 * 16
    for k in range(0, words.size, per):
        seg = words[k : k + per]
        state = np.zeros((), R.STATE_DTYPE)
        state["seeded"], state["left"], state["next"] = 1, 624, 0
        state["state"][: seg.size] = _untemper(seg)
        raw = np.frombuffer(state.tobytes(), np.uint8).copy()
        torch.set_rng_state(torch.from_numpy(raw))
        g.set_state(raw)
        same(g.randn((seg.size,)), torch.randn(seg.size))


def _untemper(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.uint32)
    y = x ^ (x >> np.uint32(18))
    z = y.copy()
    for _ in range(3):
        z = y ^ ((z << np.uint32(15)) & np.uint32(0xEFC60000))
    y, z = z, z.copy()
    for _ in range(6):
        z = y ^ ((z << np.uint32(7)) & np.uint32(0x9D2C5680))
    y, z = z, z.copy()
    for _ in range(4):
        z = y ^ (z >> np.uint32(11))
    return z


def test_untemper_inverts_temper():
    x = np.random.default_rng(0).integers(0, 2**32, 10_000, dtype=np.uint64).astype(np.uint32)
    np.testing.assert_array_equal(R._temper(_untemper(x)), x)


# ----------------------------------------------------------------------------- randint


@pytest.mark.parametrize(
    "low,high",
    [(0, 10), (-5, 5), (0, 2), (3, 4), (0, 2**28 - 1), (0, 2**28), (3, 2**32), (0, 2**32 + 1),
     (-(2**40), 2**40), (-(2**63), 2**63 - 1), (2**62, 2**63 - 1)],
)
@pytest.mark.parametrize("shape", [(), (1,), (17,), (3, 4), (1000,)])
def test_randint(low, high, shape):
    torch.manual_seed(5)
    g = R.Generator(5)
    same(g.randint(low, high, shape), torch.randint(low, high, shape))
    same(g.rand((2,)), torch.rand(2))


@pytest.mark.parametrize("low,high", [(0, 2**63), (-(2**63) - 1, 0)])
def test_randint_bounds_overflow(low, high):
    with pytest.raises(ValueError):
        torch.randint(low, high, (2,))
    with pytest.raises(ValueError):
        R.Generator(0).randint(low, high, (2,))


# --------------------------------------------------------------------- bernoulli / dropout


@pytest.mark.parametrize("p", [0.0, 0.1, 0.5, 0.9, 1 / 3, 1.0])
@pytest.mark.parametrize("dtype,tdtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (7,), (16,), (33, 3), (5000,)])
def test_bernoulli(p, dtype, tdtype, shape):
    torch.manual_seed(21)
    g = R.Generator(21)
    same(g.bernoulli(p, shape, dtype), torch.empty(shape, dtype=tdtype).bernoulli_(p))
    same(g.rand((3,)), torch.rand(3))


@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
@pytest.mark.parametrize("shape", [(10,), (4, 9), (2, 3, 50)])
def test_dropout_mask(p, shape):
    torch.manual_seed(4)
    g = R.Generator(4)
    x = torch.randn(shape)
    xm = g.randn(shape)
    out = F.dropout(x, p, training=True)
    mask = g.bernoulli(1 - p, shape, "float32")
    np.testing.assert_array_equal(out.numpy() != 0, (mask != 0) & (xm != 0))
    expected = xm * (mask / np.float32(1 - p))
    np.testing.assert_allclose(out.numpy(), expected, rtol=2e-7, atol=0)
    same(g.rand((2,)), torch.rand(2))


# ----------------------------------------------------------------------------- randperm


@pytest.mark.parametrize("n", [0, 1, 2, 3, 10, 100, 1000, 20_000])
def test_randperm(n):
    torch.manual_seed(n)
    g = R.Generator(n)
    same(g.randperm(n), torch.randperm(n))
    same(g.rand((2,)), torch.rand(2))


# ------------------------------------------------------------------------ nn.Linear init


@pytest.mark.parametrize(
    "in_f,out_f", [(1, 1), (3, 5), (5, 3), (10, 20), (64, 128), (784, 10), (17, 1), (1, 17)]
)
@pytest.mark.parametrize("dtype,tdtype", DTYPES)
@pytest.mark.parametrize("seed", [0, 42, 2**32 + 5])
def test_linear_init(in_f, out_f, dtype, tdtype, seed):
    torch.manual_seed(seed)
    g = R.Generator(seed)
    lin = torch.nn.Linear(in_f, out_f, dtype=tdtype)
    w, b = R.kaiming_uniform_linear(g, out_f, in_f, dtype)
    same(w, lin.weight)
    same(b, lin.bias)
    # the generator is left where torch leaves it
    lin2 = torch.nn.Linear(out_f, in_f, bias=False, dtype=tdtype)
    w2, b2 = R.kaiming_uniform_linear(g, in_f, out_f, dtype, bias=False)
    same(w2, lin2.weight)
    assert b2 is None
    same(g.randn((3,)), torch.randn(3))


@pytest.mark.filterwarnings("ignore:Initializing zero-element tensors is a no-op")
def test_linear_init_with_empty_weight():
    torch.manual_seed(1)
    g = R.Generator(1)
    lin = torch.nn.Linear(0, 4)  # weight (4, 0): nothing drawn; bias bound 0
    w, b = R.kaiming_uniform_linear(g, 4, 0)
    assert w.shape == (4, 0)
    same(b, lin.bias)
    lin = torch.nn.Linear(3, 0)
    w, b = R.kaiming_uniform_linear(g, 0, 3)
    assert w.shape == (0, 3) and b.shape == (0,)
    same(g.rand((2,)), torch.rand(2))


def test_linear_stack_like_a_model():
    torch.manual_seed(0)
    g = R.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
    w1, b1 = R.kaiming_uniform_linear(g, 8, 4)
    w2, b2 = R.kaiming_uniform_linear(g, 2, 8)
    same(w1, model[0].weight)
    same(b1, model[0].bias)
    same(w2, model[2].weight)
    same(b2, model[2].bias)
    same(R.default_generator.randn((5, 4)), torch.randn(5, 4))


# Every layer with a ``bias`` (or affine) switch, as ``(constructor, its keyword turning the
# bias off)``; ``{i}``, ``{o}``, ``{k}`` are sizes drawn by hypothesis (``{i}`` may be 0:
# a zero-element weight; RNN/LSTM/GRU refuse an input_size of 0).
BIAS_LAYERS = [
    ("nn.Linear({i}, {o}{dt})", "bias=False"),
    ("nn.Conv1d({i}, {o}, {k}{dt})", "bias=False"),
    ("nn.Conv2d({i}, {o}, {k}{dt})", "bias=False"),
    ("nn.Conv2d({i}, 2 * {o}, {k}, groups=1, stride=2{dt})", "bias=False"),
    ("nn.ConvTranspose1d({i}, {o}, {k}{dt})", "bias=False"),
    ("nn.ConvTranspose2d({i}, {o}, {k}{dt})", "bias=False"),
    ("nn.RNNCell({i}, {o}{dt})", "bias=False"),
    ("nn.LSTMCell({i}, {o}{dt})", "bias=False"),
    ("nn.GRUCell({i}, {o}{dt})", "bias=False"),
    ("nn.RNN({i} + 1, {o}, num_layers=2{dt})", "bias=False"),
    ("nn.LSTM({i} + 1, {o}, bidirectional=True{dt})", "bias=False"),
    ("nn.LSTM({i} + 1, {o} + 1, proj_size={o}{dt})", "bias=False"),
    ("nn.GRU({i} + 1, {o}, num_layers=2, bidirectional=True{dt})", "bias=False"),
    ("nn.LayerNorm({o}{dt})", "bias=False"),
    ("nn.LayerNorm({o}{dt})", "elementwise_affine=False"),
    ("nn.GroupNorm(1, {o}{dt})", "bias=False"),
    ("nn.GroupNorm(1, {o}{dt})", "affine=False"),
    ("nn.BatchNorm1d({o}{dt})", "bias=False"),
    ("nn.BatchNorm2d({o}{dt})", "affine=False"),
    ("nn.Embedding({i} + 1, {o}, padding_idx={i}{dt})", "max_norm=1.0"),
]


def _torch_run(src: str) -> tuple[str, set]:
    """The script's stdout under torch and the set of (category, message) it warned."""
    import contextlib
    import io
    import warnings

    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(src, {"__name__": "__main__"})
    return out.getvalue(), {(w.category.__name__, str(w.message)) for w in caught}


@pytest.mark.parametrize("layer,off", BIAS_LAYERS, ids=[f"{c.split('(')[0]}-{o}" for c, o in BIAS_LAYERS])
@settings(max_examples=8, deadline=None)
@given(i=st.integers(0, 4), o=st.integers(1, 4), k=st.integers(1, 3), seed=st.integers(0, 2**32),
       dtype=st.sampled_from(["", ", dtype=torch.float64"]))
def test_layers_draw_as_torch_with_and_without_bias(layer, off, i, o, k, seed, dtype):
    """A layer built without its bias (or affine parameters) draws what torch 2.13's
    ``reset_parameters`` draws and no more: its parameters, the next layers', a
    ``reset_parameters()`` redraw and the next ``torch.rand`` are torch's, bit for bit
    (``tolist`` of float64 prints every bit), and so are the warnings (a zero-element
    weight is not initialised, a bias beside it is drawn from U(0, 0))."""
    from autotrace import runner

    ctor = layer.format(i=i, o=o, k=k, dt=dtype)
    without = ctor[:-1] + f", {off})"
    src = (
        "import torch\nimport torch.nn as nn\n"
        f"torch.manual_seed({seed})\n"
        f"a = {without}\nb = {ctor}\nc = {without}\nd = nn.Linear({o}, {i}{dtype})\nc.reset_parameters()\n"
        "for m in (a, b, c, d):\n"
        "    print([(n, tuple(p.shape), p.detach().double().tolist()) for n, p in m.named_parameters()])\n"
        "print(torch.rand(3).double().tolist(), torch.randn(2, dtype=torch.float64).tolist())\n"
    )
    trace = runner.run(src, "<test>", options=runner.Options(keep_values=False))
    assert trace.error is None, trace.error
    expected, warned = _torch_run(src)
    assert trace.stdout == expected, src
    assert {(w["category"], w["message"]) for w in trace.warnings} == warned
    lines = expected.splitlines()
    assert len(lines) == 5
    if off == "bias=False":
        assert "bias" not in lines[0] and "bias" in lines[1]
    elif off != "max_norm=1.0":
        assert lines[0] == "[]" and "weight" in lines[1]


@pytest.mark.parametrize("ctor", [
    "nn.RNN(0, 2)", "nn.LSTM(3, 0)", "nn.GRU(2, 2, num_layers=0)", "nn.RNN(2, 2, bias=1)",
    "nn.LSTM(2, 2, batch_first=None)", "nn.GRU(2.0, 2)", "nn.RNN(2, 2.0)", "nn.LSTM(0, 2, dropout=0.5)",
    "nn.LSTM(2, 2, proj_size=2)", "nn.GRU(2, 2, dropout=1.5, bias=0)",
])
def test_recurrent_layer_arguments_are_checked_as_torch(ctor):
    """torch 2.13's RNNBase checks, in its order: the same error (and dropout warning)."""
    from autotrace import runner

    src = f"import torch\nimport torch.nn as nn\ntry:\n    m = {ctor}\nexcept Exception as e:\n" \
          "    print(type(e).__name__, e)\n"
    trace = runner.run(src, "<test>", options=runner.Options(keep_values=False))
    assert trace.error is None, trace.error
    expected, warned = _torch_run(src)
    assert expected.split()[0] in ("ValueError", "TypeError")
    assert trace.stdout == expected
    assert {(w["category"], w["message"]) for w in trace.warnings} == warned


# -------------------------------------------------------------------------------- state


def test_state_round_trip_and_torch_layout():
    torch.manual_seed(77)
    g = R.Generator(77)
    same(g.randn((3,)), torch.randn(3))  # leaves a cached normal sample
    mine = g.get_state()
    theirs = torch.get_rng_state().numpy()
    np.testing.assert_array_equal(mine, theirs)
    ahead = [g.randn((1,)), g.rand((5,)), g.randn((20,), "float64")]
    g.set_state(mine)
    for a, b in zip(ahead, [g.randn((1,)), g.rand((5,)), g.randn((20,), "float64")]):
        np.testing.assert_array_equal(a, b)
    # torch accepts our state and vice versa
    g.set_state(mine)
    torch.set_rng_state(torch.from_numpy(g.get_state()))
    same(g.randn((1,)), torch.randn(1))
    torch.rand(1000)
    g.set_state(torch.get_rng_state().numpy())
    same(g.randn((50,)), torch.randn(50))
    assert g.initial_seed() == torch.initial_seed() == 77


def test_state_is_a_copy_and_clone_is_independent():
    g = R.Generator(3)
    s = g.get_state()
    first = g.rand((4,))
    s2 = g.get_state()
    assert not np.array_equal(s, s2)
    c = g.clone()
    np.testing.assert_array_equal(c.rand((10,)), g.rand((10,)))
    g.set_state(s)
    np.testing.assert_array_equal(g.rand((4,)), first)
    with pytest.raises(RuntimeError):
        g.set_state(np.zeros(10, np.uint8))


def test_module_level_state_functions():
    torch.manual_seed(8)
    R.manual_seed(8)
    s = R.get_rng_state()
    same(R.default_generator.rand((3,)), torch.rand(3))
    R.set_rng_state(s)
    torch.manual_seed(8)
    same(R.default_generator.rand((3,)), torch.rand(3))


# ------------------------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "mine,theirs",
    [
        (lambda g: g.randint(5, 5, (2,)), lambda: torch.randint(5, 5, (2,))),
        (lambda g: g.uniform_((3,), 1.0, 0.0), lambda: torch.empty(3).uniform_(1.0, 0.0)),
        (lambda g: g.normal_((3,), 0.0, -1.0), lambda: torch.empty(3).normal_(0.0, -1.0)),
        (lambda g: g.bernoulli(1.5, (3,)), lambda: torch.empty(3).bernoulli_(1.5)),
        (lambda g: g.rand((-1,)), lambda: torch.rand(-1)),
        (lambda g: g.randperm(-1), lambda: torch.randperm(-1)),
    ],
)
def test_errors_match_torch(mine, theirs):
    with pytest.raises(RuntimeError) as t_err:
        theirs()
    with pytest.raises(RuntimeError) as m_err:
        mine(R.Generator(0))
    assert str(m_err.value) == str(t_err.value).splitlines()[0]


# ------------------------------------------------------------------- internals and speed


def _moderate_floats(lo: float, hi: float):
    """0.0 or +-[lo, hi]: keeps products, sums and their error terms clear of subnormals."""
    mag = st.floats(min_value=lo, max_value=hi)
    return st.one_of(st.just(0.0), mag, mag.map(lambda v: -v))


@settings(max_examples=300, deadline=None)
@given(a=_moderate_floats(1e-100, 1e100), b=_moderate_floats(1e-100, 1e100), c=_moderate_floats(1e-200, 1e200))
def test_fma64_is_correctly_rounded(a, b, c):
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    got = float(R._fma64(np.array([a]), np.array([b]), np.array([c]))[0])
    want = float(exact)  # Fraction -> float rounds to nearest even
    assert got == want or (want == 0 and got == 0)


@settings(max_examples=300, deadline=None)
@given(
    a=st.floats(width=32, allow_nan=False, allow_infinity=False, min_value=-(2.0**60), max_value=2.0**60),
    b=st.floats(width=32, allow_nan=False, allow_infinity=False, min_value=-(2.0**60), max_value=2.0**60),
    c=st.floats(width=32, allow_nan=False, allow_infinity=False, min_value=-(2.0**100), max_value=2.0**100),
)
def test_fma32_is_correctly_rounded(a, b, c):
    exact = Fraction(a) * Fraction(b) + Fraction(c)
    got = R._fma32(np.array([a], np.float32), np.array([b], np.float32), np.array([c], np.float32))[0]
    lo = np.float32(float(exact))  # within one float32 step of the correctly rounded value
    cands = [lo, np.nextafter(lo, np.float32(np.inf)), np.nextafter(lo, np.float32(-np.inf))]
    # nearest, ties to the even significand
    best = min(cands, key=lambda v: (abs(Fraction(float(v)) - exact), int(np.array(v).view(np.int32)) & 1))
    assert got == best


def test_mt19937_matches_numpy_bit_generator():
    g = R.Generator(12345)
    bg = np.random.MT19937()
    bg._legacy_seeding(12345)
    np.testing.assert_array_equal(g._engine.random32(5000), bg.random_raw(5000).astype(np.uint32))


def test_million_draws_are_fast():
    g = R.Generator(0)
    for fn in (lambda: g.rand((1_000_000,)), lambda: g.randn((1_000_000,)), lambda: g.randint(0, 7, (1_000_000,))):
        t0 = time.perf_counter()
        fn()
        assert time.perf_counter() - t0 < 2.0


def test_module_does_not_import_torch():
    code = "import sys, autotrace.random as r; r.manual_seed(0); r.default_generator.randn((20,)); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    assert out.stdout.strip() == "False"


# ------------------------------------------------------------------ large sizes, fast paths


def test_randn_large_sizes_across_chunks():
    """The float32 kernel runs in chunks and the draws come from numpy's MT19937 from
    2048 draws on; sizes across chunk edges (and not multiples of 16) stay bit-exact."""
    for seed, n in ((0, 3_000_017), (7, R._CHUNK), (8, R._CHUNK + 16), (9, 2 * R._CHUNK + 5),
                    (10, R._NUMPY_DRAWS - 1), (11, R._NUMPY_DRAWS + 1)):
        g = R.Generator(seed)
        torch.manual_seed(seed)
        same(g.randn((n,)), torch.randn(n))
        same(g.rand((n,)), torch.rand(n))  # and the state after it
        same(g.randn((5,)), torch.randn(5))


def test_randn_30_million():
    g = R.Generator(3)
    torch.manual_seed(3)
    same(g.randn((30_000_000,)), torch.randn(30_000_000))


def test_fast_fma32_corrects_float32_ties():
    """a * b is exactly a float32 midpoint (1 + 2**-11 + 2**-24) and c is far below
    float64's resolution: the float64 sum is the midpoint itself, so a plain
    float64-then-float32 rounding goes to even; the fused result rounds by c's sign."""
    a = np.array([1 + 2.0**-12] * 4, np.float32)
    c = np.array([2.0**-70, -(2.0**-70), 0.0, 2.0**-30], np.float32)
    got = R._fma32f(a, a, c)
    want = np.array([1 + 2.0**-11 + 2.0**-23, 1 + 2.0**-11, 1 + 2.0**-11, 1 + 2.0**-11 + 2.0**-23], np.float32)
    assert got.view(np.uint32).tolist() == want.view(np.uint32).tolist()
    assert got.view(np.uint32).tolist() == R._fma32(a, a, c).view(np.uint32).tolist()
    rng = np.random.default_rng(0)
    x, y, z = (rng.standard_normal(100_000).astype(np.float32) for _ in range(3))
    assert (R._fma32f(x, y, z).view(np.uint32) == R._fma32(x, y, z).view(np.uint32)).all()
    tiny = np.float32(1e-39)  # subnormal results take the exact path when asked
    assert (R._fma32f(x, tiny, tiny, subnormal=True).view(np.uint32)
            == R._fma32(x, tiny, tiny).view(np.uint32)).all()
