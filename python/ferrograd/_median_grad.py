"""The peers' gradients of ``median`` / ``nanmedian`` where they differ from "the
gradient goes to the selected element".

- PyTorch, over all elements (``torch.median(x)``, ``torch.nanmedian(x)``):
  tools/autograd/derivatives.yaml gives both ``evenly_distribute_backward(grad, self,
  result)`` (torch/csrc/autograd/FunctionsManual.cpp): the gradient is shared evenly by
  every element equal to the result, or by every NaN element when the result is NaN
  (a ``nanmedian`` of only NaNs, a ``median`` with a NaN).
- Paddle, ``nanmedian`` of a slice holding only NaNs: the value is NaN, the index
  (``mode='min'``) is -1 and no gradient flows to the slice
  (paddle/phi/kernels/cpu/nanmedian_kernel.cc ``ProcessMedianKernel`` / ``CalcMedianFunc``
  store index -1; nanmedian_grad_kernel.cc skips a negative index).
"""

from __future__ import annotations

from typing import Any, Optional

from . import _core
from .autograd.py_layer import Function
from .grad_mode import is_grad_enabled

Tensor = _core.Tensor


class _EvenlyDistributed(Function):
    """The precomputed median ``value`` of all of ``x``, with PyTorch's gradient."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, value: Tensor) -> Tensor:
        ctx.save_for_backward(x, value)
        return value

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Any:
        x, value = ctx.saved_tensors
        mask = x.isnan() if bool(value.isnan().item()) else x == value
        mask = mask.to(g.dtype)
        return g * mask / mask.sum(), None


def evenly_distributed(x: Tensor, value: Tensor) -> Tensor:
    """``value`` (the median of all of ``x``, 0-d) carrying PyTorch's gradient: shared by
    the elements equal to it (the NaN elements for a NaN value)."""
    if not (x.requires_grad and is_grad_enabled()):
        return value
    return _EvenlyDistributed.apply(x, value.detach())


def paddle_all_nan(
    src: Tensor, dim: int, keepdim: bool, value: Tensor, idx: Optional[Tensor]
) -> tuple[Tensor, Optional[Tensor]]:
    """Paddle's ``nanmedian`` result where a slice of ``src`` along ``dim`` holds only NaNs:
    ``value`` there without a gradient (it is NaN already) and ``idx`` -1."""
    if not src.is_floating_point() or src.numel() == 0:
        return value, idx
    empty = src.isnan().all(dim, keepdim=keepdim)
    if not bool(empty.any().item()):
        return value, idx
    if value.requires_grad:
        value = _core.where(empty, value.detach(), value)
    if idx is not None:
        idx = _core.where(empty, _core.full_like(idx, -1), idx)
    return value, idx


__all__ = ["evenly_distributed", "paddle_all_nan"]
