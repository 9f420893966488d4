"""``torch.autograd.gradcheck``: a script's backward (a custom Function's, typically)
against central differences, as torch 2.13 checks it.

For every input that requires grad and every tensor output, the numerical Jacobian
(perturbing each input element by ±eps in place) and the analytical one (one vector-
Jacobian product per output element, through the engine) are compared with
``allclose(analytical, numerical, rtol, atol)``. Both are laid out as torch lays them out
(rows: input elements, columns: output elements). A mismatch raises torch's
``GradcheckError`` text (``Jacobian mismatch for output 0 with respect to input 0, ...``)
or returns False with ``raise_exception=False``.
"""

from __future__ import annotations

import numpy as np

from .. import diagnostics, dtypes, engine, grad_mode
from ..tensor import Tensor


class GradcheckError(RuntimeError):
    """torch.autograd.gradcheck.GradcheckError (a RuntimeError)."""

    _script_type_name = "torch.autograd.gradcheck.GradcheckError"


GradcheckError.__name__ = GradcheckError.__qualname__ = "GradcheckError"


def _outputs(fn, inputs):
    out = fn(*inputs)
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [o for o in outs if isinstance(o, Tensor)]


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False, check_forward_ad=False,
              check_backward_ad=True, fast_mode=False, masked=None):
    """True when ``func``'s gradients match central differences (see the module doc)."""
    tupled = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    diff = [i for i, t in enumerate(tupled) if isinstance(t, Tensor) and t._requires_grad]
    if not diff:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of the them have requires_grad=True.")
    for i in diff:
        if tupled[i]._dtype is not dtypes.float64:
            diagnostics.warn(f"Input #{i} requires gradient and is not a double precision floating point or "
                             "complex. This check will likely fail if all the inputs are not of double precision "
                             "floating point or complex. ")
    with grad_mode_enabled(False):
        outs = _outputs(func, tupled)
    for j, out in enumerate(outs):
        n_out = out._data.size
        for i in diff:
            x = tupled[i]
            n_in = x._data.size
            numerical = np.zeros((n_in, n_out))
            flat = x._data.reshape(-1)
            for k in range(n_in):
                orig = flat[k].copy()
                with grad_mode_enabled(False):
                    flat[k] = orig - eps
                    lo = _outputs(func, tupled)[j]._data.astype(np.float64).reshape(-1).copy()
                    flat[k] = orig + eps
                    hi = _outputs(func, tupled)[j]._data.astype(np.float64).reshape(-1).copy()
                    flat[k] = orig
                numerical[k] = (hi - lo) / (2 * eps)
            analytical = np.zeros((n_in, n_out))
            with grad_mode_enabled(True):
                y = _outputs(func, tupled)[j]
                if y.grad_fn is None and not y._requires_grad:
                    continue
                for m in range(n_out):
                    seed = np.zeros(y._data.shape, dtype=y._data.dtype)
                    seed.reshape(-1)[m] = 1
                    g, = engine.grad([y], [x], [Tensor._make(seed)], retain_graph=True, allow_unused=True)
                    if g is not None:
                        analytical[:, m] = g._data.astype(np.float64).reshape(-1)
            if not np.allclose(analytical, numerical, rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                a = Tensor._make(analytical, dtypes.float64)
                n = Tensor._make(numerical, dtypes.float64)
                raise GradcheckError(f"Jacobian mismatch for output {j} with respect to input {i},\n"
                                     f"numerical:{n!r}\nanalytical:{a!r}\n")
    return True


class grad_mode_enabled:
    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        self.prev = grad_mode.enabled
        grad_mode.enabled = self.mode

    def __exit__(self, *exc):
        grad_mode.enabled = self.prev
        return False
