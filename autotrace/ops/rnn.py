"""Recurrent building blocks: ``torch.unsafe_split``/``unsafe_chunk`` (UnsafeSplitBackward0,
what torch 2.13's LSTM/GRU cells split their gates with) and the cell functions
(``rnn_tanh_cell``, ``rnn_relu_cell``, ``lstm_cell``, ``gru_cell``) composed of recorded
ops in torch's order, so ``grad_fn`` chains match ``nn.RNNCell``/``LSTMCell``/``GRUCell``.
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor, wrap_dim
from . import export, make_multi, op


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


def _lin(x, w, b):
    from .nn import linear
    return linear(x, w, b)


def rnn_cell(x, h, w_ih, w_hh, b_ih, b_hh, nonlinearity="tanh"):
    """``act(x W_ihᵀ + b_ih + h W_hhᵀ + b_hh)``."""
    pre = _lin(x, w_ih, b_ih) + _lin(h, w_hh, b_hh)
    return pre.tanh() if nonlinearity == "tanh" else pre.relu()


def lstm_cell(x, h, c, w_ih, w_hh, b_ih, b_hh):
    """torch 2.13 ``lstm_cell``: gates split i, f, g, o; ``c' = f·c + i·g``, ``h' = o·tanh(c')``."""
    gates = _lin(x, w_ih, b_ih) + _lin(h, w_hh, b_hh)
    i, f, g, o = unsafe_chunk(gates, 4, 1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    c2 = f * c + i * g
    return o * c2.tanh(), c2


def gru_cell(x, h, w_ih, w_hh, b_ih, b_hh):
    """torch 2.13 ``gru_cell``: ``r = σ(h_r + i_r)``, ``z = σ(h_z + i_z)``,
    ``n = tanh(i_n + r·h_n)``, ``h' = (h − n)·z + n``."""
    ir, iz, in_ = unsafe_chunk(_lin(x, w_ih, b_ih), 3, 1)
    hr, hz, hn = unsafe_chunk(_lin(h, w_hh, b_hh), 3, 1)
    r = (hr + ir).sigmoid()
    z = (hz + iz).sigmoid()
    n = (in_ + hn * r).tanh()
    return (h - n) * z + n
