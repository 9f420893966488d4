"""``torch.autograd.functional``: ``jacobian`` and ``hessian`` (reverse mode, one
backward pass per output element, as torch 2.13 does with ``vectorize=False``), and
``vjp``, ``jvp``, ``vhp``, ``hvp`` as torch 2.13 writes them (``jvp``/``hvp`` with the
double-backward trick: a zero ``grad_outputs`` that requires grad, differentiated again).

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
from .creation import zeros_like


def _as_tuple(x, arg_name, fn_name):
    if isinstance(x, Tensor):
        return False, (x,)
    if isinstance(x, tuple):      # a list is one (non-tensor) argument, as in torch
        for i, el in enumerate(x):
            if not isinstance(el, Tensor):
                raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of "
                                f"Tensors but the value at index {i} has type {type(el)}.")
        return True, tuple(x)
    raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                    f"the given {arg_name} has type {type(x)}.")


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
        inputs = _grad_preprocess(inputs, create_graph, True)
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


def _grad_preprocess(inputs, create_graph, need_graph):
    return tuple(t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(need_graph)
                 for t in inputs)


def _grad_postprocess(ts, create_graph):
    return ts if create_graph else tuple(t.detach() for t in ts)


def _tuple_postprocess(res, is_tuple):
    return res if is_tuple else res[0]


def _validate_v(v, other, is_other_tuple):
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but got {el_v.size()}.")


_STRICT_NONE = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in "
            "strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when "
                  "using the double backward trick to compute forward mode gradients. This is not allowed in "
                  "strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not "
                   "allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
                         "grad_jacobian. This is not allowed in strict mode as it prevents from using the "
                         "double backward trick to replace forward mode AD.",
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_STRICT_NONE[stage].format(i=i))
            g = Tensor._make(np.zeros_like(refs[i]._data))
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is "
                               "not allowed in strict mode when create_graph=True.")
        res.append(g)
    return tuple(res)


def _check_requires_grad(ts, kind, strict):
    if not strict:
        return
    for i, t in enumerate(ts):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is "
                               "not allowed in strict mode.")
        if t.requires_grad:
            continue
        if kind == "hessian":
            raise RuntimeError(
                f"The hessian of the user-provided function with respect to input {i} is independent of the "
                "input. This is not allowed in strict mode. You should ensure that your function is thrice "
                "differentiable and that the hessian depends on the inputs.")
        if kind == "jacobian":
            raise RuntimeError(
                "While computing the hessian, found that the jacobian of the user-provided function with respect "
                f"to input {i} is independent of the input. This is not allowed in strict mode. You should "
                "ensure that your function is twice differentiable and that the jacobian depends on the inputs "
                "(this would be violated by a linear function for example).")
        if kind == "grad_inputs":
            raise RuntimeError(f"The gradient with respect to input {i} is independent of the inputs of the "
                               "user-provided function. This is not allowed in strict mode.")
        raise RuntimeError(f"Output {i} of the user-provided function does not require gradients. The outputs "
                           "must be computed in a differentiable manner from the input when running in strict mode.")


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False):
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [(o, g) for o, g in zip(outputs, grad_outputs) if o is not None and o.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    return engine.grad(tuple(o for o, _ in kept), inputs, tuple(g for _, g in kept), allow_unused=True,
                       create_graph=create_graph)


_V_NONE_INPUT = ("The vector v can only be None if the input to the user-provided function is a single Tensor "
                 "with a single element.")


def _scalar_output(outputs, is_tuple, fn_name):
    if is_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].numel() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")


class _GradMode:
    """``with torch.set_grad_enabled(on)`` around the functions' two phases."""

    def __init__(self, on):
        self.on = on

    def __enter__(self):
        self.prev = grad_mode.enabled
        grad_mode.enabled = self.on

    def __exit__(self, *exc):
        grad_mode.enabled = self.prev


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), vᵀ·J)`` (torch.autograd.functional.vjp); ``v`` has the outputs'
    shapes and may be None only for a single one-element output. Results are detached
    unless ``create_graph``."""
    with _GradMode(True):
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph, True)
        outputs = func(*inputs)
        is_out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "vjp")
        _check_requires_grad(outputs, "outputs", strict)
        if v is not None:
            _, v = _as_tuple(v, "v", "vjp")
            v = _grad_preprocess(v, create_graph, False)
            _validate_v(v, outputs, is_out_tuple)
        elif len(outputs) != 1 or outputs[0].numel() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function returns a single "
                               "Tensor with a single element.")
    with _GradMode(True if create_graph else grad_mode.enabled):
        res = _fill_in_zeros(_autograd_grad(outputs, inputs, v, create_graph), inputs, strict, create_graph, "back")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_out_tuple),
            _tuple_postprocess(_grad_postprocess(res, create_graph), is_in_tuple))


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J·v)`` (torch.autograd.functional.jvp) by the double-backward
    trick; ``v`` has the inputs' shapes (None only for one one-element input)."""
    with _GradMode(True):
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph, True)
        if v is not None:
            _, v = _as_tuple(v, "v", "jvp")
            v = _grad_preprocess(v, create_graph, False)
            _validate_v(v, inputs, is_in_tuple)
        elif len(inputs) != 1 or inputs[0].numel() != 1:
            raise RuntimeError(_V_NONE_INPUT)
        outputs = func(*inputs)
        is_out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", "jvp")
        _check_requires_grad(outputs, "outputs", strict)
        grad_outputs = tuple(zeros_like(o, requires_grad=True) for o in outputs)
        grad_inputs = _autograd_grad(outputs, inputs, grad_outputs, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    with _GradMode(True if create_graph else grad_mode.enabled):
        res = _fill_in_zeros(_autograd_grad(grad_inputs, grad_outputs, v, create_graph), outputs, strict,
                             create_graph, "back_trick")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_out_tuple),
            _tuple_postprocess(_grad_postprocess(res, create_graph), is_out_tuple))


def _second_order(func, inputs, v, create_graph, strict, name):
    with _GradMode(True):
        is_in_tuple, inputs = _as_tuple(inputs, "inputs", name)
        inputs = _grad_preprocess(inputs, create_graph, True)
        if v is not None:
            _, v = _as_tuple(v, "v", name)
            v = _grad_preprocess(v, create_graph, False)
            _validate_v(v, inputs, is_in_tuple)
        elif len(inputs) != 1 or inputs[0].numel() != 1:
            raise RuntimeError(_V_NONE_INPUT)
        outputs = func(*inputs)
        is_out_tuple, outputs = _as_tuple(outputs, "outputs of the user-provided function", name)
        _check_requires_grad(outputs, "outputs", strict)
        _scalar_output(outputs, is_out_tuple, name)
        jac = _autograd_grad(outputs, inputs, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict)
        if name == "hvp":
            grad_jac = tuple(zeros_like(t, requires_grad=True) for t in inputs)
            double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
            _check_requires_grad(jac, "hessian", strict)
    with _GradMode(True if create_graph else grad_mode.enabled):
        if name == "hvp":
            res = _fill_in_zeros(_autograd_grad(double_back, grad_jac, v, create_graph), inputs, strict,
                                 create_graph, "double_back_trick")
        else:
            res = _fill_in_zeros(_autograd_grad(jac, inputs, v, create_graph), inputs, strict, create_graph,
                                 "double_back")
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_out_tuple),
            _tuple_postprocess(_grad_postprocess(res, create_graph), is_in_tuple))


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), vᵀ·H)`` for a scalar ``func`` (torch.autograd.functional.vhp)."""
    return _second_order(func, inputs, v, create_graph, strict, "vhp")


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), H·v)`` for a scalar ``func`` (torch.autograd.functional.hvp), by
    the double-backward trick."""
    return _second_order(func, inputs, v, create_graph, strict, "hvp")


MEMBERS = {"jacobian": jacobian, "hessian": hessian, "vjp": vjp, "jvp": jvp, "vhp": vhp, "hvp": hvp}
