"""``Module.register_full_backward_hook``: torch 2.13's BackwardHook.

The module's tensor inputs and outputs pass through an identity node named
``BackwardHookFunctionBackward`` (printed ``<torch.autograd.function.
BackwardHookFunctionBackward object at 0x…>``). The output-side node records the
gradients with respect to the outputs; the input-side node, when the gradients with
respect to the inputs arrive, calls each hook ``hook(module, grad_input, grad_output)``
(a non-None result replaces grad_input). When no input requires grad the hooks fire at
the output side with ``grad_input`` all None, with torch's UserWarning.
"""

from __future__ import annotations

from .. import diagnostics, grad_mode
from ..node import Node
from ..ops import Op
from ..tensor import Tensor

_NO_INPUT_GRAD = (
    "Full backward hook is firing when gradients are computed with respect to module outputs since no "
    "inputs require gradients. See https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
    "#torch.nn.Module.register_full_backward_hook for more details.")


def _identity_backward(ctx, grads):
    return ctx.node.attrs["on_grads"](list(grads))


class _HookOp(Op):
    __slots__ = ()
    custom = True


_OP = _HookOp("backward_hook_function", "BackwardHookFunctionBackward", ("input",),
              {"input": "grad (identity; the module's backward hooks see it)"}, _identity_backward)


def _wrap(tensors, on_grads):
    """Pass ``tensors`` through one identity node; returns the new tensors (same data)."""
    ins = [t for t in tensors if t._requires_grad]
    if not ins or not grad_mode.enabled:
        return None
    edges = tuple(t._edge() for t in ins)
    meta = tuple((t._data.shape, t._dtype) for t in ins)
    node = Node(_OP, edges, None, {"on_grads": on_grads, "out_meta": meta}, meta, n_outputs=len(ins))
    out = {}
    for i, t in enumerate(ins):
        n = Tensor._make(t._data, t._dtype)
        n._requires_grad = True
        n.grad_fn = node
        n._output_nr = i
        out[id(t)] = n
    if node.rec is not None:
        node.rec.shape = ins[0]._data.shape
        node.rec.dtype = ins[0]._dtype.name
    return out


class BackwardHook:
    """One forward call's backward-hook state (torch's ``torch.utils.hooks.BackwardHook``)."""

    def __init__(self, module, hooks):
        self.module = module
        self.hooks = list(hooks)
        self.n_inputs = 0
        self.input_pos = []
        self.grad_output = None
        self.inputs_wrapped = False

    def setup_inputs(self, args):
        pos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        self.n_inputs = len(pos)
        new = _wrap([args[i] for i in pos], self._on_input_grads)
        if new is None:
            return args
        self.inputs_wrapped = True
        self.input_pos = [i for i in pos if id(args[i]) in new]
        return tuple(new.get(id(a), a) if isinstance(a, Tensor) else a for a in args)

    def setup_outputs(self, result):
        single = isinstance(result, Tensor)
        outs = [result] if single else list(result) if isinstance(result, tuple) else None
        if outs is None:
            return result
        tensors = [o for o in outs if isinstance(o, Tensor)]
        new = _wrap(tensors, self._on_output_grads)
        if new is None:
            return result
        outs = [new.get(id(o), o) if isinstance(o, Tensor) else o for o in outs]
        return outs[0] if single else tuple(outs)

    def _on_output_grads(self, grads):
        self.grad_output = tuple(grads)
        if not self.inputs_wrapped:
            diagnostics.warn(_NO_INPUT_GRAD)
            for hook in self.hooks:
                hook(self.module, (None,) * max(1, self.n_inputs), self.grad_output)
        return grads

    def _on_input_grads(self, grads):
        grad_input = tuple(grads)
        for hook in self.hooks:
            r = hook(self.module, grad_input, self.grad_output or ())
            if r is not None:
                r = tuple(r) if isinstance(r, (tuple, list)) else (r,)
                if len(r) != len(grad_input):
                    raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(r)}, "
                                       f"but expected {len(grad_input)}")
                grad_input = r
        return list(grad_input)
