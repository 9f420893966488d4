"""PyTorch 2.13's error texts for shape problems that numpy reports in its own words.

Ops call numpy on the success path with no extra checks; when numpy raises (a
``ValueError`` for shapes that do not broadcast, an ``IndexError`` ...), the op catches it
and raises what PyTorch raises, computed from the shapes by these helpers.
"""

from __future__ import annotations


def _infer_size(a, b):
    """torch's ``infer_size``: the broadcast shape of ``a`` and ``b``, or its RuntimeError."""
    na, nb = len(a), len(b)
    n = na if na > nb else nb
    out = [0] * n
    for i in range(n - 1, -1, -1):
        off = n - 1 - i
        da, db = na - 1 - off, nb - 1 - off
        sa = a[da] if da >= 0 else 1
        sb = b[db] if db >= 0 else 1
        if sa != sb and sa != 1 and sb != 1:
            raise RuntimeError(f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) "
                               f"at non-singleton dimension {i}")
        out[i] = sb if sa == 1 else sa
    return tuple(out)


def broadcast_error(*shapes) -> Exception:
    """The RuntimeError torch raises for operands of ``shapes`` (in TensorIterator's
    operand order) that do not broadcast; a generic one if they do after all."""
    shape = tuple(shapes[0])
    for s in shapes[1:]:
        try:
            shape = _infer_size(shape, tuple(s))
        except RuntimeError as e:
            return e
    return RuntimeError(f"shapes {', '.join(str(list(s)) for s in shapes)} cannot be broadcast together")


def broadcast_shapes(*shapes):
    """The broadcast shape, raising torch's RuntimeError when there is none."""
    shape = tuple(shapes[0])
    for s in shapes[1:]:
        shape = _infer_size(shape, tuple(s))
    return shape


def inplace_broadcast_error(out_shape, shapes) -> Exception:
    """In-place ops: the operands broadcast, but not to the output's shape."""
    try:
        b = broadcast_shapes(out_shape, *shapes)
    except RuntimeError as e:
        return e
    return RuntimeError(f"output with shape [{', '.join(map(str, out_shape))}] doesn't match the broadcast "
                        f"shape [{', '.join(map(str, b))}]")


def _arg_type(v) -> str:
    """How torch's argument parser names a value's type in "got (...)"."""
    from ..tensor import Size, Tensor
    if isinstance(v, Tensor):
        return "Tensor"
    if isinstance(v, Size):
        return "torch.Size"
    return type(v).__name__


def invalid_arguments(name, args, kwargs, signatures) -> TypeError:
    """torch's TypeError for arguments no overload of ``name`` accepts (the header and
    the overloads; torch 2.13 also says per overload which arguments did not match)."""
    got = [_arg_type(v) for v in args] + [f"{k}={_arg_type(v)}" for k, v in kwargs.items()]
    lines = "".join(f" * ({s})\n" for s in signatures)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({', '.join(got)}), "
                     f"but expected one of:\n{lines}")


def type_str(dtype) -> str:
    """How torch names a tensor's type in ``expand(...)`` errors: ``torch.FloatTensor``,
    but ``CPUBoolType`` for bool (no legacy BoolTensor type object)."""
    return "CPUBoolType" if dtype.name == "bool" else f"torch.{dtype.legacy}"


def check_empty_reduction(shape, name, dims=None, *, arg=False) -> None:
    """torch 2.13's ``zero_numel_check_dims`` for a reduction with no identity (max, amax,
    median, argmax ...) of an empty tensor of ``shape``. With no ``dims`` (None, or ``()``
    for amax/amin): a RuntimeError, or for argmax/argmin (``arg``) an IndexError with a
    shorter text; else an IndexError naming the first empty dim as the caller passes it
    (amax names ``-1`` as written, max(dim) the wrapped dim), dims checked in the order
    given, each wrapped first (an out-of-range dim after an empty one is never reached).
    Nothing when no dim is 0."""
    if 0 not in shape:
        return
    if dims is None or (not isinstance(dims, int) and len(dims) == 0):
        if arg:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                           "Specify the reduction dim with the 'dim' argument.")
    from ..tensor import wrap_dim
    for d in ((dims,) if isinstance(dims, int) else dims):
        if shape[wrap_dim(d, len(shape))] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
