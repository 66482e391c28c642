"""``paddle.grad`` (``ferrograd.grad``): ``autograd.grad`` with Paddle's reading of a
one-element gradient for a 0-d output.

Paddle's 0-d outputs (a 1-D ``matmul``, a full reduction) used to be ``[1]`` tensors, and
Paddle code still passes a ``[1]`` tensor as their ``grad_outputs``; Paddle itself checks
no gradient shape at all. ``paddle.grad`` accepts exactly that case: the ``[1]`` gradient
of a 0-d output is read as its one value (through a differentiable reshape, so with
``create_graph`` the gradient with respect to it has its ``[1]`` shape). Every other
shape mismatch is refused as ``torch.autograd.grad`` refuses it, and
``torch.autograd.grad`` keeps PyTorch's strict check for this case too (see
docs/dialects.md).
"""

from __future__ import annotations

from typing import Any

from . import _core

__all__ = ["grad"]

Tensor = _core.Tensor
_core_grad = _core.grad


def _one_element_for_scalar(out: Any, g: Any) -> Any:
    if isinstance(out, Tensor) and isinstance(g, Tensor) and out.ndim == 0 and g.shape == [1]:
        return g.reshape(())
    return g


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: Any = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: Any = None,
    no_grad_vars: Any = None,
    **kwargs: Any,
) -> Any:
    """Gradients of ``outputs`` with respect to ``inputs`` (``autograd.grad``), returned
    without touching ``.grad``; a ``[1]`` gradient of a 0-d output is read as its value
    (Paddle's leniency, see the module docs)."""
    if grad_outputs is not None:
        if isinstance(outputs, Tensor) and isinstance(grad_outputs, Tensor):
            grad_outputs = _one_element_for_scalar(outputs, grad_outputs)
        elif isinstance(outputs, (list, tuple)) and isinstance(grad_outputs, (list, tuple)):
            if len(outputs) == len(grad_outputs):
                grad_outputs = [
                    _one_element_for_scalar(o, g) for o, g in zip(outputs, grad_outputs)
                ]
    return _core_grad(
        outputs,
        inputs,
        grad_outputs,
        retain_graph,
        create_graph,
        only_inputs,
        allow_unused,
        no_grad_vars,
        **kwargs,
    )
