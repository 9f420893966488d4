"""``torch.nn`` containers: ModuleList, ModuleDict, ParameterList, ParameterDict, and
the shape layers Unflatten. Registration, indexing and reprs as torch 2.13
(``ModuleList`` folds runs of equal children into ``(0-1): 2 x Linear(...)``).
"""

from __future__ import annotations

from ..tensor import Parameter, Tensor
from .nn import Module, make_parameter


def _index(idx, n, what):
    if not isinstance(idx, int) or isinstance(idx, bool):
        raise TypeError(f"{what} indices must be integers or slices, not {type(idx).__name__}")
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range")
    return idx % n


class ModuleList(Module):
    """A list of modules whose parameters are registered (``'0'``, ``'1'`` ...)."""

    _script_attrs = Module._script_attrs | {"append", "extend", "insert"}

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _check(self, m):
        if not isinstance(m, Module) and m is not None:
            raise TypeError(f"{type(m).__name__} is not a Module subclass")

    def append(self, module):
        self._check(module)
        self._modules[str(len(self._modules))] = module
        object.__setattr__(self, str(len(self._modules) - 1), module)
        return self

    def extend(self, modules):
        for m in modules:
            self.append(m)
        return self

    def insert(self, index, module):
        mods = list(self._modules.values())
        mods.insert(index, module)
        self._modules.clear()
        for m in mods:
            self.append(m)

    def __getitem__(self, idx):
        mods = list(self._modules.values())
        if isinstance(idx, slice):
            return ModuleList(mods[idx])
        return mods[_index(idx, len(mods), "ModuleList")]

    def __setitem__(self, idx, module):
        self._check(module)
        i = _index(idx, len(self._modules), "ModuleList")
        self._modules[str(i)] = module

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(list(self._modules.values()))

    def __iadd__(self, modules):
        return self.extend(modules)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    def __repr__(self):
        mods = list(self._modules.items())
        if not mods:
            return "ModuleList()"
        lines = ["ModuleList("]
        i = 0
        while i < len(mods):
            r = repr(mods[i][1])
            j = i
            while j + 1 < len(mods) and repr(mods[j + 1][1]) == r:
                j += 1
            sub = r.replace("\n", "\n  ")
            if j > i:
                lines.append(f"  ({mods[i][0]}-{mods[j][0]}): {j - i + 1} x {sub}")
            else:
                lines.append(f"  ({mods[i][0]}): {sub}")
            i = j + 1
        lines.append(")")
        return "\n".join(lines)


class ModuleDict(Module):
    """A dict of modules, registered under their keys in insertion order."""

    _script_attrs = Module._script_attrs | {"keys", "values", "items", "update", "pop", "clear"}

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def update(self, modules):
        items = modules.items() if isinstance(modules, (dict, ModuleDict)) else modules
        for k, m in items:
            self[k] = m

    def __setitem__(self, key, module):
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._modules[key] = module

    def __getitem__(self, key):
        return self._modules[key]

    def __contains__(self, key):
        return key in self._modules

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(list(self._modules))

    # dict views, as torch's ModuleDict returns self._modules' own
    def keys(self):
        return dict.keys(self._modules)

    def values(self):
        return dict.values(self._modules)

    def items(self):
        return dict.items(self._modules)

    def pop(self, key):
        return self._modules.pop(key)

    def clear(self):
        self._modules.clear()

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


def _param_line(p, type_name):
    """One entry of ParameterList's / ParameterDict's extra_repr (torch 2.13's text; one
    entry stays on the module's line, as Module.__repr__ puts a single extra line)."""
    size = "x".join(str(s) for s in p.shape)
    kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
    return f"{kind} containing: [{type_name} of size {size}]"


class ParameterList(Module):
    """A list of parameters registered as ``'0'``, ``'1'`` ...; plain tensors are wrapped
    in Parameter, as torch 2.13 does."""

    _script_attrs = Module._script_attrs | {"append", "extend"}

    def __init__(self, values=None):
        super().__init__()
        if values is not None:
            self.extend(values)

    def append(self, value):
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = make_parameter(value)
        self._params[str(len(self._params))] = value
        return self

    def extend(self, values):
        for v in values:
            self.append(v)
        return self

    def __getitem__(self, idx):
        ps = list(self._params.values())
        if isinstance(idx, slice):
            return ParameterList(ps[idx])
        return ps[_index(idx, len(ps), "ParameterList")]

    def __setitem__(self, idx, value):
        i = _index(idx, len(self._params), "ParameterList")
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = make_parameter(value)
        self._params[str(i)] = value

    def __len__(self):
        return len(self._params)

    def __iter__(self):
        return iter(list(self._params.values()))

    def _extra_repr(self):
        return "\n".join(f"  ({k}): {_param_line(p, str(p.dtype))}" for k, p in self._params.items())

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')


class ParameterDict(Module):
    _script_attrs = Module._script_attrs | {"keys", "values", "items", "update"}

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def update(self, parameters):
        items = parameters.items() if isinstance(parameters, (dict, ParameterDict)) else parameters
        for k, v in items:
            self[k] = v

    def __setitem__(self, key, value):
        if isinstance(value, Tensor) and not isinstance(value, Parameter):
            value = make_parameter(value)
        self._params[key] = value

    def __getitem__(self, key):
        return self._params[key]

    def __contains__(self, key):
        return key in self._params

    def __len__(self):
        return len(self._params)

    def __iter__(self):
        return iter(list(self._params))

    def keys(self):
        return dict.keys(self._params)

    def values(self):
        return list(self._params.values())

    def items(self):
        return list(self._params.items())

    def _extra_repr(self):
        # torch.typename(p): the legacy type name (torch.FloatTensor), unlike ParameterList
        return "\n".join(f"  ({k}): {_param_line(p, p.type())}" for k, p in self._params.items())


class Unflatten(Module):
    """``nn.Unflatten(dim, unflattened_size)``: ``input.unflatten(dim, sizes)`` (a view)."""

    _script_attrs = Module._script_attrs | {"dim", "unflattened_size"}

    def __init__(self, dim, unflattened_size):
        super().__init__()
        object.__setattr__(self, "dim", dim)
        object.__setattr__(self, "unflattened_size", tuple(unflattened_size))

    def forward(self, input):
        from ..ops.shape import unflatten
        return unflatten(input, self.dim, self.unflattened_size)

    def _extra_repr(self):
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


MEMBERS = {c.__name__: c for c in (ModuleList, ModuleDict, ParameterList, ParameterDict, Unflatten)}
