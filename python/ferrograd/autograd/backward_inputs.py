"""``backward(..., inputs=...)``: accumulate gradients into the given tensors only.

PyTorch's ``tensor.backward(inputs=[...])`` and ``autograd.backward(..., inputs=[...])``
accumulate into ``.grad`` of just those tensors (leaves or not) and leave every other
``.grad`` untouched; an input the outputs do not depend on keeps its ``.grad`` (as if
``allow_unused=True``). The engine does it natively (``_core.backward(inputs=)``): a leaf
among the inputs accumulates with its hooks (tensor hooks, ``AccumulateGrad`` pre- and
post-hooks, post-accumulate-grad hooks) as in a full backward, and the node of a non-leaf
input runs, as PyTorch's engine does. ``tensors`` and ``inputs`` may hold
``GradientEdge``s (``autograd.graph.get_gradient_edge``).
"""

from __future__ import annotations

from typing import Any

from .. import _core

Tensor = _core.Tensor

__all__ = ["backward", "Variable"]

_core_backward = _core.backward
# (``Tensor.backward(inputs=...)`` is native and calls ``backward`` below for ``inputs``)


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
    if inputs is not None and not isinstance(inputs, (Tensor, tuple, list)):
        inputs = list(inputs)  # any iterable of tensors, as PyTorch
    return _core_backward(tensors, grad_tensors, retain_graph, create_graph, inputs)


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
