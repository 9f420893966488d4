"""``torch.nn`` normalisation layers and Embedding: BatchNorm1d/2d (running stats as
buffers, momentum incl. ``None`` = cumulative average, ``num_batches_tracked``),
LayerNorm, GroupNorm, Embedding (``padding_idx``, ``max_norm``, ``from_pretrained``).
Behaviour and reprs follow torch 2.13's ``torch/nn/modules/{batchnorm,normalization,sparse}.py``.
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..ops import FUNCTIONAL as F
from ..tensor import Tensor
from . import init
from .nn import Module, make_parameter


def _fill(shape, value, dtype):
    return Tensor._make(np.full(shape, value, dtype=dtype.np))


def _affine(m, affine, bias, shape, dtype):
    """weight = ones and bias = zeros (torch 2.13's ``bias=`` keyword), or None."""
    if affine:
        m.weight = make_parameter(_fill(shape, 1, dtype))
    else:
        object.__setattr__(m, "weight", None)
        m._params["weight"] = None
    if affine and bias:
        m.bias = make_parameter(_fill(shape, 0, dtype))
    else:
        object.__setattr__(m, "bias", None)
        m._params["bias"] = None


def _initialised(*tensors):
    """The version torch 2.13's ``reset_parameters`` leaves on each parameter and buffer
    it fills in place (``init.ones_``, ``zeros_``, ``fill_``): 1."""
    for t in tensors:
        if t is not None:
            t._version_counter.value += 1


class _BatchNorm(Module):
    _script_attrs = Module._script_attrs | {
        "num_features", "eps", "momentum", "affine", "track_running_stats", "weight", "bias", "running_mean",
        "running_var", "num_batches_tracked", "reset_running_stats", "reset_parameters"}
    _script_setattrs = Module._script_setattrs | {"momentum", "eps", "weight", "bias", "running_mean",
                                                  "running_var", "num_batches_tracked", "track_running_stats"}

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                 device=None, dtype=None, *, bias=True):
        super().__init__()
        dtype = dtype or dtypes.default_float
        set_ = object.__setattr__
        set_(self, "num_features", num_features)
        set_(self, "eps", eps)
        set_(self, "momentum", momentum)
        set_(self, "affine", affine)
        set_(self, "track_running_stats", track_running_stats)
        _affine(self, affine, bias, (num_features,), dtype)
        if track_running_stats:
            self.register_buffer("running_mean", _fill((num_features,), 0, dtype))
            self.register_buffer("running_var", _fill((num_features,), 1, dtype))
            self.register_buffer("num_batches_tracked", Tensor._make(np.array(0, dtype=np.int64)))
        else:
            for n in ("running_mean", "running_var", "num_batches_tracked"):
                self.register_buffer(n, None)
        _initialised(self.weight, self.bias, self.running_mean, self.running_var, self.num_batches_tracked)

    def reset_running_stats(self):
        if self.track_running_stats:
            init.zeros_(self.running_mean)
            init.ones_(self.running_var)
            init.zeros_(self.num_batches_tracked)

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def _check_input_dim(self, input):
        raise NotImplementedError

    def forward(self, input):
        self._check_input_dim(input)
        eaf = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            nbt = self.num_batches_tracked
            nbt._data[...] += 1
            nbt._version_counter.value += 1
            eaf = 1.0 / float(nbt._data) if self.momentum is None else self.momentum
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_stats = not self.training or self.track_running_stats
        return F["batch_norm"](input, self.running_mean if use_stats else None,
                               self.running_var if use_stats else None, self.weight, self.bias,
                               bn_training, eaf, self.eps)

    def _extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    """Batch norm over (N, C) or (N, C, L) input."""

    def _check_input_dim(self, input):
        if input.ndim not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch norm over (N, C, H, W) input."""

    def _check_input_dim(self, input):
        if input.ndim != 4:
            raise ValueError(f"expected 4D input (got {input.ndim}D input)")


class LayerNorm(Module):
    """``nn.LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=True, bias=True)``."""

    _script_attrs = Module._script_attrs | {"normalized_shape", "eps", "elementwise_affine", "weight", "bias",
                                            "reset_parameters"}
    _script_setattrs = Module._script_setattrs | {"eps", "weight", "bias"}

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None, dtype=None):
        super().__init__()
        dtype = dtype or dtypes.default_float
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        ns = tuple(normalized_shape)
        set_ = object.__setattr__
        set_(self, "normalized_shape", ns)
        set_(self, "eps", eps)
        set_(self, "elementwise_affine", elementwise_affine)
        _affine(self, elementwise_affine, bias, ns, dtype)
        _initialised(self.weight, self.bias)

    def reset_parameters(self):
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input):
        return F["layer_norm"](input, self.normalized_shape, self.weight, self.bias, self.eps)

    def _extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class GroupNorm(Module):
    """``nn.GroupNorm(num_groups, num_channels, eps=1e-5, affine=True)``."""

    _script_attrs = Module._script_attrs | {"num_groups", "num_channels", "eps", "affine", "weight", "bias",
                                            "reset_parameters"}
    _script_setattrs = Module._script_setattrs | {"weight", "bias"}

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        dtype = dtype or dtypes.default_float
        set_ = object.__setattr__
        set_(self, "num_groups", num_groups)
        set_(self, "num_channels", num_channels)
        set_(self, "eps", eps)
        set_(self, "affine", affine)
        _affine(self, affine, bias, (num_channels,), dtype)
        _initialised(self.weight, self.bias)

    def reset_parameters(self):
        if self.affine:
            init.ones_(self.weight)
            if self.bias is not None:
                init.zeros_(self.bias)

    def forward(self, input):
        return F["group_norm"](input, self.num_groups, self.weight, self.bias, self.eps)

    def _extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


def wrap_padding_idx(padding_idx, num_embeddings, word="Padding_idx"):
    """``padding_idx`` as nn.Embedding stores it (a negative one counted from the end), or
    torch's AssertionError when it is outside the table (nn.EmbeddingBag's text says
    ``padding_idx``)."""
    if padding_idx is None or padding_idx == 0:
        return padding_idx
    if padding_idx >= num_embeddings if padding_idx > 0 else padding_idx < -num_embeddings:
        raise AssertionError(f"{word} must be within num_embeddings")
    return num_embeddings + padding_idx if padding_idx < 0 else padding_idx


def zero_padding_row(weight, padding_idx) -> None:
    """torch's ``weight[padding_idx].fill_(0)`` under no_grad (one version bump), with its
    IndexError for a table without that row."""
    if padding_idx is None:
        return
    n = weight._data.shape[0]
    if padding_idx >= n:
        raise IndexError(f"index {padding_idx} is out of bounds for dimension 0 with size {n}")
    weight._data[padding_idx] = 0
    weight._version_counter.value += 1


class Embedding(Module):
    """``nn.Embedding(num_embeddings, embedding_dim, padding_idx=None, max_norm=None, ...)``:
    weight drawn from N(0, 1) with the ``padding_idx`` row zeroed (torch 2.13)."""

    _script_attrs = Module._script_attrs | {"num_embeddings", "embedding_dim", "padding_idx", "max_norm",
                                            "norm_type", "scale_grad_by_freq", "sparse", "weight",
                                            "reset_parameters"}
    _script_setattrs = Module._script_setattrs | {"weight"}
    _script_class_attrs = frozenset({"from_pretrained"})

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, sparse=False, _weight=None, _freeze=False, device=None, dtype=None):
        super().__init__()
        dtype = dtype or dtypes.default_float
        padding_idx = wrap_padding_idx(padding_idx, num_embeddings)
        set_ = object.__setattr__
        set_(self, "num_embeddings", num_embeddings)
        set_(self, "embedding_dim", embedding_dim)
        set_(self, "padding_idx", padding_idx)
        set_(self, "max_norm", max_norm)
        set_(self, "norm_type", norm_type)
        set_(self, "scale_grad_by_freq", scale_grad_by_freq)
        set_(self, "sparse", sparse)
        if _weight is None:
            self.weight = make_parameter(Tensor._make(np.empty((num_embeddings, embedding_dim), dtype=dtype.np)),
                                         requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = make_parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self):
        init.normal_(self.weight)
        zero_padding_row(self.weight, self.padding_idx)

    def forward(self, input):
        return F["embedding"](input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                              self.scale_grad_by_freq, self.sparse)

    def _extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq=True"
        if self.sparse is not False:
            s += ", sparse=True"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None, norm_type=2.0,
                        scale_grad_by_freq=False, sparse=False):
        """An Embedding whose weight is ``embeddings`` (2-d; shared data), frozen unless
        ``freeze=False``."""
        if embeddings.ndim != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=embeddings, _freeze=freeze)


MEMBERS = {c.__name__: c for c in (BatchNorm1d, BatchNorm2d, LayerNorm, GroupNorm, Embedding)}
