"""``torch.optim``: SGD, Adam, AdamW with torch 2.13's single-tensor CPU update rules.

Updates run on the parameters' numpy data in their own dtype (float32 stays float32),
with the scalar coefficients cast to that dtype as torch's CPU kernels do, in the same
order of operations as ``torch/optim/{sgd,adam,adamw}.py`` (``_single_tensor_*``), so
results agree with torch to float32 rounding. Steps run outside the graph and bump the
parameters' version counters (they are in-place updates).
"""

from __future__ import annotations



import numpy as np

from ..ops import kernels
from ..tensor import Tensor


class Optimizer:
    _script_attrs = frozenset({"step", "zero_grad", "param_groups", "state", "defaults", "add_param_group",
                               "state_dict", "load_state_dict"})

    def __init__(self, params, defaults):
        self.defaults = dict(defaults)
        self.state = {}
        self.param_groups = []
        self._opt_called = False
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            f"but got torch.{_tensor_type(params)}")
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(params[0], dict):
            params = [{"params": params}]
        for g in params:
            self.add_param_group(g)

    def add_param_group(self, param_group):
        """Append a group; missing options come from the defaults. torch 2.13's errors
        (sets, non-leaf or non-tensor params, a parameter in two groups) and its warning
        for a parameter listed twice in one group."""
        from .. import diagnostics
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        group = dict(param_group)
        ps = group["params"]
        if isinstance(ps, Tensor):
            ps = [ps]
        elif isinstance(ps, (set, frozenset)):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            ps = list(ps)
        group["params"] = ps
        for p in ps:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {_type_name(p)}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for k, v in self.defaults.items():
            group.setdefault(k, v)
        if len({id(p) for p in ps}) != len(ps):
            diagnostics.warn("optimizer contains a parameter group with duplicate parameters; in future, this will "
                             "cause an error; see github.com/pytorch/pytorch/issues/40967 for more information")
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in ps):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def state_dict(self):
        """``{'state': {index: {...}}, 'param_groups': [{..., 'params': [indices]}]}``,
        parameters numbered in group order, as torch 2.13."""
        index = {}
        groups = []
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            for p in g["params"]:
                index.setdefault(id(p), len(index))
            packed["params"] = [index[id(p)] for p in g["params"]]
            groups.append(packed)
        state = {}
        for g in self.param_groups:
            for p in g["params"]:
                st = self.state.get(p)
                if st:
                    state[index[id(p)]] = dict(st)
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Restore state and group options from :meth:`state_dict` (tensors copied; float
        state cast to the parameter's dtype except ``step``); torch 2.13's size checks."""
        groups = self.param_groups
        saved = state_dict["param_groups"]
        if len(groups) != len(saved):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for g, sg in zip(groups, saved):
            if len(g["params"]) != len(sg["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                                 "optimizer's group")
        id_map = {}
        for g, sg in zip(groups, saved):
            for i, p in zip(sg["params"], g["params"]):
                id_map[i] = p
        self.state = {}
        for k, st in state_dict["state"].items():
            p = id_map.get(k)
            if p is None:
                continue
            new = {}
            for name, v in st.items():
                if isinstance(v, Tensor):
                    data = v._data.copy()
                    if name != "step" and data.dtype.kind == "f":
                        data = data.astype(p._data.dtype)
                    v = Tensor._make(data)
                new[name] = v
            self.state[p] = new
        for g, sg in zip(groups, saved):
            params = g["params"]
            g.clear()
            g.update({k: v for k, v in sg.items() if k != "params"})
            g["params"] = params

    def zero_grad(self, set_to_none=True):
        """Clear the grads: ``None`` (torch 2.13 default) or zeroed in place."""
        from .nn import zero_grads

        zero_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    def _state(self, p):
        st = self.state.get(p)
        if st is None:
            st = self.state[p] = {}
        return st

    def step(self, closure=None):
        self._opt_called = True
        loss = None
        if closure is not None:
            from .. import grad_mode
            prev = grad_mode.enabled
            grad_mode.enabled = True
            try:
                loss = closure()
            finally:
                grad_mode.enabled = prev
        from .. import record

        log = [] if record.wants_events() else None
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is not None:
                    before = p._data.copy() if log is not None else None
                    self._update(p, p._grad._data, group)
                    p._version_counter.value += 1
                    if log is not None:
                        log.append(dict(record.leaf_ref(p), grad=p._grad._data.copy(), before=before,
                                        after=p._data.copy(), state=_state_copy(self.state.get(p)),
                                        hyper={k: v for k, v in group.items() if k != "params"}))
        if log is not None:
            record.event("optimizer_step", optimizer=type(self).__name__, params=log)
        return loss

    def __repr__(self):
        lines = [f"{type(self).__name__} ("]
        for i, g in enumerate(self.param_groups):
            if i:
                lines.append("")
            lines.append(f"Parameter Group {i}")
            for k in sorted(g):
                if k != "params":
                    lines.append(f"    {k}: {g[k]}")
        lines.append(")")
        return "\n".join(lines)


def _tensor_type(t):
    return {"float32": "FloatTensor", "float64": "DoubleTensor", "int64": "LongTensor",
            "bool": "BoolTensor"}.get(t._dtype.name, "Tensor")


def _type_name(v):
    return "torch." + _tensor_type(v) if isinstance(v, Tensor) else type(v).__name__


def _state_copy(st) -> dict:
    """An optimizer's per-parameter state as copies (momentum buffer, Adam's moments, step)."""
    out = {}
    for k, v in (st or {}).items():
        if isinstance(v, Tensor):
            out[k] = v._data.copy()
        elif isinstance(v, (int, float)):
            out[k] = v
    return out


def _s(x, dt):
    return dt.type(x)


class SGD(Optimizer):
    """SGD with momentum, dampening, weight_decay, nesterov, maximize (torch 2.13)."""

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False, foreach=None, differentiable=False, fused=None):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening,
                                      weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                                      foreach=foreach, differentiable=differentiable, fused=fused))

    def _update(self, p, grad, group):
        x = p._data
        dt = x.dtype
        g = -grad if group["maximize"] else grad
        wd, mom = group["weight_decay"], group["momentum"]
        # torch's _single_tensor_sgd: every Tensor.add(other, alpha=a) is one fused fma(a, other, self)
        if wd != 0:
            g = _add(g, x, wd)
        if mom != 0:
            st = self._state(p)
            buf = st.get("momentum_buffer")
            if buf is None:
                buf = st["momentum_buffer"] = Tensor._make(np.array(g, dtype=dt, copy=True))
            else:
                b = buf._data
                b *= _s(mom, dt)
                b[...] = _add(b, g, 1 - group["dampening"])
            g = _add(g, buf._data, mom) if group["nesterov"] else buf._data
        x[...] = _add(x, g, -group["lr"])


def _add(a, b, alpha):
    """``a.add(b, alpha=alpha)`` as torch computes it (fused for alpha != 1)."""
    if alpha == 1:
        return a + b
    return kernels.add_alpha(*np.broadcast_arrays(a, b), alpha)


class Adam(Optimizer):
    """Adam (and AdamW through ``decoupled``), torch 2.13 ``_single_tensor_adam``."""

    _decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
                 foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
                 decoupled_weight_decay=False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay,
                                      amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                                      capturable=capturable, differentiable=differentiable, fused=fused,
                                      decoupled_weight_decay=decoupled_weight_decay or self._decoupled))

    def _update(self, p, grad, group):
        x = p._data
        dt = x.dtype
        lr, (b1, b2), eps, wd = group["lr"], group["betas"], group["eps"], group["weight_decay"]
        g = -grad if group["maximize"] else grad
        st = self._state(p)
        if not st:
            st["step"] = Tensor._make(np.array(0.0, dtype=np.float32))
            st["exp_avg"] = Tensor._make(np.zeros_like(x))
            st["exp_avg_sq"] = Tensor._make(np.zeros_like(x))
            if group["amsgrad"]:
                st["max_exp_avg_sq"] = Tensor._make(np.zeros_like(x))
        st["step"]._data += np.float32(1)
        step = float(st["step"]._data)
        if wd != 0:
            if group["decoupled_weight_decay"]:
                x *= _s(1 - lr * wd, dt)
                p._version_counter.value += 1   # param.mul_(1 - lr * wd): a second in-place op
            else:
                g = _add(g, x, wd)
        m, v = st["exp_avg"]._data, st["exp_avg_sq"]._data
        m[...] = kernels.lerp(m, g, _s(1 - b1, dt))      # exp_avg.lerp_(grad, 1 - beta1)
        v *= _s(b2, dt)
        v[...] = kernels.addcmul(v, g, g, 1 - b2)        # exp_avg_sq.addcmul_(grad, grad, 1 - beta2)
        bc1 = 1 - b1 ** step
        bc2 = 1 - b2 ** step
        step_size = lr / bc1
        bc2_sqrt = bc2 ** 0.5
        if group["amsgrad"]:
            mx = st["max_exp_avg_sq"]._data
            np.maximum(mx, v, out=mx)
            denom = kernels.sqrt(mx) / _s(bc2_sqrt, dt) + _s(eps, dt)
        else:
            denom = kernels.sqrt(v) / _s(bc2_sqrt, dt) + _s(eps, dt)
        x[...] = kernels.addcdiv(x, m, denom, -step_size)   # param.addcdiv_(exp_avg, denom, -step_size)


class AdamW(Adam):
    """Adam with decoupled weight decay (default 1e-2): ``p *= 1 - lr·wd`` first."""

    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False,
                 **kwargs):
        kwargs.pop("decoupled_weight_decay", None)
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, **kwargs)


class RMSprop(Optimizer):
    """RMSprop (centered, momentum, weight_decay, maximize), torch 2.13 ``_single_tensor_rmsprop``."""

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0, centered=False,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if alpha < 0.0:
            raise ValueError(f"Invalid alpha value: {alpha}")
        super().__init__(params, dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                                      weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable))

    def _update(self, p, grad, group):
        x = p._data
        dt = x.dtype
        g = -grad if group["maximize"] else grad
        st = self._state(p)
        if not st:
            st["step"] = Tensor._make(np.array(0.0, dtype=np.float32))
            st["square_avg"] = Tensor._make(np.zeros_like(x))
            if group["momentum"] > 0:
                st["momentum_buffer"] = Tensor._make(np.zeros_like(x))
            if group["centered"]:
                st["grad_avg"] = Tensor._make(np.zeros_like(x))
        st["step"]._data += np.float32(1)
        if group["weight_decay"] != 0:
            g = g + _s(group["weight_decay"], dt) * x
        alpha = group["alpha"]
        sq = st["square_avg"]._data
        sq *= _s(alpha, dt)
        sq += _s(1 - alpha, dt) * (g * g)
        if group["centered"]:
            ga = st["grad_avg"]._data
            ga += _s(1 - alpha, dt) * (g - ga)
            avg = np.sqrt(sq - ga * ga)
        else:
            avg = np.sqrt(sq)
        avg = avg + _s(group["eps"], dt)
        if group["momentum"] > 0:
            buf = st["momentum_buffer"]._data
            buf *= _s(group["momentum"], dt)
            buf += g / avg
            x += _s(-group["lr"], dt) * buf
        else:
            x += _s(-group["lr"], dt) * (g / avg)


class Adagrad(Optimizer):
    """Adagrad (lr_decay, weight_decay, initial_accumulator_value, maximize), torch 2.13
    ``_single_tensor_adagrad``; its state is created at construction, as torch does."""

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0, eps=1e-10,
                 foreach=None, *, maximize=False, differentiable=False, fused=None):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if lr_decay < 0.0:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if initial_accumulator_value < 0.0:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        super().__init__(params, dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                                      initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                                      maximize=maximize, differentiable=differentiable, fused=fused))
        for group in self.param_groups:
            for p in group["params"]:
                st = self._state(p)
                st["step"] = Tensor._make(np.array(0.0, dtype=np.float32))
                st["sum"] = Tensor._make(np.full_like(p._data, initial_accumulator_value))

    def _update(self, p, grad, group):
        x = p._data
        dt = x.dtype
        st = self._state(p)
        st["step"]._data += np.float32(1)
        step = float(st["step"]._data)
        g = -grad if group["maximize"] else grad
        if group["weight_decay"] != 0:
            g = g + _s(group["weight_decay"], dt) * x
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        ssum = st["sum"]._data
        ssum += g * g
        std = np.sqrt(ssum) + _s(group["eps"], dt)
        x += _s(-clr, dt) * (g / std)


class Adadelta(Optimizer):
    """Adadelta (rho, eps, weight_decay, maximize), torch 2.13 ``_single_tensor_adadelta``:
    ``square_avg ← rho·square_avg + (1−rho)·g²``, ``delta = sqrt(acc_delta + eps) /
    sqrt(square_avg + eps) · g``, ``acc_delta ← rho·acc_delta + (1−rho)·delta²``,
    ``p ← p − lr·delta``."""

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *, capturable=False,
                 maximize=False, differentiable=False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                                      capturable=capturable, foreach=foreach, differentiable=differentiable))

    def _update(self, p, grad, group):
        x = p._data
        dt = x.dtype
        g = -grad if group["maximize"] else grad
        st = self._state(p)
        if not st:
            st["step"] = Tensor._make(np.array(0.0, dtype=np.float32))
            st["square_avg"] = Tensor._make(np.zeros_like(x))
            st["acc_delta"] = Tensor._make(np.zeros_like(x))
        st["step"]._data += np.float32(1)
        if group["weight_decay"] != 0:
            g = g + _s(group["weight_decay"], dt) * x
        rho, eps = group["rho"], _s(group["eps"], dt)
        sq = st["square_avg"]._data
        sq *= _s(rho, dt)
        sq += _s(1 - rho, dt) * (g * g)
        std = np.sqrt(sq + eps)
        acc = st["acc_delta"]._data
        delta = np.sqrt(acc + eps) / std * g
        acc *= _s(rho, dt)
        acc += _s(1 - rho, dt) * (delta * delta)
        x += _s(-group["lr"], dt) * delta


MEMBERS = {"SGD": SGD, "Adam": Adam, "AdamW": AdamW, "RMSprop": RMSprop, "Adagrad": Adagrad, "Adadelta": Adadelta,
           "Optimizer": Optimizer}
