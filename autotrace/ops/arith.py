"""Arithmetic: add, sub, rsub, mul, div, neg, reciprocal, the comparison operators, and
their in-place forms (pow and square: :mod:`.power`). Broadcasting and type promotion as
in torch 2.13; a Python number is wrapped as a 0-dim tensor, which is why ``x + 2`` has
``(None, 0)`` in its ``next_functions`` while ``2 - x`` (RsubBackward1) has one edge.
"""

from __future__ import annotations

import operator as _operator
from types import MappingProxyType

import numpy as np

from .. import dtypes, grad_mode as _grad_mode
from ..node import SavedTensor as _SavedTensor
from ..tensor import Tensor
from .. import record as _record
from ..resources import CHECK_BYTES_FROM, check_broadcast_size, check_bytes
from .errors import broadcast_error
from . import kernels
from . import (OPERANDS, RESULT, BadOperand, _type_word, as_tensor_arg, check_inplace, commit_inplace, export, make,
               make_number, make_pair, op, wrap_scalar)

_SCALARS = (bool, int, float, dtypes.NumberLike)
#: below this many elements (of either operand) _binary's memory check cannot trigger
_SMALL = CHECK_BYTES_FROM // 16


def _binary(a, b):
    """(tensor a, tensor b, a's array, b's array, result dtype) for a binary op."""
    cb = b.__class__
    if cb is float or cb is int or cb is bool:
        b = wrap_scalar(b)
    if b.__class__ is Tensor and a.__class__ is Tensor:
        # the common cases, decided as below without the general checks: two tensors of one
        # dtype and shape, or a tensor and a wrapped number of no higher category
        ad, bd = a._data, b._data
        dt = a._dtype
        if ad.size < _SMALL and not a._wrapped:
            if b._wrapped:
                if dt.category >= b._dtype.category:
                    if bd.dtype is not dt.np:
                        bd = bd.astype(dt.np)
                    return a, b, ad, bd, dt
            elif dt is b._dtype and ad.shape == bd.shape:
                return a, b, ad, bd, dt
    if isinstance(a, _SCALARS):
        a = wrap_scalar(a)
    if isinstance(b, _SCALARS):
        b = wrap_scalar(b)
    elif not isinstance(b, Tensor):
        b = as_tensor_arg(b)
    dt = _result_dtype(a, b)
    ad, bd = a._data, b._data
    if ad.shape != bd.shape and ad.ndim and bd.ndim:
        check_broadcast_size(ad.shape, bd.shape)
    if (ad.size + bd.size) * 8 >= CHECK_BYTES_FROM:
        # the result, plus the operands' copies in the result dtype
        try:
            out = int(np.prod(np.broadcast_shapes(ad.shape, bd.shape), dtype=np.float64))
        except ValueError:      # the op reports the shape error
            out = 0
        copies = (ad.size if ad.dtype != dt.np else 0) + (bd.size if bd.dtype != dt.np else 0)
        check_bytes((out + copies) * dt.np.itemsize)
    if ad.dtype != dt.np:
        ad = ad.astype(dt.np)
    if bd.dtype != dt.np:
        bd = bd.astype(dt.np)
    return a, b, ad, bd, dt


def _number(a, b):
    """``b`` as a Python float holding its value in ``a``'s dtype, when ``a <op> b`` may
    skip wrapping ``b``: ``a`` a small float32/float64 tensor (not itself a wrapped
    number), ``b`` a Python float, or an int of magnitude at most 2**53 (so the conversion
    is one rounding, as int64 -> float is). The values are those :func:`_binary` gives.
    Else None."""
    cb = b.__class__
    if (cb is float or (cb is int and -_EXACT_INT <= b <= _EXACT_INT)) and a.__class__ is Tensor:
        dt = a._dtype
        if not a._wrapped and a._data.size < _SMALL:
            if dt is _F32:
                if cb is int and -_F32_EXACT_INT <= b <= _F32_EXACT_INT:
                    return float(b)  # exactly a float32
                v = _F32_OF.get(b)
                if v is None:
                    v = float(_np_f32(b))
                    if b and len(_F32_OF) < 4096:  # -0.0 == 0.0 as keys: zeros are not kept
                        _F32_OF[b] = v
                return v
            if dt is _F64:
                return float(b)
    return None


_EXACT_INT = 2 ** 53
_F32_EXACT_INT = 2 ** 24
_F32, _F64 = dtypes.float32, dtypes.float64
_np_f32 = np.float32
_F32_OF: dict = {}  # a Python number -> its float32 value (as a Python float)
_array = np.array


def _exact(r, ad, other, npfn):
    """The 0-dim result of ``npfn(ad, other)`` (``ad`` a 0-dim float32/float64 array,
    ``other`` a Python float or 0-dim array of its dtype) from ``r``, the same operation on
    Python floats of the operands' exact values: a float32 + - * / computed in float64 and
    rounded to float32 is the correctly rounded float32 result (double rounding is
    innocuous when 53 >= 2 * 24 + 2), so the two agree bit for bit. A nan is left to numpy
    (its sign and payload are numpy's)."""
    if r == r:
        return _array(r, ad.dtype)
    return _arr(npfn(ad, ad.dtype.type(other) if other.__class__ is float else other))


def _with_number(ad, bn, pyop, npfn):
    """``npfn(ad, bn)`` for a number ``bn`` from :func:`_number`: on Python floats for a
    0-dim ``ad`` (:func:`_exact`), else with ``bn`` in ``ad``'s dtype."""
    if ad.ndim == 0:
        return _exact(pyop(ad.item(), bn), ad, bn, npfn)
    return _arr(npfn(ad, ad.dtype.type(bn)))


_FLOAT = dtypes.FLOAT
_tensor_make = Tensor._make


def _result_dtype(a, b):
    """torch.result_type of two tensors, a wrapped Python number counting as a scalar."""
    if not a._wrapped:
        if b._wrapped:
            if a._dtype.category >= b._dtype.category:
                return a._dtype  # a tensor keeps its dtype against a number of no higher category
        elif a._dtype is b._dtype:
            return a._dtype
    ts = [t for t in (a, b) if not t._wrapped]
    ss = [t._data.item() for t in (a, b) if t._wrapped]
    return dtypes.result_type(ts, ss)


def _arr(x):
    return x if type(x) is np.ndarray else np.asarray(x)


#: ``{"alpha": 1}``, shared by the add/sub nodes that take the number path
_ALPHA_1 = MappingProxyType({"alpha": 1})


def _alpha(alpha):
    """The attrs ``{"alpha": alpha}`` of an add or sub node (the shared one for the int 1)."""
    return _ALPHA_1 if alpha.__class__ is int and alpha == 1 else {"alpha": alpha}


# -- add / sub -----------------------------------------------------------------------


@op("add", "AddBackward0", ("self", "other"),
    vjp={"self": "grad", "other": "grad * alpha"}, local={"self": "1", "other": "alpha"})
def ADD(ctx, g):
    node = ctx.node
    alpha = node.attrs["alpha"]  # ctx.alpha: add saves no tensors
    edges = node.next_functions
    return (g if edges[0][0] is not None else None,
            (g if alpha == 1 else g * alpha) if edges[1][0] is not None else None)


@export(torch=("add",), tensor=("add",))
def add(input, other, *, alpha=1):
    """``input + alpha * other`` (torch.add)."""
    if alpha == 1 and other.__class__ is not Tensor:
        bn = _number(input, other)
        if bn is not None:
            return make_number(ADD, _with_number(input._data, bn, _operator.add, np.add), input, other,
                               attrs=_ALPHA_1, dtype=input._dtype)
    a, b, ad, bd, dt = _binary(input, other)
    if alpha == 1 and ad.ndim == 0 and bd.ndim == 0 and (dt is _F32 or dt is _F64):
        out = _exact(ad.item() + bd.item(), ad, bd, np.add)
        if alpha.__class__ is int and not a._wrapped and not b._wrapped:
            return make_pair(ADD, out, a, b, _ALPHA_1, dt)
        return make(ADD, out, (a, b), attrs=_alpha(alpha), dtype=dt)
    try:
        out = ad + bd if alpha == 1 else kernels.add_alpha(*np.broadcast_arrays(ad, bd), alpha)
    except ValueError:
        raise broadcast_error(ad.shape, bd.shape) from None
    return make(ADD, _arr(out), (a, b), attrs=_alpha(alpha), dtype=dt)


@op("sub", "SubBackward0", ("self", "other"),
    vjp={"self": "grad", "other": "-grad * alpha"}, local={"self": "1", "other": "-alpha"})
def SUB(ctx, g):
    node = ctx.node
    alpha = node.attrs["alpha"]  # ctx.alpha: sub saves no tensors
    edges = node.next_functions
    return (g if edges[0][0] is not None else None,
            (-g if alpha == 1 else -g * alpha) if edges[1][0] is not None else None)


@export(torch=("sub", "subtract"), tensor=("sub", "subtract"))
def sub(input, other, *, alpha=1):
    """``input - alpha * other`` (torch.sub). Subtracting bool tensors raises PyTorch's error."""
    if alpha == 1:
        bn = _number(input, other)
        if bn is not None:
            return make_number(SUB, _with_number(input._data, bn, _operator.sub, np.subtract), input, other,
                               attrs=_ALPHA_1, dtype=input._dtype)
    a, b, ad, bd, dt = _binary(input, other)
    if a._dtype is dtypes.bool_ or b._dtype is dtypes.bool_:
        _bool_sub_error(a, b)
    if alpha == 1 and ad.ndim == 0 and bd.ndim == 0 and (dt is _F32 or dt is _F64):
        out = _exact(ad.item() - bd.item(), ad, bd, np.subtract)
        if alpha.__class__ is int and not a._wrapped and not b._wrapped:
            return make_pair(SUB, out, a, b, _ALPHA_1, dt)
        return make(SUB, out, (a, b), attrs=_alpha(alpha), dtype=dt)
    try:
        out = ad - bd if alpha == 1 else kernels.add_alpha(*np.broadcast_arrays(ad, bd), -alpha)
    except ValueError:
        raise broadcast_error(ad.shape, bd.shape) from None
    return make(SUB, _arr(out), (a, b), attrs=_alpha(alpha), dtype=dt)


def _bool_sub_error(a, b):
    if a._dtype is dtypes.bool_ and b._dtype is dtypes.bool_:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead.")
    raise RuntimeError(
        "Subtraction, the `-` operator, with a bool tensor is not supported. "
        "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")


@op("rsub", "RsubBackward0", ("self", "other"),
    vjp={"self": "-grad * alpha", "other": "grad"}, local={"self": "-alpha", "other": "1"})
def RSUB(ctx, g):
    alpha = ctx.alpha
    return ((-g if alpha == 1 else -g * alpha) if ctx.needs(0) else None,
            g if ctx.needs(1) else None)


@op("rsub_scalar", "RsubBackward1", ("self",),
    vjp={"self": "-grad * alpha"}, local={"self": "-alpha"})
def RSUB_SCALAR(ctx, g):
    alpha = ctx.alpha
    return (-g if alpha == 1 else -g * alpha,)


@export(torch=("rsub",))
def rsub(input, other, *, alpha=1):
    """``other - alpha * input`` (torch.rsub); with a Python number ``other`` the node is
    RsubBackward1 and has one edge."""
    if isinstance(other, _SCALARS):
        a, b, ad, bd, dt = _binary(input, other)
        if a._dtype is dtypes.bool_ or b._dtype is dtypes.bool_:
            _bool_sub_error(a, b)
        out = bd - (ad if alpha == 1 else ad * alpha)
        return make(RSUB_SCALAR, _arr(out), (a,), attrs={"alpha": alpha}, dtype=dt)
    a, b, ad, bd, dt = _binary(input, other)
    if a._dtype is dtypes.bool_ or b._dtype is dtypes.bool_:
        _bool_sub_error(a, b)
    try:
        out = bd - (ad if alpha == 1 else ad * alpha)
    except ValueError:
        raise broadcast_error(ad.shape, bd.shape) from None
    return make(RSUB, _arr(out), (a, b), attrs={"alpha": alpha}, dtype=dt)


# -- mul / div -----------------------------------------------------------------------


@op("mul", "MulBackward0", ("self", "other"),
    vjp={"self": "grad * other", "other": "grad * self"}, local={"self": "other", "other": "self"})
def MUL(ctx, g):
    edges = ctx.node.next_functions
    return (_times(g, ctx, "other") if edges[0][0] is not None else None,
            _times(g, ctx, "self") if edges[1][0] is not None else None)


def _times(g, ctx, name):
    """``g * ctx.<name>``. When no graph is being recorded and ``g`` is small (below
    :data:`_SMALL` elements), the product :func:`mul` computes is made here without its
    checks: for a saved Python number (the 3 in ``x * 3``, not wrapped again) and for a
    saved tensor of ``g``'s dtype and shape (:func:`_binary`'s common case)."""
    node = ctx.node
    saved = node.saved
    s = saved.get(name) if saved is not None else None
    if s.__class__ is _SavedTensor and not _grad_mode.enabled and g.__class__ is Tensor and not g._wrapped:
        gd = g._data
        if gd.size < _SMALL:
            dt = g._dtype
            if s.counter is None:  # a number: mul casts it to g's floating dtype
                d = s.data
                bn = _number(g, d)
                if bn is not None:
                    return _tensor_make(_with_number(gd, bn, _operator.mul, np.multiply), dt)
                if dt.category == _FLOAT and (d.__class__ is float or (
                        d.__class__ is int and -_EXACT_INT <= d <= _EXACT_INT and (dt is _F32 or dt is _F64))):
                    return _tensor_make(gd * dt.np.type(d), dt)
            else:
                t = s.tensor if s.counter.value == s.version and not s.is_output else s.unpack(node)
                if t.__class__ is Tensor and t._dtype is dt and not t._wrapped and t._data.shape == gd.shape:
                    td = t._data
                    if gd.ndim == 0 and (dt is _F32 or dt is _F64):
                        return _tensor_make(_exact(gd.item() * td.item(), gd, td, np.multiply), dt)
                    return _tensor_make(gd * td, dt)
    return g * getattr(ctx, name)


@export(torch=("mul", "multiply"), tensor=("mul", "multiply"))
def mul(input, other):
    """Elementwise product (torch.mul). Saves ``other`` when ``self`` needs a gradient
    and ``self`` when ``other`` does, as PyTorch does."""
    bn = _number(input, other)
    if bn is not None:
        return make_number(MUL, _with_number(input._data, bn, _operator.mul, np.multiply), input, other,
                           dtype=input._dtype, save_other=True)
    a, b, ad, bd, dt = _binary(input, other)
    if ad.ndim == 0 and bd.ndim == 0 and (dt is _F32 or dt is _F64):
        out = _exact(ad.item() * bd.item(), ad, bd, np.multiply)
        if a._requires_grad and b._requires_grad and not a._wrapped and not b._wrapped:
            return make_pair(MUL, out, a, b, None, dt, save_both=True)
    else:
        try:
            out = ad * bd
        except ValueError:
            raise broadcast_error(ad.shape, bd.shape) from None
    save = None
    if (a._requires_grad or b._requires_grad) and _grad_mode.enabled:  # make saves nothing otherwise
        save = {"self": a if b._requires_grad else None, "other": b if a._requires_grad else None}
    return make(MUL, _arr(out), (a, b), save=save, dtype=dt)


@op("div", "DivBackward0", ("self", "other"),
    vjp={"self": "grad / other", "other": "-grad * ((self / other) / other)"},
    local={"self": "1/other", "other": "-self/other²"})
def DIV(ctx, g):
    other = ctx.other
    gs = g / other if ctx.needs(0) else None
    go = -g * ((ctx.self / other) / other) if ctx.needs(1) else None  # torch's div_tensor_other_backward
    return gs, go


@op("div_mode", "DivBackward2", ("self", "other"),
    vjp={"self": "0", "other": "0"}, local={"self": "0", "other": "0"})
def DIV_MODE(ctx, g):
    from .unary import zeros_like_grad
    return (zeros_like_grad(g) if ctx.needs(0) else None, zeros_like_grad(g) if ctx.needs(1) else None)


@export(torch=("div", "divide", "true_divide"), tensor=("div", "divide", "true_divide"))
def div(input, other, *, rounding_mode=None):
    """``input / other`` (torch.div). Integer inputs give float32; ``rounding_mode``
    "trunc"/"floor" rounds and has a zero gradient."""
    if rounding_mode is None:
        bn = _number(input, other)
        if bn is not None:
            ad = input._data
            if ad.ndim == 0 and bn:
                out = _exact(ad.item() / bn, ad, bn, np.true_divide)
            else:
                with np.errstate(divide="ignore", invalid="ignore"):
                    out = _arr(ad / ad.dtype.type(bn))
            return make_number(DIV, out, input, other, dtype=input._dtype, save_other=True)
    a, b, ad, bd, dt = _binary(input, other)
    if rounding_mode is None:
        if dt.category != dtypes.FLOAT:
            dt = dtypes.default_float
            ad = ad.astype(dt.np)
            bd = bd.astype(dt.np)
        with np.errstate(divide="ignore", invalid="ignore"):
            try:
                out = ad / bd
            except ValueError:
                raise broadcast_error(ad.shape, bd.shape) from None
        save = None
        if (a._requires_grad or b._requires_grad) and _grad_mode.enabled:
            save = {"self": a if b._requires_grad else None, "other": b}
        return make(DIV, _arr(out), (a, b), save=save, dtype=dt)
    try:
        np.broadcast_shapes(ad.shape, bd.shape)
    except ValueError:
        raise broadcast_error(ad.shape, bd.shape) from None
    with np.errstate(divide="ignore", invalid="ignore"):
        if dt.category == dtypes.FLOAT:
            q = ad / bd
            out = np.trunc(q) if rounding_mode == "trunc" else np.floor(q)
        else:
            if rounding_mode in ("trunc", "floor"):
                _int_divide_check(f"div_{rounding_mode}", dt, bd)
            if rounding_mode == "floor":
                out = np.floor_divide(ad, bd)
            else:
                out = np.trunc(ad / bd).astype(dt.np)
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError(
            f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")
    return make(DIV_MODE, _arr(out).astype(dt.np), (a, b), dtype=dt)


@op("mul_scalar", "MulBackward1", ("self",), vjp={"self": "grad * other"}, local={"self": "other"})
def MUL_SCALAR(ctx, g):
    return (g * ctx.other,)


def mul_scalar(input, other):
    """``at::mul(Tensor, Scalar)`` as PyTorch's C++ composites call it (MulBackward1, one
    edge). Python's ``x * 2`` is MulBackward0 instead: Python wraps the number in a tensor."""
    a, b, ad, bd, dt = _binary(input, other)
    return make(MUL_SCALAR, _arr(ad * bd), (a,), attrs={"other": other}, dtype=dt)


@op("div_scalar", "DivBackward1", ("self",), vjp={"self": "grad / other"}, local={"self": "1/other"})
def DIV_SCALAR(ctx, g):
    return (g / ctx.other,)


def div_scalar(input, other):
    """``at::div(Tensor, Scalar)`` of C++ composites (DivBackward1; e.g. the mean of
    ``cross_entropy`` with probability targets)."""
    a, b, ad, bd, dt = _binary(input, other)
    if dt.category != dtypes.FLOAT:
        dt = dtypes.default_float
        ad, bd = ad.astype(dt.np), bd.astype(dt.np)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = ad / bd
    return make(DIV_SCALAR, _arr(out), (a,), attrs={"other": other}, dtype=dt)


@op("fill", "FillBackward2", ("self",), vjp={"self": "zeros_like(grad)"}, local={"self": "0"})
def FILL(ctx, g):
    from .unary import zeros_like_grad
    return (zeros_like_grad(g),)


@op("fill_tensor", "FillBackward3", ("self", "value"), vjp={"self": "zeros_like(grad)", "value": "grad.sum()"},
    local={"self": "0", "value": "1 (summed)"})
def FILL_TENSOR(ctx, g):
    from .unary import zeros_like_grad
    return (zeros_like_grad(g) if ctx.needs(0) else None, g.sum() if ctx.needs(1) else None)


@op("zero", "ZeroBackward0", ("self",), vjp={"self": "zeros_like(grad)"}, local={"self": "0"})
def ZERO(ctx, g):
    from .unary import zeros_like_grad
    return (zeros_like_grad(g),)


@export(tensor=("fill_",), torch=("fill_",))
def fill_(self, value):
    """Set every element to ``value`` in place (FillBackward2; FillBackward3 for a 0-d
    tensor value). Leaves that require grad raise PyTorch's in-place error unless under
    ``torch.no_grad()``, where only the data and the version counter change."""
    check_inplace(self)
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(
                f"fill_ only supports 0-dimension value tensor but got tensor with {value._data.ndim} dimensions.")
        out = np.full(self._data.shape, value._data, dtype=self._data.dtype)
        return commit_inplace(self, make(FILL_TENSOR, out, (self, value), dtype=self._dtype))
    out = np.full(self._data.shape, value, dtype=self._data.dtype)
    return commit_inplace(self, make(FILL, out, (self,), dtype=self._dtype))


@export(tensor=("zero_",), torch=("zero_",))
def zero_(self):
    """Set every element to 0 in place (ZeroBackward0); leaf rules as :func:`fill_`."""
    check_inplace(self)
    if _record.active is not None:
        leaf = getattr(self, "_grad_of", None)
        leaf = leaf() if leaf is not None else None
        if leaf is not None and leaf._grad is self:
            _record.grad_event(leaf, "zero")
    return commit_inplace(self, make(ZERO, np.zeros_like(self._data), (self,), dtype=self._dtype))


@export(torch=("floor_divide",), tensor=("floor_divide",))
def floor_divide(input, other):
    return div(input, other, rounding_mode="floor")


@export(tensor=("__rtruediv__", "__rdiv__"))
def _rtruediv(self, other):
    """``number / tensor``: PyTorch computes ``reciprocal(self) * other`` (MulBackward0
    over ReciprocalBackward0)."""
    if not isinstance(other, _SCALARS):
        return NotImplemented
    from .unary import reciprocal
    return mul(reciprocal(self), other)


@op("neg", "NegBackward0", ("self",), vjp={"self": "-grad"}, local={"self": "-1"})
def NEG(ctx, g):
    return (-g,)


@export(torch=("neg", "negative"), tensor=("neg", "negative", "__neg__"))
def neg(input):
    if input._dtype is dtypes.bool_:
        raise RuntimeError(
            "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead.")
    return make(NEG, np.negative(input._data), (input,))


@export(tensor=("__pos__", "positive"), torch=("positive",))
def positive(input):
    return input


# -- operators -------------------------------------------------------------------------


@export(tensor=("__add__", "__radd__"))
def _add_op(self, other):
    try:
        return add(self, other)
    except BadOperand:  # Python's own TypeError, as torch's operators give
        return NotImplemented


@export(tensor=("__sub__",))
def _sub_op(self, other):
    try:
        return sub(self, other)
    except BadOperand:
        return NotImplemented


@export(tensor=("__rsub__",))
def _rsub_op(self, other):
    try:
        return rsub(self, other)
    except BadOperand:
        return NotImplemented


@export(tensor=("__mul__", "__rmul__"))
def _mul_op(self, other):
    try:
        return mul(self, other)
    except BadOperand:
        return NotImplemented


@export(tensor=("__truediv__", "__div__"))
def _div_op(self, other):
    try:
        return div(self, other)
    except BadOperand:
        return NotImplemented


@export(tensor=("__floordiv__",))
def _floordiv_op(self, other):
    try:
        return div(self, other, rounding_mode="floor")
    except BadOperand:
        return NotImplemented


@export(tensor=("__rfloordiv__",))
def _rfloordiv_op(self, other):
    if not isinstance(other, _SCALARS):
        return NotImplemented
    return div(wrap_scalar(other) if isinstance(other, _SCALARS) else other, self, rounding_mode="floor")


def _int_divide_check(name, dt, bd):
    """Integer division kernels: bool is not implemented, a zero divisor is torch's
    RuntimeError("ZeroDivisionError")."""
    if dt is dtypes.bool_:
        raise NotImplementedError(f'"{name}_cpu" not implemented for \'Bool\'')
    if not bd.all():
        raise RuntimeError("ZeroDivisionError")


def _mod_op(name, node_scalar, node_tensor, npfn, rule):
    o_s = op(name + "_scalar", node_scalar, ("self",), vjp={"self": "grad"}, local={"self": "1"})(
        lambda ctx, g: (g,))
    o_t = op(name, node_tensor, ("self", "other"), vjp={"self": "grad", "other": f"-grad * {rule}(self / other)"},
             local={"self": "1", "other": f"-{rule}(self/other)"})(
        lambda ctx, g: (g if ctx.needs(0) else None,
                        (-g * (ctx.self / ctx.other).__getattribute__(rule)()) if ctx.needs(1) else None))

    def fn(input, other):
        a, b, ad, bd, dt = _binary(input, other)
        if dt.category != dtypes.FLOAT:
            _int_divide_check(name, dt, bd)
        with np.errstate(divide="ignore", invalid="ignore"):
            try:
                out = npfn(ad, bd)
            except ValueError:
                raise broadcast_error(ad.shape, bd.shape) from None
        if isinstance(other, _SCALARS):
            return make(o_s, _arr(out), (a,), dtype=dt)
        save = {"self": a, "other": b} if b._requires_grad else None
        return make(o_t, _arr(out), (a, b), save=save, dtype=dt)
    fn.__name__ = name
    fn.__doc__ = (f"torch.{name}: {node_scalar} for a Python-number divisor (one edge), {node_tensor} for a "
                  f"tensor divisor (other's gradient -grad·{rule}(self/other)).")
    return fn


remainder = export(tensor=("remainder",), torch=("remainder",), name="remainder")(
    _mod_op("remainder", "RemainderBackward0", "RemainderBackward1", np.mod, "floor"))


@export(tensor=("__mod__",))
def _mod_dunder(self, other):
    try:
        return remainder(self, other)
    except BadOperand:
        return NotImplemented


@op("remainder_scalar_self", "NotImplemented", ("other",), vjp={"other": "not implemented"},
    local={"other": "not implemented"})
def REMAINDER_SCALAR_SELF(ctx, g):
    raise RuntimeError("derivative for aten::remainder is not implemented")


@export(tensor=("__rmod__",))
def _rmod(self, other):
    """``number % tensor`` (torch.remainder(Scalar, Tensor): no derivative in torch 2.13)."""
    if not isinstance(other, _SCALARS):
        return NotImplemented
    a, b, ad, bd, dt = _binary(wrap_scalar(other), self)
    if dt.category != dtypes.FLOAT:
        _int_divide_check("remainder", dt, bd)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.mod(ad, bd)
    return make(REMAINDER_SCALAR_SELF, _arr(out), (self,), dtype=dt)
fmod = export(tensor=("fmod",), torch=("fmod",), name="fmod")(
    _mod_op("fmod", "FmodBackward0", "FmodBackward1", np.fmod, "trunc"))


# -- in-place ------------------------------------------------------------------------


def _inplace(fn, operator=False):
    if operator:  # ``x += None``: Python's TypeError, before any in-place check
        def method(self, other):
            if not isinstance(other, OPERANDS):
                return NotImplemented
            check_inplace(self)
            return commit_inplace(self, fn(self, other))
        method.__name__ = fn.__name__ + "_"
        return method

    def method(self, *args, **kwargs):
        check_inplace(self)
        return commit_inplace(self, fn(self, *args, **kwargs))

    method.__name__ = fn.__name__ + "_"
    method.__doc__ = f"In-place {fn.__name__}: writes into this tensor, bumps ``_version``."
    return method


for _name, _fn in (("add", add), ("sub", sub), ("mul", mul), ("div", div), ("neg", neg),
                   ("remainder", remainder)):
    _m = _inplace(_fn)
    export(tensor=(_name + "_",), name=_name + "_")(_m)
for _name, _fn in (("__iadd__", add), ("__isub__", sub), ("__imul__", mul), ("__itruediv__", div)):
    export(tensor=(_name,), name=_name)(_inplace(_fn, operator=True))


# -- comparisons (no gradient) ---------------------------------------------------------


def _compare(npfn, name, operator=False):
    def compare(input, other):
        if operator:
            try:
                a, b, ad, bd, dt = _binary(input, other)
            except BadOperand:  # ``x == None`` is False, ``x < None`` Python's TypeError
                return NotImplemented
        else:
            a, b, ad, bd, dt = _binary(input, other)
        try:
            return Tensor._make(_arr(npfn(ad, bd)))
        except ValueError:
            raise broadcast_error(ad.shape, bd.shape) from None

    compare.__name__ = name
    compare.__doc__ = f"Elementwise ``{name}`` as a bool tensor (no gradient)."
    return compare


for _torch_names, _dunder, _npfn in (
    (("eq",), "__eq__", np.equal), (("ne", "not_equal"), "__ne__", np.not_equal),
    (("lt", "less"), "__lt__", np.less), (("le", "less_equal"), "__le__", np.less_equal),
    (("gt", "greater"), "__gt__", np.greater), (("ge", "greater_equal"), "__ge__", np.greater_equal),
):
    _c = _compare(_npfn, _torch_names[0])
    export(torch=_torch_names, tensor=_torch_names, name=_torch_names[0])(_c)
    export(tensor=(_dunder,), name=_dunder)(_compare(_npfn, _torch_names[0], operator=True))


def _check_broadcast(ad, bd):
    try:
        np.broadcast_shapes(ad.shape, bd.shape)
    except ValueError:
        raise broadcast_error(ad.shape, bd.shape) from None


def _logical(npfn, name, operator=False):
    def logical(input, other):
        if operator:
            try:
                a, b, ad, bd, dt = _binary(input, other)
            except BadOperand:
                return NotImplemented
        else:
            a, b, ad, bd, dt = _binary(input, other)
        try:
            out = npfn(ad, bd)
        except ValueError:
            raise broadcast_error(ad.shape, bd.shape) from None
        except TypeError:  # numpy has no bitwise ops on floats
            _check_broadcast(ad, bd)
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{_type_word(dt)}\'') from None
        return Tensor._make(_arr(out))

    logical.__name__ = name
    return logical


for _n, _npfn, _d in (("bitwise_and", np.bitwise_and, "and"), ("bitwise_or", np.bitwise_or, "or"),
                     ("bitwise_xor", np.bitwise_xor, "xor")):
    export(tensor=(_n,), torch=(_n,), name=_n)(_logical(_npfn, _n))
    export(tensor=(f"__{_d}__", f"__r{_d}__"), name=f"__{_d}__")(_logical(_npfn, _n, operator=True))
export(tensor=("logical_and",), torch=("logical_and",), name="logical_and")(
    lambda input, other: Tensor._make(np.logical_and(input._data, as_tensor_arg(other)._data)))
export(tensor=("logical_or",), torch=("logical_or",), name="logical_or")(
    lambda input, other: Tensor._make(np.logical_or(input._data, as_tensor_arg(other)._data)))


@export(tensor=("logical_not",), torch=("logical_not",))
def logical_not(input):
    """Elementwise NOT as a bool tensor."""
    return Tensor._make(np.logical_not(input._data))


@export(tensor=("__invert__", "bitwise_not"), torch=("bitwise_not",))
def bitwise_not(input):
    """``~input``: logical NOT for bool tensors, bitwise NOT for integers; PyTorch's error for floats."""
    if input._dtype is dtypes.bool_:
        return Tensor._make(np.logical_not(input._data))
    if input._dtype.category == dtypes.FLOAT:
        raise RuntimeError(f"\"bitwise_not_cpu\" not implemented for '{input._dtype.legacy[:-6]}'")
    return Tensor._make(np.invert(input._data))
