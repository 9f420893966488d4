"""Devices as on a CPU-only PyTorch 2.13: ``torch.device``, ``torch.cuda`` and the
checks every ``device=`` argument goes through.

Only the CPU exists. ``torch.device('cuda')`` can be built and printed (it is just a
name), but putting a tensor there raises what a CPU-only torch raises:
``AssertionError: Torch not compiled with CUDA enabled``.
"""

from __future__ import annotations

import re

DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
                "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
NO_CUDA = "Torch not compiled with CUDA enabled"
NO_ACCELERATOR = "Cannot access accelerator device when none is available."
_DEVICE_RE = re.compile(r"^([a-z]+)(?::(\d+))?$")


class Device:
    """``torch.device(type, index=None)`` / ``torch.device('cuda:1')``: ``type`` and
    ``index`` (None when not given); equal to another device with the same type and
    index, never to a string (torch 2.13)."""

    __slots__ = ("type", "index")
    _script_attrs = frozenset({"type", "index"})

    def __init__(self, type, index=None):
        self.type = type
        self.index = index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        return isinstance(other, Device) and (other.type, other.index) == (self.type, self.index)

    def __hash__(self):
        return hash((self.type, self.index))


def device(type, index=None):
    """``torch.device(...)``: from a string (``'cpu'``, ``'cuda:0'``), a device, or an
    int (an accelerator index: none exists here). RuntimeError for unknown names, as torch."""
    if isinstance(type, Device):
        return type
    if isinstance(type, bool) or not isinstance(type, (str, int)):
        raise TypeError(f"device() received an invalid combination of arguments - got ({_tname(type)}), "
                        "but expected one of:\n * (torch.device device)\n      didn't match because some of the "
                        "arguments have invalid types: (" + _tname(type) + ")\n * (str type, int index = -1)\n")
    if isinstance(type, int):
        raise RuntimeError(NO_ACCELERATOR)
    m = _DEVICE_RE.match(type)
    if m is None:
        name = re.match(r"^[a-z]*", type).group(0)
        if name in DEVICE_TYPES:
            raise RuntimeError(f"Invalid device string: '{type}'")
        raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of device string: {type}")
    name, idx = m.group(1), m.group(2)
    if name not in DEVICE_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of device string: {type}")
    if idx is not None:
        if index is not None:
            raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {type}")
        index = int(idx)
    return Device(name, index)


def _tname(v) -> str:
    return type(v).__name__


def check(dev) -> Device | None:
    """A ``device=`` argument of a factory or ``.to()``: None or the CPU pass; any other
    device raises what CPU-only torch raises there."""
    if dev is None:
        return None
    if isinstance(dev, int) and not isinstance(dev, bool):
        raise RuntimeError(NO_ACCELERATOR)
    d = device(dev)
    if d.type == "cpu":
        return d
    if d.type == "cuda":
        raise AssertionError(NO_CUDA)
    if d.type == "meta":
        raise NotImplementedError("meta tensors are not supported by autotrace")
    if d.type == "mps":
        raise RuntimeError("PyTorch is not linked with support for mps devices")
    raise RuntimeError(f"PyTorch is not linked with support for {d.type} devices")


CPU = Device("cpu")


# -- torch.cuda -------------------------------------------------------------------------


def is_available() -> bool:
    """``torch.cuda.is_available()``: False (a CPU-only build)."""
    return False


def device_count() -> int:
    return 0


def current_device():
    raise AssertionError(NO_CUDA)


def _noop_seed(seed=None):
    return None


def cuda_members() -> dict:
    from .torch_api.legacy import CUDA_TYPED
    return {**CUDA_TYPED, "is_available": is_available, "device_count": device_count, "current_device": current_device,
            "manual_seed": _noop_seed, "manual_seed_all": _noop_seed, "is_initialized": lambda: False,
            "synchronize": current_device, "empty_cache": lambda: None}
