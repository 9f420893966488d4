"""In-place initialisers: ``uniform_``, ``normal_``, ``random_``, ``bernoulli_``,
``exponential_`` (the same numbers as torch 2.13's CPU generator) and ``copy_``
(broadcasting, dtype conversion, CopyBackwards).

On a tensor in a graph each records torch's node (UniformBackward0 ...): its old value's
history gets a zero gradient; ``copy_`` passes the gradient on to ``src``. On a leaf that
requires grad they raise the in-place error unless under ``torch.no_grad()`` (``nn.init``).
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..tensor import Tensor
from . import OPERANDS, check_inplace, commit_inplace, export, make, op


def _zeros(ctx, g):
    from .unary import zeros_like_grad
    return (zeros_like_grad(g),)


def _fill_op(name, node, what):
    return op(name, node, ("self",), vjp={"self": "zeros_like(grad)"}, local={"self": "0"},
              doc=f"self filled in place with {what}: no gradient reaches the old value")(_zeros)


UNIFORM = _fill_op("uniform", "UniformBackward0", "uniform samples")
NORMAL = _fill_op("normal", "NormalBackward0", "normal samples")
RANDOM_FROM = _fill_op("random_from", "RandomBackward0", "integers in [from, to)")
RANDOM_TO = _fill_op("random_to", "RandomBackward1", "integers in [0, to)")
RANDOM = _fill_op("random", "RandomBackward2", "integers over the dtype's range")
BERNOULLI_SCALAR = _fill_op("bernoulli_scalar", "BernoulliBackward2", "0/1 samples")
EXPONENTIAL = _fill_op("exponential", "ExponentialBackward0", "exponential samples")


@op("bernoulli_tensor", "BernoulliBackward1", ("self", "p"), vjp={"self": "zeros_like(grad)", "p": "zeros_like(p)"},
    local={"self": "0", "p": "0"})
def BERNOULLI_TENSOR(ctx, g):
    from .unary import zeros_like_grad
    return (zeros_like_grad(g) if ctx.needs(0) else None, None)


def _gen(generator):
    from .. import random
    return generator if generator is not None else random.default_generator


def _float_only(self, kernel):
    if self._dtype.category != dtypes.FLOAT:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{self._dtype.legacy[:-6]}'")


def _commit(self, op_, data, inputs=None):
    return commit_inplace(self, make(op_, data, inputs or (self,), dtype=self._dtype))


def _num(v):
    return v.item() if isinstance(v, Tensor) else v


@export(tensor=("uniform_",))
def uniform_(self, a=0.0, b=1.0, *, generator=None, **kw):
    """Fill with U[a, b) in place, bit for bit as torch's CPU generator (float dtypes)."""
    a, b = _num(kw.pop("from", a)), _num(kw.pop("to", b))
    check_inplace(self)
    _float_only(self, "check_uniform_bounds")
    data = _gen(generator).uniform_(self._data.shape, float(a), float(b), _sample_dtype(self))
    return _commit(self, UNIFORM, data)


def _sample_dtype(self):
    return "float64" if self._dtype is dtypes.float64 else "float32"


@export(tensor=("normal_",))
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with N(mean, std²) in place, bit for bit as torch's CPU generator."""
    check_inplace(self)
    _float_only(self, "normal_kernel_cpu")
    data = _gen(generator).normal_(self._data.shape, float(_num(mean)), float(_num(std)), _sample_dtype(self))
    return _commit(self, NORMAL, data)


# torch's default range of random_() per dtype: [0, 2**digits] for floats, [0, max] for integers
_FULL = {"float32": (1 << 24) + 1, "float64": (1 << 53) + 1, "float16": (1 << 11) + 1, "int64": 1 << 63,
         "int32": 1 << 31, "int16": 1 << 15, "int8": 1 << 7, "uint8": 1 << 8, "bool": 2}


@export(tensor=("random_",))
def random_(self, *args, generator=None, **kw):
    """``random_(to)``: integers in [0, to); ``random_(from, to)``; ``random_()``: the
    dtype's whole range ([0, 2**24] for float32). Exactly torch's CPU generator."""
    args = list(args)
    if "from" in kw:
        args.insert(0, kw.pop("from"))
    if "to" in kw:
        args.append(kw.pop("to"))
    check_inplace(self)
    g = _gen(generator)
    if not args:
        rng = _FULL[self._dtype.name]
        raw = g._engine.random64(self._data.size) if rng > 1 << 32 else g._engine.random32(self._data.size).astype(np.uint64)
        data = (raw % np.uint64(rng)).reshape(self._data.shape)
        op_ = RANDOM
    else:
        if len(args) == 1:
            lo, hi, op_ = 0, args[0], RANDOM_TO
        else:
            lo, hi, op_ = args[0], args[1], RANDOM_FROM
        if hi is None:
            hi = _FULL[self._dtype.name] + (0 if self._dtype.category != dtypes.FLOAT else -1)
        if hi <= lo:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={lo} >= to={hi}")
        data = g.randint(int(lo), int(hi), self._data.shape)
    return _commit(self, op_, data.astype(self._data.dtype))


@export(tensor=("bernoulli_",))
def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 0/1 draws: probability ``p`` (a float, or a tensor broadcast to self)."""
    check_inplace(self)
    g = _gen(generator)
    if isinstance(p, Tensor):
        probs = np.broadcast_to(p._data, self._data.shape)
        data = _bernoulli_tensor(g, probs, self._data.dtype)
        return commit_inplace(self, make(BERNOULLI_TENSOR, data, (self, p), dtype=self._dtype))
    data = g.bernoulli(float(p), self._data.shape, "float64").astype(self._data.dtype)
    return _commit(self, BERNOULLI_SCALAR, data)


def _bernoulli_tensor(g, probs, dtype):
    if probs.size and not (np.all(probs >= 0) and np.all(probs <= 1)):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    # torch's CPU kernel draws a uniform of the probabilities' own precision
    pd = np.float64 if probs.dtype == np.float64 else np.float32
    u = g._uniform01(probs.size, np.dtype(pd)).reshape(probs.shape)
    return (u < probs.astype(pd)).astype(dtype)


@export(tensor=("exponential_",))
def exponential_(self, lambd=1.0, *, generator=None):
    """Fill with Exp(lambd) samples: ``-log1p(-u) / lambd`` with a 64-bit uniform ``u``."""
    check_inplace(self)
    if self._dtype.category != dtypes.FLOAT:
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {self._dtype.legacy[:-6]}")
    lambd = float(_num(lambd))
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    u = _gen(generator)._uniform01(self._data.size, np.dtype(np.float64))
    data = (-1.0 / lambd * np.log1p(-u)).astype(self._data.dtype).reshape(self._data.shape)
    return _commit(self, EXPONENTIAL, data)


# -- copy_ ----------------------------------------------------------------------------


@op("copy", "CopyBackwards", ("self", "src"), vjp={"self": "zeros_like(grad)", "src": "grad summed to src's shape, as src's dtype"},
    local={"self": "0", "src": "1"})
def COPY(ctx, g):
    from .shape import sum_to
    from .unary import zeros_like_grad
    gs = zeros_like_grad(g) if ctx.needs(0) else None
    gv = None
    if ctx.needs(1):
        gv = sum_to(g, ctx.src_sizes)
        if gv._dtype is not ctx.src_dtype:
            gv = gv.to(ctx.src_dtype)
    return gs, gv


@export(tensor=("copy_",))
def copy_(self, src, non_blocking=False):
    """Copy ``src`` (broadcast to self's shape, cast to self's dtype) into ``self`` in
    place; CopyBackwards when either is in a graph (the old value gets a zero gradient)."""
    if not isinstance(src, OPERANDS):
        raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not {type(src).__name__}")
    check_inplace(self)
    if not isinstance(src, Tensor):
        from .arith import fill_
        return fill_(self, src)
    try:
        data = np.broadcast_to(src._data, self._data.shape)
    except ValueError:
        from .errors import broadcast_error, inplace_broadcast_error
        try:
            np.broadcast_shapes(self._data.shape, src._data.shape)
        except ValueError:
            raise broadcast_error(self._data.shape, src._data.shape) from None
        raise inplace_broadcast_error(self._data.shape, [src._data.shape]) from None
    with np.errstate(invalid="ignore", over="ignore"):
        data = data.astype(self._data.dtype)
    res = make(COPY, data, (self, src), attrs={"src_sizes": src._data.shape, "src_dtype": src._dtype},
               dtype=self._dtype)
    return commit_inplace(self, res)
