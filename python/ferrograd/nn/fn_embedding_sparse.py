"""``sparse=True`` of ``F.embedding`` / ``F.embedding_bag`` (and their layers) in PyTorch
code: the weight's rows gathered by a node whose backward gives the weight a sparse COO
gradient, as PyTorch's: indices the looked-up ids (duplicates kept, ``padding_idx``
left out), values the output gradient's rows.

The engine carries dense gradients, so the node returns the dense gradient carrying its
sparse form (``grad.grad``, see ``src/python/tensor/sparse_grad.rs``): reaching the weight
unchanged, the sparse form is what accumulates into ``weight.grad``; anything that
changes it on the way (a sum with another use of the weight, a hook's replacement) gives
the dense gradient, with the same values. Paddle code keeps a dense gradient (Paddle's
``SelectedRows`` gradient is internal: its ``shape`` is ``[ids, dim]``).
"""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from ..autograd import Function
from ..grad_mode import is_grad_enabled

Tensor = _core.Tensor


class _SparseRows(Function):
    """``weight[ids]`` whose gradient w.r.t. ``weight`` carries its sparse form."""

    @staticmethod
    def forward(ctx: Any, weight: Tensor, ids: Tensor, padding_idx: Optional[int]) -> Tensor:
        ctx.ids, ctx.padding_idx = ids, padding_idx
        ctx.shape = tuple(int(s) for s in weight.shape)
        return weight.index_select(ids, axis=0)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Any, ...]:
        from ..sparse._coo import SparseCooTensor

        ids, rows = ctx.ids.to(_core.int64), grad
        if ctx.padding_idx is not None:
            keep = (ids != ctx.padding_idx).nonzero().reshape([-1])
            ids, rows = ids.index_select(keep, axis=0), rows.index_select(keep, axis=0)
        dense = _core.zeros(list(ctx.shape), dtype=grad.dtype).index_add(0, ids, rows)
        # the stubs type .grad as a Tensor; a sparse one is accepted at run time
        dense.grad = SparseCooTensor(ids.reshape([1, -1]), rows, ctx.shape)  # type: ignore[assignment]
        return dense, None, None


def gather_rows(weight: Tensor, ids: Tensor, sparse: bool, padding_idx: Optional[int]) -> Tensor:
    """``weight.index_select(ids, 0)`` (``ids`` 1-D int64); with ``sparse``, recorded so
    that ``weight`` gets a sparse gradient (``padding_idx`` entries left out of it)."""
    if not (sparse and weight.requires_grad and is_grad_enabled()):
        return weight.index_select(ids, axis=0)
    return _SparseRows.apply(weight, ids, padding_idx)
