"""``nn.EmbeddingBag``: a (num_embeddings, embedding_dim) weight drawn from N(0, 1) as
torch 2.13 does (the ``padding_idx`` row zeroed), calling ``F.embedding_bag``."""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..ops import FUNCTIONAL as F
from ..resources import check_shape
from ..tensor import Tensor
from . import init
from .nn import Module, make_parameter
from .norm_layers import wrap_padding_idx, zero_padding_row


class EmbeddingBag(Module):
    _script_attrs = Module._script_attrs | {"num_embeddings", "embedding_dim", "max_norm", "norm_type",
                                            "scale_grad_by_freq", "mode", "sparse", "include_last_offset",
                                            "padding_idx", "weight", "reset_parameters"}
    _script_setattrs = Module._script_setattrs | {"weight"}

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 mode="mean", sparse=False, _weight=None, include_last_offset=False, padding_idx=None,
                 device=None, dtype=None):
        super().__init__()
        padding_idx = wrap_padding_idx(padding_idx, num_embeddings, "padding_idx")
        dt = dtype or dtypes.default_float
        for k, v in (("num_embeddings", num_embeddings), ("embedding_dim", embedding_dim), ("max_norm", max_norm),
                     ("norm_type", norm_type), ("scale_grad_by_freq", scale_grad_by_freq), ("mode", mode),
                     ("sparse", sparse), ("include_last_offset", include_last_offset), ("padding_idx", padding_idx)):
            object.__setattr__(self, k, v)
        if _weight is None:
            check_shape((num_embeddings, embedding_dim), dt.itemsize)
            self.weight = make_parameter(Tensor._make(np.empty((num_embeddings, embedding_dim), dtype=dt.np)))
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = make_parameter(_weight)

    def reset_parameters(self):
        init.normal_(self.weight)
        zero_padding_row(self.weight, self.padding_idx)

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F["embedding_bag"](input, self.weight, offsets, self.max_norm, self.norm_type,
                                  self.scale_grad_by_freq, self.mode, self.sparse, per_sample_weights,
                                  self.include_last_offset, self.padding_idx)

    def _extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq=True"
        s += f", mode='{self.mode}'"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s


MEMBERS = {"EmbeddingBag": EmbeddingBag}
