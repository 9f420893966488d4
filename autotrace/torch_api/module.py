"""``torch.nn.Module``: the base of every layer and of the script's own ``class Net(nn.Module)``.

Matches torch 2.13's observable behaviour: assigning a Parameter, a Module or a tensor
registered as a buffer files it in ``_params`` / ``_modules`` / ``_buffers`` in assignment
order (and an assignment before ``Module.__init__()`` raises torch's AttributeError);
``named_parameters()``/``named_buffers()``/``named_modules()`` walk the tree prefix-first
with duplicates removed; ``state_dict()`` (parameters then persistent buffers, module by
module, detached tensors sharing storage) and ``load_state_dict()`` (copies in place, with
torch's missing/unexpected/size-mismatch errors); ``model(x)`` runs forward pre-hooks,
``forward`` and forward hooks; ``repr`` is torch's (``extra_repr`` lines, then children
indented by two).

Script-visible attributes: the methods named in ``_script_attrs``, the registries (a
parameter, buffer or submodule by name), public attributes the library set on the
instance, and the script's own attributes (kept in ``_sdict``, apart from the internals).
"""

from __future__ import annotations

from collections import OrderedDict

from .. import dtypes
from ..interpreter.classes import NOT_FOUND
from ..interpreter.errors import script_visible
from ..tensor import Parameter, Tensor

_INTERNAL = frozenset({"_params", "_modules", "_buffers", "_non_persistent", "_sdict",
                       "_forward_pre_hooks", "_forward_hooks", "_backward_hooks", "_cls"})
# what torch calls the registries in its error messages
_TORCH_NAMES = {"_params": "_parameters", "_forward_pre_hooks": "_forward_pre_hooks",
                "_forward_hooks": "_forward_hooks", "_backward_hooks": "_backward_hooks",
                "_modules": "_modules", "_buffers": "_buffers", "_non_persistent": "_non_persistent_buffers_set"}


def typename(o) -> str:
    """torch.typename: ``torch.FloatTensor`` for tensors, else the qualified class name."""
    if isinstance(o, Tensor):
        return f"torch.{o._dtype.legacy}"
    c = o.__dict__.get("_cls") if hasattr(o, "__dict__") and not isinstance(o, type) else None
    if c is not None:
        return f"__main__.{c.name}"
    t = type(o)
    from ..interpreter.values import display_name
    mod = getattr(t, "__module__", "builtins")
    if mod == "builtins" or mod.startswith("autotrace"):
        return display_name(o)
    return f"{mod}.{t.__qualname__}"  # pragma: no cover


def module_name(m) -> str:
    """``m._get_name()``: the script class's name for script modules."""
    c = m.__dict__.get("_cls")
    return c.name if c is not None else type(m).__name__


def _addindent(s: str, n: int) -> str:
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    return first + "\n" + "\n".join(" " * n + line for line in lines)


class _Handle:
    """``RemovableHandle`` of a module hook."""

    __slots__ = ("_list", "_entry")
    _script_attrs = frozenset({"remove"})
    _script_type_name = "torch.utils.hooks.RemovableHandle"

    def __init__(self, lst, entry):
        self._list = lst
        self._entry = entry

    def remove(self) -> None:
        if self._entry in self._list:
            self._list.remove(self._entry)

    def __repr__(self):
        return f"<torch.utils.hooks.RemovableHandle object at 0x{id(self):x}>"


class _Generator:
    """What Module's iterator methods return: a one-pass iterator printed as torch's
    ``<generator object Module.parameters at 0x…>``."""

    __slots__ = ("_it", "_name")
    _script_attrs = frozenset()
    _script_type_name = "generator"

    def __init__(self, name, items):
        self._it = iter(items)
        self._name = name

    def __iter__(self):
        return self

    def __next__(self):
        return next(self._it)

    def __repr__(self):
        return f"<generator object Module.{self._name} at 0x{id(self):x}>"


class IncompatibleKeys:
    """What ``load_state_dict`` returns (``missing_keys``, ``unexpected_keys``)."""

    __slots__ = ("missing_keys", "unexpected_keys")
    _script_attrs = frozenset({"missing_keys", "unexpected_keys"})

    def __init__(self, missing, unexpected):
        self.missing_keys = missing
        self.unexpected_keys = unexpected

    def __iter__(self):
        return iter((self.missing_keys, self.unexpected_keys))

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys!r}, unexpected_keys={self.unexpected_keys!r})"


class Module:
    """Base of all layers and of script classes deriving from ``nn.Module``."""

    _script_subclassable = True
    _script_attrs = frozenset({
        "parameters", "named_parameters", "buffers", "named_buffers", "children", "named_children",
        "modules", "named_modules", "zero_grad", "train", "eval", "training", "forward",
        "requires_grad_", "state_dict", "load_state_dict", "to", "float", "double", "cpu", "cuda", "apply",
        "register_buffer", "register_parameter", "add_module", "register_module", "get_submodule",
        "get_parameter", "extra_repr", "register_forward_hook", "register_forward_pre_hook",
        "register_full_backward_hook"})
    #: names a layer lets scripts assign (layers extend it; the guard asks _script_setattr)
    _script_setattrs = frozenset({"training"})

    def __init__(self, *args, **kwargs):
        if args or kwargs:
            k = next(iter(kwargs), None)
            if k is not None:
                raise TypeError(f"{module_name(self)}.__init__() got an unexpected keyword argument '{k}'")
            raise TypeError(f"{module_name(self)}.__init__() takes 1 positional argument but {len(args) + 1} were given")
        d = self.__dict__
        d.setdefault("_sdict", {})
        d["training"] = True
        d["_params"] = {}
        d["_buffers"] = {}
        d["_non_persistent"] = set()
        d["_modules"] = {}
        d["_forward_pre_hooks"] = []
        d["_forward_hooks"] = []
        d["_backward_hooks"] = []

    # -- attributes (engine code) -----------------------------------------------------

    def __getattr__(self, name):
        d = self.__dict__
        for reg in ("_params", "_buffers", "_modules"):
            r = d.get(reg)
            if r is not None and name in r:
                return r[name]
        raise script_visible(AttributeError(
            f"'{module_name(self)}' object has no attribute '{_TORCH_NAMES.get(name, name)}'"))

    def __setattr__(self, name, value):
        self._assign(name, value, script=False)

    def _assign(self, name, value, script: bool):
        d = self.__dict__
        params = d.get("_params")
        if isinstance(value, Parameter):
            if params is None:
                raise script_visible(AttributeError("cannot assign parameters before Module.__init__() call"))
            self._discard(name)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            params[name] = None
            return
        modules = d.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise script_visible(AttributeError("cannot assign module before Module.__init__() call"))
            self._discard(name)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as child module '{name}' "
                                "(torch.nn.Module or None expected)")
            modules[name] = None
            return
        buffers = d.get("_buffers")
        if buffers is not None and name in buffers:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                "(torch.Tensor or None expected)")
            buffers[name] = value
            return
        if not script or (name in d and not name.startswith("_")):
            if name in _INTERNAL:
                raise TypeError(f"cannot assign to internal attribute '{name}'")  # pragma: no cover
            object.__setattr__(self, name, value)
        else:
            d.setdefault("_sdict", {})[name] = value

    def _discard(self, name):
        d = self.__dict__
        for reg in ("_params", "_buffers", "_modules", "_sdict"):
            r = d.get(reg)
            if r is not None and name in r:
                del r[name]
        if name in d and not name.startswith("_"):
            del d[name]

    # -- attributes (scripts; called by the guard on the type) ------------------------

    def _script_getattr(self, name):
        d = self.__dict__
        for reg in ("_params", "_buffers", "_modules", "_sdict"):
            r = d.get(reg)
            if r is not None and name in r:
                return r[name]
        if name[:1] != "_" and name in d:
            return d[name]
        return NOT_FOUND

    def _script_setattr(self, name, value):
        if name[:1] == "_" and name in _INTERNAL:
            self.__dict__.setdefault("_sdict", {})[name] = value
            return
        self._assign(name, value, script=True)

    # -- registration -------------------------------------------------------------------

    def _check_name(self, name, what: str, registry: str):
        d = self.__dict__
        if not isinstance(name, str):
            raise TypeError(f"{what} name should be a string. Got {typename(name)}")
        if "." in name:
            raise script_visible(KeyError(f'{what} name can\'t contain ".", got: {name}' if what == "module"
                                          else f'{what} name can\'t contain "."'))
        if name == "":
            raise script_visible(KeyError(f'{what} name can\'t be empty string ""'))
        reg = d.get(registry) or {}
        if name not in reg and (self._has(name)):
            raise script_visible(KeyError(f"attribute '{name}' already exists"))

    def _has(self, name) -> bool:
        d = self.__dict__
        if name in d or any(name in (d.get(r) or {}) for r in ("_params", "_buffers", "_modules", "_sdict")):
            return True
        c = d.get("_cls")
        if c is not None and c.defines(name):
            return True
        return any(name in k.__dict__ for k in type(self).__mro__)

    def register_buffer(self, name, tensor, persistent=True):
        """``register_buffer(name, tensor, persistent=True)``: a tensor saved in
        ``state_dict`` (unless not persistent) and moved by ``.to()``, not a parameter."""
        if "_buffers" not in self.__dict__:
            raise script_visible(AttributeError("cannot assign buffer before Module.__init__() call"))
        self._check_name(name, "buffer", "_buffers")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._discard(name)
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent.discard(name)
        else:
            self._non_persistent.add(name)

    def register_parameter(self, name, param):
        if "_params" not in self.__dict__:
            raise script_visible(AttributeError("cannot assign parameter before Module.__init__() call"))
        self._check_name(name, "parameter", "_params")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        self._discard(name)
        self._params[name] = param

    def add_module(self, name, module):
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if "_modules" not in self.__dict__:
            raise script_visible(AttributeError("cannot assign module before Module.__init__() call"))
        self._check_name(name, "module", "_modules")
        self._discard(name)
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target=""):
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            sub = (mod.__dict__.get("_modules") or {}).get(item)
            if sub is None:
                raise script_visible(AttributeError(f"{module_name(mod)} has no attribute `{item}`"))
            mod = sub
        return mod

    def get_parameter(self, target):
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        p = mod.__dict__["_params"].get(name)
        if p is None:
            raise script_visible(AttributeError(f"{module_name(mod)} has no attribute `{name}`"))
        return p

    # -- traversal ----------------------------------------------------------------------

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        out = []
        seen = set() if memo is None else memo
        stack = [(prefix, self)]
        while stack:
            pre, m = stack.pop()
            if remove_duplicate:
                if id(m) in seen:
                    continue
                seen.add(id(m))
            out.append((pre, m))
            kids = [(pre + ("." if pre else "") + n, c) for n, c in m.__dict__["_modules"].items() if c is not None]
            stack.extend(reversed(kids))
        return _Generator("named_modules", out)

    def modules(self):
        return _Generator("modules", [m for _, m in self.named_modules()])

    def named_children(self):
        seen = set()
        out = []
        for n, m in self._modules.items():
            if m is not None and id(m) not in seen:
                seen.add(id(m))
                out.append((n, m))
        return _Generator("named_children", out)

    def children(self):
        return _Generator("children", [m for _, m in self.named_children()])

    def _named_members(self, registry, prefix, recurse, remove_duplicate=True):
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        seen = set()
        out = []
        for pre, m in mods:
            for k, v in m.__dict__[registry].items():
                if v is None or (remove_duplicate and id(v) in seen):
                    continue
                seen.add(id(v))
                out.append((pre + ("." if pre else "") + k, v))
        return out

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        return _Generator("named_parameters", self._named_members("_params", prefix, recurse, remove_duplicate))

    def parameters(self, recurse=True):
        return _Generator("parameters", [p for _, p in self.named_parameters(recurse=recurse)])

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return _Generator("named_buffers", self._named_members("_buffers", prefix, recurse, remove_duplicate))

    def buffers(self, recurse=True):
        return _Generator("buffers", [b for _, b in self.named_buffers(recurse=recurse)])

    # -- modes and grads ------------------------------------------------------------------

    def train(self, mode=True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        object.__setattr__(self, "training", mode)
        for m in self.children():
            m.train(mode)
        return self

    def eval(self):
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        from .nn import zero_grads
        zero_grads(self.parameters(), set_to_none)

    def apply(self, fn):
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    def _tensors(self):
        for m in self.modules():
            d = m.__dict__
            for reg in ("_params", "_buffers"):
                for t in d[reg].values():
                    if t is not None:
                        yield t

    def to(self, *args, **kwargs):
        from .. import device as _device
        for a in list(args) + [kwargs.get("device")]:
            if isinstance(a, (str, _device.Device)) or (isinstance(a, int) and not isinstance(a, bool)):
                _device.check(a)  # CPU-only: 'cuda' raises torch's AssertionError
        dt = kwargs.get("dtype")
        for a in args:
            if isinstance(a, dtypes.DType):
                dt = a
        if dt is not None:
            for t in self._tensors():
                if t._dtype.category == dtypes.FLOAT:
                    t._data = t._data.astype(dt.np)
                    t._dtype = dt
        return self

    def float(self):
        return self.to(dtypes.float32)

    def double(self):
        return self.to(dtypes.float64)

    def cpu(self):
        return self

    def cuda(self, device=None):
        from .. import device as _device
        raise AssertionError(_device.NO_CUDA)

    # -- state dict ---------------------------------------------------------------------

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """Parameters then persistent buffers, module by module (torch's order), as
        detached tensors sharing storage (``keep_vars=True``: the tensors themselves)."""
        out = OrderedDict() if destination is None else destination
        stack = [(prefix, self)]
        while stack:
            pre, m = stack.pop()
            d = m.__dict__
            for k, v in d["_params"].items():
                if v is not None:
                    out[pre + k] = v if keep_vars else v.detach()
            for k, v in d["_buffers"].items():
                if v is not None and k not in d["_non_persistent"]:
                    out[pre + k] = v if keep_vars else v.detach()
            stack.extend(reversed([(pre + n + ".", c) for n, c in d["_modules"].items() if c is not None]))
        return out

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy ``state_dict``'s tensors into the parameters and buffers in place (no graph);
        torch 2.13's errors for missing, unexpected and mis-shaped entries."""
        if not hasattr(type(state_dict), "keys"):
            raise TypeError(f"Expected state_dict to be dict-like, got {typename(state_dict)}.")
        sd = OrderedDict(state_dict)
        missing, unexpected, errors = [], [], []
        stack = [("", self)]
        while stack:
            pre, m = stack.pop()
            d = m.__dict__
            local = {k: v for k, v in d["_params"].items() if v is not None}
            local.update({k: v for k, v in d["_buffers"].items()
                          if v is not None and k not in d["_non_persistent"]})
            for name, param in local.items():
                key = pre + name
                if key not in sd:
                    missing.append(key)
                    continue
                src = sd[key]
                if not isinstance(src, Tensor):
                    errors.append(f'While copying the parameter named "{key}", expected torch.Tensor or '
                                  f"Tensor-like object from checkpoint but received {typename(src)}")
                    continue
                if src._data.shape != param._data.shape:
                    errors.append(f"size mismatch for {key}: copying a param with shape {src.shape} from "
                                  f"checkpoint, the shape in current model is {param.shape}.")
                    continue
                if assign:
                    param._data = src._data
                else:
                    param._data[...] = src._data.astype(param._data.dtype, copy=False)
                    param._version_counter.value += 1
            for key in sd:
                if key.startswith(pre):
                    parts = key[len(pre):].split(".", 1)
                    if len(parts) > 1:
                        if parts[0] not in d["_modules"]:
                            unexpected.append(key)
                    elif parts[0] not in local:
                        unexpected.append(key)
            stack.extend(reversed([(pre + n + ".", c) for n, c in d["_modules"].items() if c is not None]))
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(module_name(self), "\n\t".join(errors)))
        return IncompatibleKeys(missing, unexpected)

    # -- calling ------------------------------------------------------------------------

    def forward(self, *input):
        raise NotImplementedError(f'Module [{module_name(self)}] is missing the required "forward" function')

    def _forward_fn(self):
        d = self.__dict__
        sd = d.get("_sdict")
        if sd and "forward" in sd:
            return sd["forward"]
        c = d.get("_cls")
        if c is not None:
            f = c.lookup("forward")
            if f is not NOT_FOUND:
                from ..interpreter.classes import bind
                return bind(f, self, c)
        return self.forward

    def __call__(self, *args, **kwargs):
        from .. import record
        if record.active is None:
            return self._call(args, kwargs)
        call = record.enter_module(self)      # the graph groups the nodes by module call
        try:
            return self._call(args, kwargs)
        finally:
            record.exit_module(call)

    def _call(self, args, kwargs):
        d = self.__dict__
        if "_forward_hooks" not in d:
            raise script_visible(AttributeError(f"'{module_name(self)}' object has no attribute '_backward_pre_hooks'"))
        for hook, with_kwargs in list(d["_forward_pre_hooks"]):
            if with_kwargs:
                r = hook(self, args, kwargs)
                if r is not None:
                    args, kwargs = r
                continue
            r = hook(self, args)
            if r is not None:
                args = r if isinstance(r, tuple) else (r,)
        bw = d["_backward_hooks"]
        if bw:
            from .module_hooks import BackwardHook
            state = BackwardHook(self, bw)
            args = state.setup_inputs(args)
        result = self._forward_fn()(*args, **kwargs)
        for hook, with_kwargs in list(d["_forward_hooks"]):
            r = hook(self, args, kwargs, result) if with_kwargs else hook(self, args, result)
            if r is not None:
                result = r
        if bw:
            result = state.setup_outputs(result)
        return result

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        return self._add_hook("_forward_pre_hooks", (hook, bool(with_kwargs)), prepend)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        return self._add_hook("_forward_hooks", (hook, bool(with_kwargs)), prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        return self._add_hook("_backward_hooks", hook, prepend)

    def _add_hook(self, which, entry, prepend):
        lst = self.__dict__[which]
        if prepend:
            lst.insert(0, entry)
        else:
            lst.append(entry)
        return _Handle(lst, entry)

    # -- naming and printing -------------------------------------------------------------

    def _on_bind(self, name: str) -> None:
        """Bound to a script variable: its parameters are named after it
        (``model.fc1.weight``), as ``named_parameters()`` would call them."""
        if "_params" not in self.__dict__:
            return
        for pname, p in self.named_parameters():
            if p._name is None:
                p._on_bind(f"{name}.{pname}")
        for bname, b in self.named_buffers():
            if b._name is None:
                b._on_bind(f"{name}.{bname}")

    def _extra_repr(self) -> str:
        return ""

    def extra_repr(self) -> str:
        return self._extra_repr()

    def _extra_text(self) -> str:
        c = self.__dict__.get("_cls")
        if c is not None:
            f = c.lookup("extra_repr")
            if f is not NOT_FOUND:
                from ..interpreter.classes import call_method
                from ..interpreter.limits import RT
                if not RT.active:
                    return ""
                r = call_method(f, self, ())
                if type(r) is not str:
                    raise TypeError(f"extra_repr() must return a str, not {typename(r)}")
                return r
        return self._extra_repr()

    def __repr__(self) -> str:
        d = self.__dict__
        if "_modules" not in d:
            return f"{module_name(self)}()"
        extra = self._extra_text()
        extra_lines = extra.split("\n") if extra else []
        child_lines = []
        for key, m in d["_modules"].items():
            child_lines.append("(" + key + "): " + _addindent(repr(m), 2))
        lines = extra_lines + child_lines
        main = module_name(self) + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"
