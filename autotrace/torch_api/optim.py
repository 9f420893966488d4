"""``torch.optim``: SGD, Adam, AdamW with torch 2.13's single-tensor CPU update rules.

Updates run on the parameters' numpy data in their own dtype (float32 stays float32),
with the scalar coefficients cast to that dtype as torch's CPU kernels do, in the same
order of operations as ``torch/optim/{sgd,adam,adamw}.py`` (``_single_tensor_*``), so
results agree with torch to float32 rounding. Steps run outside the graph and bump the
parameters' version counters (they are in-place updates).
"""

from __future__ import annotations



import numpy as np

from ..tensor import Tensor


class Optimizer:
    _script_attrs = frozenset({"step", "zero_grad", "param_groups", "state", "defaults", "add_param_group"})

    def __init__(self, params, defaults):
        self.defaults = dict(defaults)
        self.state = {}
        self.param_groups = []
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(params[0], dict):
            params = [{"params": params}]
        for g in params:
            self.add_param_group(g)

    def add_param_group(self, group):
        group = dict(group)
        ps = group["params"]
        group["params"] = [ps] if isinstance(ps, Tensor) else list(ps)
        for p in group["params"]:
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for k, v in self.defaults.items():
            group.setdefault(k, v)
        self.param_groups.append(group)

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
            lines.append(f"Parameter Group {i}")
            for k in sorted(g):
                if k != "params":
                    lines.append(f"    {k}: {g[k]}")
        lines.append(")")
        return "\n".join(lines)


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
        if wd != 0:
            g = g + _s(wd, dt) * x
        if mom != 0:
            st = self._state(p)
            buf = st.get("momentum_buffer")
            if buf is None:
                buf = st["momentum_buffer"] = Tensor._make(np.array(g, dtype=dt, copy=True))
            else:
                b = buf._data
                b *= _s(mom, dt)
                b += _s(1 - group["dampening"], dt) * g
            g = g + _s(mom, dt) * buf._data if group["nesterov"] else buf._data
        x += _s(-group["lr"], dt) * g


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
            else:
                g = g + _s(wd, dt) * x
        m, v = st["exp_avg"]._data, st["exp_avg_sq"]._data
        m += _s(1 - b1, dt) * (g - m)                 # lerp_(grad, 1 - beta1), weight < 0.5
        v *= _s(b2, dt)
        v += _s(1 - b2, dt) * (g * g)                 # addcmul_(grad, grad, 1 - beta2)
        bc1 = 1 - b1 ** step
        bc2 = 1 - b2 ** step
        step_size = lr / bc1
        bc2_sqrt = bc2 ** 0.5
        if group["amsgrad"]:
            mx = st["max_exp_avg_sq"]._data
            np.maximum(mx, v, out=mx)
            denom = np.sqrt(mx) / _s(bc2_sqrt, dt) + _s(eps, dt)
        else:
            denom = np.sqrt(v) / _s(bc2_sqrt, dt) + _s(eps, dt)
        x += _s(-step_size, dt) * (m / denom)         # addcdiv_(exp_avg, denom, -step_size)


class AdamW(Adam):
    """Adam with decoupled weight decay (default 1e-2): ``p *= 1 - lr·wd`` first."""

    _decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2, amsgrad=False,
                 **kwargs):
        kwargs.pop("decoupled_weight_decay", None)
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, **kwargs)


MEMBERS = {"SGD": SGD, "Adam": Adam, "AdamW": AdamW, "Optimizer": Optimizer}
