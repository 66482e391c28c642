"""``GradientEdge`` and ``get_gradient_edge``: PyTorch's handle on "the gradient that flows
into this node's input", usable as ``outputs`` / ``inputs`` of ``autograd.grad`` and as
``tensors`` / ``inputs`` of ``autograd.backward`` in place of a tensor.

An edge names a node (a ``grad_fn``, or a leaf's ``AccumulateGrad``) and one of its
outputs; it keeps the node (and so the graph behind it) alive, not the tensor it came
from, so ``backward(edge)`` still works after the tensor is gone (the shape of the gradient
along it is the node's record of its output).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from .. import _core

__all__ = ["GradientEdge", "get_gradient_edge"]


class GradientEdge(NamedTuple):
    """``(node, output_nr)``: the gradient flowing into output ``output_nr`` of ``node``
    (for a leaf, its ``AccumulateGrad`` node and 0)."""

    node: Any
    output_nr: int


def get_gradient_edge(tensor: Any) -> GradientEdge:
    """The gradient edge of ``tensor``: ``(tensor.grad_fn, tensor.output_nr)``, or for a
    leaf that requires grad ``(AccumulateGrad node, 0)``. Raises ``RuntimeError`` for a
    tensor that does not require grad."""
    node, output_nr = _core._gradient_edge(tensor)
    return GradientEdge(node, output_nr)
