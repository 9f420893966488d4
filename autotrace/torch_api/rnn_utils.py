"""``torch.nn.utils.rnn.pad_sequence``: a list of variable-length tensors ``(L_i, *)`` into
one padded tensor, as torch 2.13's ATen composite builds it (a ``full`` tensor, then each
sequence copied into its slot: the result's ``grad_fn`` is CopySlices)."""

from __future__ import annotations

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


MEMBERS = {"pad_sequence": pad_sequence}
