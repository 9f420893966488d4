"""Recurrent building blocks: ``torch.unsafe_split``/``unsafe_chunk`` (UnsafeSplitBackward0,
what torch 2.13's LSTM/GRU cells split their gates with) and the cell functions
(``rnn_tanh_cell``, ``rnn_relu_cell``, ``lstm_cell``, ``gru_cell``) composed of recorded
ops in torch's order, so ``grad_fn`` chains match ``nn.RNNCell``/``LSTMCell``/``GRUCell``.
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor, wrap_dim
from . import export, make, make_multi, op


@op("unsafe_split", "UnsafeSplitBackward0", ("self",), vjp={"self": "cat(grads, dim) (zeros for unused)"},
    local={"self": "1"})
def UNSAFE_SPLIT(ctx, grads):
    from .shape import cat
    parts = [g if g is not None else Tensor._make(np.zeros(m[0], dtype=m[1].np))
             for g, m in zip(grads, ctx.out_meta)]
    return (cat(parts, ctx.dim),)


@export(torch=("unsafe_split",), tensor=("unsafe_split",))
def unsafe_split(input, split_size, dim=0):
    """``split`` whose pieces are not views (UnsafeSplitBackward0): in-place ops on them
    are allowed."""
    x = input._data
    d = wrap_dim(dim, x.ndim)
    n = x.shape[d]
    if split_size <= 0 and n:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
    outs = [np.array(o) for o in np.split(x, list(range(split_size, n, split_size)), axis=d)]
    return tuple(make_multi(UNSAFE_SPLIT, outs, (input,), attrs={"dim": d}))


@export(torch=("unsafe_chunk",), tensor=("unsafe_chunk",))
def unsafe_chunk(input, chunks, dim=0):
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    n = input._data.shape[wrap_dim(dim, input.ndim)]
    return unsafe_split(input, -(-n // chunks), dim)


@op("transpose_batch_first", "TransposeBackward1", ("self",), vjp={"self": "grad.transpose(0, 1)"},
    local={"self": "1"})
def TRANSPOSE_BATCH_FIRST(ctx, g):
    return (g.transpose(0, 1),)


def batch_first_output(out: Tensor) -> Tensor:
    """torch's RNN/GRU turn a batch_first output back with ``output.transpose_(0, 1)`` (in
    place on a fresh result): the same numbers as ``transpose(0, 1)``, node
    TransposeBackward1."""
    return make(TRANSPOSE_BATCH_FIRST, np.swapaxes(out._data, 0, 1), (out,))


def _lin(x, w, b):
    from .nn import linear
    return linear(x, w, b)


def _lin_unfused(x, w, b):
    """:func:`_lin` of a 2-d ``x`` with the product rounded before the bias is added: the
    LSTM backward's recomputed gates, which torch takes from oneDNN's forward instead (the
    numbers this path gave before addmm was one fused gemm)."""
    if b is None or x.ndim != 2:
        return _lin(x, w, b)
    from .linalg import addmm_as
    return addmm_as(b, x, w.t(), fused=False)


def rnn_cell(x, h, w_ih, w_hh, b_ih, b_hh, nonlinearity="tanh"):
    """``act(x W_ihᵀ + b_ih + h W_hhᵀ + b_hh)``."""
    pre = _lin(x, w_ih, b_ih) + _lin(h, w_hh, b_hh)
    return pre.tanh() if nonlinearity == "tanh" else pre.relu()


def lstm_cell(x, h, c, w_ih, w_hh, b_ih, b_hh):
    """torch 2.13 ``lstm_cell``: gates split i, f, g, o; ``c' = f·c + i·g``, ``h' = o·tanh(c')``."""
    return lstm_from_gates(_lin(x, w_ih, b_ih) + _lin(h, w_hh, b_hh), c)


def lstm_from_gates(gates, c):
    """The LSTM cell after its gate pre-activations ``gates`` (N, 4H): ``(h', c')``."""
    i, f, g, o = unsafe_chunk(gates, 4, 1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    c2 = f * c + i * g
    return o * c2.tanh(), c2


def gru_cell(x, h, w_ih, w_hh, b_ih, b_hh):
    """torch 2.13 ``gru_cell``: ``r = σ(h_r + i_r)``, ``z = σ(h_z + i_z)``,
    ``n = tanh(i_n + r·h_n)``, ``h' = (h − n)·z + n``."""
    return gru_from_chunks(unsafe_chunk(_lin(x, w_ih, b_ih), 3, 1), h, w_hh, b_hh)


def gru_from_chunks(igates, h, w_hh, b_hh):
    """The GRU cell after its input projection, split in ``(i_r, i_z, i_n)``."""
    ir, iz, in_ = igates
    hr, hz, hn = unsafe_chunk(_lin(h, w_hh, b_hh), 3, 1)
    r = (hr + ir).sigmoid()
    z = (hz + iz).sigmoid()
    n = (in_ + hn * r).tanh()
    return (h - n) * z + n


# -- a whole LSTM layer as one node (torch 2.13 on CPU: MkldnnRnnLayerBackward0) -------------


def _zeros_like(t):
    return Tensor._make(np.zeros(t._data.shape, dtype=t._data.dtype))


@op("mkldnn_rnn_layer", "MkldnnRnnLayerBackward0",
    ("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_"),
    vjp={"input": "backpropagation through time of the LSTM equations, ∂/∂x_t = dgates_t · W_ih",
         "weight0": "Σ_t dgates_tᵀ · x_t", "weight1": "Σ_t dgates_tᵀ · h_(t−1)",
         "weight2": "Σ_t dgates_t summed over the batch", "weight3": "Σ_t dgates_t summed over the batch",
         "hx_": "dgates_1 · W_hh", "cx_": "∂loss/∂c_0 = dc_1 · f_1"},
    doc="One LSTM layer over a (T, N, I) sequence; outputs (output, h_T, c_T).")
def MKLDNN_RNN_LAYER(ctx, grads):
    from .shape import cat, stack
    x, w_ih, w_hh, b_ih, b_hh = ctx.input, ctx.weight0, ctx.weight1, ctx.weight2, ctx.weight3
    h, c = ctx.hx_, ctx.cx_
    T = x.shape[0]
    steps = list(reversed(range(T))) if ctx.reverse else list(range(T))
    hs, cs, acts = [h], [c], []
    for t in steps:  # recompute the forward with Tensor ops (differentiable for create_graph)
        pre = _lin_unfused(x[t], w_ih, b_ih) + _lin_unfused(hs[-1], w_hh, b_hh)
        i, f, g, o = pre.chunk(4, 1)
        i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
        c = f * cs[-1] + i * g
        acts.append((i, f, g, o, c.tanh()))
        hs.append(o * acts[-1][4])
        cs.append(c)
    gout, ghy, gcy = (list(grads) + [None, None, None])[:3]
    dh_next = ghy if ghy is not None else _zeros_like(hs[-1])
    dc_next = gcy if gcy is not None else _zeros_like(cs[-1])
    dw_ih = dw_hh = db = None
    dxs = [None] * T
    for k in reversed(range(T)):  # k-th step processed x[steps[k]]
        t = steps[k]
        i, f, g, o, tc = acts[k]
        dh = dh_next + gout[t] if gout is not None else dh_next
        do = dh * tc
        dc = dc_next + dh * o * (1 - tc * tc)
        dpre = cat([dc * g * i * (1 - i), dc * cs[k] * f * (1 - f), dc * i * (1 - g * g), do * o * (1 - o)], 1)
        dc_next = dc * f
        gw_ih, gw_hh, gb = dpre.t() @ x[t], dpre.t() @ hs[k], dpre.sum(0)
        dw_ih = gw_ih if dw_ih is None else dw_ih + gw_ih
        dw_hh = gw_hh if dw_hh is None else dw_hh + gw_hh
        db = gb if db is None else db + gb
        dxs[t] = dpre @ w_ih
        dh_next = dpre @ w_hh
    return (stack(dxs, 0) if ctx.needs(0) else None, dw_ih, dw_hh, db if b_ih is not None else None,
            db if b_hh is not None else None, dh_next if ctx.needs(5) else None,
            dc_next if ctx.needs(6) else None)


def _sig(z):
    with np.errstate(over="ignore"):
        return 1 / (1 + np.exp(-z))


def lstm_layer(x, h0, c0, w_ih, w_hh, b_ih, b_hh, reverse=False):
    """One LSTM layer over ``x`` (T, N, I) from ``(h0, c0)`` (N, H): ``(output (T, N, H),
    h_T, c_T)`` as one MkldnnRnnLayerBackward0 node, the node torch 2.13 records on CPU.
    ``reverse``: the backward direction of a bidirectional layer (steps T-1 .. 0, each
    output at its own time position)."""
    xd, H = x._data, w_hh.shape[1]
    dt = xd.dtype
    wih, whh = w_ih._data.T, w_hh._data.T
    bias = (b_ih._data + b_hh._data) if b_ih is not None else np.zeros(4 * H, dtype=dt)
    h, c = h0._data, c0._data
    T = xd.shape[0]
    outs = [None] * T
    for t in (reversed(range(T)) if reverse else range(T)):
        pre = xd[t] @ wih + h @ whh + bias
        i, f, g, o = _sig(pre[:, :H]), _sig(pre[:, H:2 * H]), np.tanh(pre[:, 2 * H:3 * H]), _sig(pre[:, 3 * H:])
        c = (f * c + i * g).astype(dt)
        h = (o * np.tanh(c)).astype(dt)
        outs[t] = h
    out = np.stack(outs) if outs else np.zeros((0,) + h.shape, dtype=dt)
    saved = {"input": x, "weight0": w_ih, "weight1": w_hh, "weight2": b_ih, "weight3": b_hh, "hx_": h0, "cx_": c0}
    return make_multi(MKLDNN_RNN_LAYER, [out, np.array(h), np.array(c)],
                      (x, w_ih, w_hh, b_ih, b_hh, h0, c0), save=saved, attrs={"reverse": bool(reverse)})


def _lstm_steps(x, h, c, w_ih, w_hh, b_ih, b_hh):
    """The layer as torch 2.13 runs it off the mkldnn path (float64): cells, outputs stacked."""
    from .shape import stack
    outs = []
    for t in range(x.shape[0]):
        h, c = lstm_cell(x[t], h, c, w_ih, w_hh, b_ih, b_hh)
        outs.append(h)
    return stack(outs, 0), h, c


@export(torch=("lstm",))
def lstm(input, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
    """``torch.lstm`` (what ``nn.LSTM`` calls): layers of :func:`lstm_layer`; returns
    ``(output, h_n, c_n)`` with ``h_n``/``c_n`` stacked over layers. No bidirectional."""
    from .nn import dropout as _dropout
    from .shape import stack
    if bidirectional:
        raise NotImplementedError("bidirectional LSTMs are not supported yet")
    per = 4 if has_biases else 2
    seq = input.transpose(0, 1) if batch_first else input
    hs, cs = [], []
    for layer in range(num_layers):
        w = list(params[layer * per:(layer + 1) * per]) + ([None, None] if not has_biases else [])
        seq, hy, cy = lstm_layer(seq, hx[0][layer], hx[1][layer], *w) if seq._data.dtype == np.float32 else \
            _lstm_steps(seq, hx[0][layer], hx[1][layer], *w)
        hs.append(hy)
        cs.append(cy)
        if dropout > 0 and train and layer < num_layers - 1:
            seq = _dropout(seq, dropout, True)
    if batch_first:
        seq = seq.transpose(0, 1)
    return seq, stack(hs, 0), stack(cs, 0)
