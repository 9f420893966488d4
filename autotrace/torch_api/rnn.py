"""``torch.nn`` recurrent layers: RNNCell, LSTMCell, GRUCell and the multi-layer RNN,
LSTM, GRU (``num_layers``, ``batch_first``, ``bias``, unbatched input, ``h0``/``c0``).

Parameters are named and initialised as torch 2.13 does (``weight_ih_l0``,
``weight_hh_l0``, ``bias_ih_l0``, ``bias_hh_l0``, ...; every one drawn from
``U(−1/√hidden, 1/√hidden)`` in registration order). Sequences run the cells step by
step (outputs stacked, StackBackward0), so values and gradients agree with torch.
``bidirectional=True`` runs a second, reversed pass per layer (parameters ``*_reverse``,
outputs concatenated on the feature dim, CatBackward0); ``proj_size`` (LSTM) projects
each hidden state with ``weight_hr_l{k}`` as torch's default (non-oneDNN) path does.
"""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes
from ..ops import rnn as R
from ..ops.shape import stack
from ..tensor import Tensor
from . import init
from .nn import Module, make_parameter

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _zeros(shape, like):
    return Tensor._make(np.zeros(shape, dtype=like._data.dtype))


class _CellBase(Module):
    _script_attrs = Module._script_attrs | {"input_size", "hidden_size", "bias", "weight_ih", "weight_hh",
                                            "bias_ih", "bias_hh", "nonlinearity", "reset_parameters"}
    _script_setattrs = Module._script_setattrs | {"weight_ih", "weight_hh", "bias_ih", "bias_hh"}
    _gates = 1

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__()
        dtype = dtype or dtypes.default_float
        set_ = object.__setattr__
        set_(self, "input_size", input_size)
        set_(self, "hidden_size", hidden_size)
        set_(self, "bias", bias)
        g = self._gates * hidden_size
        self.weight_ih = make_parameter(Tensor._make(np.empty((g, input_size), dtype=dtype.np)))
        self.weight_hh = make_parameter(Tensor._make(np.empty((g, hidden_size), dtype=dtype.np)))
        if bias:
            self.bias_ih = make_parameter(Tensor._make(np.empty((g,), dtype=dtype.np)))
            self.bias_hh = make_parameter(Tensor._make(np.empty((g,), dtype=dtype.np)))
        else:
            for n in ("bias_ih", "bias_hh"):
                set_(self, n, None)
                self._params[n] = None
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for p in self.parameters():
            init.uniform_(p, -stdv, stdv)

    def _check(self, input, hx):
        if input.ndim not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        if hx is not None and hx.ndim not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected hidden to be 1D or 2D, got {hx.ndim}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} expected {self.input_size}")

    def _extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nl = getattr(self, "nonlinearity", "tanh")
        if nl != "tanh":
            s += f", nonlinearity={nl}"
        return s


class RNNCell(_CellBase):
    """``h' = tanh(x W_ihᵀ + b_ih + h W_hhᵀ + b_hh)`` (or relu)."""

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None, dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        object.__setattr__(self, "nonlinearity", nonlinearity)
        super().__init__(input_size, hidden_size, bias, device, dtype)

    def forward(self, input, hx=None):
        self._check(input, hx)
        batched = input.ndim == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = _zeros((input.shape[0], self.hidden_size), input)
        elif not batched:
            hx = hx.unsqueeze(0)
        h = R.rnn_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh, self.nonlinearity)
        return h if batched else h.squeeze(0)


class LSTMCell(_CellBase):
    """Returns ``(h', c')``; ``hx`` is a pair ``(h, c)`` or None (zeros)."""

    _gates = 4

    def forward(self, input, hx=None):
        self._check(input, None)
        batched = input.ndim == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            z = _zeros((input.shape[0], self.hidden_size), input)
            hx = (z, z)
        elif not batched:
            hx = (hx[0].unsqueeze(0), hx[1].unsqueeze(0))
        h, c = R.lstm_cell(input, hx[0], hx[1], self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(_CellBase):
    _gates = 3

    def forward(self, input, hx=None):
        self._check(input, hx)
        batched = input.ndim == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            hx = _zeros((input.shape[0], self.hidden_size), input)
        elif not batched:
            hx = hx.unsqueeze(0)
        h = R.gru_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return h if batched else h.squeeze(0)


class _RNNBase(Module):
    _mode = "RNN_TANH"
    _script_attrs = Module._script_attrs | {"input_size", "hidden_size", "num_layers", "bias", "batch_first",
                                            "dropout", "bidirectional", "proj_size", "nonlinearity", "mode",
                                            "all_weights", "flatten_parameters", "reset_parameters"} | {
        f"{k}_l{i}{sfx}" for k in ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr") for i in range(16)
        for sfx in ("", "_reverse")}

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, proj_size=0, device=None, dtype=None, nonlinearity=None):
        super().__init__()
        # torch 2.13's checks, in its order
        if not isinstance(dropout, (int, float)) or isinstance(dropout, bool) or not 0 <= dropout <= 1:
            raise ValueError("dropout should be a number in range [0, 1] representing the probability of an "
                             "element being zeroed")
        if dropout > 0 and num_layers == 1:
            from .. import diagnostics
            diagnostics.warn("dropout option adds dropout after all but last recurrent layer, so non-zero "
                             f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
                             f"num_layers={num_layers}")
        for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                                  ("input_size", input_size, int)):
            if not isinstance(value, kind):
                raise TypeError(f"{name} should be of type {kind.__name__}, got: {type(value).__name__}")
        if input_size <= 0:
            raise ValueError("input_size must be greater than zero")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        dtype = dtype or dtypes.default_float
        set_ = object.__setattr__
        for k, v in (("input_size", input_size), ("hidden_size", hidden_size), ("num_layers", num_layers),
                     ("bias", bias), ("batch_first", batch_first), ("dropout", float(dropout)),
                     ("bidirectional", bidirectional), ("proj_size", proj_size), ("mode", self._mode)):
            set_(self, k, v)
        if nonlinearity is not None:
            set_(self, "nonlinearity", nonlinearity)
        g = _GATES[self._mode] * hidden_size
        real = proj_size or hidden_size
        dirs = 2 if bidirectional else 1

        def param(*shape):
            return make_parameter(Tensor._make(np.empty(shape, dtype=dtype.np)))

        for layer in range(num_layers):
            ins = input_size if layer == 0 else real * dirs
            for sfx in ("", "_reverse")[:dirs]:
                setattr(self, f"weight_ih_l{layer}{sfx}", param(g, ins))
                setattr(self, f"weight_hh_l{layer}{sfx}", param(g, real))
                if bias:
                    setattr(self, f"bias_ih_l{layer}{sfx}", param(g))
                    setattr(self, f"bias_hh_l{layer}{sfx}", param(g))
                if proj_size:
                    setattr(self, f"weight_hr_l{layer}{sfx}", param(proj_size, hidden_size))
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size)
        for p in self.parameters():
            init.uniform_(p, -stdv, stdv)

    def flatten_parameters(self):
        return None

    def _names(self, layer, sfx):
        names = ["weight_ih", "weight_hh"] + (["bias_ih", "bias_hh"] if self.bias else [])
        names += ["weight_hr"] if self.proj_size else []
        return [f"{n}_l{layer}{sfx}" for n in names]

    @property
    def all_weights(self):
        sfxs = ("", "_reverse") if self.bidirectional else ("",)
        return [[self._params[n] for n in self._names(layer, sfx)]
                for layer in range(self.num_layers) for sfx in sfxs]

    def _layer(self, layer, sfx=""):
        p = self._params
        s = f"_l{layer}{sfx}"
        return (p["weight_ih" + s], p["weight_hh" + s], p.get("bias_ih" + s), p.get("bias_hh" + s))

    def _step(self, x, state, w):
        raise NotImplementedError

    def _run_direction(self, seq, state, layer, sfx, reverse):
        """One direction of one layer: (outputs (T, N, out), last state)."""
        is_lstm = self._mode == "LSTM"
        w = self._layer(layer, sfx)
        if is_lstm and not self.proj_size and seq._data.dtype == np.float32:
            out, hy, cy = R.lstm_layer(seq, state[0], state[1], *w, reverse=reverse)  # torch's CPU dispatch
            return out, (hy, cy)
        w_hr = self._params.get(f"weight_hr_l{layer}{sfx}")
        T = seq.shape[0]
        outs = []
        for t in (reversed(range(T)) if reverse else range(T)):
            state = self._step(seq[t], state, w)
            if w_hr is not None:
                state = (state[0] @ w_hr.t(), state[1])
            outs.append(state[0] if is_lstm else state)
        if reverse:
            outs.reverse()
        return stack(outs, 0), state

    def _run_layers(self, seq, hx):
        """The layers over a (T, N, I) sequence from ``hx``: ``(output, [h_T per layer and
        direction], [c_T ...])``."""
        from ..ops.nn import dropout as _dropout
        from ..ops.shape import cat
        is_lstm = self._mode == "LSTM"
        D = 2 if self.bidirectional else 1
        L = self.num_layers
        h_last, c_last = [], []
        for layer in range(L):
            outs = []
            for d, sfx in enumerate(("", "_reverse")[:D]):
                k = layer * D + d
                state = (hx[0][k], hx[1][k]) if is_lstm else hx[k]
                out, state = self._run_direction(seq, state, layer, sfx, reverse=d == 1)
                outs.append(out)
                h_last.append(state[0] if is_lstm else state)
                if is_lstm:
                    c_last.append(state[1])
            seq = cat(outs, 2) if D == 2 else outs[0]
            if self.dropout > 0 and self.training and layer < L - 1:
                seq = _dropout(seq, self.dropout, True)
        return seq, h_last, c_last

    def _forward_packed(self, packed, hx):
        """A PackedSequence batch, as torch 2.13's ``forward``: ``hx`` put in the sorted order
        (IndexSelectBackward0), the layers run over the packed data
        (:func:`~autotrace.ops.packed.packed_rnn`), the output a PackedSequence with the
        same batch sizes and indices, ``h_n`` (and ``c_n``) back in the original order."""
        from ..ops import packed as P
        from .rnn_utils import PackedSequence
        is_lstm = self._mode == "LSTM"
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        bs = P.batch_sizes_of(batch_sizes)
        if not bs:
            raise IndexError("index 0 is out of bounds for dimension 0 with size 0")
        D = 2 if self.bidirectional else 1
        L, H = self.num_layers, self.hidden_size
        real = self.proj_size or H
        if hx is None:
            z = _zeros((L * D, bs[0], real), data)
            hx = (z, _zeros((L * D, bs[0], H), data)) if is_lstm else z
        elif sorted_indices is not None:
            hx = tuple(h.index_select(1, sorted_indices) for h in hx) if is_lstm else \
                hx.index_select(1, sorted_indices)
        if not is_lstm:
            if data.ndim != 2:
                raise RuntimeError(f"input must have 2 dimensions, got {data.ndim}")
            if data.shape[-1] != self.input_size:
                raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                                   f"got {data.shape[-1]}")
            expected = (L * D, bs[0], H)
            if tuple(hx.shape) != expected:
                raise RuntimeError(f"Expected hidden size {expected}, got {list(hx.shape)}")
        layers = [self._layer(layer, sfx) + (self._params.get(f"weight_hr_l{layer}{sfx}"),)
                  for layer in range(L) for sfx in ("", "_reverse")[:D]]
        if is_lstm and not self.proj_size and data._data.dtype == np.float32 and data.ndim == 2 \
                and bs.count(bs[0]) == len(bs):
            # every sequence full length: torch 2.13 runs its oneDNN layers on data.view(T, N, I)
            seq, h_last, c_last = self._run_layers(data.view(len(bs), bs[0], data.shape[1]), hx)
            res = (seq.view(-1, seq.shape[2]), stack(h_last, 0), stack(c_last, 0))
        else:
            res = P.packed_rnn(self._mode, data, bs, hx, layers, self.dropout, self.training, self.bidirectional)
        out = PackedSequence(res[0], batch_sizes, sorted_indices, unsorted_indices)
        hidden = res[1:] if is_lstm else res[1]
        if unsorted_indices is not None:
            hidden = tuple(h.index_select(1, unsorted_indices) for h in hidden) if is_lstm else \
                hidden.index_select(1, unsorted_indices)
        return out, hidden

    def forward(self, input, hx=None):
        from ..ops.nn import dropout as _dropout
        from ..ops.shape import cat
        from .rnn_utils import PackedSequence
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        is_lstm = self._mode == "LSTM"
        if input.ndim not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got {input.ndim}D instead")
        batched = input.ndim == 3
        if not batched:
            input = input.unsqueeze(1)
            if hx is not None:
                hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1)) if is_lstm else hx.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                               f"got {input.shape[-1]}")
        if is_lstm and self.proj_size and input._data.dtype == np.float32:
            from .. import diagnostics
            diagnostics.warn_once("LSTM with projections is not supported with oneDNN. Using default implementation.")
        T, N = input.shape[0], input.shape[1]
        D = 2 if self.bidirectional else 1
        L, H = self.num_layers, self.hidden_size
        real = self.proj_size or H
        if hx is None:
            z = _zeros((L * D, N, real), input)
            hx = (z, _zeros((L * D, N, H), input)) if is_lstm else z
        else:
            checks = [(hx[0], (L * D, N, real), "hidden[0] "), (hx[1], (L * D, N, H), "hidden[1] ")] if is_lstm \
                else [(hx, (L * D, N, H), "hidden ")]
            for t, expected, what in checks:
                if tuple(t.shape) != expected:
                    raise RuntimeError(f"Expected {what}size ({', '.join(map(str, expected))}), got {list(t.shape)}")
        seq, h_last, c_last = self._run_layers(input, hx)
        hn = stack(h_last, 0)
        out = seq
        if not batched:
            out = out.squeeze(1)
            hn = hn.squeeze(1)
        elif self.batch_first:
            out = out.transpose(0, 1) if is_lstm else R.batch_first_output(out)
        if is_lstm:
            cn = stack(c_last, 0)
            if not batched:
                cn = cn.squeeze(1)
            return out, (hn, cn)
        return out, hn

    def _extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class RNN(_RNNBase):
    def __init__(self, *args, nonlinearity="tanh", **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        object.__setattr__(self, "_mode", "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU")
        super().__init__(*args, nonlinearity=nonlinearity, **kwargs)

    def _step(self, x, h, w):
        return R.rnn_cell(x, h, *w, "tanh" if self._mode == "RNN_TANH" else "relu")

    def _extra_repr(self):
        s = super()._extra_repr()
        return s + ", nonlinearity=relu" if self._mode == "RNN_RELU" else s


class LSTM(_RNNBase):
    _mode = "LSTM"

    def _step(self, x, state, w):
        return R.lstm_cell(x, state[0], state[1], *w)


class GRU(_RNNBase):
    _mode = "GRU"

    def __init__(self, *args, **kwargs):
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__(*args, **kwargs)

    def _step(self, x, h, w):
        return R.gru_cell(x, h, *w)


MEMBERS = {c.__name__: c for c in (RNNCell, LSTMCell, GRUCell, RNN, LSTM, GRU)}
