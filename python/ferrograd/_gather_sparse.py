"""``gather(input, dim, index, *, sparse_grad=True)`` (PyTorch): ``input`` gets a sparse
COO gradient, as in PyTorch: one entry per element of ``index`` in row-major order
(duplicates kept, not coalesced), at the position that element was read from, holding
the output gradient there.

As for ``Embedding(sparse=True)`` (``nn/fn_embedding_sparse.py``), the node returns the
dense gradient carrying its sparse form (``grad.grad``): reaching ``input`` unchanged,
the sparse form accumulates into ``input.grad``; anything that changes it on the way (a
sum with another use of ``input``, a hook's replacement) gives the dense gradient, with
the same values. Paddle's ``gather`` has no ``sparse_grad``.
"""

from __future__ import annotations

from typing import Any

from . import _core
from .autograd import Function
from .grad_mode import is_grad_enabled

Tensor = _core.Tensor

# the core's gather (both peers' forms), wrapped below
_core_gather = Tensor.gather


class _SparseGather(Function):
    """``input.gather(dim, index)`` whose gradient w.r.t. ``input`` carries its sparse form."""

    @staticmethod
    def forward(ctx: Any, inp: Tensor, dim: int, index: Tensor) -> Tensor:
        out = _core_gather(inp, dim, index)
        ctx.dim = dim % inp.ndim
        index = index.to(_core.int64)
        # the core gather takes negative indices (from the end): the COO indices must not
        ctx.index = index + (index < 0).to(_core.int64) * int(inp.shape[ctx.dim])
        ctx.shape = tuple(int(s) for s in inp.shape)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Any, ...]:
        from .sparse._coo import SparseCooTensor

        index, dim = ctx.index, ctx.dim
        ishape = [int(s) for s in index.shape]
        rows = []
        for k, n in enumerate(ishape):
            if k == dim:
                rows.append(index.reshape([-1]))
                continue
            # coordinate k of every element of `index`, in row-major order
            view = [1] * len(ishape)
            view[k] = n
            rows.append(
                _core.arange(n, dtype=_core.int64).reshape(view).expand(ishape).reshape([-1])
            )
        values = grad.reshape([-1])
        dense = _core.zeros(list(ctx.shape), dtype=grad.dtype).scatter_add(dim, index, grad)
        # the stubs type .grad as a Tensor; a sparse one is accepted at run time
        dense.grad = SparseCooTensor(_core.stack(rows), values, ctx.shape)  # type: ignore[assignment]
        return dense, None, None


def gather(self: Tensor, *args: Any, sparse_grad: bool = False, **kwargs: Any) -> Tensor:
    """torch ``gather(dim, index, *, sparse_grad=False)`` or Paddle ``gather(index,
    axis=None)``. With ``sparse_grad=True`` (PyTorch form only) ``input`` gets a sparse COO
    gradient, as in PyTorch."""
    if not sparse_grad:
        return _core_gather(self, *args, **kwargs)
    dim = kwargs.pop("dim", args[0] if args else None)
    index = kwargs.pop("index", args[1] if len(args) > 1 else None)
    if kwargs or len(args) > 2 or not isinstance(dim, int) or not isinstance(index, Tensor):
        raise TypeError(
            "gather(dim, index, *, sparse_grad=True): sparse_grad needs the PyTorch form, "
            "an int dim and an index Tensor"
        )
    if not (self.requires_grad and is_grad_enabled() and self.ndim > 0):
        return _core_gather(self, dim, index)
    out: Tensor = _SparseGather.apply(self, dim, index)
    return out


def install_tensor_methods() -> Any:
    """Replaces ``Tensor.gather`` with the wrapper that takes ``sparse_grad``; returns the
    module function ``gather`` (dispatching on the argument type, as before), also set in
    ``_dialect_aliases``."""
    from . import _dialect_aliases
    from ._op_functions import dispatching

    Tensor.gather = gather  # type: ignore[method-assign,assignment]
    _dialect_aliases.gather = dispatching(gather, "gather")
    return _dialect_aliases.gather
