"""``backward(..., inputs=...)``: accumulate gradients into the given tensors only.

PyTorch's ``tensor.backward(inputs=[...])`` and ``autograd.backward(..., inputs=[...])``
accumulate into ``.grad`` of just those tensors (leaves or not) and leave every other
``.grad`` untouched; an input the outputs do not depend on keeps its ``.grad`` (as if
``allow_unused=True``). Built on ``grad``, which returns gradients without touching
``.grad``.
"""

from __future__ import annotations

from typing import Any

from .. import _core
from ..grad_mode import no_grad

Tensor = _core.Tensor

__all__ = ["backward", "Variable"]

_core_backward = _core.backward
# (``Tensor.backward(inputs=...)`` is native and calls ``backward`` below for ``inputs``)


def _accumulate(targets: list, grads: tuple, create_graph: bool) -> None:
    for t, g in zip(targets, grads):
        if g is None:
            continue
        if t.grad is None:
            t.grad = g if create_graph else g.detach()
        elif create_graph:
            t.grad = t.grad + g
        else:
            with no_grad():
                t.grad.add_(g)


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: Any = None,
    create_graph: bool = False,
    grad_variables: Any = None,
    inputs: Any = None,
) -> None:
    """Accumulates gradients of ``tensors`` into the leaves' ``.grad`` (``inputs``: into
    those tensors' ``.grad`` only)."""
    if grad_variables is not None:
        grad_tensors = grad_variables
    if inputs is None:
        return _core_backward(tensors, grad_tensors, retain_graph, create_graph)
    targets = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    if not targets:
        raise RuntimeError("backward(): the 'inputs' argument cannot be empty")
    grads = _core.grad(
        tensors, targets, grad_tensors, retain_graph, create_graph, allow_unused=True
    )
    _accumulate(targets, grads, create_graph)
    return None


class _VariableMeta(type):
    def __instancecheck__(cls, obj: object) -> bool:
        return isinstance(obj, Tensor)


class Variable(metaclass=_VariableMeta):
    """PyTorch's legacy ``Variable(data, requires_grad=False)``: returns ``data`` as a
    tensor (a new leaf sharing its values) with ``requires_grad`` set; every Tensor is
    an instance of ``Variable``."""

    def __new__(cls, data: Any, requires_grad: bool = False, volatile: bool = False) -> Any:
        t = data if isinstance(data, Tensor) else _core.tensor(data)
        out = t.detach()
        out.requires_grad_(bool(requires_grad))
        return out
