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

# Native (``_core.backward``, also behind ``Tensor.backward(inputs=...)``): no Python frame
# between the user's code and the engine, so PyTorch code's check of a non-scalar root
# without a gradient reads the user's module (docs/dialects.md).
backward = _core.backward


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
