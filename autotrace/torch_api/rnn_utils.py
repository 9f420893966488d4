"""``torch.nn.utils.rnn``: ``pad_sequence`` (a list of variable-length tensors ``(L_i, *)``
into one padded tensor, as torch 2.13's ATen composite builds it: a ``full`` tensor, then
each sequence copied into its slot, so the result's ``grad_fn`` is CopySlices), and the
packed sequences: ``PackedSequence``, ``pack_padded_sequence``, ``pad_packed_sequence``,
``pack_sequence``, ``unpack_sequence``, ``unpad_sequence``, each as torch 2.13's Python
and ATen code does it (same steps, nodes and errors)."""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .. import resources
from ..tensor import Tensor


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """``(max_len, B, *)`` (or ``(B, max_len, *)`` with ``batch_first``) filled with
    ``padding_value``, sequence ``i`` at the start (``padding_side='right'``) or the end
    (``'left'``) of its slot, in the first sequence's dtype. Trailing dims must agree."""
    from ..interpreter.ops import take
    from .creation import full
    if isinstance(sequences, Tensor):
        sequences = list(sequences.unbind(0))
    seqs = take(sequences)
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    for s in seqs:
        if not isinstance(s, Tensor):
            raise TypeError(f"pad_sequence(): argument 'sequences' must be tuple of Tensors, not {type(s).__name__}")
        if s.ndim == 0:
            raise RuntimeError("Dimension specified as 0 but tensor has no dimensions")
    trailing = tuple(seqs[0].shape[1:])
    max_len = max(s.shape[0] for s in seqs)
    n = len(seqs)
    dims = ((n, max_len) if batch_first else (max_len, n)) + trailing
    resources.check_shape(dims)
    out = full(dims, padding_value, dtype=seqs[0].dtype)
    for i, s in enumerate(seqs):
        length = s.shape[0]
        _check_copy((length,) + trailing, tuple(s.shape))
        start = max_len - length if padding_side == "left" else 0
        if batch_first:
            out[i, start:start + length] = s
        else:
            out[start:start + length, i] = s
    return out


def _check_copy(dst, src):
    """``copy_``'s broadcast check (src must broadcast to dst), with its message."""
    if len(src) > len(dst):
        raise RuntimeError(f"The size of tensor a ({dst[0] if dst else 1}) must match the size of tensor b "
                           f"({src[0]}) at non-singleton dimension 0")
    for j in range(1, len(src) + 1):
        a, b = dst[-j], src[-j]
        if b != 1 and a != b:
            raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b ({b}) at "
                               f"non-singleton dimension {len(dst) - j}")


def _invert_permutation(permutation):
    if permutation is None:
        return None
    out = np.empty_like(permutation._data)
    out[permutation._data] = np.arange(permutation._data.size)
    return Tensor._make(out)


class PackedSequence(namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """torch 2.13's ``PackedSequence``: a named tuple ``(data, batch_sizes, sorted_indices,
    unsorted_indices)``; ``data`` is ``(sum(lengths), *)``, ``batch_sizes`` the int64 number
    of sequences still running at each step, ``sorted_indices`` the order by decreasing
    length (None when the batch came sorted) and ``unsorted_indices`` its inverse.
    Built as ``PackedSequence(data, batch_sizes, sorted_indices=None, unsorted_indices=None)``
    or ``PackedSequence((data, batch_sizes))``."""

    __slots__ = ()
    _script_attrs = frozenset({"data", "batch_sizes", "sorted_indices", "unsorted_indices", "to", "cpu",
                               "double", "float", "half", "long", "int", "short", "char", "byte", "is_cuda",
                               "is_pinned"})

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = _invert_permutation(sorted_indices)
        if batch_sizes is None:
            if not (isinstance(data, (list, tuple)) and len(data) == 2):
                raise AssertionError("Expected data to be a list or tuple of length 2")
            data, batch_sizes = data
        elif not isinstance(batch_sizes, Tensor):
            from ..interpreter.errors import ScriptAttributeError
            raise ScriptAttributeError(f"'{type(batch_sizes).__name__}' object has no attribute 'device'")
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """``data.to(...)``; the same object when ``data`` is unchanged."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return type(self)(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self):
        return self.to("cpu")

    def _as(self, name):
        from .. import dtypes
        return self.to(dtype=getattr(dtypes, name))

    def double(self):
        return self._as("float64")

    def float(self):
        return self._as("float32")

    def half(self):
        return self._as("float16")

    def long(self):
        return self._as("int64")

    def int(self):
        return self._as("int32")

    def short(self):
        return self._as("int16")

    def char(self):
        return self._as("int8")

    def byte(self):
        return self._as("uint8")

    @property
    def is_cuda(self):
        return False

    def is_pinned(self):
        return False


PackedSequence.__module__ = "torch.nn.utils.rnn"
PackedSequence.__qualname__ = "PackedSequence"


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """A padded batch ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) and its ``lengths``
    (list or tensor, converted to int64) into a :class:`PackedSequence` whose ``data`` has
    grad_fn PackPaddedSequenceBackward0. ``enforce_sorted=False`` sorts the batch by
    decreasing length first (``index_select``: IndexSelectBackward0). Errors as torch
    2.13: RuntimeError for unsorted lengths with ``enforce_sorted``, a length <= 0, a
    wrong number of lengths, empty input, lengths not 1-d."""
    from .. import dtypes
    from ..ops import packed
    from ..ops.sorting import sort
    from .creation import as_tensor
    if not isinstance(input, Tensor):
        raise TypeError(f"_pack_padded_sequence(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if not isinstance(lengths, Tensor):
        lengths = as_tensor(lengths, dtype=dtypes.int64)
    else:
        lengths = lengths.to(dtype=dtypes.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = sort(lengths, descending=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    packed.check_lengths(lengths)
    data, batch_sizes = packed.pack_padded(input, lengths._data, bool(batch_first))
    return PackedSequence(data, Tensor._make(batch_sizes), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The inverse of :func:`pack_padded_sequence`: ``(padded, lengths)``, ``padded`` of shape
    ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) filled with ``padding_value``, ``T``
    the longest length or ``total_length``, in the original batch order; ``lengths`` int64.
    grad_fn as torch 2.13: CopySlices, TransposeBackward0 (``batch_first``) or
    IndexSelectBackward0 (a batch that was sorted). ValueError when ``total_length`` is
    shorter than the longest sequence."""
    from ..ops import packed
    from .creation import full
    max_seq_length = sequence.batch_sizes.shape[0]
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, "
                             f"but got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    data = sequence.data
    bs = np.asarray(packed.batch_sizes_of(sequence.batch_sizes), dtype=np.int64)
    if bs.size == 0:
        raise IndexError("index 0 is out of bounds for dimension 0 with size 0")
    max_batch = int(bs[0])
    dims = (int(max_seq_length), max_batch) + tuple(data.shape[1:])
    resources.check_shape(dims)
    out = full(dims, padding_value, dtype=data.dtype)
    change = np.flatnonzero(np.diff(np.append(bs, 0))) + 1     # ends of the runs of equal sizes
    offset, start = 0, 0
    for end in change.tolist():
        size = int(bs[start])
        n = size * (end - start)
        if size > 0:
            piece = data.narrow(0, offset, n).view((end - start, size) + tuple(data.shape[1:]))
            out.narrow(0, start, end - start).narrow(1, 0, size).copy_(piece)
        offset += n
        start = end
    asc = bs[::-1]
    lengths = (bs.size - np.searchsorted(asc, np.arange(max_batch), side="right")).astype(np.int64)
    if batch_first:
        out = out.transpose(0, 1)
    lengths = Tensor._make(lengths)
    if sequence.unsorted_indices is not None:
        return out.index_select(0 if batch_first else 1, sequence.unsorted_indices), \
            lengths[sequence.unsorted_indices]
    return out, lengths


def pack_sequence(sequences, enforce_sorted=True):
    """``pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=...)`` with
    each sequence's ``size(0)`` as its length."""
    from ..interpreter.ops import take
    from .creation import as_tensor
    seqs = take(sequences)
    lengths = as_tensor([v.size(0) for v in seqs])
    return pack_padded_sequence(pad_sequence(seqs), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences ``padded[b, :lengths[b]]`` (each IndexBackward0, a boolean
    mask of the steps). torch 2.13 transposes a time-major ``padded`` in place first;
    that form is refused here."""
    from .creation import arange
    if not batch_first:
        raise NotImplementedError("unpad_sequence with batch_first=False (torch transposes the padded tensor "
                                  "in place) is not supported by autotrace yet")
    idx = arange(padded_sequences.shape[1])
    return [seq[idx < length] for seq, length in zip(padded_sequences.unbind(0), lengths.unbind(0))]


def unpack_sequence(packed_sequences):
    """The list of the sequences of a :class:`PackedSequence`, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


MEMBERS = {f.__name__: f for f in (pad_sequence, PackedSequence, pack_padded_sequence, pad_packed_sequence,
                                   pack_sequence, unpad_sequence, unpack_sequence)}
