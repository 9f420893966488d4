"""``Tensor.data_ptr()``, ``storage_offset()``, ``is_set_to()`` and
``untyped_storage()`` over the numpy arrays behind tensors.

A tensor's storage is the numpy array at the root of its data's ``base`` chain (a view,
``detach()``, ``expand`` share it; ``clone()`` and ops that compute make new ones). Each
storage gets a made-up address the first time one is asked for — the n-th storage a run
asks about gets the n-th address, 64-byte aligned and spaced by its size — so a script
prints the same numbers on every run; they are not the addresses torch would print,
but equal and different where torch's are (matches torch 2.13's ``data_ptr`` relations:
a view is its base's address + ``storage_offset() * element_size()``; an empty tensor's
is 0).
"""

from __future__ import annotations

import numpy as np

from ..tensor import Tensor
from . import export

_FIRST = 0x55D4_1E60_0000
_storages: dict[int, tuple[np.ndarray, int]] = {}
_next = [_FIRST]


def reset() -> None:
    """Forget the run's storages (the runner calls this before each run)."""
    _storages.clear()
    _next[0] = _FIRST


def _root(a: np.ndarray) -> np.ndarray:
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


def _storage_address(root: np.ndarray) -> int:
    hit = _storages.get(id(root))
    if hit is not None and hit[0] is root:
        return hit[1]
    addr = _next[0]
    _next[0] = addr + (root.nbytes + 127) // 64 * 64
    _storages[id(root)] = (root, addr)   # held: its id cannot be reused while the run lasts
    return addr


def _offset(t: Tensor) -> int:
    a = t._data
    root = _root(a)
    if a.size == 0 or root.size == 0:
        return 0
    return (a.__array_interface__["data"][0] - root.__array_interface__["data"][0]) // a.itemsize


@export(tensor=("storage_offset",))
def storage_offset(input):
    """The element offset of ``input``'s first element in its storage (0 unless a view)."""
    return int(_offset(input))


@export(tensor=("data_ptr",))
def data_ptr(input):
    """A stand-in address of ``input``'s first element (int): its storage's made-up
    address + ``storage_offset() * element_size()``; 0 for an empty tensor, as torch."""
    if input._data.size == 0:
        return 0
    return _storage_address(_root(input._data)) + _offset(input) * input._dtype.itemsize


@export(tensor=("is_set_to",))
def is_set_to(input, tensor):
    """True when both tensors use the same storage, offset, sizes and strides (torch 2.13)."""
    if not isinstance(tensor, Tensor):
        raise TypeError(f"is_set_to(): argument 'tensor' (position 1) must be Tensor, not {type(tensor).__name__}")
    a, b = input._data, tensor._data
    return bool(_root(a) is _root(b) and _offset(input) == _offset(tensor) and a.shape == b.shape
                and a.strides == b.strides and input._dtype is tensor._dtype)


class UntypedStorage:
    """What ``Tensor.untyped_storage()`` returns here: ``data_ptr()``, ``nbytes()``,
    ``size()`` and ``element_size()`` (1) of the tensor's whole storage; printed as
    torch 2.13 prints it, one byte a line."""

    _script_attrs = frozenset({"data_ptr", "nbytes", "size", "element_size"})

    def __init__(self, root: np.ndarray, itemsize: int):
        self._root = root
        self._nbytes = int(root.size) * itemsize

    def data_ptr(self):
        return _storage_address(self._root) if self._nbytes else 0

    def nbytes(self):
        return self._nbytes

    def size(self):
        return self._nbytes

    def element_size(self):
        return 1

    def __len__(self):
        return self._nbytes

    def __repr__(self):
        from ..resources import check_shape
        check_shape((self._nbytes,), 8)
        body = "\n".join(f" {b}" for b in np.ascontiguousarray(self._root).view(np.uint8).reshape(-1).tolist())
        return f"{body or ' '}\n[torch.storage.UntypedStorage(device=cpu) of size {self._nbytes}]"

    __str__ = __repr__


@export(tensor=("untyped_storage",))
def untyped_storage(input):
    """The storage behind ``input`` (see :class:`UntypedStorage`)."""
    return UntypedStorage(_root(input._data), input._dtype.itemsize)
