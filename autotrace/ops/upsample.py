"""``F.interpolate`` (and the deprecated ``F.upsample*``) for modes ``nearest`` and
``nearest-exact`` (3-D and 4-D input), ``linear`` (3-D), ``bilinear`` (4-D) and ``area``
(4-D, which torch runs as ``adaptive_avg_pool2d``), as torch 2.13's CPU kernels compute them.

The argument handling is torch's Python ``interpolate`` step by step (the same
ValueErrors, TypeErrors and NotImplementedErrors). Source indices follow ATen's
``UpSample.h``: nearest uses a float32 scale (``1/scale_factor`` when a scale factor is
given, else ``in/out``), ``floor(dst·scale)`` (``floor((dst + 0.5)·scale)`` for
nearest-exact), clamped to ``in − 1``, with the shortcuts ``out == in`` and ``out == 2·in``;
linear and bilinear use the tensor's own precision (float32 or float64), the source
coordinate ``scale·dst`` with ``align_corners=True`` (scale ``(in − 1)/(out − 1)``) or
``max(scale·(dst + 0.5) − 0.5, 0)`` otherwise, and the two neighbours ``i0 = trunc(src)``,
``i1 = min(i0 + 1, in − 1)`` with weights ``1 − λ, λ``. float32 results have torch's bits:
the kernels' fused multiply-adds are replayed with :func:`.fma.fma32` (see :func:`_bilinear`).

Gradients add each output's grad back to its sources with the same weights
(UpsampleNearest1D/2D, UpsampleNearestExact1D/2D, UpsampleLinear1D, UpsampleBilinear2D
Backward0); they are built of recorded ops, so double backward works.
"""

from __future__ import annotations

import math

import numpy as np

from .. import diagnostics, dtypes
from ..resources import check_count, check_work
from ..tensor import Tensor
from . import cpu, export, make, op
from .fma import fma32
from .summation import NUM_THREADS

F32 = np.float32

_MODES = "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"


def _word(d) -> str:
    return {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
            "bool": "Bool", "float16": "Half"}.get(d.name, d.name)


# -- source indices and weights ------------------------------------------------------------------


def _scale_value(scale, in_size, out_size, ft):
    """ATen's compute_scales_value in precision ``ft``."""
    if scale is not None and scale > 0:
        return ft(1.0 / scale)
    return ft(in_size) / ft(out_size)


def _nearest_index(in_size, out_size, scale, exact):
    dst = np.arange(out_size, dtype=np.int64)
    if not exact and out_size == in_size:
        return dst
    if not exact and out_size == 2 * in_size:
        return dst >> 1
    f32 = np.float32
    s = _scale_value(scale, in_size, out_size, f32)
    with np.errstate(over="ignore", invalid="ignore"):
        src = np.floor((dst.astype(f32) + f32(0.5)) * s if exact else dst.astype(f32) * s)
    return np.minimum(src, in_size - 1).astype(np.int64)


def _linear_weights(in_size, out_size, scale, align_corners, ft):
    """(i0, i1, λ0, λ1) per output position, in precision ``ft``."""
    dst = np.arange(out_size, dtype=np.int64)
    if out_size == in_size:
        return dst, dst, np.ones(out_size, ft), np.zeros(out_size, ft)
    if align_corners:
        ratio = ft(in_size - 1) / ft(out_size - 1) if out_size > 1 else ft(0)
        src = ratio * dst.astype(ft)
    else:
        ratio = _scale_value(scale, in_size, out_size, ft)
        half = dst.astype(ft) + ft(0.5)
        # the compiled kernel fuses scale·(dst + 0.5) − 0.5 into one fma
        src = np.asarray(fma32(ratio, half, F32(-0.5)), F32) if ft is F32 else ratio * half - ft(0.5)
        src = np.where(src < 0, ft(0), src).astype(ft)
    i0 = src.astype(np.int64)
    i1 = i0 + (i0 < in_size - 1)
    l1 = np.minimum(np.maximum(src - i0.astype(ft), ft(0)), ft(1)).astype(ft)
    return i0, i1, (ft(1) - l1).astype(ft), l1


def _fma(a, b, c):
    """``a·b + c`` as the compiled kernel rounds it: one fused rounding in float32
    (float64 is computed unfused)."""
    if a.dtype == F32:
        return np.asarray(fma32(a, b, c), F32)
    return a * b + c


def _bilinear(x, h0, h1, hl0, hl1, w0, w1, wl0, wl1):
    """torch 2.13's two CPU bilinear kernels. When ``oh + ow <= 128`` ATen takes its
    channels-last kernel: four weights ``h·w`` per output pixel, whole vectors of channels
    (8 float32: ``UpSampleKernel.cpp`` registers no AVX512 build, so an AVX512 CPU runs the
    AVX2 one; also for 3 channels on one thread) as ``fma(x00, w00, fma(x01, w01, fma(x11, w11,
    x10·w10)))`` and the remaining channels as ``((x01·w01 + x00·w00) + x10·w10) + x11·w11``
    with each addition fused. Otherwise its generic kernel interpolates along W first
    (``fma(x[h,w0], λw0, x[h,w1]·λw1)`` per source row), then along H the same way."""
    def at(a, b):
        return x[..., a[:, None], b[None, :]]
    oh, ow = len(h0), len(w0)
    if oh + ow > 128 and not (NUM_THREADS == 1 and x.shape[1] == 3):
        return _fma(_fma(at(h0, w0), wl0, at(h0, w1) * wl1), hl0[:, None],
                    _fma(at(h1, w0), wl0, at(h1, w1) * wl1) * hl1[:, None])
    w00, w01 = np.outer(hl0, wl0), np.outer(hl0, wl1)
    w10, w11 = np.outer(hl1, wl0), np.outer(hl1, wl1)
    x00, x01, x10, x11 = at(h0, w0), at(h0, w1), at(h1, w0), at(h1, w1)
    out = _fma(x11, w11, _fma(x10, w10, _fma(x00, w00, x01 * w01)))
    c = x.shape[1]
    nv = c - c % cpu.AVX2_FLOAT_LANES if x.dtype == F32 else c - c % (cpu.AVX2_FLOAT_LANES // 2)
    if nv:
        v = slice(None), slice(0, nv)
        out[v] = _fma(x00[v], w00, _fma(x01[v], w01, _fma(x11[v], w11, x10[v] * w10)))
    return out


# -- the ops ----------------------------------------------------------------------------------------


def _key(ndim, idx):
    """Index tuple reading ``x[..., idx...]`` of a 3-D or 4-D array (idx per spatial side)."""
    if len(idx) == 1:
        return (slice(None), slice(None), idx[0])
    return (slice(None), slice(None), idx[0][:, None], idx[1][None, :])


def _scatter_back(g, shape, keys_weights):
    """Sum over ``(key, weight)`` of ``weight·g`` added at ``key`` into zeros of ``shape``."""
    from .indexing import embed
    total = None
    for key, w in keys_weights:
        part = embed(g if w is None else g * Tensor._make(w), shape, key, accumulate=True)
        total = part if total is None else total + part
    return total


def _nearest_backward(ctx, g):
    return (_scatter_back(g, ctx.self_shape, [(ctx.key, None)]),)


def _linear_backward(ctx, g):
    return (_scatter_back(g, ctx.self_shape, ctx.corners),)


_VJP_NEAREST = {"self": "grad summed into each output's nearest source element"}
_VJP_LINEAR = {"self": "grad · weight added to each of an output's source neighbours"}
_LOCAL_NEAREST = {"self": "1 for the output's source element, 0 elsewhere"}
_LOCAL_LINEAR = {"self": "the interpolation weight of each source neighbour"}

NEAREST1D = op("upsample_nearest1d", "UpsampleNearest1DBackward0", ("self",), _VJP_NEAREST, _LOCAL_NEAREST)(
    _nearest_backward)
NEAREST2D = op("upsample_nearest2d", "UpsampleNearest2DBackward0", ("self",), _VJP_NEAREST, _LOCAL_NEAREST)(
    _nearest_backward)
NEAREST_EXACT1D = op("_upsample_nearest_exact1d", "UpsampleNearestExact1DBackward0", ("self",), _VJP_NEAREST,
                     _LOCAL_NEAREST)(_nearest_backward)
NEAREST_EXACT2D = op("_upsample_nearest_exact2d", "UpsampleNearestExact2DBackward0", ("self",), _VJP_NEAREST,
                     _LOCAL_NEAREST)(_nearest_backward)
LINEAR1D = op("upsample_linear1d", "UpsampleLinear1DBackward0", ("self",), _VJP_LINEAR, _LOCAL_LINEAR)(
    _linear_backward)
BILINEAR2D = op("upsample_bilinear2d", "UpsampleBilinear2DBackward0", ("self",), _VJP_LINEAR, _LOCAL_LINEAR)(
    _linear_backward)


def _check_sizes(input, out_size):
    ins = list(input.shape[2:])
    if any(s <= 0 for s in ins + out_size):
        if len(ins) == 1:
            raise RuntimeError("Input and output sizes should be greater than 0, but got input "
                               f"(W: {ins[0]}) and output (W: {out_size[0]})")
        raise RuntimeError("Input and output sizes should be greater than 0, but got input "
                           f"(H: {ins[0]}, W: {ins[1]}) output (H: {out_size[0]}, W: {out_size[1]})")
    if any(s == 0 for s in input.shape[1:]):
        raise RuntimeError(f"Non-empty {input.ndim}D data tensor expected but got a tensor with sizes "
                           f"{list(input.shape)}")


def _output_size(input, output_size, scales):
    if output_size is not None:
        return [int(s) for s in output_size]
    out = []
    for n, s in zip(input.shape[2:], scales):
        v = n * float(s)
        if not math.isfinite(v) or not -2.0 ** 63 <= v < 2.0 ** 63:
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
        out.append(int(v))
    return out


def _upsample(input, output_size, scales, mode, align_corners=False):
    nd = input.ndim - 2
    out_size = _output_size(input, output_size, scales)
    _check_sizes(input, out_size)
    if input._dtype.category != dtypes.FLOAT:
        kernel = ("compute_indices_weights_nearest" if mode.startswith("nearest") else
                  "compute_indices_weights_linear") if nd == 1 else \
            ("upsample_nearest2d_channels_last" if mode.startswith("nearest") else
             "upsample_bilinear2d_channels_last")
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_word(input._dtype)}\'')
    x = input._data
    n, c = x.shape[:2]
    # bilinear gathers four source arrays and their products, each of the output's size
    check_count(n * c * math.prod(out_size), x.dtype.itemsize * (6 if mode == "bilinear" else 2))
    check_work(8.0 * n * c * math.prod(out_size), "interpolate")
    sc = list(scales) if scales is not None else [None] * nd
    attrs = {"self_shape": x.shape, "output_size": tuple(out_size),
             "scales": tuple(None if s is None else float(s) for s in sc)}
    if mode in ("nearest", "nearest-exact"):
        exact = mode == "nearest-exact"
        idx = [_nearest_index(i, o, s, exact) for i, o, s in zip(x.shape[2:], out_size, sc)]
        key = _key(x.ndim, idx)
        out = np.ascontiguousarray(x[key])
        node = (NEAREST_EXACT1D if exact else NEAREST1D) if nd == 1 else (NEAREST_EXACT2D if exact else NEAREST2D)
        return make(node, out, (input,), attrs={**attrs, "key": key})
    ft = x.dtype.type
    w = [_linear_weights(i, o, s, align_corners, ft) for i, o, s in zip(x.shape[2:], out_size, sc)]
    attrs["align_corners"] = bool(align_corners)
    if nd == 1:
        i0, i1, l0, l1 = w[0]
        out = _fma(x[..., i0], l0, x[..., i1] * l1)
        corners = [(_key(3, [i0]), l0), (_key(3, [i1]), l1)]
        return make(LINEAR1D, out.astype(x.dtype, copy=False), (input,), attrs={**attrs, "corners": corners})
    (h0, h1, hl0, hl1), (w0, w1, wl0, wl1) = w
    with np.errstate(invalid="ignore", over="ignore"):
        out = _bilinear(x, h0, h1, hl0, hl1, w0, w1, wl0, wl1)
    corners = [(_key(4, [a, b]), np.outer(la, lb).astype(x.dtype))
               for a, la in ((h0, hl0), (h1, hl1)) for b, lb in ((w0, wl0), (w1, wl1))]
    return make(BILINEAR2D, out.astype(x.dtype, copy=False), (input,), attrs={**attrs, "corners": corners})


# -- torch's Python interpolate ----------------------------------------------------------------


def _kernel_name(mode, ndim):
    if mode == "nearest":
        return f"upsample_nearest{ndim - 2}d"
    if mode == "nearest-exact":
        return f"_upsample_nearest_exact{ndim - 2}d"
    return "upsample_linear1d" if mode == "linear" else "upsample_bilinear2d"


def _describe(v):
    if isinstance(v, (list, tuple)):
        return f"{type(v).__name__} of [{', '.join(type(e).__name__ for e in v)}]"
    return type(v).__name__


def _bad_combination(mode, ndim, output_size, scales, align_corners):
    """torch's argument-parser TypeError for an output size or scale list of wrong types."""
    name = _kernel_name(mode, ndim)
    linear = mode in ("linear", "bilinear")
    got = ["Tensor", type(output_size).__name__] + (["bool"] if linear else []) + [type(scales).__name__]
    marked = ["Tensor", f"!{_describe(output_size)}!"] + (["bool"] if linear else []) + [f"!{_describe(scales)}!"]
    ac = "bool align_corners, " if linear else ""
    per_side = "float scales = None" if ndim == 3 else "float scales_h = None, float scales_w = None"
    return TypeError(
        f"{name}() received an invalid combination of arguments - got ({', '.join(got)}), but expected one of:\n"
        f" * (Tensor input, tuple of ints output_size, {ac}tuple of floats scale_factors)\n"
        f"      didn't match because some of the arguments have invalid types: ({', '.join(marked)})\n"
        f" * (Tensor input, tuple of ints output_size, {ac}{per_side}, *, Tensor out = None)\n")


def _valid_ints(v):
    return v is None or (isinstance(v, (list, tuple)) and all(isinstance(e, int) and not isinstance(e, bool)
                                                              for e in v))


def _valid_floats(v):
    return v is None or (isinstance(v, (list, tuple)) and all(isinstance(e, (int, float)) and not isinstance(e, bool)
                                                              for e in v))


@export(functional=("interpolate",))
def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize a (N, C, L) or (N, C, H, W) float tensor to ``size`` or by ``scale_factor``
    (one of them; an int/float or one per spatial side), with torch 2.13's argument
    checks and errors; see the module docstring for the modes and their arithmetic."""
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    dim = input.ndim - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        scale_factors = None
        if isinstance(size, (list, tuple)):
            if len(size) != dim:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got input with spatial "
                    f"dimensions of {list(input.shape[2:])} and output size of {size!r}. Please provide input tensor "
                    "in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
            if not all(isinstance(e, int) for e in size):
                types = ", ".join(f"<class '{type(e).__name__}'>" for e in size)
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                                f"Tuple[int, int, int], but got size with types [{types}]")
            output_size = size
        else:
            output_size = [size for _ in range(dim)]
    elif scale_factor is not None:
        output_size = None
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != dim:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but got input with "
                    f"spatial dimensions of {list(input.shape[2:])} and scale_factor of shape {scale_factor!r}. "
                    "Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
                    "(s1, s2, ...,sK) format.")
            scale_factors = scale_factor
        else:
            scale_factors = [scale_factor for _ in range(dim)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if mode == "area" and output_size is None:
        recompute_scale_factor = True
    if recompute_scale_factor:
        output_size = [int(input.shape[i + 2] * scale_factors[i]) for i in range(dim)]
        scale_factors = None
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires "
                         "a 4-D tensor as input")
    supported = {(3, "nearest"), (4, "nearest"), (3, "nearest-exact"), (4, "nearest-exact"), (3, "linear"),
                 (4, "bilinear")}
    if (input.ndim, mode) in supported:
        if antialias:
            raise NotImplementedError("interpolate(antialias=True) is not supported by autotrace")
        if not _valid_ints(output_size) or not _valid_floats(scale_factors):
            raise _bad_combination(mode, input.ndim, output_size, scale_factors, align_corners)
        for k, v in enumerate(output_size or ()):
            if not -2 ** 63 <= v < 2 ** 63:
                raise TypeError(f"{_kernel_name(mode, input.ndim)}(): argument 'output_size' failed to unpack the "
                                f"object at pos {k + 1} with error \"Overflow when unpacking long long\"")
        return _upsample(input, output_size, scale_factors, mode, align_corners)
    if input.ndim == 4 and mode == "area":
        from .conv import adaptive_avg_pool2d
        return adaptive_avg_pool2d(input, output_size)
    if 3 <= input.ndim <= 5 and mode in ("nearest", "nearest-exact", "area", "trilinear", "bicubic", "lanczos",
                                         "linear", "bilinear"):
        need = {"linear": 3, "bilinear": 4, "trilinear": 5}.get(mode)
        if need is not None and need != input.ndim:
            raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {need}D input")
        raise NotImplementedError(f"interpolate(mode={mode!r}) of a {input.ndim}-D input is not supported by autotrace")
    raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the "
                              f"modes: {_MODES} (got {mode})")


@export(functional=("upsample",))
def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of :func:`interpolate` (torch's UserWarning)."""
    diagnostics.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.")
    return interpolate(input, size, scale_factor, mode, align_corners)


@export(functional=("upsample_nearest",))
def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(input, size, scale_factor, mode='nearest')``."""
    diagnostics.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.")
    return interpolate(input, size, scale_factor, mode="nearest")


@export(functional=("upsample_bilinear",))
def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: ``interpolate(..., mode='bilinear', align_corners=True)``."""
    diagnostics.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
