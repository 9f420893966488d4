"""Convolution and pooling (``torch.nn.functional``): conv1d/2d, conv_transpose1d/2d,
unfold/fold, pad, max/avg pooling and adaptive average pooling, with torch 2.13's node
names (ConvolutionBackward0, Im2ColBackward0, Col2ImBackward0, ConstantPadNdBackward0,
MaxPool2DWithIndicesBackward0, AvgPool2DBackward0, AdaptiveAvgPool2DBackward0).

Everything runs in 2-d: a 1-d op is its 2-d form with a height of 1. Backward formulas
are built from ``unfold``/``fold`` (each the other's adjoint) and matmuls, so
``create_graph=True`` gives correct higher derivatives.
"""

from __future__ import annotations

import numpy as np

from .. import diagnostics, dtypes
from ..resources import check_count, check_shape, check_work
from ..tensor import Tensor
from . import export, make, op


def _pair(v, n=2, name="kernel_size"):
    if isinstance(v, Tensor):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        v = tuple(int(x) for x in v)
        if len(v) == 1:
            v = v * n
        return v
    return (int(v),) * n


# -- numpy kernels -------------------------------------------------------------------------


def _blocks(size, k, d, p, s):
    return (size + 2 * p - d * (k - 1) - 1) // s + 1


def _unfold_np(x, k, d, p, s):
    """(N, C, H, W) → (N, C·kh·kw, L) patches (zero padding), torch's im2col layout."""
    n, c, h, w = x.shape
    oh, ow = _blocks(h, k[0], d[0], p[0], s[0]), _blocks(w, k[1], d[1], p[1], s[1])
    check_count(n * c * k[0] * k[1] * max(oh, 0) * max(ow, 0), x.dtype.itemsize)
    xp = np.pad(x, ((0, 0), (0, 0), (p[0], p[0]), (p[1], p[1]))) if any(p) else x
    out = np.empty((n, c, k[0], k[1], max(oh, 0), max(ow, 0)), dtype=x.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            r, q = i * d[0], j * d[1]
            out[:, :, i, j] = xp[:, :, r:r + s[0] * (oh - 1) + 1:s[0], q:q + s[1] * (ow - 1) + 1:s[1]]
    return out.reshape(n, c * k[0] * k[1], max(oh, 0) * max(ow, 0))


def _fold_np(cols, size, k, d, p, s):
    """The adjoint of :func:`_unfold_np`: (N, C·kh·kw, L) summed into (N, C, H, W)."""
    n, ck, _ = cols.shape
    c = ck // (k[0] * k[1])
    h, w = size
    oh, ow = _blocks(h, k[0], d[0], p[0], s[0]), _blocks(w, k[1], d[1], p[1], s[1])
    cols = cols.reshape(n, c, k[0], k[1], oh, ow)
    out = np.zeros((n, c, h + 2 * p[0], w + 2 * p[1]), dtype=cols.dtype)
    for i in range(k[0]):
        for j in range(k[1]):
            r, q = i * d[0], j * d[1]
            out[:, :, r:r + s[0] * (oh - 1) + 1:s[0], q:q + s[1] * (ow - 1) + 1:s[1]] += cols[:, :, i, j]
    return out[:, :, p[0]:p[0] + h, p[1]:p[1] + w]


# -- unfold / fold -------------------------------------------------------------------------


@op("im2col", "Im2ColBackward0", ("self",), vjp={"self": "col2im(grad, self.sizes()[-2:], kernel_size, dilation, padding, stride)"},
    local={"self": "1 at each patch position (a copy into columns)"})
def IM2COL(ctx, g):
    return (fold(g, ctx.size, ctx.k, ctx.d, ctx.p, ctx.s),)


@op("col2im", "Col2ImBackward0", ("self",), vjp={"self": "im2col(grad, kernel_size, dilation, padding, stride)"},
    local={"self": "1 (columns summed back into the image)"})
def COL2IM(ctx, g):
    return (unfold(g, ctx.k, ctx.d, ctx.p, ctx.s),)


@export(functional=("unfold",))
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding patches: (N, C, H, W) → (N, C·∏kernel_size, L) (Im2ColBackward0); a 3-d
    input is one unbatched image. Matches torch 2.13 ``F.unfold``."""
    if input.ndim not in (3, 4):
        raise NotImplementedError(
            f"Input Error: Only 3D or 4D input Tensors are supported (got {input.ndim}D)")
    k, d, p, s = _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride)
    x = input._data if input.ndim == 4 else input._data[None]
    out = _unfold_np(x, k, d, p, s)
    if input.ndim == 3:
        out = out[0]
    return make(IM2COL, out, (input,), attrs={"size": x.shape[-2:], "k": k, "d": d, "p": p, "s": s})


@export(functional=("fold",))
def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sums columns (N, C·∏kernel_size, L) back into (N, C, *output_size)
    (Col2ImBackward0); the adjoint of :func:`unfold`. Matches torch 2.13 ``F.fold``."""
    if input.ndim not in (2, 3):
        raise NotImplementedError(
            f"Input Error: Only unbatched (2D) or batched (3D) input Tensors are supported (got {input.ndim}D)")
    size, k, d, p, s = _pair(output_size), _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride)
    x = input._data if input.ndim == 3 else input._data[None]
    kk = k[0] * k[1]
    if x.shape[1] % kk:
        raise RuntimeError(
            f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got "
            f"input.size(1)={x.shape[1]} and kernel_size=({k[0]}, {k[1]})")
    L = _blocks(size[0], k[0], d[0], p[0], s[0]) * _blocks(size[1], k[1], d[1], p[1], s[1])
    if x.shape[2] != L:
        raise RuntimeError(
            f"Given output_size=({size[0]}, {size[1]}), kernel_size=({k[0]}, {k[1]}), dilation=({d[0]}, {d[1]}), "
            f"padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), expected size of input's dimension 2 to match the "
            f"calculated number of sliding blocks {_blocks(size[0], k[0], d[0], p[0], s[0])} * "
            f"{_blocks(size[1], k[1], d[1], p[1], s[1])} = {L}, but got input.size(2)={x.shape[2]}.")
    out = _fold_np(x, size, k, d, p, s)
    if input.ndim == 2:
        out = out[0]
    return make(COL2IM, out, (input,), attrs={"size": size, "k": k, "d": d, "p": p, "s": s})


# -- pad ---------------------------------------------------------------------------------------


@op("constant_pad_nd", "ConstantPadNdBackward0", ("self",), vjp={"self": "grad sliced back to self's region"},
    local={"self": "1 inside, the padding has no source"})
def CONSTANT_PAD_ND(ctx, g):
    from .indexing import embed, take
    gx = take(g, ctx.key)
    if ctx.crop is not None:
        gx = embed(gx, ctx.self_shape, ctx.crop)
    return (gx,)


@export(functional=("pad",))
def pad(input, pad, mode="constant", value=None):
    """Padding (ConstantPadNdBackward0): ``pad`` lists (left, right) amounts from the last
    dim backwards; negative amounts crop. ``mode='reflect'``/``'replicate'`` are in
    :mod:`.pad_modes`, ``'circular'`` too (copies into slices, as torch 2.13)."""
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"F.pad mode {mode!r} is not supported yet")
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension "
                           f"but got padding length {len(pad)} and input of dimension {input.ndim}")
    if mode == "circular":
        from .pad_modes import pad_circular
        return pad_circular(input, pad)
    if mode != "constant":
        from .pad_modes import pad_mode
        return pad_mode(input, pad, mode)
    x = input._data
    widths = [(0, 0)] * x.ndim
    for i in range(len(pad) // 2):
        widths[x.ndim - 1 - i] = (int(pad[2 * i]), int(pad[2 * i + 1]))
    crop = tuple(slice(max(-a, 0), x.shape[j] - max(-b, 0)) for j, (a, b) in enumerate(widths))
    xc = x[crop]
    check_shape(tuple(n + max(a, 0) + max(b, 0) for n, (a, b) in zip(xc.shape, widths)), x.dtype.itemsize)
    out = np.pad(xc, [(max(a, 0), max(b, 0)) for a, b in widths],
                 constant_values=x.dtype.type(0 if value is None else value))
    key = tuple(slice(max(a, 0), max(a, 0) + xc.shape[j]) for j, (a, b) in enumerate(widths))
    cropped = any(a < 0 or b < 0 for a, b in widths)
    return make(CONSTANT_PAD_ND, out, (input,),
                attrs={"key": key, "crop": crop if cropped else None, "self_shape": x.shape, "pad": tuple(pad)})


# -- convolution -------------------------------------------------------------------------------


@op("convolution", "ConvolutionBackward0", ("input", "weight", "bias"),
    vjp={"input": "conv_transpose(grad, weight)  (conv(grad, weight) for a transposed convolution)",
         "weight": "sum over the batch of grad ⋆ input patches (im2col(input) · gradᵀ)",
         "bias": "grad summed over the batch and spatial dims"},
    local={"input": "the kernel weights that touch each input element",
           "weight": "the input patch each kernel weight multiplies",
           "bias": "1 per output position"})
def CONVOLUTION(ctx, g):
    x, w = ctx.input, ctx.weight
    k, d, p, s, groups = ctx.k, ctx.d, ctx.p, ctx.s, ctx.groups
    n = ctx.n
    in_size = ctx.in_size
    g4 = g.reshape(n, g.shape[1] if ctx.batched else g.shape[0], *ctx.out_size)
    G = groups
    gx = gw = gb = None
    if not ctx.transposed:
        O = w.shape[0]
        gr = g4.reshape(n, G, O // G, -1)
        w3 = w.reshape(G, O // G, -1)
        if ctx.needs(0):
            gcols = (w3.transpose(1, 2) @ gr).reshape(n, -1, gr.shape[-1])
            gx = fold(gcols, in_size, k, d, p, s).reshape(*x.shape)
        if ctx.needs(1):
            cols = unfold(x.reshape(n, -1, *in_size), k, d, p, s)
            cols = cols.reshape(n, G, -1, cols.shape[-1])
            gw = (gr @ cols.transpose(2, 3)).sum(0).reshape(*w.shape)
    else:
        Cin = w.shape[0]
        gcols = unfold(g4, k, d, p, s)
        gcols = gcols.reshape(n, G, -1, gcols.shape[-1])
        w3 = w.reshape(G, Cin // G, -1)
        if ctx.needs(0):
            gx = (w3 @ gcols).reshape(*x.shape)
        if ctx.needs(1):
            xr = x.reshape(n, G, Cin // G, -1)
            gw = (xr @ gcols.transpose(2, 3)).sum(0).reshape(*w.shape)
    if ctx.needs(2):
        gb = g4.sum((0, 2, 3))
    return gx, gw, gb


def _conv(input, weight, bias, stride, padding, dilation, groups, nd, transposed=False, output_padding=0):
    name = f"conv{'_transpose' if transposed else ''}{nd}d"
    for i, (pn, v) in enumerate((("input", input), ("weight", weight))):
        if not isinstance(v, Tensor):
            raise TypeError(f"{name}(): argument '{pn}' (position {i + 1}) must be Tensor, not {type(v).__name__}")
    if bias is not None and not isinstance(bias, Tensor):
        raise TypeError(f"{name}(): argument 'bias' (position 3) must be Tensor, not {type(bias).__name__}")
    if input._dtype is not weight._dtype:
        raise RuntimeError(f"expected scalar type {_Word(input._dtype)} but found {_Word(weight._dtype)}")
    if input._dtype.category != dtypes.FLOAT:
        raise RuntimeError(f'"slow_conv2d_cpu" not implemented for \'{_Word(input._dtype)}\'')
    if weight.ndim != nd + 2:
        raise RuntimeError(
            "weight should have at least three dimensions" if weight.ndim < 3 else
            f"Expected {nd + 2}-dimensional weight for {nd + 2}-dimensional input")
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(
            f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got input of size: "
            f"{list(input.shape)}")
    if input.ndim == nd + 1:  # unbatched: torch records unsqueeze(0) … squeeze(0)
        return _conv(input.unsqueeze(0), weight, bias, stride, padding, dilation, groups, nd, transposed,
                     output_padding).squeeze(0)
    batched = True
    x = input._data
    wd = weight._data
    if nd == 1:
        x = x[:, :, None, :]
        wd = wd[:, :, None, :]
    st = _pair(stride, nd)
    dl = _pair(dilation, nd)
    if isinstance(padding, str):
        if padding not in ("same", "valid"):
            raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
        if padding == "same" and any(v != 1 for v in st):
            raise ValueError("padding='same' is not supported for strided convolutions")
        if padding == "valid":
            pd = (0,) * nd
        else:
            ks = weight.shape[2:]
            total = [dl[i] * (ks[i] - 1) for i in range(nd)]
            if any(t % 2 for t in total):
                diagnostics.warn(
                    "Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy "
                    "of the input be created")
                flat = []
                for t in reversed(total):
                    flat += [0, t % 2]
                input = pad(input, flat)
                return _conv(input, weight, bias, stride, tuple(t // 2 for t in total), dilation, groups, nd)
            pd = tuple(t // 2 for t in total)
    else:
        pd = _pair(padding, nd)
    op_ = _pair(output_padding, nd)
    if nd == 1:
        st, dl, pd, op_ = (1,) + st, (1,) + dl, (0,) + pd, (0,) + op_
    k = wd.shape[2:]
    n, c, h, w = x.shape
    G = int(groups)
    if G <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(v <= 0 for v in st):
        raise RuntimeError("non-positive stride is not supported")
    if any(v < 0 for v in pd):
        raise RuntimeError("negative padding is not supported")
    shown_w = list(weight.shape)
    shown_x = list(input.shape)
    if not transposed:
        if c != wd.shape[1] * G:
            raise RuntimeError(
                f"Given groups={G}, weight of size {shown_w}, expected input{shown_x} to have "
                f"{wd.shape[1] * G} channels, but got {c} channels instead")
        if wd.shape[0] % G:
            raise RuntimeError(f"Given groups={G}, expected weight to be divisible by {G} at dimension 0, but got "
                               f"weight of size {shown_w} instead")
        if bias is not None and (bias.ndim != 1 or bias.shape[0] != wd.shape[0]):
            raise RuntimeError(f"Given weight of size {shown_w}, expected bias to be 1-dimensional with "
                               f"{wd.shape[0]} elements, but got bias of size {list(bias.shape)} instead")
        eff = [(k[i] - 1) * dl[i] + 1 for i in range(2)]
        if h + 2 * pd[0] < eff[0] or w + 2 * pd[1] < eff[1]:
            padded = [h + 2 * pd[0], w + 2 * pd[1]][2 - nd:]
            ksz = list(k)[2 - nd:]
            raise RuntimeError(
                f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
                f"({' x '.join(map(str, ksz))}). Kernel size can't be greater than actual input size")
        O = wd.shape[0]
        oh, ow = _blocks(h, k[0], dl[0], pd[0], st[0]), _blocks(w, k[1], dl[1], pd[1], st[1])
        check_work(2.0 * n * O * (c // G) * k[0] * k[1] * max(oh, 0) * max(ow, 0),
                   f"a convolution of {'x'.join(map(str, shown_x))} with {'x'.join(map(str, shown_w))}")
        cols = _unfold_np(x, k, dl, pd, st)
        out = np.matmul(wd.reshape(G, O // G, -1), cols.reshape(n, G, -1, cols.shape[-1]))
        out = out.reshape(n, O, oh, ow)
    else:
        if c != wd.shape[0]:
            raise RuntimeError(
                f"Given transposed=1, weight of size {shown_w}, expected input{shown_x} to have "
                f"{wd.shape[0]} channels, but got {c} channels instead")
        if wd.shape[0] % G:
            raise RuntimeError(f"Given groups={G}, expected weight to be divisible by {G} at dimension 0, but got "
                               f"weight of size {shown_w} instead")
        O = wd.shape[1] * G
        if bias is not None and (bias.ndim != 1 or bias.shape[0] != O):
            raise RuntimeError(f"Given transposed=1, weight of size {shown_w}, expected bias to be 1-dimensional "
                               f"with {O} elements, but got bias of size {list(bias.shape)} instead")
        for i in range(2):
            if op_[i] >= st[i] and op_[i] >= dl[i]:
                raise RuntimeError("output padding must be smaller than either stride or dilation, but got "
                                   f"output_padding_height: {op_[0]} output_padding_width: {op_[1]} stride_height: "
                                   f"{st[0]} stride_width: {st[1]} dilation_height: {dl[0]} dilation_width: {dl[1]}")
        oh = (h - 1) * st[0] - 2 * pd[0] + dl[0] * (k[0] - 1) + op_[0] + 1
        ow = (w - 1) * st[1] - 2 * pd[1] + dl[1] * (k[1] - 1) + op_[1] + 1
        w3 = wd.reshape(G, c // G, -1)
        check_work(2.0 * n * c * (O // G) * k[0] * k[1] * h * w,
                   f"a transposed convolution of {'x'.join(map(str, shown_x))} with {'x'.join(map(str, shown_w))}")
        check_count(n * O * k[0] * k[1] * h * w, x.dtype.itemsize)
        cols = np.matmul(w3.transpose(0, 2, 1), x.reshape(n, G, c // G, h * w)).reshape(n, -1, h * w)
        out = _fold_np(cols, (oh, ow), k, dl, pd, st)
    if bias is not None:
        out = out + bias._data.reshape(1, -1, 1, 1)
    out = np.ascontiguousarray(out, dtype=x.dtype)
    if nd == 1:
        out = out[:, :, 0, :]
    if not batched:
        out = out[0]
    return make(CONVOLUTION, out, (input, weight, bias), save={"input": input, "weight": weight},
                attrs={"k": k, "d": dl, "p": pd, "s": st, "groups": G, "transposed": transposed, "n": n,
                       "in_size": (h, w), "out_size": (oh, ow), "batched": batched,
                       "stride": st[2 - nd:], "padding": pd[2 - nd:], "dilation": dl[2 - nd:],
                       "output_padding": op_[2 - nd:]})


def _Word(d):
    return {"float32": "Float", "float64": "Double", "int64": "Long", "bool": "Bool", "int32": "Int"}.get(d.name, d.name)


@export(torch=("conv2d",), functional=("conv2d",))
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d cross-correlation (ConvolutionBackward0): input (N, C, H, W) or (C, H, W),
    weight (O, C/groups, kh, kw), optional bias (O,); ``padding`` an int, pair, 'valid'
    or 'same' (stride 1; an odd total pads the far side first, ConstantPadNdBackward0,
    with torch's warning). torch 2.13's channel/size errors."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2)


@export(torch=("conv1d",), functional=("conv1d",))
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d cross-correlation (ConvolutionBackward0): input (N, C, L) or (C, L), weight
    (O, C/groups, k)."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1)


@export(torch=("conv_transpose2d",), functional=("conv_transpose2d",))
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Transposed 2-d convolution (ConvolutionBackward0): weight (C, O/groups, kh, kw);
    output side ``(H − 1)·stride − 2·padding + dilation·(k − 1) + output_padding + 1``."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, True, output_padding)


@export(torch=("conv_transpose1d",), functional=("conv_transpose1d",))
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Transposed 1-d convolution (ConvolutionBackward0): weight (C, O/groups, k)."""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, True, output_padding)


# -- pooling -----------------------------------------------------------------------------------


def _pool_out(size, k, p, s, d, ceil_mode):
    num = size + 2 * p - d * (k - 1) - 1
    o = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (o - 1) * s >= size + p:
        o -= 1
    return o


def _pool_args(input, kernel_size, stride, padding, dilation):
    k = _pair(kernel_size)
    s = _pair(stride) if stride is not None and stride != [] and stride != () else k
    p = _pair(padding)
    d = _pair(dilation)
    if input.ndim not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    for i in range(2):
        if p[i] > ((k[i] - 1) * d[i] + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p[i]}, "
                               f"kernel_size={k[i]} and dilation={d[i]}")
    return k, s, p, d


@op("max_pool2d", "MaxPool2DWithIndicesBackward0", ("self",),
    vjp={"self": "grad routed to the argmax of each window (indices), summed where windows share it"},
    local={"self": "1 at each window's max, 0 elsewhere"})
def MAX_POOL2D(ctx, g):
    from .indexing import embed
    return (embed(g, ctx.self_shape, ctx.key, accumulate=True),)


def _max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    k, s, p, d = _pool_args(input, kernel_size, stride, padding, dilation)
    x4 = input._data if input.ndim == 4 else input._data[None]
    n, c, h, w = x4.shape
    oh, ow = _pool_out(h, k[0], p[0], s[0], d[0], ceil_mode), _pool_out(w, k[1], p[1], s[1], d[1], ceil_mode)
    if oh <= 0 or ow <= 0:
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{oh}x{ow}). "
                           "Output size is too small")
    rows = (np.arange(oh) * s[0])[None, :] + (np.arange(k[0]) * d[0])[:, None] - p[0]   # (kh, oh)
    cols = (np.arange(ow) * s[1])[None, :] + (np.arange(k[1]) * d[1])[:, None] - p[1]   # (kw, ow)
    R = rows[:, None, :, None]
    C = cols[None, :, None, :]
    valid = (R >= 0) & (R < h) & (C >= 0) & (C < w)                                     # (kh, kw, oh, ow)
    vals = x4[:, :, np.clip(R, 0, h - 1), np.clip(C, 0, w - 1)]                          # (n, c, kh, kw, oh, ow)
    vals = np.where(valid, vals, -np.inf).reshape(n, c, k[0] * k[1], oh, ow)
    nanpos = np.isnan(vals)
    pick = np.where(nanpos.any(2), nanpos.argmax(2), vals.argmax(2))                   # first max (or nan)
    out = np.take_along_axis(vals, pick[:, :, None], 2)[:, :, 0].astype(x4.dtype)
    ki, kj = pick // k[1], pick % k[1]
    ri = rows[ki, np.arange(oh)[:, None]]
    ci = cols[kj, np.arange(ow)[None, :]]
    indices = (ri * w + ci).astype(np.int64)
    nn_, cc_ = np.indices((n, c), sparse=True)
    if input.ndim == 4:
        key = (nn_[..., None, None], cc_[..., None, None], ri, ci)
    else:
        out, indices = out[0], indices[0]
        key = (cc_[0][..., None, None], ri[0], ci[0])
    res = make(MAX_POOL2D, out, (input,), save={"self": input},
               attrs={"self_shape": input._data.shape, "key": key, "result1": Tensor._make(indices),
                      "kernel_size": k, "stride": s, "padding": p, "dilation": d, "ceil_mode": ceil_mode})
    return res, Tensor._make(indices)


@export(torch=("max_pool2d",), functional=("max_pool2d", "max_pool2d_with_indices"))
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """Max over each window (MaxPool2DWithIndicesBackward0): input (N, C, H, W) or
    (C, H, W); padding counts as -inf; ties pick the first maximum, nan wins, as torch's
    CPU kernel. ``return_indices=True`` also returns the flat H·W index of each max."""
    out, idx = _max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


@export(torch=("max_pool1d",), functional=("max_pool1d", "max_pool1d_with_indices"))
def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """1-d max pooling, as torch 2.13 records it: unsqueeze(-2), max_pool2d, squeeze(-2)."""
    if input.ndim not in (2, 3):
        raise RuntimeError("max_pool1d() Expected 2D or 3D input tensor, but got " + str(list(input.shape)))
    k, s = _pair(kernel_size, 1), _pair(stride, 1) if stride is not None else None
    out, idx = _max_pool2d(input.unsqueeze(-2), (1,) + k, (1,) + s if s else (1,) + k,
                           (0,) + _pair(padding, 1), (1,) + _pair(dilation, 1), ceil_mode)
    out = out.squeeze(-2)
    return (out, Tensor._make(idx._data.squeeze(-2))) if return_indices else out


@op("avg_pool2d", "AvgPool2DBackward0", ("self",),
    vjp={"self": "each window's grad / divisor spread over the window (col2im)"},
    local={"self": "1 / divisor for each window containing the element"})
def AVG_POOL2D(ctx, g):
    n, c, oh, ow = ctx.out4
    k = ctx.k
    g4 = g.reshape(n, c, 1, oh * ow) * Tensor._make(ctx.inv.reshape(1, 1, 1, oh * ow))
    g4 = g4.expand(n, c, k[0] * k[1], oh * ow).reshape(n, c * k[0] * k[1], oh * ow)
    full = fold(g4, ctx.padded, k, (1, 1), (0, 0), ctx.s)
    h, w = ctx.hw
    p = ctx.p
    return (full[:, :, p[0]:p[0] + h, p[1]:p[1] + w].reshape(*ctx.self_shape),)


@export(functional=("avg_pool2d",))
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """Mean over each window (AvgPool2DBackward0): zero padding counts in the divisor
    unless ``count_include_pad=False``; ``divisor_override`` replaces it (torch 2.13)."""
    k, s, p, _ = _pool_args(input, kernel_size, stride, padding, 1)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    x4 = input._data if input.ndim == 4 else input._data[None]
    n, c, h, w = x4.shape
    oh, ow = _pool_out(h, k[0], p[0], s[0], 1, ceil_mode), _pool_out(w, k[1], p[1], s[1], 1, ceil_mode)
    if oh <= 0 or ow <= 0:
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{oh}x{ow}). "
                           "Output size is too small")
    ph = max((oh - 1) * s[0] + k[0], h + 2 * p[0])
    pw = max((ow - 1) * s[1] + k[1], w + 2 * p[1])
    xp = np.zeros((n, c, ph, pw), dtype=x4.dtype)
    xp[:, :, p[0]:p[0] + h, p[1]:p[1] + w] = x4
    cols = _unfold_np(xp, k, (1, 1), (0, 0), s)[:, :, :oh * ow].reshape(n, c, k[0] * k[1], oh * ow)
    sums = cols.sum(2)
    hs = np.arange(oh) * s[0] - p[0]
    ws = np.arange(ow) * s[1] - p[1]
    if divisor_override is not None:
        div = np.full((oh, ow), float(divisor_override))
    elif count_include_pad:
        he = np.minimum(hs + k[0], h + p[0])
        we = np.minimum(ws + k[1], w + p[1])
        div = np.outer(he - hs, we - ws).astype(np.float64)
    else:
        he = np.minimum(hs + k[0], h) - np.maximum(hs, 0)
        we = np.minimum(ws + k[1], w) - np.maximum(ws, 0)
        div = np.outer(he, we).astype(np.float64)
    div = div.astype(x4.dtype)
    out = (sums.reshape(n, c, oh, ow) / div).astype(x4.dtype)
    if input.ndim == 3:
        out = out[0]
    return make(AVG_POOL2D, out, (input,),
                attrs={"out4": (n, c, oh, ow), "k": k, "s": s, "p": p, "padded": (ph, pw), "hw": (h, w),
                       "inv": (1 / div).astype(x4.dtype), "self_shape": input._data.shape,
                       "kernel_size": k, "stride": s, "padding": p, "ceil_mode": ceil_mode,
                       "count_include_pad": count_include_pad, "divisor_override": divisor_override})


@export(torch=("avg_pool1d",), functional=("avg_pool1d",))
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """1-d average pooling: unsqueeze(-2), avg_pool2d, squeeze(-2), as torch records it."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"avg_pool1d() Expected 2D or 3D input tensor, but got {list(input.shape)}")
    k = _pair(kernel_size, 1)
    s = _pair(stride, 1) if stride is not None else k
    out = avg_pool2d(input.unsqueeze(-2), (1,) + k, (1,) + s, (0,) + _pair(padding, 1), ceil_mode, count_include_pad)
    return out.squeeze(-2)


def _adaptive_matrix(size, out, dtype):
    m = np.zeros((out, size), dtype=np.float64)
    for i in range(out):
        a = (i * size) // out
        b = -(-((i + 1) * size) // out)
        m[i, a:b] = 1.0 / (b - a)
    return m.astype(dtype)


@op("adaptive_avg_pool2d", "AdaptiveAvgPool2DBackward0", ("self",),
    vjp={"self": "each bin's grad / bin size spread over the bin"},
    local={"self": "1 / bin size for each bin containing the element"})
def ADAPTIVE_AVG_POOL2D(ctx, g):
    ah, aw = Tensor._make(ctx.ah), Tensor._make(ctx.aw)
    return ((ah.t() @ g @ aw).reshape(*ctx.self_shape),)


@export(functional=("adaptive_avg_pool2d",))
def adaptive_avg_pool2d(input, output_size):
    """Average over torch's adaptive bins ``[floor(i·H/oh), ceil((i+1)·H/oh))``
    (AdaptiveAvgPool2DBackward0); an output size of 1 is ``mean((-1, -2), keepdim=True)``
    (MeanBackward1), as torch 2.13 records it. ``None`` keeps that input side."""
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    size = list(_pair(output_size)) if not isinstance(output_size, (list, tuple)) else list(output_size)
    if len(size) == 1:
        size = size * 2
    h, w = input.shape[-2:]
    size = [h if size[0] is None else int(size[0]), w if size[1] is None else int(size[1])]
    if size == [1, 1]:
        return input.mean((-1, -2), keepdim=True)
    dt = input._data.dtype
    ah, aw = _adaptive_matrix(h, size[0], dt), _adaptive_matrix(w, size[1], dt)
    out = np.matmul(np.matmul(ah, input._data), aw.T).astype(dt)
    return make(ADAPTIVE_AVG_POOL2D, out, (input,), attrs={"ah": ah, "aw": aw, "self_shape": input._data.shape})
