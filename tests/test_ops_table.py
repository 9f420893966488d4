"""One harness over the op table: every op in ``autotrace.ops.OPS`` has a spec here and
is compared against real PyTorch 2.13 on hypothesis-drawn shapes and values, in
float32 and float64:

* forward value, dtype and shape;
* gradients of every float input under a random upstream gradient;
* ``grad_fn`` name and the ``next_functions`` structure (names / None), three levels;
* float64 central-difference gradcheck of our backward, and a gradgradcheck (finite
  differences of our first derivative vs. our double backward) for ops with second
  derivatives.

A new op without a spec fails :func:`test_every_op_has_a_spec`. Examples per op:
``AUTOTRACE_HYPOTHESIS_EXAMPLES`` (default 6). With ``CI`` set, a missing torch fails.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pytest

try:
    import torch as real_torch
    import torch.nn.functional as real_F
except ImportError:  # pragma: no cover
    if os.environ.get("CI"):
        raise
    pytest.skip("torch (the test oracle) is not installed", allow_module_level=True)

from hypothesis import HealthCheck, given, settings, strategies as st
from hypothesis.extra import numpy as hnp

from autotrace import engine
from autotrace import ops as at_ops
from autotrace.tensor import Tensor
from autotrace.torch_api import modules

MOD = modules()
EXAMPLES = int(os.environ.get("AUTOTRACE_HYPOTHESIS_EXAMPLES", "6"))

ANY, POS, UNIT, NZ, INT = "any", "pos", "unit", "nonzero", "int"


class Lib:
    """The two libraries behind one interface: ``lib.t`` (torch), ``lib.F``."""

    def __init__(self, t, F, name):
        self.t, self.F, self.name = t, F, name

    def tensor(self, arr, requires_grad):
        if self.name == "torch":
            x = real_torch.from_numpy(np.array(arr, copy=True))
            return x.requires_grad_(requires_grad) if requires_grad else x
        x = Tensor._make(np.array(arr, copy=True))
        if requires_grad:
            x.requires_grad_(True)
        return x


TORCH = Lib(real_torch, real_F, "torch")
OURS = Lib(MOD["torch"], MOD["torch.nn.functional"], "autotrace")


@dataclass
class Spec:
    """How to exercise one op. ``call(lib, *tensors)`` returns a tensor (or tuple of
    tensors) whose graph contains the op; ``shapes`` draws input shapes; ``domains``
    the value ranges per input; ``grads`` which inputs require grad."""
    call: Callable
    shapes: Callable = None          # draw -> list of shapes
    domains: tuple = (ANY,)
    grads: tuple = None              # per input: requires grad (default: float inputs)
    gradcheck: bool = True           # central differences are meaningful (no kinks hit)
    gradgrad: bool = True
    nondiff: bool = False            # zero / no gradient (floor, sign, ...)
    fixed: tuple = None              # fixed input arrays (index targets ...)
    dtypes: tuple = ("float32", "float64")
    atol: float = 1e-5


def unary(min_dims=0, max_dims=3, max_side=4):
    return lambda draw: [draw(hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=1, max_side=max_side))]


def binary(max_dims=3):
    def f(draw):
        shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=max_dims,
                                                        min_side=1, max_side=3))
        return list(shapes.input_shapes)
    return f


def fixed_shapes(*shapes):
    return lambda draw: [tuple(s) for s in shapes]


def at_least(n, max_dims=3):
    return unary(min_dims=n, max_dims=max_dims)


def _dim(draw, ndim):
    return draw(st.integers(-ndim, ndim - 1)) if ndim else 0


S = {}


def spec(*names, **kw):
    def reg(call):
        for n in names:
            S[n] = Spec(call=call, **kw)
        return call
    return reg


# -- arithmetic --------------------------------------------------------------------------
spec("add", shapes=binary(), domains=(ANY, ANY))(lambda L, a, b: L.t.add(a, b, alpha=2))
spec("sub", shapes=binary(), domains=(ANY, ANY))(lambda L, a, b: a - b)
spec("rsub", shapes=binary(), domains=(ANY, ANY))(lambda L, a, b: L.t.rsub(a, b))
spec("rsub_scalar", shapes=unary())(lambda L, a: 2 - a)
spec("mul", shapes=binary(), domains=(ANY, ANY))(lambda L, a, b: a * b)
spec("div", shapes=binary(), domains=(ANY, NZ))(lambda L, a, b: a / b)
spec("div_mode", shapes=binary(), domains=(ANY, NZ), gradcheck=False, nondiff=True)(
    lambda L, a, b: L.t.div(a, b, rounding_mode="floor"))
spec("mul_scalar", "div_scalar", shapes=fixed_shapes((3, 4), (3, 4)), domains=(ANY, UNIT), grads=(True, False),
     gradgrad=True)(lambda L, a, p: L.F.cross_entropy(a, p / p.sum(1, keepdim=True), label_smoothing=0.2))
spec("fill", shapes=unary(), nondiff=True, gradcheck=False)(lambda L, a: (a * 1).fill_(2.5))
spec("fill_tensor", shapes=fixed_shapes((3,), ()), domains=(ANY, ANY))(lambda L, a, v: (a * 1).fill_(v))
spec("zero", shapes=unary(), nondiff=True, gradcheck=False)(lambda L, a: (a * 1).zero_())
spec("neg", shapes=unary())(lambda L, a: -a)
spec("pow", shapes=unary(), domains=(POS,))(lambda L, a: a ** 2.5)
spec("pow_tensor", shapes=binary(), domains=(POS, NZ))(lambda L, a, b: a ** b)  # exponent 0 is where torch masks (no 2nd derivative in e there)
spec("pow_scalar_base", shapes=unary())(lambda L, a: 2.0 ** a)
spec("remainder", "fmod", shapes=binary(), domains=(POS, POS), gradcheck=False, gradgrad=False)(
    lambda L, a, b: (L.t.remainder(a, b + 0.3), L.t.fmod(a, b + 0.3)))
spec("remainder_scalar", "fmod_scalar", shapes=unary(), domains=(POS,), gradcheck=False, gradgrad=False)(
    lambda L, a: (a % 0.7, a.fmod(0.7)))
spec("remainder_scalar_self", shapes=unary(), domains=(POS,), grads=(False,), gradcheck=False, gradgrad=False,
     nondiff=True)(lambda L, a: 0.7 % a)  # torch: grad_fn NotImplemented, no derivative

# -- unary ---------------------------------------------------------------------------------
for _n, _d in [("exp", ANY), ("log", POS), ("log2", POS), ("log10", POS), ("log1p", POS), ("expm1", ANY),
               ("sqrt", POS), ("rsqrt", POS), ("reciprocal", NZ), ("sin", ANY), ("cos", ANY), ("tan", UNIT),
               ("tanh", ANY), ("sigmoid", ANY), ("abs", NZ), ("relu", NZ), ("frac", ANY)]:
    spec(_n, shapes=unary(), domains=(_d,), gradgrad=_n not in ("relu", "abs", "frac"))(
        (lambda n: lambda L, a: getattr(L.t, n)(a))(_n))
for _n in ("sign", "floor", "ceil", "trunc", "round"):
    spec(_n, shapes=unary(), nondiff=True, gradcheck=False)((lambda n: lambda L, a: getattr(L.t, n)(a))(_n))
spec("round_decimals", shapes=unary(), nondiff=True, gradcheck=False)(lambda L, a: L.t.round(a, decimals=1))
spec("clamp", shapes=unary(), domains=(NZ,), gradgrad=False)(lambda L, a: a.clamp(-0.7, 0.9))
spec("clamp_min", shapes=unary(), domains=(NZ,), gradgrad=False)(lambda L, a: a.clamp(min=0.15))
spec("clamp_max", shapes=unary(), domains=(NZ,), gradgrad=False)(lambda L, a: a.clamp(max=0.15))
spec("clamp_tensor", shapes=fixed_shapes((3, 4), (4,), (3, 1)), domains=(ANY, ANY, ANY), gradgrad=False, gradcheck=False)(
    lambda L, a, lo, hi: L.t.clamp(a, lo - 0.5, hi + 0.5))
spec("maximum", shapes=binary(), domains=(ANY, ANY), gradgrad=False)(lambda L, a, b: L.t.maximum(a, b))
spec("minimum", shapes=binary(), domains=(ANY, ANY), gradgrad=False)(lambda L, a, b: L.t.minimum(a, b))
spec("where", shapes=binary(), domains=(NZ, ANY))(lambda L, a, b: L.t.where(a > 0, a, b))
spec("masked_fill", shapes=unary())(lambda L, a: a.masked_fill(a > 0.3, -1.0))

# -- reductions ----------------------------------------------------------------------------
spec("sum", shapes=unary())(lambda L, a: a.sum())
spec("sum_dim", shapes=at_least(1))(lambda L, a: (a.sum(0, keepdim=True), a.sum(-1))[a.ndim % 2])
spec("mean", shapes=unary())(lambda L, a: a.mean())
spec("mean_dim", shapes=at_least(2))(lambda L, a: a.mean((0, -1), keepdim=a.ndim == 3))
spec("max", shapes=unary(), gradgrad=False)(lambda L, a: a.max())
spec("min", shapes=unary(), gradgrad=False)(lambda L, a: a.min())
spec("amax", shapes=at_least(1), gradgrad=False)(lambda L, a: a.amax(-1))
spec("amin", shapes=at_least(1), gradgrad=False)(lambda L, a: _spread(L, a).amin(0, keepdim=True))
spec("max_dim", shapes=at_least(1), gradgrad=False)(lambda L, a: a.max(-1)[0])
spec("min_dim", shapes=at_least(1), gradgrad=False)(lambda L, a: _spread(L, a).min(0, keepdim=True).values)
spec("norm", shapes=at_least(1), domains=(NZ,))(lambda L, a: (a.norm(), a.norm(dim=-1))[a.ndim % 2])
spec("prod", shapes=unary(max_side=3), domains=(NZ,))(lambda L, a: a.prod())
spec("prod_dim", shapes=at_least(1, 2), domains=(NZ,))(lambda L, a: a.prod(-1))
spec("cumprod", shapes=at_least(1, 2), domains=(NZ,))(lambda L, a: a.cumprod(-1))
spec("cumsum", shapes=at_least(1))(lambda L, a: a.cumsum(0))
spec("var", shapes=fixed_shapes((3, 4)))(lambda L, a: (a.var(), a.var(1, keepdim=True), a.var(0, correction=0)))
def _spread(L, a):
    """Distinct values (std is not differentiable where all values are equal)."""
    return a + L.t.arange(a.numel()).reshape(a.shape).to(a.dtype) * 0.37


spec("std", shapes=fixed_shapes((3, 4)))(
    lambda L, a: (_spread(L, a).std(), _spread(L, a).std(1), _spread(L, a).std((0, 1), correction=0)))
spec("logsumexp", shapes=at_least(1))(lambda L, a: a.logsumexp(-1))
spec("var_mean", shapes=fixed_shapes((3, 4)))(lambda L, a: L.t.var_mean(a, 1) + L.t.var_mean(a, correction=0))
spec("std_mean", shapes=fixed_shapes((3, 4)))(
    lambda L, a: L.t.std_mean(_spread(L, a), 1, keepdim=True) + L.t.std_mean(_spread(L, a)))
spec("trilinear", shapes=fixed_shapes((4, 3), (4, 2), (5, 3, 2), (5,)), domains=(ANY, ANY, ANY, ANY))(
    lambda L, a, b, w, bias: (L.F.bilinear(a, b, w, bias), L.F.bilinear(a[0], b[0], w)))
spec("nansum", shapes=at_least(1))(lambda L, a: (a.nansum(), L.t.nansum(a, -1, keepdim=True), L.t.nanmean(a, 0)))

# -- shape -----------------------------------------------------------------------------------
spec("view", shapes=at_least(1))(lambda L, a: a.view(-1))
spec("reshape_alias", shapes=fixed_shapes((3, 4)))(lambda L, a: a.t().unsqueeze(0).reshape(4, 3))
spec("unsafe_view", shapes=fixed_shapes((2, 3, 4), (4, 2)), domains=(ANY, ANY))(lambda L, a, b: a @ b)
spec("expand", shapes=fixed_shapes((3, 1)))(lambda L, a: a.expand(2, 3, 4))
spec("unsqueeze", shapes=unary())(lambda L, a: a.unsqueeze(-1))
spec("squeeze", shapes=fixed_shapes((3, 1, 2)))(lambda L, a: a.squeeze())
spec("squeeze_dim", shapes=fixed_shapes((3, 1, 2)))(lambda L, a: a.squeeze(1))
spec("squeeze_dims", shapes=fixed_shapes((1, 3, 1)))(lambda L, a: a.squeeze((0, 2)))
spec("squeeze_inplace_dims", shapes=fixed_shapes((4,), (4, 3)), domains=(ANY, ANY))(lambda L, a, b: a @ b)
spec("transpose", shapes=at_least(2))(lambda L, a: a.transpose(0, -1))
spec("t", shapes=fixed_shapes((2, 3)))(lambda L, a: a.t())
spec("permute", shapes=fixed_shapes((2, 3, 4)))(lambda L, a: a.permute(2, 0, 1))
spec("clone", shapes=unary())(lambda L, a: a.clone())
spec("to_copy", shapes=unary(), dtypes=("float32",))(lambda L, a: a.double())
spec("unbind", shapes=at_least(1))(lambda L, a: a.unbind(0)[0])
spec("split", shapes=fixed_shapes((5, 2)))(lambda L, a: a.split(2)[1])
spec("split_with_sizes", shapes=fixed_shapes((5, 2)))(lambda L, a: a.split([1, 3, 1])[1])
spec("cat", shapes=fixed_shapes((2, 3), (1, 3)), domains=(ANY, ANY))(lambda L, a, b: L.t.cat([a, b], 0))
spec("stack", shapes=fixed_shapes((2, 3), (2, 3)), domains=(ANY, ANY))(lambda L, a, b: L.t.stack([a, b], 1))
spec("narrow", shapes=fixed_shapes((4, 3)))(lambda L, a: a.narrow(0, 1, 2))
spec("flip", shapes=at_least(1))(lambda L, a: a.flip(0))
spec("repeat", shapes=at_least(1, 2))(lambda L, a: a.repeat(2, *([1] * a.ndim)))

# -- indexing --------------------------------------------------------------------------------
spec("select", shapes=fixed_shapes((3, 4)))(lambda L, a: a[1])
spec("slice", shapes=fixed_shapes((5, 4)))(lambda L, a: a[1:4:2])
spec("alias", shapes=fixed_shapes((3,)))(lambda L, a: a[...])
spec("index", shapes=fixed_shapes((5, 3)), domains=(NZ,))(lambda L, a: a[a[:, 0] > 0])
spec("take", shapes=fixed_shapes((5, 3)))(lambda L, a: a[[0, 2, 2]])
spec("embed", shapes=fixed_shapes((5, 3)))(lambda L, a: a[[0, 2, 2]])
spec("scatter_back", shapes=fixed_shapes((5, 3)))(lambda L, a: a[[0, 2, 2], [1, 1, 0]])
spec("gather", shapes=fixed_shapes((3, 4)))(
    lambda L, a: L.t.gather(a, 1, L.tensor(np.array([[0, 1], [3, 3], [2, 0]]), False)))
spec("index_select", shapes=fixed_shapes((4, 3)))(
    lambda L, a: L.t.index_select(a, 0, L.tensor(np.array([3, 0, 3]), False)))


def _setitem(L, x, a):
    y = x * 1
    y[1] = a
    return y


spec("copy_slices", shapes=fixed_shapes((3, 2), (2,)), domains=(ANY, ANY))(_setitem)


def _inplace_on_view(L, x, a):
    y = x * 1
    v = y[1]
    v.mul_(a)
    return y


spec("copy_slices_view", shapes=fixed_shapes((3, 2), (2,)), domains=(ANY, ANY))(_inplace_on_view)
def _view_after_inplace(L, x, a):
    y = x * 1
    v = y[1]
    v.mul_(a)
    return v * 1  # v.grad_fn is AsStridedBackward0 now


spec("as_strided", shapes=fixed_shapes((3, 2), (2,)), domains=(ANY, ANY))(_view_after_inplace)
spec("copy_for_grad", shapes=unary(), gradcheck=False, gradgrad=False)(lambda L, a: a.clone())

# -- linear algebra ----------------------------------------------------------------------------
spec("dot", shapes=fixed_shapes((4,), (4,)), domains=(ANY, ANY))(lambda L, a, b: L.t.dot(a, b))
spec("mv", shapes=fixed_shapes((3, 4), (4,)), domains=(ANY, ANY))(lambda L, a, b: a @ b)
spec("mm", shapes=fixed_shapes((3, 4), (4, 2)), domains=(ANY, ANY))(lambda L, a, b: a @ b)
spec("bmm", shapes=fixed_shapes((2, 3, 4), (1, 4, 2)), domains=(ANY, ANY))(lambda L, a, b: a @ b)
spec("addmm", shapes=fixed_shapes((2, 4), (3, 4), (3,)), domains=(ANY, ANY, ANY))(
    lambda L, x, w, b: L.F.linear(x, w, b))

# -- nn ------------------------------------------------------------------------------------------
spec("hardtanh", shapes=unary(), domains=(NZ,), gradgrad=False)(lambda L, a: L.F.hardtanh(a, -0.5, 0.5))
spec("leaky_relu", shapes=unary(), domains=(NZ,), gradgrad=False)(lambda L, a: L.F.leaky_relu(a, 0.1))
spec("erf", shapes=unary())(lambda L, a: L.t.erf(a))
spec("gelu", shapes=unary())(lambda L, a: (L.F.gelu(a), L.F.gelu(a, approximate="tanh")))
spec("softplus", shapes=unary())(lambda L, a: L.F.softplus(a, beta=2.0, threshold=1.0))
spec("silu", shapes=unary())(lambda L, a: L.F.silu(a))
spec("selu", shapes=unary(), domains=(NZ,))(lambda L, a: (L.F.selu(a), L.t.selu(a * 2)))
spec("selu_", shapes=unary(), domains=(NZ,))(lambda L, a: L.F.selu(a * 1.5, inplace=True))
spec("celu", shapes=unary(), domains=(NZ,))(lambda L, a: (L.F.celu(a, alpha=0.7), L.t.celu(a)))
spec("celu_", shapes=unary(), domains=(NZ,))(lambda L, a: L.F.celu(a * 1.5, 2.0, True))
spec("mish", shapes=unary())(lambda L, a: (L.F.mish(a * 4), L.F.mish(a * 1, inplace=True)))
spec("hardswish", shapes=unary(), gradgrad=False)(  # kinks at ±3: drawn values land there with probability 0
    lambda L, a: (L.F.hardswish(a * 2.5), L.F.hardswish(a * 1, inplace=True)))
spec("hardsigmoid", shapes=unary(), gradgrad=False)(
    lambda L, a: (L.F.hardsigmoid(a * 2.5), L.F.hardsigmoid(a * 1, inplace=True)))
spec("log_sigmoid", shapes=unary())(lambda L, a: (L.F.logsigmoid(a), L.F.logsigmoid(a * 20)))
spec("softmax", shapes=at_least(1))(lambda L, a: L.F.softmax(a, -1))
spec("log_softmax", shapes=at_least(1))(lambda L, a: L.F.log_softmax(a, 0))


def _targets(L, n, c, ignore=False):
    t = np.array([i % c for i in range(n)], dtype=np.int64)
    if ignore:
        t[0] = -100
    return L.tensor(t, False)


spec("nll_loss", shapes=fixed_shapes((4, 3)))(
    lambda L, a: (L.F.cross_entropy(a, _targets(L, 4, 3, True)),
                  L.F.nll_loss(a, _targets(L, 4, 3), reduction="sum"),
                  L.F.cross_entropy(a, _targets(L, 4, 3), reduction="none", label_smoothing=0.1)))
spec("nll_loss2d", shapes=fixed_shapes((2, 3, 2, 2)))(
    lambda L, a: L.F.cross_entropy(a, L.tensor(np.array([[[0, 1], [2, 1]], [[1, 1], [0, 2]]]), False)))
spec("mse_loss", shapes=fixed_shapes((3, 4), (3, 4)), domains=(ANY, ANY))(
    lambda L, a, b: (L.F.mse_loss(a, b), L.F.mse_loss(a, b, reduction="none")))
spec("binary_cross_entropy", shapes=fixed_shapes((3, 4), (3, 4)), domains=(UNIT, UNIT))(
    lambda L, a, b: (L.F.binary_cross_entropy(a, b), L.F.binary_cross_entropy(a, b, reduction="sum")))
spec("binary_cross_entropy_with_logits", shapes=fixed_shapes((3, 4), (3, 4), (4,)), domains=(ANY, UNIT, POS),
     grads=(True, True, False))(
    lambda L, a, b, pw: (L.F.binary_cross_entropy_with_logits(a, b),
                         L.F.binary_cross_entropy_with_logits(a, b, pos_weight=pw, reduction="none")))


# -- nn layers: convolution, pooling, normalisation, embedding --------------------------------
spec("convolution", shapes=fixed_shapes((2, 4, 5, 4), (6, 2, 3, 2), (6,)), domains=(ANY, ANY, ANY))(
    lambda L, x, w, b: (L.F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2),
                        L.F.conv_transpose2d(x, w.reshape(4, 3, 3, 2), b, stride=2, padding=1,
                                             output_padding=1, groups=2),
                        L.F.conv1d(x[:, :, 0], w[:, :, 0], None, padding="same", groups=2)))
spec("im2col", shapes=fixed_shapes((2, 2, 4, 3)))(lambda L, x: L.F.unfold(x, (2, 3), padding=1, stride=(2, 1)))
spec("col2im", shapes=fixed_shapes((2, 8, 6), (2, 8, 9)), domains=(ANY, ANY))(
    lambda L, x, y: (L.F.fold(x, (3, 4), 2), L.F.fold(y, (4, 5), 2, dilation=(1, 2), padding=1, stride=(2, 2))))
spec("constant_pad_nd", shapes=fixed_shapes((2, 3, 4)))(lambda L, x: L.F.pad(x, (1, 2, -1, 1), value=0.5))
spec("reflection_pad1d", shapes=fixed_shapes((2, 3, 4)))(lambda L, x: L.F.pad(x, (3, -1), mode="reflect"))
spec("reflection_pad2d", shapes=fixed_shapes((2, 3, 4)))(lambda L, x: L.F.pad(x, (1, 2, 2, 0), mode="reflect"))
spec("reflection_pad3d", shapes=fixed_shapes((1, 2, 3, 4)))(lambda L, x: L.F.pad(x, (1, 2, 2, 0, 1, 1), mode="reflect"))
spec("replication_pad1d", shapes=fixed_shapes((2, 3, 4)))(lambda L, x: L.F.pad(x, (5, -2), mode="replicate"))
spec("replication_pad2d", shapes=fixed_shapes((3, 2, 4)))(lambda L, x: L.F.pad(x, (1, 3, 2, 1), mode="replicate"))
spec("replication_pad3d", shapes=fixed_shapes((2, 2, 3, 4)))(
    lambda L, x: L.F.pad(x, (1, 2, 2, 0, 1, 3), mode="replicate"))
spec("max_pool2d", shapes=fixed_shapes((2, 2, 5, 4)))(  # spread: no ties (no derivative there)
    lambda L, x: (L.F.max_pool2d(_spread(L, x), 3, 2, 1), L.F.max_pool2d(_spread(L, x), 2, ceil_mode=True),
                  L.F.max_pool1d(_spread(L, x)[0], 2)))
spec("avg_pool2d", shapes=fixed_shapes((2, 2, 5, 4)))(
    lambda L, x: (L.F.avg_pool2d(x, 3, 2, 1), L.F.avg_pool2d(x, 2, ceil_mode=True, count_include_pad=False),
                  L.F.avg_pool1d(x[0], 3, 2, 1)))
spec("adaptive_max_pool2d", shapes=fixed_shapes((2, 2, 5, 4)))(  # spread: no ties; bins overlap for (3, 3)
    lambda L, x: (L.F.adaptive_max_pool2d(_spread(L, x), (3, 3)), L.F.adaptive_max_pool2d(_spread(L, x)[0], (None, 2)),
                  L.F.adaptive_max_pool1d(_spread(L, x)[0], 3), L.F.adaptive_max_pool2d(_spread(L, x), 7)))
spec("upsample_nearest2d", shapes=fixed_shapes((2, 2, 3, 4)))(
    lambda L, x: (L.F.interpolate(x, scale_factor=2), L.F.interpolate(x, size=(5, 3)), L.F.interpolate(x, scale_factor=1.7)))
spec("upsample_nearest1d", shapes=fixed_shapes((2, 3, 4)))(
    lambda L, x: (L.F.interpolate(x, scale_factor=2), L.F.interpolate(x, size=7), L.F.interpolate(x, size=3)))
spec("_upsample_nearest_exact2d", shapes=fixed_shapes((2, 2, 3, 4)))(
    lambda L, x: (L.F.interpolate(x, scale_factor=1.5, mode="nearest-exact"),
                  L.F.interpolate(x, size=(2, 7), mode="nearest-exact")))
spec("_upsample_nearest_exact1d", shapes=fixed_shapes((2, 3, 4)))(
    lambda L, x: L.F.interpolate(x, size=7, mode="nearest-exact"))
spec("upsample_linear1d", shapes=fixed_shapes((2, 3, 4)))(
    lambda L, x: (L.F.interpolate(x, scale_factor=2.5, mode="linear"), L.F.interpolate(x, size=3, mode="linear"),
                  L.F.interpolate(x, size=9, mode="linear", align_corners=True)))
spec("upsample_bilinear2d", shapes=fixed_shapes((2, 2, 3, 4)))(
    lambda L, x: (L.F.interpolate(x, scale_factor=2, mode="bilinear"),
                  L.F.interpolate(x, size=(5, 2), mode="bilinear", align_corners=True),
                  L.F.interpolate(x, size=(70, 61), mode="bilinear")))
spec("adaptive_avg_pool2d", shapes=fixed_shapes((2, 2, 5, 4)))(
    lambda L, x: (L.F.adaptive_avg_pool2d(x, (3, 2)), L.F.adaptive_avg_pool2d(x, 1)))
spec("batch_norm", shapes=fixed_shapes((3, 2, 2, 2), (2,), (2,)), domains=(ANY, ANY, ANY))(
    lambda L, x, w, b: (L.F.batch_norm(x, None, None, w, b, training=True),
                        L.F.batch_norm(x, L.t.zeros(2, dtype=x.dtype) + 0.1, L.t.ones(2, dtype=x.dtype) * 1.5,
                                       w, b, training=False),
                        L.F.batch_norm(x[:, :, 0, 0], None, None, w, None, training=True)))
spec("layer_norm", shapes=fixed_shapes((2, 3, 4), (4,), (4,)), domains=(ANY, ANY, ANY))(
    lambda L, x, w, b: (L.F.layer_norm(x, (4,), w, b), L.F.layer_norm(x, (3, 4))))
spec("group_norm", shapes=fixed_shapes((2, 4, 3), (4,), (4,)), domains=(ANY, ANY, ANY))(
    lambda L, x, w, b: L.F.group_norm(x, 2, w, b))
spec("smooth_l1_loss", shapes=fixed_shapes((3, 4), (3, 4)), domains=(ANY, ANY), gradcheck=False)(  # kink at |d| = beta
    lambda L, a, b: (L.F.smooth_l1_loss(a, b, beta=0.5), L.F.smooth_l1_loss(a, b, reduction="none")))
spec("huber_loss", shapes=fixed_shapes((3, 4), (3, 4)), domains=(ANY, ANY), gradcheck=False)(  # kink at |d| = delta
    lambda L, a, b: (L.F.huber_loss(a, b, delta=0.5), L.F.huber_loss(a, b, reduction="sum")))
spec("elu", shapes=unary(), domains=(NZ,))(lambda L, a: L.F.elu(a, alpha=0.7))
spec("mkldnn_rnn_layer", shapes=fixed_shapes((3, 2, 2), (8, 2), (8, 2), (8,), (8,), (1, 2, 2), (1, 2, 2)),
     domains=(ANY,) * 7, dtypes=("float32",), gradcheck=False)(  # float64 LSTMs are cells in torch; see test_nn_library
    lambda L, x, wi, wh, bi, bh, h0, c0: L.t.lstm(x, (h0, c0), [wi, wh, bi, bh], True, 1, 0.0, True, False, False))
spec("pack_padded_sequence", shapes=fixed_shapes((4, 3, 2)))(
    lambda L, a: (L.t.nn.utils.rnn.pack_padded_sequence(a, [4, 2, 3], enforce_sorted=False).data,
                  L.t.nn.utils.rnn.pack_padded_sequence(a, [3, 3, 1, 1], batch_first=True).data))
spec("unsafe_split", shapes=fixed_shapes((3, 8)))(lambda L, a: tuple(L.t.unsafe_split(a, 3, 1))[:2])
spec("embedding", shapes=fixed_shapes((5, 3)), gradcheck=False)(  # padding_idx: torch's 0, not the derivative

    lambda L, w: (L.F.embedding(L.tensor(np.array([[1, 2, 0], [4, 1, 1]]), False), w, padding_idx=1),
                  L.F.embedding(L.tensor(np.array([3, 3]), False), w)))
# -- tensor library: creation, in-place initialisers, gather/scatter, einsum ------------------------


def _seeded(fill):
    """A random in-place fill on a non-leaf, with the same seed in both libraries."""
    def call(L, a):
        L.t.manual_seed(3)
        y = a * 1
        fill(L, y)
        return y
    return call


_P = np.array([0.2, 0.7, 0.5, 0.9])
for _n, _f in [("uniform", lambda L, y: y.uniform_(-1.0, 2.0)), ("normal", lambda L, y: y.normal_(1.0, 0.5)),
               ("random_from", lambda L, y: y.random_(2, 9)), ("random_to", lambda L, y: y.random_(7)),
               ("random", lambda L, y: y.random_()), ("bernoulli_scalar", lambda L, y: y.bernoulli_(0.3)),
               ("exponential", lambda L, y: y.exponential_(2.0)),
               ("bernoulli_tensor", lambda L, y: y.bernoulli_(L.tensor(_P.astype(np.float32), False)))]:
    spec(_n, shapes=fixed_shapes((5, 4)), nondiff=True, gradcheck=False)(_seeded(_f))
spec("copy", shapes=fixed_shapes((2, 3), (3,)), domains=(ANY, ANY))(lambda L, a, b: (a * 1).copy_(b))
_IDX = np.array([[0, 1], [3, 3], [2, 0]])
spec("scatter", shapes=fixed_shapes((3, 4), (3, 2)), domains=(ANY, ANY))(
    lambda L, a, b: L.t.scatter(a, 1, L.tensor(np.array([[0, 2], [3, 1], [2, 0]]), False), b))
spec("scatter_value", shapes=fixed_shapes((3, 4)))(lambda L, a: a.scatter(1, L.tensor(_IDX, False), 1.5))
spec("scatter_not_implemented", shapes=fixed_shapes((3, 4), (3, 2)), domains=(ANY, ANY), grads=(False, False),
     nondiff=True, gradcheck=False)(lambda L, a, b: a.scatter(1, L.tensor(_IDX, False), b, reduce="add"))
spec("scatter_add", shapes=fixed_shapes((3, 4), (3, 2)), domains=(ANY, ANY))(
    lambda L, a, b: L.t.scatter_add(a, 1, L.tensor(_IDX, False), b))
spec("scatter_reduce", shapes=fixed_shapes((3, 4), (3, 2)), domains=(NZ, NZ), gradgrad=False)(
    lambda L, a, b: (a.scatter_reduce(1, L.tensor(_IDX, False), b, "sum"),
                     a.scatter_reduce(1, L.tensor(_IDX, False), b, "mean", include_self=False),
                     a.scatter_reduce(0, L.tensor(_IDX[:2] % 3, False), b[:2] * 3, "amax"),
                     a.scatter_reduce(1, L.tensor(_IDX, False), b, "prod")))
spec("index_add", shapes=fixed_shapes((4, 3), (3, 3)), domains=(ANY, ANY))(
    lambda L, a, b: a.index_add(0, L.tensor(np.array([1, 3, 1]), False), b, alpha=2))
spec("index_fill", shapes=fixed_shapes((4, 3)))(lambda L, a: a.index_fill(1, L.tensor(np.array([2, 0]), False), -1.0))
spec("index_put", shapes=fixed_shapes((4, 3), (2, 3)), domains=(ANY, ANY))(
    lambda L, a, b: (L.t.index_put(a, (L.tensor(np.array([2, 0]), False),), b),
                     (a * 1).index_put_((L.tensor(np.array([1, 3, 1]), False), L.tensor(np.array([0, 2, 0]), False)),
                                        b[0], accumulate=True),
                     a.index_put((L.tensor(np.array([True, False, True, False]), False),), b[1])))
spec("put", shapes=fixed_shapes((3, 4), (2, 2)), domains=(ANY, ANY))(
    lambda L, a, b: (a.put(L.tensor(np.array([[5, -1], [0, 6]]), False), b),
                     (a * 1).put_(L.tensor(np.array([[5, -1], [0, 5]]), False), b, accumulate=True)))
spec("index_copy", shapes=fixed_shapes((3, 4), (3, 2)), domains=(ANY, ANY))(
    lambda L, a, b: (a.index_copy(1, L.tensor(np.array([3, 0]), False), b),
                     L.t.index_copy(a, 0, L.tensor(np.array([2]), False), b.reshape(1, 6)[:, :4])))
# no derivative in torch: values, dtypes and the node names are compared (backward raises in both)
spec("unique", shapes=fixed_shapes((3, 4)), grads=(False,), nondiff=True, gradcheck=False)(
    lambda L, a: L.t.unique(a.round(), return_inverse=True, return_counts=True))
spec("unique_dim", shapes=fixed_shapes((4, 2)), grads=(False,), nondiff=True, gradcheck=False)(
    lambda L, a: (a > 0).float().unique(dim=0, return_inverse=True, return_counts=True))
spec("unique_consecutive", shapes=fixed_shapes((6,)), grads=(False,), nondiff=True, gradcheck=False)(
    lambda L, a: L.t.unique_consecutive((a > 0).float(), return_counts=True))
spec("bincount_not_implemented", shapes=fixed_shapes((5,)), grads=(False,), nondiff=True, gradcheck=False)(
    lambda L, a: L.t.bincount(L.tensor(np.array([3, 0, 3, 1, 0]), False), weights=a, minlength=6))


def _batch_first_rnn(L, a):
    L.t.manual_seed(0)
    return L.t.nn.RNN(2, 2, batch_first=True, bidirectional=True).double()(a.double())[0].to(a.dtype)


spec("transpose_batch_first", shapes=fixed_shapes((2, 3, 2)))(_batch_first_rnn)
spec("add_scalar", shapes=fixed_shapes((3,), (3,)), domains=(ANY, ANY))(
    lambda L, a, b: (L.F.margin_ranking_loss(a, b, L.tensor(np.array([1.0, -1.0, 1.0], dtype=np.float32), False),
                                             margin=0.3, reduction="none") + 0,
                     L.t.nn.MarginRankingLoss(margin=-0.2, reduction="sum")(a, b, L.tensor(np.ones(3, np.float32), False))))
def _apart(L, a, s):
    """Away from the other inputs (the distance norms have a kink where differences are 0)."""
    return a + (L.t.arange(a.numel()).reshape(a.shape).to(a.dtype) + 1) * s


spec("norm_scalar_dim", shapes=fixed_shapes((3, 4), (3, 4), (3, 4)), domains=(ANY, ANY, ANY))(
    lambda L, a, p, n: (L.F.triplet_margin_loss(_apart(L, a, 0.37), p, _apart(L, n, -0.29), margin=5.0, swap=True,
                                                reduction="none"),
                        L.F.pairwise_distance(_apart(L, a, 0.37), n, p=3.0, keepdim=True),
                        L.F.pairwise_distance(_apart(L, a[0], 0.41), p[0], p=1)))
spec("embedding_bag", shapes=fixed_shapes((6, 3), (7,)), domains=(ANY, ANY))(
    lambda L, w, psw: (L.F.embedding_bag(L.tensor(np.array([1, 4, 4, 0, 5, 2, 4]), False), w,
                                         L.tensor(np.array([0, 3, 3]), False), mode="sum", per_sample_weights=psw),
                       L.F.embedding_bag(L.tensor(np.array([[1, 4, 2], [0, 0, 5]]), False), w, mode="mean",
                                         padding_idx=0),
                       L.F.embedding_bag(L.tensor(np.array([1, 4, 4, 0, 5, 2]), False), _spread(L, w),
                                         L.tensor(np.array([0, 2, 6]), False), mode="max",
                                         include_last_offset=True)))
spec("safe_softmax", shapes=fixed_shapes((2, 3, 4), (2, 5, 4), (2, 5, 3)), domains=(ANY, ANY, ANY))(
    lambda L, q, k, v: (L.F.scaled_dot_product_attention(q, k, v, is_causal=True),
                        L.F.scaled_dot_product_attention(q[0], k[0], v[0], scale=0.3,
                                                         attn_mask=L.tensor(np.triu(np.ones((3, 5), bool)), False))))
spec("sdpa_flash_cpu", shapes=fixed_shapes((2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)), domains=(ANY, ANY, ANY),
     gradgrad=False)(
    lambda L, q, k, v: (L.F.scaled_dot_product_attention(q, k, v),
                        L.F.scaled_dot_product_attention(q, k, v, scale=0.7, attn_mask=L.tensor(
                            np.triu(np.ones((3, 5), bool), 1) == 0, False)),
                        L.F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2)[:, :3],
                                                         v.transpose(1, 2)[:, :3], is_causal=True)))


def _flash_grads(L, q, k, v):
    """The flash node's gradients made with create_graph: torch gives them a NotImplemented
    node (compared by test_attention); here their values, detached."""
    o = L.F.scaled_dot_product_attention(q * 1, k * 1, v * 1)
    grad = L.t.autograd.grad if L.name == "torch" else engine.grad
    return tuple(g.detach() for g in grad(o.sum(), (q, k, v), create_graph=True))


spec("sdpa_flash_cpu_backward", shapes=fixed_shapes((1, 2, 3, 4), (1, 2, 4, 4), (1, 2, 4, 4)),
     domains=(ANY, ANY, ANY), nondiff=True, gradcheck=False, gradgrad=False)(_flash_grads)
def _double_backward(f):
    """The gradient of ``f(a)`` for the upstream ``go`` with create_graph: torch's
    XBackwardBackward0 node over (go, a or f(a))."""
    def call(L, a, go):
        grad = L.t.autograd.grad if L.name == "torch" else engine.grad
        if not a.requires_grad:  # (the central differences pass plain tensors)
            a = a.detach().requires_grad_()
        return grad(f(L, a), a, go, create_graph=True)[0]
    return call


for _n, _f in (("tanh_backward", lambda L, a: L.t.tanh(a)), ("sigmoid_backward", lambda L, a: L.t.sigmoid(a)),
               ("threshold_backward", lambda L, a: L.t.relu(a)),
               ("leaky_relu_backward", lambda L, a: L.F.leaky_relu(a, 0.3)),
               ("hardtanh_backward", lambda L, a: L.F.hardtanh(a, -0.6, 0.8)),
               ("elu_backward", lambda L, a: L.F.elu(a, 0.8)),
               ("softplus_backward", lambda L, a: L.F.softplus(a, 1.5, 2.0)),
               ("gelu_backward", lambda L, a: L.F.gelu(a, approximate="tanh") + L.F.gelu(a)),
               ("_softmax_backward_data", lambda L, a: L.F.softmax(a, -1)),
               ("hardswish_backward", lambda L, a: L.F.hardswish(a * 4)),
               ("log_sigmoid_backward", lambda L, a: L.F.logsigmoid(a)),
               ("_log_softmax_backward_data", lambda L, a: L.F.log_softmax(a, 0))):
    spec(_n, shapes=lambda draw: [draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))] * 2,
         domains=(NZ, ANY))(_double_backward(_f))
spec("hardsigmoid_backward", shapes=lambda draw: [draw(hnp.array_shapes(min_dims=1, max_dims=3, max_side=4))] * 2,
     domains=(NZ, ANY), nondiff=True, gradcheck=False, gradgrad=False)(
    lambda L, a, go: _double_backward(lambda L, a: L.F.hardsigmoid(a))(L, a, go).detach())
for _n, _shape, _out, _pad, _mode in (
        ("reflection_pad1d_backward", (2, 3, 4), (2, 3, 6), (3, -1), "reflect"),
        ("reflection_pad2d_backward", (2, 3, 4), (2, 5, 7), (1, 2, 2, 0), "reflect"),
        ("reflection_pad3d_backward", (1, 2, 3, 4), (1, 4, 5, 7), (1, 2, 2, 0, 1, 1), "reflect"),
        ("replication_pad1d_backward", (2, 3, 4), (2, 3, 7), (5, -2), "replicate"),
        ("replication_pad2d_backward", (3, 2, 4), (3, 5, 8), (1, 3, 2, 1), "replicate"),
        ("replication_pad3d_backward", (2, 2, 3, 4), (2, 4, 4, 6), (1, 1, 0, 1, 1, 1), "replicate")):
    spec(_n, shapes=fixed_shapes(_shape, _out), domains=(ANY, ANY))(
        _double_backward(lambda L, a, _p=_pad, _m=_mode: L.F.pad(a * a, _p, mode=_m)))


spec("prelu_kernel", shapes=fixed_shapes((2, 3, 2), (3,)), domains=(NZ, ANY))(
    lambda L, a, w: (L.F.prelu(a, w), L.F.prelu(a, w[:1] * 1), L.t.prelu(a[0, 0], w[1:2] * 1)))
spec("masked_select", shapes=fixed_shapes((3, 4)), domains=(NZ,))(lambda L, a: a.masked_select(a > 0))
spec("masked_scatter", shapes=fixed_shapes((3, 4), (13,)), domains=(NZ, ANY))(
    lambda L, a, b: a.masked_scatter(a > 0, b))
spec("take_flat", shapes=fixed_shapes((3, 4)))(lambda L, a: L.t.take(a, L.tensor(np.array([[0, 11], [-1, 0]]), False)))
spec("diagonal", shapes=fixed_shapes((3, 4, 2)))(lambda L, a: (a.diagonal(1, 0, 1), L.t.diagonal(a, -1, 2, 0)))
_EINSUM = [("ii->i", (3, 3)), ("ij,jk->ik", (2, 3), (3, 4)), ("bij,bjk->bik", (2, 2, 3), (2, 3, 2)),
           ("i,j->ij", (2,), (3,)), ("...ij,...jk", (2, 2, 3), (3, 2)), ("ij,jk,kl->il", (2, 3), (3, 2), (2, 2)),
           ("iij->j", (2, 2, 3)), ("bhqd,bhkd->bhqk", (1, 2, 3, 2), (1, 2, 2, 2))]


def _einsum_spec(eq):
    return lambda L, *xs: L.t.einsum(eq, *xs)


spec("sort", shapes=at_least(1))(lambda L, a: (_spread(L, a).sort(-1)[0], _spread(L, a).sort(0, descending=True).values))
# tied values: test_tie_indices_against_torch
spec("topk", shapes=fixed_shapes((3, 5)))(
    lambda L, a: (_spread(L, a).topk(2)[0], _spread(L, a).topk(2, 0, largest=False).values))
spec("kthvalue", shapes=fixed_shapes((3, 5)))(
    lambda L, a: (_spread(L, a).kthvalue(2)[0], _spread(L, a).kthvalue(3, 0, keepdim=True).values))
spec("median", shapes=unary())(lambda L, a: a.median())
spec("median_dim", shapes=fixed_shapes((3, 4)))(lambda L, a: _spread(L, a).median(-1)[0])
spec("nanmedian", shapes=unary())(lambda L, a: a.nanmedian())
spec("nanmedian_dim", shapes=fixed_shapes((3, 4)))(lambda L, a: _spread(L, a).nanmedian(0, keepdim=True)[0])
spec("mode", shapes=fixed_shapes((3, 5)))(lambda L, a: (a.round().mode()[0], L.t.mode(_spread(L, a), 0).values))
spec("aminmax", shapes=fixed_shapes((3, 4)), gradgrad=False)(
    lambda L, a: (L.t.aminmax(_spread(L, a)).min, _spread(L, a).aminmax(dim=1)[1],
                  (a + 0.123).round().aminmax(dim=0, keepdim=True).max))  # ties; round's kinks off the special draws
spec("cummax", shapes=at_least(1), gradgrad=False)(lambda L, a: a.cummax(-1)[0])
spec("cummin", shapes=at_least(1), gradgrad=False)(lambda L, a: L.t.cummin(_spread(L, a), 0).values)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_tie_indices_against_torch(data):
    """topk / kthvalue / median / mode on inputs full of ties (and some NaN): torch's CPU
    kernels are not stable, the indices they pick among ties must be the same."""
    n = data.draw(st.sampled_from([1, 2, 3, 5, 8, 16, 17, 31, 64, 65, 130]))
    rows = data.draw(st.integers(1, 3))
    high = data.draw(st.sampled_from([1, 2, 4, 40]))
    arr = np.array(data.draw(st.lists(st.integers(0, high), min_size=rows * n, max_size=rows * n)),
                   dtype=np.float32).reshape(rows, n)
    if data.draw(st.booleans()) and n > 1:
        arr[0, data.draw(st.integers(0, n - 1))] = np.nan
    k = data.draw(st.integers(1, n))
    t, o = TORCH.tensor(arr, False), OURS.tensor(arr, False)
    ti, oi = TORCH.tensor(np.nan_to_num(arr, nan=3).astype(np.int64), False), \
        OURS.tensor(np.nan_to_num(arr, nan=3).astype(np.int64), False)
    pairs = [(t.topk(k, largest=lg, sorted=sr), o.topk(k, largest=lg, sorted=sr))
             for lg in (True, False) for sr in (True, False)]
    pairs += [(t.kthvalue(k), o.kthvalue(k)), (t.median(1), o.median(1)), (ti.mode(1), oi.mode(1)),
              (ti.t().mode(0), oi.t().mode(0))]
    for tr, ours in pairs:
        for a, b in zip(_as_tuple(tr), _as_tuple(ours)):
            np.testing.assert_array_equal(_np(b), _np(a))


def test_sorting_predicates_against_torch():
    """Index outputs and the no-gradient predicates on ties, NaN and integer inputs."""
    x = np.array([[3.0, np.nan, 1.0, 3.0], [2.0, 2.0, -np.inf, np.inf]], dtype=np.float32)
    i = np.array([[0, 3, 0], [5, 0, 1]])
    for arr in (x, i):
        t, o = TORCH.tensor(arr, False), OURS.tensor(arr, False)
        pairs = [(t.sort(1), o.sort(1)), (t.sort(1, descending=True), o.sort(1, descending=True)),
                 (t.argsort(0), o.argsort(0)), (t.any(1), o.any(1)),
                 (t.all(), o.all()), (t.any(0, keepdim=True), o.any(0, keepdim=True)), (t.nonzero(), o.nonzero()),
                 (t.cummax(1), o.cummax(1))]
        for tr, ours in pairs:
            for a, b in zip(_as_tuple(tr), _as_tuple(ours)):
                assert str(a.dtype).replace("torch.", "") == b.dtype.name
                np.testing.assert_array_equal(_np(b), _np(a))


for _n, _d in [("asin", UNIT), ("acos", UNIT), ("atan", ANY), ("asinh", ANY), ("atanh", UNIT), ("sinh", ANY),
               ("cosh", ANY), ("logit", UNIT)]:
    spec(_n, shapes=unary(), domains=(_d,))((lambda n: lambda L, a: getattr(L.t, n)(a))(_n))
spec("acosh", shapes=unary(), domains=(POS,))(lambda L, a: L.t.acosh(a + 1.2))
spec("atan2", shapes=binary(), domains=(NZ, NZ))(lambda L, a, b: L.t.atan2(a, b))
spec("hypot", shapes=binary(), domains=(NZ, NZ))(lambda L, a, b: L.t.hypot(a, b))
spec("xlogy", shapes=binary(), domains=(ANY, POS))(lambda L, a, b: L.t.xlogy(a, b))
spec("lerp", shapes=binary(), domains=(ANY, ANY))(lambda L, a, b: (L.t.lerp(a, b, 0.3), L.t.lerp(a, b, 0.8)))
spec("lerp_tensor", shapes=fixed_shapes((3, 4), (4,), (3, 1)), domains=(ANY, ANY, UNIT))(
    lambda L, a, b, w: L.t.lerp(a, b, w))
spec("addcmul", shapes=fixed_shapes((4,), (3, 4), (3, 1)), domains=(ANY, ANY, ANY))(
    lambda L, a, b, c: L.t.addcmul(a, b, c, value=0.5))
spec("addcdiv", shapes=fixed_shapes((3, 4), (3, 4), (4,)), domains=(ANY, ANY, POS))(
    lambda L, a, b, c: a.addcdiv(b, c, value=2))
spec("tril", shapes=at_least(2))(lambda L, a: a.tril())
spec("triu", shapes=at_least(2))(lambda L, a: L.t.triu(a, 1))
spec("trace", shapes=fixed_shapes((3, 4)))(lambda L, a: a.trace())
spec("roll", shapes=fixed_shapes((3, 4)))(lambda L, a: (a.roll(1), a.roll((1, -2), (0, 1))))


spec("baddbmm", shapes=fixed_shapes((3, 1), (2, 3, 4), (2, 4, 2)), domains=(ANY, ANY, ANY))(
    lambda L, a, b, c: L.t.baddbmm(a, b, c, beta=0.5, alpha=2))
spec("linalg_cross", shapes=fixed_shapes((2, 3), (1, 3)), domains=(ANY, ANY))(
    lambda L, a, b: (L.t.linalg.cross(a, b), L.t.cross(a.t(), b.t().expand(3, 2), dim=0)))
spec("diag_embed", shapes=at_least(1))(lambda L, a: (a.diag_embed(), L.t.diag_embed(a, 1, 0, -1)))
spec("diag_copy", shapes=fixed_shapes((3, 4)))(lambda L, a: (a.diag(), L.t.diag(a, -1), a[0].diag(1)))
spec("cdist", shapes=fixed_shapes((2, 3, 4), (2, 5, 4)), domains=(ANY, ANY))(
    lambda L, a, b: (L.t.cdist(a, b + 5), L.t.cdist(a, b + 5, p=1.5)))
spec("logcumsumexp", shapes=at_least(1))(lambda L, a: a.logcumsumexp(-1))
spec("nan_to_num", shapes=unary(), domains=(NZ,))(lambda L, a: (a.log().nan_to_num(0.5), (a * 1e300 * 1e10).nan_to_num(posinf=7.0, neginf=-7.0)))
spec("sgn", shapes=unary(), nondiff=True, gradcheck=False)(lambda L, a: a.sgn() + a)  # torch's grad is a ZeroTensor
spec("erfinv", shapes=unary(), domains=(UNIT,))(lambda L, a: (a * 2 - 1).erfinv())


def test_compositions_against_torch():
    """Ops torch writes as compositions (their node chains come from the ops they use)."""
    comps = [("meshgrid", lambda L, a, b: L.t.meshgrid(a, b, indexing="ij") + L.t.meshgrid(a, b, indexing="xy"),
              [(3,), (4,)]),
             ("diff", lambda L, a: (a.diff(), L.t.diff(a, n=2, dim=0)), [(4, 3)]),
             ("diff prepend", lambda L, a, b: L.t.diff(a, dim=0, prepend=b), [(4, 3), (1, 3)]),
             ("tensordot", lambda L, a, b: (L.t.tensordot(a, b, dims=1), L.t.tensordot(a, b, dims=([0], [1]))),
              [(3, 4), (4, 3)]),
             ("kron", lambda L, a, b: L.t.kron(a, b), [(2, 3), (2, 2)]),
             ("fliplr", lambda L, a: (a.fliplr(), L.t.flipud(a)), [(2, 3)]),
             ("allclose", lambda L, a: (a.isclose(a + 1e-9), L.t.isclose(a, a * 2)), [(3,)])]
    for name, call, shapes in comps:
        sp = Spec(call=call, shapes=fixed_shapes(*shapes), domains=(ANY,) * len(shapes))
        rng = np.random.default_rng(1)
        for dtype in ("float32", "float64"):
            arrs = [rng.uniform(-2, 2, s).astype(dtype) for s in shapes]
            _compare(sp, name, arrs, dtype)
    for L in (TORCH, OURS):
        a = L.tensor(np.array([1.0, 2.0], np.float32), False)
        assert L.t.allclose(a, a + 1e-7) and a.equal(a * 1) and not L.t.equal(a, a[:1])
        with pytest.raises(RuntimeError, match="Float did not match Long"):
            L.t.allclose(a, L.tensor(np.array([1, 2]), False))


def test_einsum_against_torch():
    """einsum has no op of its own (it is torch's decomposition): its equations go through
    the harness here, each with its node chain, grads and gradcheck."""
    for eq, *shapes in _EINSUM:
        sp = Spec(call=_einsum_spec(eq), shapes=fixed_shapes(*shapes), domains=(ANY,) * len(shapes))
        rng = np.random.default_rng(0)
        for dtype in ("float32", "float64"):
            arrs = [rng.uniform(-2, 2, s).astype(dtype) for s in shapes]
            _compare(sp, "einsum " + eq, arrs, dtype)
        _gradcheck(sp, "einsum " + eq, [a.astype("float64") for a in arrs])


def test_scatter_reduce_arg_has_no_derivative():
    """scatter(..., reduce=) records torch's NotImplemented node; backward raises its error."""
    import warnings
    for L in (TORCH, OURS):
        a = L.tensor(np.ones((2, 3), dtype=np.float32), True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # torch's deprecation of reduce= (autotrace records it as torch does)
            r = a.scatter(1, L.tensor(np.array([[0, 0], [1, 1]]), False),
                          L.tensor(np.ones((2, 2), np.float32), False), reduce="add")
        assert r.grad_fn.name() == "torch::autograd::NotImplemented"
        with pytest.raises(RuntimeError, match="derivative for aten::scatter is not implemented"):
            r.sum().backward()


def _bits_equal(ours, theirs):
    """Same dtype, shape and bits (so the sign of a zero counts), any nan matching any nan."""
    a, b = np.asarray(ours), np.asarray(theirs)
    assert a.dtype == b.dtype and a.shape == b.shape, (a.dtype, b.dtype, a.shape, b.shape)
    ib = np.int32 if a.dtype == np.float32 else np.int64
    nan = np.isnan(a)
    assert np.array_equal(nan, np.isnan(b)), (a, b)
    assert np.array_equal(np.where(nan, 0, a).view(ib), np.where(nan, 0, b).view(ib)), (a, b)


ATAN2_SPECIALS = [0.0, -0.0, 1.0, -2.5, np.inf, -np.inf, np.nan, 1e-30, -1e-25, 3e38, 1e-45, 1e-160, 1e200]


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_atan2_backward_at_specials_bit_for_bit(data):
    """torch 2.13's atan2_backward, to the bit and the sign of zero: ``recip = (y² +
    x²).reciprocal()`` filled with 0 where y² + x² is 0 (y = x = 0, or squares that
    underflow; a subnormal sum keeps its infinite reciprocal), then ``g * x * recip`` and
    ``g * -y * recip``; so atan2(0, 0) gives 0 and -0 rather than nan. Inputs mix zeros of both signs, infinities, nan, tiny and huge values
    with any floats, broadcast; the double-backward graph is torch's too (0-dim inputs'
    gradients summed by SumBackward0, as torch's ``sum_to``)."""
    dtype = data.draw(st.sampled_from(["float32", "float64"]))
    width = 32 if dtype == "float32" else 64
    shapes = data.draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, max_side=3))
    elems = st.one_of(st.sampled_from(ATAN2_SPECIALS), st.floats(width=width))
    ys, xs = (data.draw(hnp.arrays(dtype, s, elements=elems.map(lambda v: np.array(v).astype(dtype))))
              for s in shapes.input_shapes)
    up = data.draw(hnp.arrays(dtype, shapes.result_shape,
                              elements=st.one_of(st.sampled_from([0.0, -0.0, 1.0]), st.floats(-3, 3, width=width))))
    results = {}
    for L in (TORCH, OURS):
        y, x, g = L.tensor(ys, True), L.tensor(xs, True), L.tensor(up, False)
        with np.errstate(all="ignore"):
            out = L.t.atan2(y, x)
            grad = L.t.autograd.grad if L is TORCH else engine.grad
            gy, gx = grad(out, (y, x), g, create_graph=True)
            results[L.name] = out, gy, gx, _chain(gy.grad_fn, 4), _chain(gx.grad_fn, 4)
    (tout, tgy, tgx, tcy, tcx), (oout, ogy, ogx, ocy, ocx) = results["torch"], results["autotrace"]
    # the forward value is numpy's arctan2 (ATen's SLEEF atan2 can differ in the last place)
    np.testing.assert_allclose(_np(oout), _np(tout), rtol=1e-6, atol=0)
    _bits_equal(_np(ogy), _np(tgy))
    _bits_equal(_np(ogx), _np(tgx))
    assert (ocy, ocx) == (tcy, tcx)


def test_atan2_backward_at_the_origin():
    """The case a learner meets: atan2(0, 0).backward() gives y.grad = 0, x.grad = -0."""
    for L in (TORCH, OURS):
        y, x = L.tensor(np.float32(0.0), True), L.tensor(np.float32(0.0), True)
        L.t.atan2(y, x).backward()
        assert (float(y.grad), np.signbit(_np(y.grad))) == (0.0, False), L.name
        assert (float(x.grad), np.signbit(_np(x.grad))) == (0.0, True), L.name


# -- machinery -------------------------------------------------------------------------------------


def test_every_op_has_a_spec():
    at_ops.load()
    missing = sorted(set(at_ops.OPS) - set(S))
    assert not missing, f"ops without a test spec in tests/test_ops_table.py: {missing}"
    for name, o in at_ops.OPS.items():
        assert o.node and set(o.vjp) == set(o.inputs), name


def _values(draw, shapes, domains, dtype):
    arrs = []
    for shape, dom in zip(shapes, domains):
        n = int(np.prod(shape, dtype=np.int64))
        lo, hi = {ANY: (-2, 2), POS: (0.5, 3), UNIT: (0.125, 0.875), NZ: (-2, 2)}[dom]
        vals = draw(st.lists(st.floats(float(np.float32(lo)), float(np.float32(hi)), allow_nan=False, width=32),
                             min_size=n, max_size=n))
        a = np.array(vals, dtype=dtype).reshape(shape)
        if dom == NZ:  # keep away from kinks at 0 and ±bounds used in specs
            a = np.where(np.abs(a) < 0.2, a + np.sign(a + 1e-9) * 0.3, a).astype(dtype)
            for k in (0.15, 0.3, 0.5, 0.7, 0.9):
                a = np.where(np.abs(np.abs(a) - k) < 0.03, a + 0.06, a).astype(dtype)
        arrs.append(a)
    return arrs


def _as_tuple(r):
    return tuple(r) if isinstance(r, (tuple, list)) else (r,)


def _chain(fn, depth=3):
    if fn is None:
        return None
    if depth == 0:
        return fn.name()
    return (fn.name(), tuple(_chain(n, depth - 1) for n, _ in fn.next_functions))


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") and not isinstance(t, Tensor) else t._data


def _run(lib, sp, arrs, upstream_seed):
    req = sp.grads or tuple(True for _ in arrs)
    xs = [lib.tensor(a, r) for a, r in zip(arrs, req)]
    with np.errstate(all="ignore"):
        outs = _as_tuple(sp.call(lib, *xs))
    rng = np.random.default_rng(upstream_seed)
    ups = [rng.standard_normal(np.shape(_np(o))).astype(_np(o).dtype) for o in outs]
    diff_outs = [(o, lib.tensor(u, False)) for o, u in zip(outs, ups) if o.requires_grad]
    grads = [None] * len(xs)
    wrt = [x for x, r in zip(xs, req) if r]
    if diff_outs and wrt:
        gr = lib.t.autograd.grad([o for o, _ in diff_outs], wrt, [u for _, u in diff_outs], allow_unused=True) \
            if lib.name == "torch" else \
            engine.grad([o for o, _ in diff_outs], wrt, [u for _, u in diff_outs], allow_unused=True)
        it = iter(gr)
        grads = [next(it) if r else None for r in req]
    return xs, outs, grads


def _compare(sp, name, arrs, dtype):
    with np.errstate(all="ignore"):
        txs, touts, tgrads = _run(TORCH, sp, arrs, 0)
        oxs, oouts, ograds = _run(OURS, sp, arrs, 0)
    rtol = 1e-4 if dtype == "float32" else 1e-9
    atol = sp.atol if dtype == "float32" else 1e-9
    assert len(touts) == len(oouts)
    for t, o in zip(touts, oouts):
        assert str(t.dtype).replace("torch.", "") == o.dtype.name, name
        np.testing.assert_allclose(_np(o), _np(t), rtol=rtol, atol=atol, err_msg=f"{name} forward")
        assert _chain(o.grad_fn) == _chain(t.grad_fn), f"{name} graph"
    for tg, og in zip(tgrads, ograds):
        if tg is None:
            assert og is None or not np.any(_np(og)), f"{name}: grad should be None"
            continue
        assert og is not None, f"{name}: missing grad"
        np.testing.assert_allclose(_np(og), _np(tg), rtol=rtol * 10, atol=atol * 10, err_msg=f"{name} grad")


def _gradcheck(sp, name, arrs):
    """float64 central differences of <upstream, f(x)> against our backward."""
    req = sp.grads or tuple(True for _ in arrs)
    _, outs, grads = _run(OURS, sp, arrs, 1)
    rng = np.random.default_rng(1)
    ups = [rng.standard_normal(o._data.shape) for o in outs]

    def f(vals):
        xs = [Tensor._make(v.copy()) for v in vals]
        with np.errstate(all="ignore"):
            os_ = _as_tuple(sp.call(OURS, *xs))
        return sum(float(np.sum(o._data * u)) for o, u in zip(os_, ups) if o.dtype.name == "float64")

    eps = 1e-6
    for i, (a, r) in enumerate(zip(arrs, req)):
        if not r:
            continue
        num = np.zeros(a.shape)
        for idx in np.ndindex(a.shape):
            p = [v.copy() for v in arrs]
            p[i][idx] += eps
            m = [v.copy() for v in arrs]
            m[i][idx] -= eps
            num[idx] = (f(p) - f(m)) / (2 * eps)
        g = grads[i]._data if grads[i] is not None else np.zeros(a.shape)
        np.testing.assert_allclose(g, num, rtol=1e-5, atol=1e-6, err_msg=f"{name} gradcheck input {i}")


def _gradgradcheck(sp, name, arrs):
    """Our double backward (create_graph) against central differences of our first
    derivative: d/dx <v, grad(<u, f(x)>, x)>."""
    req = sp.grads or tuple(True for _ in arrs)
    rng = np.random.default_rng(2)

    def first(vals, create):
        xs = [Tensor._make(v.copy()) for v in vals]
        for x, r in zip(xs, req):
            if r:
                x.requires_grad_(True)
        with np.errstate(all="ignore"):
            os_ = [o for o in _as_tuple(sp.call(OURS, *xs)) if o.requires_grad]
        us = [Tensor._make(np.random.default_rng(3).standard_normal(o._data.shape)) for o in os_]
        wrt = [x for x, r in zip(xs, req) if r]
        gs = engine.grad(os_, wrt, us, create_graph=create, allow_unused=True)
        return wrt, gs

    wrt, gs = first(arrs, True)
    vs = [rng.standard_normal(x._data.shape) for x in wrt]
    terms = [(g * Tensor._make(v)).sum() for g, v in zip(gs, vs) if g is not None and g.requires_grad]
    if not terms:
        return
    total = terms[0]
    for t in terms[1:]:
        total = total + t
    gg = engine.grad(total, wrt, allow_unused=True)

    def scalar(vals):
        _, g1 = first(vals, False)
        return sum(float(np.sum(g._data * v)) for g, v in zip(g1, vs) if g is not None)

    eps = 1e-6
    k = 0
    for i, (a, r) in enumerate(zip(arrs, req)):
        if not r:
            continue
        num = np.zeros(a.shape)
        for idx in np.ndindex(a.shape):
            p = [v.copy() for v in arrs]
            p[i][idx] += eps
            m = [v.copy() for v in arrs]
            m[i][idx] -= eps
            num[idx] = (scalar(p) - scalar(m)) / (2 * eps)
        got = gg[k]._data if gg[k] is not None else np.zeros(a.shape)
        np.testing.assert_allclose(got, num, rtol=1e-4, atol=1e-5, err_msg=f"{name} gradgradcheck input {i}")
        k += 1


SETTINGS = settings(max_examples=EXAMPLES, deadline=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("name", sorted(S))
def test_op_against_torch(name):
    sp = S[name]

    @SETTINGS
    @given(st.data())
    def check(data):
        shapes = sp.shapes(data.draw) if sp.shapes else [()]
        domains = sp.domains if len(sp.domains) == len(shapes) else (sp.domains[0],) * len(shapes)
        dtype = data.draw(st.sampled_from(sp.dtypes))
        arrs = _values(data.draw, shapes, domains, dtype)
        _compare(sp, name, arrs, dtype)

    check()


@pytest.mark.parametrize("name", sorted(n for n, s in S.items() if s.gradcheck and not s.nondiff))
def test_gradcheck(name):
    sp = S[name]

    @settings(max_examples=max(1, EXAMPLES // 3), deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(st.data())
    def check(data):
        shapes = sp.shapes(data.draw) if sp.shapes else [()]
        domains = sp.domains if len(sp.domains) == len(shapes) else (sp.domains[0],) * len(shapes)
        arrs = _values(data.draw, shapes, domains, "float64")
        _gradcheck(sp, name, arrs)
        if sp.gradgrad:
            _gradgradcheck(sp, name, arrs)

    check()
