"""``nn.TripletMarginLoss``, ``nn.HingeEmbeddingLoss``, ``nn.PoissonNLLLoss``,
``nn.GaussianNLLLoss`` and ``nn.PairwiseDistance``: modules calling the functional forms
(:mod:`autotrace.ops.distance_losses`) with their options, as torch 2.13's do."""

from __future__ import annotations

from ..ops import FUNCTIONAL as F
from .layers import _Loss
from .nn import Module


class TripletMarginLoss(_Loss):
    _keys = (("margin", 1.0), ("p", 2.0), ("eps", 1e-6), ("swap", False))

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None, reduction="mean"):
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got {margin} instead")
        super().__init__(size_average, reduce, reduction, margin=margin, p=p, eps=eps, swap=swap)

    def forward(self, anchor, positive, negative):
        return F["triplet_margin_loss"](anchor, positive, negative, margin=self.margin, p=self.p, eps=self.eps,
                                        swap=self.swap, reduction=self.reduction)


class HingeEmbeddingLoss(_Loss):
    _fn = "hinge_embedding_loss"
    _keys = (("margin", 1.0),)

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction, margin=margin)


class PoissonNLLLoss(_Loss):
    _keys = (("log_input", True), ("full", False), ("eps", 1e-8))

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction, log_input=log_input, full=full, eps=eps)

    def forward(self, log_input, target):
        return F["poisson_nll_loss"](log_input, target, log_input=self.log_input, full=self.full, eps=self.eps,
                                     reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    _keys = (("full", False), ("eps", 1e-6))

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(None, None, reduction, full=full, eps=eps)

    def forward(self, input, target, var):
        return F["gaussian_nll_loss"](input, target, var, full=self.full, eps=self.eps, reduction=self.reduction)


class PairwiseDistance(Module):
    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        object.__setattr__(self, "norm", p)
        object.__setattr__(self, "eps", eps)
        object.__setattr__(self, "keepdim", keepdim)

    def forward(self, x1, x2):
        return F["pairwise_distance"](x1, x2, self.norm, self.eps, self.keepdim)


MEMBERS = {c.__name__: c for c in (TripletMarginLoss, HingeEmbeddingLoss, PoissonNLLLoss, GaussianNLLLoss,
                                   PairwiseDistance)}
for _c in MEMBERS.values():
    _c._script_attrs = _c._script_attrs | {"reduction", "margin", "p", "eps", "swap", "log_input", "full", "norm",
                                           "keepdim"}
