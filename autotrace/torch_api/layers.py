"""``torch.nn`` layers beyond Linear: containers, activations, dropout, losses.

Each layer is a :class:`~autotrace.torch_api.nn.Module` whose ``forward`` calls the
matching ``torch.nn.functional`` op, so graphs are identical to PyTorch's; reprs match
torch 2.13 (``ReLU()``, ``Dropout(p=0.5, inplace=False)``, ``Sequential(`` with
``(0): ...`` children).
"""

from __future__ import annotations

from ..ops import FUNCTIONAL as F
from .nn import Module


class Sequential(Module):
    """Calls its children in order; indexable, iterable, ``len()``-able."""

    _script_attrs = Module._script_attrs | {"append"}

    def __init__(self, *modules):
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], dict):
            # names become registry keys only (torch's add_module checks), never attributes
            for name, m in modules[0].items():
                self.add_module(name, m)
        else:
            for i, m in enumerate(modules):
                self.add_module(str(i), m)

    def forward(self, input):
        for m in self._modules.values():
            input = m(input)
        return input

    def append(self, module):
        self.add_module(str(len(self._modules)), module)
        return self

    def __getitem__(self, idx):
        items = list(self._modules.items())
        if isinstance(idx, slice):
            from collections import OrderedDict
            return Sequential(OrderedDict(items[idx]))
        if not isinstance(idx, int):
            raise TypeError(f"{type(idx).__name__} object cannot be interpreted as an integer")
        n = len(items)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range")
        return items[idx][1]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(list(self._modules.values()))


class _Simple(Module):
    _fn = None

    def forward(self, input):
        return F[self._fn](input)


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        object.__setattr__(self, "inplace", inplace)

    def forward(self, input):
        if self.inplace:
            return input.relu_()
        return F["relu"](input)

    def _extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Tanh(_Simple):
    _fn = "tanh"


class Sigmoid(_Simple):
    _fn = "sigmoid"


class LeakyReLU(Module):
    def __init__(self, negative_slope=0.01, inplace=False):
        super().__init__()
        object.__setattr__(self, "negative_slope", negative_slope)
        object.__setattr__(self, "inplace", inplace)

    def forward(self, input):
        return F["leaky_relu"](input, self.negative_slope, self.inplace)

    def _extra_repr(self):
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    def __init__(self, approximate="none"):
        super().__init__()
        object.__setattr__(self, "approximate", approximate)

    def forward(self, input):
        return F["gelu"](input, approximate=self.approximate)

    def _extra_repr(self):
        return f"approximate={self.approximate!r}"


class Softmax(Module):
    def __init__(self, dim=None):
        super().__init__()
        object.__setattr__(self, "dim", dim)

    def forward(self, input):
        return F["softmax"](input, self.dim)

    def _extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    def forward(self, input):
        return F["log_softmax"](input, self.dim)


class Dropout(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        object.__setattr__(self, "p", p)
        object.__setattr__(self, "inplace", inplace)

    def forward(self, input):
        return F["dropout"](input, self.p, self.training, self.inplace)

    def _extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(Dropout):
    def forward(self, input):
        return F["dropout1d"](input, self.p, self.training, self.inplace)


class Dropout2d(Dropout):
    def forward(self, input):
        return F["dropout2d"](input, self.p, self.training, self.inplace)


class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        object.__setattr__(self, "start_dim", start_dim)
        object.__setattr__(self, "end_dim", end_dim)

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def _extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class _Loss(Module):
    _fn = None
    _keys = ()

    def __init__(self, size_average=None, reduce=None, reduction="mean", **kwargs):
        super().__init__()
        from ..ops.nn import _reduction
        if size_average is not None or reduce is not None:
            reduction = _reduction(size_average, reduce, "mean")
        object.__setattr__(self, "reduction", reduction)
        for k, default in self._keys:
            object.__setattr__(self, k, kwargs.pop(k, default))
        if kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'")

    def forward(self, input, target):
        extra = {k: getattr(self, k) for k, _ in self._keys}
        return F[self._fn](input, target, reduction=self.reduction, **extra)


class MSELoss(_Loss):
    _fn = "mse_loss"


class L1Loss(_Loss):
    _fn = "l1_loss"


class CrossEntropyLoss(_Loss):
    _fn = "cross_entropy"
    _keys = (("weight", None), ("ignore_index", -100), ("label_smoothing", 0.0))

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__(size_average, reduce, reduction, weight=weight, ignore_index=ignore_index,
                         label_smoothing=label_smoothing)


class NLLLoss(_Loss):
    _fn = "nll_loss"
    _keys = (("weight", None), ("ignore_index", -100))

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction, weight=weight, ignore_index=ignore_index)


class BCELoss(_Loss):
    _fn = "binary_cross_entropy"
    _keys = (("weight", None),)

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction, weight=weight)


class BCEWithLogitsLoss(_Loss):
    _fn = "binary_cross_entropy_with_logits"
    _keys = (("weight", None), ("pos_weight", None))

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean", pos_weight=None):
        super().__init__(size_average, reduce, reduction, weight=weight, pos_weight=pos_weight)


class ELU(Module):
    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        object.__setattr__(self, "alpha", alpha)
        object.__setattr__(self, "inplace", inplace)

    def forward(self, input):
        return F["elu"](input, self.alpha, self.inplace)

    def _extra_repr(self):
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class SiLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        object.__setattr__(self, "inplace", inplace)

    def forward(self, input):
        return F["silu"](input, self.inplace)

    def _extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Softplus(Module):
    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        object.__setattr__(self, "beta", beta)
        object.__setattr__(self, "threshold", threshold)

    def forward(self, input):
        return F["softplus"](input, self.beta, self.threshold)

    def _extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Hardtanh(Module):
    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        if max_val <= min_val:
            raise AssertionError("")
        object.__setattr__(self, "min_val", min_val)
        object.__setattr__(self, "max_val", max_val)
        object.__setattr__(self, "inplace", inplace)

    def forward(self, input):
        return F["hardtanh"](input, self.min_val, self.max_val, self.inplace)

    def _extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class ReLU6(Hardtanh):
    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def _extra_repr(self):
        return "inplace=True" if self.inplace else ""


class SmoothL1Loss(_Loss):
    _fn = "smooth_l1_loss"
    _keys = (("beta", 1.0),)

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction, beta=beta)


class HuberLoss(_Loss):
    _fn = "huber_loss"
    _keys = (("delta", 1.0),)

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(None, None, reduction, delta=delta)


class KLDivLoss(_Loss):
    _fn = "kl_div"
    _keys = (("log_target", False),)

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        if size_average is None and reduce is None and reduction not in ("none", "mean", "sum", "batchmean"):
            raise ValueError(f"{reduction} is not a valid value for reduction")
        Module.__init__(self)
        from ..ops.nn import _reduction
        if size_average is not None or reduce is not None:
            reduction = _reduction(size_average, reduce, "mean")
        object.__setattr__(self, "reduction", reduction)
        object.__setattr__(self, "log_target", log_target)


class MarginRankingLoss(_Loss):
    """``F.margin_ranking_loss(input1, input2, target, margin, reduction=...)``."""
    _keys = (("margin", 0.0),)

    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction, margin=margin)

    def forward(self, input1, input2, target):
        return F["margin_ranking_loss"](input1, input2, target, margin=self.margin, reduction=self.reduction)


class CosineSimilarity(Module):
    """``F.cosine_similarity(x1, x2, dim, eps)``."""

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        object.__setattr__(self, "dim", dim)
        object.__setattr__(self, "eps", eps)

    def forward(self, x1, x2):
        return F["cosine_similarity"](x1, x2, self.dim, self.eps)


class PReLU(Module):
    """``max(0, x) + weight · min(0, x)`` with a learnable ``weight`` of ``num_parameters``
    values (one per channel, dim 1), initialised to ``init``."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        import numpy as np

        from .. import dtypes
        from ..tensor import Tensor
        from .nn import make_parameter
        dt = dtype or dtypes.default_float
        object.__setattr__(self, "num_parameters", num_parameters)
        object.__setattr__(self, "init", init)
        self.weight = make_parameter(Tensor._make(np.full((num_parameters,), init, dtype=dt.np)))
        self.weight._version_counter.value += 1   # torch 2.13 fills it with init.constant_

    def forward(self, input):
        return F["prelu"](input, self.weight)

    def _extra_repr(self):
        return f"num_parameters={self.num_parameters}"


MEMBERS = {c.__name__: c for c in (
    Sequential, Identity, ReLU, Tanh, Sigmoid, LeakyReLU, GELU, Softmax, LogSoftmax, Dropout, Dropout1d,
    Dropout2d, Flatten,
    MSELoss, L1Loss, CrossEntropyLoss, NLLLoss, BCELoss, BCEWithLogitsLoss, ELU, SiLU, Softplus, Hardtanh,
    ReLU6, SmoothL1Loss, HuberLoss, KLDivLoss, MarginRankingLoss, CosineSimilarity, PReLU)}

for _c in MEMBERS.values():
    _c._script_attrs = _c._script_attrs | {"p", "inplace", "dim", "negative_slope", "approximate",
                                           "start_dim", "end_dim", "reduction", "weight", "ignore_index",
                                           "label_smoothing", "pos_weight", "alpha", "beta", "threshold",
                                           "min_val", "max_val", "delta", "log_target", "margin", "eps",
                                           "num_parameters", "init"}
