"""Neural-network functions (``torch.nn.functional``): activations, softmax family,
losses, linear, dropout, one_hot."""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from . import FUNCTIONAL, export, make, op
from .unary import relu

FUNCTIONAL["relu"] = relu
