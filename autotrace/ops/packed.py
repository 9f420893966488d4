"""Packed sequences: ``_pack_padded_sequence`` (PackPaddedSequenceBackward0) and the RNN
layers over a packed batch as torch 2.13's ``PackedLayer``/``ReversedPackedLayer`` run
them on CPU: the input projection of the whole packed data at once (AddmmBackward0), then
per time step a slice of it (SliceBackward0) and a cell over the sequences still running;
the hidden states of sequences that ended are sliced off and concatenated at the end
(CatBackward0), so ``h_n`` holds each sequence's own last step.
"""

from __future__ import annotations

import numpy as np

from .. import resources
from ..tensor import Tensor
from . import make, op
from .rnn import _lin, gru_from_chunks, lstm_from_gates, unsafe_chunk


@op("pack_padded_sequence", "PackPaddedSequenceBackward0", ("input",),
    vjp={"input": "zeros of the padded shape, each packed row's grad put back at its (t, b)"},
    local={"input": "1 at the packed positions, 0 at the padding"},
    doc="Rows input[t, b] with t < lengths[b], time-major, into one (sum(lengths), *) tensor.")
def PACK_PADDED_SEQUENCE(ctx, g):
    T, B = ctx.steps, ctx.batch
    if ctx.all_steps > T:  # lengths past the input: torch's backward indexes past its end
        size = ", ".join(map(str, (T, B) + tuple(g.shape[1:])))
        raise IndexError(f"select(): index {T} out of range for tensor of size [{size}] at dimension 0")
    rest = tuple(g.shape[1:])
    rows = np.full(T * B, g.shape[0], dtype=np.int64)
    t = np.repeat(np.arange(ctx.bs.size), ctx.bs)
    b = np.arange(t.size) - np.repeat(np.cumsum(ctx.bs) - ctx.bs, ctx.bs)
    rows[t * B + b] = np.arange(t.size)
    from .indexing import index_select
    from .shape import cat
    zero = Tensor._make(np.zeros((1,) + rest, dtype=g._data.dtype))
    grad = index_select(cat([g, zero], 0), 0, Tensor._make(rows)).reshape((T, B) + rest)
    return (grad.transpose(0, 1) if ctx.batch_first else grad,)


def pack_padded(input: Tensor, lengths: np.ndarray, batch_first: bool):
    """torch 2.13 ``_VF._pack_padded_sequence``: ``(data, batch_sizes)`` from ``input``
    (T, B, *) (or (B, T, *) with ``batch_first``) and int64 ``lengths`` (B,), sorted
    decreasing. Lengths past T are cut at T in ``data`` while ``batch_sizes`` keeps
    ``lengths[0]`` entries, as torch's (documented) truncation does.

    Raises RuntimeError with torch's messages: empty input, wrong number of lengths, a
    length <= 0, lengths not sorted; IndexError for a 1-d input."""
    if input.ndim < 2:
        d = 1
        raise IndexError(f"Dimension out of range (expected to be in range of [{-max(input.ndim, 1)}, "
                         f"{max(input.ndim, 1) - 1}], but got {d})")
    if input._data.size == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    x = np.swapaxes(input._data, 0, 1) if batch_first else input._data
    T, B = x.shape[0], x.shape[1]
    if lengths.shape[0] != B:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {lengths.shape[0]} "
                           f"(batch_size={B})")
    if lengths[B - 1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if B > 1 and np.any(lengths[1:] > lengths[:-1]):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                           "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                           "sidestep this requirement if you do not need ONNX exportability.")
    steps = int(lengths[0])
    resources.check_shape((steps,))
    asc = lengths[::-1]
    bs = (B - np.searchsorted(asc, np.arange(steps), side="right")).astype(np.int64)
    kept = bs[:T]
    t = np.repeat(np.arange(kept.size), kept)
    b = np.arange(t.size) - np.repeat(np.cumsum(kept) - kept, kept)
    data = np.ascontiguousarray(x[t, b])
    out = make(PACK_PADDED_SEQUENCE, data, (input,),
               attrs={"steps": T, "batch": B, "bs": kept, "all_steps": steps,
                      "batch_first": bool(batch_first)})
    return out, bs


def batch_sizes_of(batch_sizes: Tensor) -> list[int]:
    """The step sizes as Python ints, with torch's check that they are a 1-d CPU int64
    tensor."""
    check_lengths(batch_sizes, "'lengths' argument")
    return [int(v) for v in batch_sizes._data.tolist()]


def check_lengths(t: Tensor, what="'lengths' argument") -> None:
    from .. import dtypes
    if t.ndim != 1 or t._dtype is not dtypes.int64:
        kind = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
                "float32": "Float", "float64": "Double", "bool": "Bool", "float16": "Half",
                "bfloat16": "BFloat16"}.get(t._dtype.name, t._dtype.name)
        raise RuntimeError(f"{what} should be a 1D CPU int64 tensor, but got {t.ndim}D cpu {kind} tensor")


# -- the recurrent layers over a packed batch ---------------------------------------------


def _cell(mode, pre, hidden, w_hh, b_hh, w_hr):
    """One step of torch's cell with the input projection ``pre`` already computed
    (``pre_compute_input`` on CPU): ``linear_hh(h).add_(pre)`` first."""
    if mode == "LSTM":
        h, c = hidden
        h2, c2 = lstm_from_gates(_lin(h, w_hh, b_hh) + pre, c)
        return (h2 @ w_hr.t() if w_hr is not None else h2), c2
    if mode == "GRU":
        return gru_from_chunks(unsafe_chunk(pre, 3, 1), hidden, w_hh, b_hh)
    pre = _lin(hidden, w_hh, b_hh) + pre
    return pre.tanh() if mode == "RNN_TANH" else pre.relu()


def _slice(hidden, start, end):
    if isinstance(hidden, tuple):
        return tuple(h.narrow(0, start, end - start) for h in hidden)
    return hidden.narrow(0, start, end - start)


def _concat(hiddens):
    from .shape import cat
    if isinstance(hiddens[0], tuple):
        return tuple(cat([h[k] for h in hiddens], 0) for k in range(len(hiddens[0])))
    return cat(hiddens, 0)


def _out(hidden):
    return hidden[0] if isinstance(hidden, tuple) else hidden


def _narrow_rows(t, start, length):
    """``t.narrow(0, start, length)`` with torch's bounds check (a PackedSequence whose
    batch sizes add up to more rows than its data)."""
    if start < 0 or start + length > t.shape[0]:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({t.shape[0]}).")
    return t.narrow(0, start, length)


def packed_layer(mode, data, bs, hidden, w, w_hr, reverse=False):
    """One direction of one layer over packed ``data`` with step sizes ``bs``: ``(output
    data, final hidden)``, the final hidden of each sequence taken at its own last step."""
    from .shape import cat
    w_ih, w_hh, b_ih, b_hh = w
    pre = _lin(data, w_ih, b_ih)
    outs = []
    if not reverse:
        finals, off, last = [], 0, bs[0]
        for b in bs:
            step = _narrow_rows(pre, off, b)
            off += b
            if last > b:
                finals.append(_slice(hidden, b, last))
                hidden = _slice(hidden, 0, b)
            last = b
            hidden = _cell(mode, step, hidden, w_hh, b_hh, w_hr)
            outs.append(_out(hidden))
        finals.append(hidden)
        finals.reverse()
        return cat(outs, 0), _concat(finals)
    initial, off, last = hidden, sum(bs), bs[-1]
    hidden = _slice(initial, 0, last)
    for b in reversed(bs):
        if b > last:
            hidden = _concat([hidden, _slice(initial, last, b)])
        step = _narrow_rows(pre, off - b, b)
        off -= b
        last = b
        hidden = _cell(mode, step, hidden, w_hh, b_hh, w_hr)
        outs.append(_out(hidden))
    outs.reverse()
    return cat(outs, 0), hidden


def packed_rnn(mode, data, bs, hx, layers, dropout, train, bidirectional):
    """torch 2.13's ``_rnn_impl``/``_lstm_impl`` over a packed batch: ``hx`` is the
    (L·D, N, H) state (a pair for LSTM), unbound per layer and direction; ``layers[k]``
    are the ``(w_ih, w_hh, b_ih, b_hh, w_hr)`` of layer·direction ``k``. Returns ``(output
    data, h_n)`` or ``(output data, h_n, c_n)``, the states stacked (StackBackward0)."""
    from .nn import dropout as _dropout
    from .shape import cat, stack
    if mode == "LSTM":
        hs = list(zip(hx[0].unbind(0), hx[1].unbind(0)))
    else:
        hs = list(hx.unbind(0))
    D = 2 if bidirectional else 1
    finals = []
    seq = data
    L = len(layers) // D
    for layer in range(L):
        outs = []
        for d in range(D):
            k = layer * D + d
            w = layers[k]
            out, h = packed_layer(mode, seq, bs, hs[k], w[:4], w[4], reverse=d == 1)
            outs.append(out)
            finals.append(h)
        seq = cat(outs, -1) if D == 2 else outs[0]
        if dropout != 0 and train and layer < L - 1:
            seq = _dropout(seq, dropout, True)
    if mode == "LSTM":
        return seq, stack([f[0] for f in finals], 0), stack([f[1] for f in finals], 0)
    return seq, stack(finals, 0)
