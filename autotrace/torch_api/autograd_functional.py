"""``torch.autograd.functional``: ``jacobian`` and ``hessian`` (reverse mode, one
backward pass per output element, as torch 2.13 does with ``vectorize=False``).

Shapes: for one input and one output the Jacobian is ``output.shape + input.shape``;
a tuple of inputs gives a tuple, a tuple of outputs a tuple (of tuples). Inputs are
detached and made to require grad (``create_graph=False``) or passed through a view
(``create_graph=True``) exactly as torch's ``_grad_preprocess`` does; unused inputs give
zeros (``strict=True`` raises torch's error instead).
"""

from __future__ import annotations

import numpy as np

from .. import engine, grad_mode
from ..tensor import Tensor


def _as_tuple(x, arg_name, fn_name):
    if isinstance(x, Tensor):
        return False, (x,)
    if isinstance(x, (tuple, list)):
        for i, el in enumerate(x):
            if not isinstance(el, Tensor):
                raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                                f"Tensors but the value at index {i} has type {type(el)}.")
        return True, tuple(x)
    raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                    f"the given {arg_name} has type {type(x)}.")


def _preprocess(inputs, create_graph):
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(True))
    return tuple(out)


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False, strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs`` (torch.autograd.functional.jacobian)."""
    if strategy != "reverse-mode" or vectorize:
        if strategy == "forward-mode" and not vectorize:
            raise ValueError("torch.autograd.functional.jacobian: `strategy=\"forward-mode\"` is only "
                             "implemented together with `vectorize=True`.")
    is_in_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    prev = grad_mode.enabled
    grad_mode.enabled = True
    try:
        inputs = _preprocess(inputs, create_graph)
        outputs = func(*inputs)
        is_out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jacobian")
        jac = []
        for i, out in enumerate(outputs):
            rows = [[] for _ in inputs]
            flat = out.reshape(-1)
            for j in range(flat.numel()):
                if flat.requires_grad:
                    gs = engine.grad(flat[j], inputs, retain_graph=True, create_graph=create_graph,
                                     allow_unused=True)
                else:
                    gs = (None,) * len(inputs)
                for k, (inp, g) in enumerate(zip(inputs, gs)):
                    if g is None:
                        if strict:
                            raise RuntimeError(
                                f"Output {i} of the user-provided function is independent of input {k}. This "
                                "is not allowed in strict mode.")
                        g = Tensor._make(np.zeros_like(inp._data))
                    rows[k].append(g)
            per_in = []
            for k, inp in enumerate(inputs):
                from ..ops import get
                if rows[k]:
                    stacked = get("stack")(rows[k], 0)
                else:
                    stacked = Tensor._make(np.zeros((0,) + inp._data.shape, dtype=inp._data.dtype))
                J = stacked.view(*(tuple(out.shape) + tuple(inp.shape)))
                if not create_graph:
                    J = J.detach()
                per_in.append(J)
            jac.append(tuple(per_in))
    finally:
        grad_mode.enabled = prev
    if is_out_tuple:
        return tuple(r if is_in_tuple else r[0] for r in jac)
    return jac[0] if is_in_tuple else jac[0][0]


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False, outer_jacobian_strategy="reverse-mode"):
    """The Hessian of scalar ``func`` at ``inputs``: the Jacobian of its gradient
    (torch.autograd.functional.hessian)."""
    is_in_tuple, inputs_t = _as_tuple(inputs, "inputs", "hessian")

    def ensure_single_output(*inp):
        out = func(*inp)
        is_tuple, t = _as_tuple(out, "outputs of the user-provided function", "hessian")
        if is_tuple or not isinstance(out, Tensor):
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if out.numel() != 1:
            raise RuntimeError("The Tensor returned by the function given to hessian should contain a single element")
        return out.squeeze()

    def jac_func(*inp):
        j = jacobian(ensure_single_output, inp, create_graph=True)
        return j

    res = jacobian(jac_func, inputs_t, create_graph=create_graph, strict=strict)
    if is_in_tuple:
        return res
    return res[0][0] if isinstance(res, tuple) and isinstance(res[0], tuple) else res[0] if isinstance(res, tuple) else res


MEMBERS = {"jacobian": jacobian, "hessian": hessian}
