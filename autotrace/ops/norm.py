"""Normalisation and embedding (``torch.nn.functional``): batch_norm, layer_norm,
group_norm and embedding, with torch 2.13's node names (NativeBatchNormBackward0,
NativeLayerNormBackward0, NativeGroupNormBackward0, EmbeddingBackward0).

The backward formulas recompute the statistics from the saved input with Tensor ops,
so double backward (``create_graph=True``) differentiates through them.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes, grad_mode
from ..tensor import Tensor
from . import export, make, op


def _normalize_backward(x, g, dims, eps):
    """d/dx of ``(x − mean) / sqrt(var + eps)`` (biased var over ``dims``) against the
    upstream ``g``: ``invstd · (g − mean(g) − x̂ · mean(g · x̂))``."""
    mean = x.mean(dims, keepdim=True)
    xc = x - mean
    var = (xc * xc).mean(dims, keepdim=True)
    invstd = (var + eps).rsqrt()
    xhat = xc * invstd
    return invstd * (g - g.mean(dims, keepdim=True) - xhat * (g * xhat).mean(dims, keepdim=True)), xhat


def _stats_np(x, axes):
    mean = x.mean(axis=axes, keepdims=True, dtype=np.float64)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return mean, var


# -- batch norm -------------------------------------------------------------------------------


@op("batch_norm", "NativeBatchNormBackward0", ("input", "weight", "bias"),
    vjp={"input": "training: invstd·w·(grad − mean(grad) − x̂·mean(grad·x̂)) over (N, spatial); eval: grad·w·invstd",
         "weight": "(grad · x̂) summed over (N, spatial)",
         "bias": "grad summed over (N, spatial)"},
    local={"input": "w/σ (1 − 1/n − x̂ᵢx̂ⱼ/n) when training; w/σ_running in eval",
           "weight": "x̂", "bias": "1"})
def BATCH_NORM(ctx, g):
    x, w = ctx.input, ctx.weight
    dims = ctx.dims
    shape = ctx.bshape
    gx = gw = gb = None
    if ctx.training:
        gxhat = g * w.reshape(*shape) if w is not None else g
        if ctx.needs(0):
            gx, xhat = _normalize_backward(x, gxhat, dims, ctx.eps)
        else:
            mean = x.mean(dims, keepdim=True)
            xc = x - mean
            xhat = xc * ((xc * xc).mean(dims, keepdim=True) + ctx.eps).rsqrt()
    else:
        invstd = Tensor._make(ctx.invstd.reshape(shape))
        mean = Tensor._make(ctx.mean.reshape(shape))
        xhat = (x - mean) * invstd
        if ctx.needs(0):
            gx = g * (w.reshape(*shape) * invstd if w is not None else invstd)
    if ctx.needs(1):
        gw = (g * xhat).sum(dims)
    if ctx.needs(2):
        gb = g.sum(dims)
    return gx, gw, gb


@export(torch=("batch_norm",), functional=("batch_norm",))
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-05, cudnn_enabled=None):
    """Batch normalisation over dim 1 (NativeBatchNormBackward0; inputs input, weight,
    bias). Training normalises with the biased batch variance and updates the running
    stats in place: ``running = (1 − momentum)·running + momentum·batch`` with the
    *unbiased* batch variance (torch 2.13; the kernel writes them directly, so their
    ``_version`` does not move); eval uses the running stats. Errors as torch:
    a single value per channel in training is a ValueError."""
    if input.ndim < 2:  # torch 2.13 reads size(1) of a 1-d input as 0
        raise RuntimeError(f"running_mean should contain 0 elements not "
                           f"{running_mean.numel() if running_mean is not None else 0}")
    x = input._data
    c = x.shape[1]
    if training:
        size = x.size // c
        if size == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                             f"torch.Size({list(x.shape)})")
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    axes = (0,) + tuple(range(2, x.ndim))
    bshape = (1, c) + (1,) * (x.ndim - 2)
    dt = x.dtype
    if training:
        mean, var = _stats_np(x, axes)
        n = x.size // c
        if running_mean is not None:
            m = float(momentum)
            rm = running_mean._data
            rm[...] = ((1 - m) * rm + m * mean.reshape(-1)).astype(rm.dtype)
        if running_var is not None:
            m = float(momentum)
            rv = running_var._data
            unbiased = var.reshape(-1) * (n / (n - 1))
            rv[...] = ((1 - m) * rv + m * unbiased).astype(rv.dtype)
    else:
        mean = running_mean._data.astype(np.float64).reshape(bshape)
        var = running_var._data.astype(np.float64).reshape(bshape)
    invstd = 1.0 / np.sqrt(var + eps)
    if dt == np.float32:
        out = _bn_transform_f32(x, mean, invstd, running_var if not training else None, eps, weight, bias, bshape)
    else:
        out = (x - mean) * invstd
        if weight is not None:
            out = out * weight._data.reshape(bshape)
        if bias is not None:
            out = out + bias._data.reshape(bshape)
        out = np.asarray(out, dtype=dt)
    return make(BATCH_NORM, out, (input, weight, bias), save={"input": input, "weight": weight},
                attrs={"dims": axes, "bshape": bshape, "training": bool(training), "eps": eps,
                       "mean": mean.astype(dt).reshape(-1), "invstd": invstd.astype(dt).reshape(-1)})


def _bn_transform_f32(x, mean, invstd, running_var, eps, weight, bias, bshape):
    """torch's CPU transform for float32: per channel ``alpha = invstd·weight`` and
    ``beta = bias − mean·alpha`` in float32 (eval: ``invstd = 1/sqrt(running_var + eps)``
    in float32), then ``x·alpha + beta`` fused (ATen's vectorised fmadd)."""
    from .kernels import fma32
    f32 = np.float32
    m = np.asarray(mean, dtype=f32).reshape(-1)
    if running_var is not None:
        inv = (f32(1) / np.sqrt(running_var._data.astype(f32) + f32(eps))).astype(f32)
    else:
        inv = np.asarray(invstd, dtype=f32).reshape(-1)
    w = weight._data if weight is not None else np.ones_like(inv)
    b = bias._data if bias is not None else np.zeros_like(inv)
    alpha = (inv * w).astype(f32)
    beta = fma32(-m, alpha, b)
    return np.asarray(fma32(x, alpha.reshape(bshape), beta.reshape(bshape)), dtype=f32)


# -- layer norm -------------------------------------------------------------------------------


@op("layer_norm", "NativeLayerNormBackward0", ("input", "weight", "bias"),
    vjp={"input": "invstd·(ĝ − mean(ĝ) − x̂·mean(ĝ·x̂)) over the normalized dims, ĝ = grad·weight",
         "weight": "(grad · x̂) summed over the leading dims", "bias": "grad summed over the leading dims"},
    local={"input": "w/σ (1 − 1/n − x̂ᵢx̂ⱼ/n)", "weight": "x̂", "bias": "1"})
def LAYER_NORM(ctx, g):
    x, w = ctx.input, ctx.weight
    dims = ctx.dims
    lead = tuple(range(x.ndim - len(dims)))
    n = 1
    for d in dims:
        n *= x.shape[d]
    # torch 2.13's CPU formula: dx = rstd·ĝ + c1·x + c2, with
    # c1 = (Σĝ·mean − Σĝx)·rstd³/N and c2 = −(c1·mean + Σĝ·rstd/N)
    if not grad_mode.enabled:  # first order: torch's arithmetic on the saved statistics
        return _layer_norm_backward_np(ctx, g, n, lead)
    mean = x.mean(dims, keepdim=True)
    xc = x - mean
    rstd = ((xc * xc).mean(dims, keepdim=True) + ctx.eps).rsqrt()
    gw_ = g * w if w is not None else g
    gx = gw = gb = None
    if ctx.needs(0):
        ds = (gw_ * x).sum(dims, keepdim=True)
        db = gw_.sum(dims, keepdim=True)
        c1 = (db * mean - ds) * rstd * rstd * rstd / n
        c2 = -(c1 * mean + db * rstd / n)
        gx = rstd * gw_ + c1 * x + c2
    if ctx.needs(1):
        gy = g * (xc * rstd)
        gw = gy.sum(lead) if lead else gy
    if ctx.needs(2):
        gb = g.sum(lead) if lead else g
    return gx, gw, gb


def _layer_norm_backward_np(ctx, g, n, lead):
    x, w = ctx.input._data, ctx.weight
    dims = ctx.dims
    dt = x.dtype
    mean, rstd = ctx.mean, ctx.rstd
    dy = g._data
    gw_ = dy * w._data if w is not None else dy
    gx = gw = gb = None
    if ctx.needs(0):
        ds = np.sum(gw_ * x, axis=dims, keepdims=True, dtype=dt)
        db = np.sum(gw_, axis=dims, keepdims=True, dtype=dt)
        scale = dt.type(1.0 / n)
        b = (db * mean - ds) * rstd * rstd * rstd * scale
        c = -b * mean - db * rstd * scale
        gx = Tensor._make((rstd * gw_ + b * x + c).astype(dt))
    if ctx.needs(1):
        gy = dy * ((x - mean) * rstd)
        gw = Tensor._make(np.asarray(np.sum(gy, axis=lead, dtype=dt) if lead else gy, dtype=dt))
    if ctx.needs(2):
        gb = Tensor._make(np.asarray(np.sum(dy, axis=lead, dtype=dt) if lead else dy, dtype=dt))
    return gx, gw, gb


@export(torch=("layer_norm",), functional=("layer_norm",))
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    """Normalise over the last ``len(normalized_shape)`` dims with the biased variance
    (NativeLayerNormBackward0; inputs input, weight, bias). torch 2.13's shape error."""
    ns = (int(normalized_shape),) if isinstance(normalized_shape, int) else tuple(int(v) for v in normalized_shape)
    x = input._data
    k = len(ns)
    if x.ndim < k or tuple(x.shape[x.ndim - k:]) != ns:
        raise RuntimeError(f"Given normalized_shape={list(ns)}, expected input with shape "
                           f"[*, {', '.join(map(str, ns))}], but got input of size{list(x.shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != ns:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(t.shape)} and normalized_shape = {list(ns)}")
    axes = tuple(range(x.ndim - k, x.ndim))
    mean, var = _stats_np(x, axes)
    rstd = 1.0 / np.sqrt(var + eps)
    out = (x - mean) * rstd
    if weight is not None:
        out = out * weight._data
    if bias is not None:
        out = out + bias._data
    return make(LAYER_NORM, np.asarray(out, dtype=x.dtype), (input, weight, bias),
                save={"input": input, "weight": weight},
                attrs={"dims": tuple(range(-k, 0)), "eps": eps, "normalized_shape": ns,
                       "mean": mean.astype(x.dtype), "rstd": rstd.astype(x.dtype)})


# -- group norm -------------------------------------------------------------------------------


@op("group_norm", "NativeGroupNormBackward0", ("input", "weight", "bias"),
    vjp={"input": "layer-norm backward within each group of channels, ĝ = grad·weight[c]",
         "weight": "(grad · x̂) summed over N and spatial dims", "bias": "grad summed over N and spatial dims"},
    local={"input": "w/σ_group (1 − 1/n − x̂ᵢx̂ⱼ/n)", "weight": "x̂", "bias": "1"})
def GROUP_NORM(ctx, g):
    x, w = ctx.input, ctx.weight
    n, c = x.shape[0], x.shape[1]
    G = ctx.groups
    bshape = (1, c) + (1,) * (x.ndim - 2)
    gxhat = g * w.reshape(*bshape) if w is not None else g
    xg = x.reshape(n, G, -1)
    gx, xhat = _normalize_backward(xg, gxhat.reshape(n, G, -1), (2,), ctx.eps)
    xhat = xhat.reshape(*x.shape)
    dims = (0,) + tuple(range(2, x.ndim))
    gw = (g * xhat).sum(dims) if ctx.needs(1) else None
    gb = g.sum(dims) if ctx.needs(2) else None
    return (gx.reshape(*x.shape) if ctx.needs(0) else None), gw, gb


@export(torch=("group_norm",), functional=("group_norm",))
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    """Normalise each group of ``C / num_groups`` channels over its channels and spatial
    dims (NativeGroupNormBackward0), then a per-channel affine."""
    x = input._data
    if x.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {x.ndim}")
    n, c = x.shape[0], x.shape[1]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input "
                           f"of shape {list(x.shape)} and num_groups={num_groups}")
    xg = x.reshape(n, num_groups, -1)
    mean, var = _stats_np(xg, (2,))
    out = ((xg - mean) / np.sqrt(var + eps)).reshape(x.shape)
    bshape = (1, c) + (1,) * (x.ndim - 2)
    if weight is not None:
        out = out * weight._data.reshape(bshape)
    if bias is not None:
        out = out + bias._data.reshape(bshape)
    return make(GROUP_NORM, np.asarray(out, dtype=x.dtype), (input, weight, bias),
                save={"input": input, "weight": weight}, attrs={"groups": int(num_groups), "eps": eps})


# -- embedding --------------------------------------------------------------------------------


@op("embedding", "EmbeddingBackward0", ("weight",),
    vjp={"weight": "zeros(num_weights, dim).index_add(0, indices, grad) (rows of padding_idx stay 0)"},
    local={"weight": "1 for each row looked up (repeats add up)"})
def EMBEDDING(ctx, g):
    from .indexing import embed
    if ctx.pad_mask is not None:
        g = g * Tensor._make(ctx.pad_mask.astype(g._data.dtype))
    return (embed(g, ctx.weight_shape, (ctx.indices,), accumulate=True),)


@export(functional=("embedding",))
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    """Rows of ``weight`` picked by the int64 indices ``input`` (EmbeddingBackward0);
    the gradient adds up over repeated indices and is 0 for the ``padding_idx`` row.
    ``max_norm`` renormalises the looked-up rows in place first, as torch 2.13 does."""
    if input._dtype not in (dtypes.int64,) and input._dtype.name not in ("int32",):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got torch.{_cpu_type(input._dtype)} instead (while checking arguments "
                           "for embedding)")
    num = weight.shape[0]
    if padding_idx is not None:
        if padding_idx > 0:
            if padding_idx >= num:
                raise AssertionError("Padding_idx must be within num_embeddings")
        elif padding_idx < 0:
            if padding_idx < -num:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = num + padding_idx
    idx = input._data.astype(np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= num):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        rows = np.unique(idx)
        wd = weight._data
        norms = np.linalg.norm(wd[rows].astype(np.float64), ord=norm_type, axis=1)
        scale = np.where(norms > max_norm, max_norm / (norms + 1e-7), 1.0)
        wd[rows] = (wd[rows] * scale[:, None]).astype(wd.dtype)
        weight._version_counter.value += 1
    out = weight._data[idx]
    pad_mask = None
    if padding_idx is not None and (idx == padding_idx).any():
        pad_mask = (idx != padding_idx)[..., None]
    return make(EMBEDDING, np.array(out), (weight,),
                attrs={"indices": idx, "weight_shape": weight._data.shape, "pad_mask": pad_mask,
                       "padding_idx": -1 if padding_idx is None else padding_idx})


def _cpu_type(d):
    return {"float32": "FloatTensor", "float64": "DoubleTensor", "bool": "BoolTensor",
            "int64": "LongTensor"}.get(d.name, d.name)
