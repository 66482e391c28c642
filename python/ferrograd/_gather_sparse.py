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

from typing import Any, Optional

from . import _core
from ._index_sign import refusal, see_through
from .autograd import Function
from .grad_mode import is_grad_enabled

Tensor = _core.Tensor

# the core's gather (both peers' forms), wrapped below; typed Any: it also takes the
# private keyword ``refuse`` (``_index_sign``), which the public stubs do not show
_core_gather: Any = Tensor.gather


class _SparseGather(Function):
    """``input.gather(dim, index)`` whose gradient w.r.t. ``input`` carries its sparse form."""

    @staticmethod
    def forward(ctx: Any, inp: Tensor, dim: int, index: Tensor, refuse: Any) -> Tensor:
        out = _core_gather(inp, dim, index, refuse=refuse)
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
        return dense, None, None, None


def _zero_d_index(
    self: Tensor, args: tuple, kwargs: dict, torch_form: bool, refuse: Optional[str]
) -> Any:
    """The result of a gather whose index is 0-d, or None when the index is not 0-d (or the
    call is malformed: the core then says what is wrong). Paddle's form (an index tensor
    first) drops the axis (``GatherInferMeta``: "0D index will decrease the dimension");
    PyTorch's form (``torch_form``: a dim first) takes a 0-d index of a 1-D input as a 1-D
    one and gives a 0-d result (a 0-d input takes a 1-D index the same way), as
    ``torch.gather`` does. ``refuse``: as the core gather's."""
    if torch_form:
        if kwargs or len(args) != 2:
            names = ("dim", "index")
            p = dict(zip(names, args))
            if len(args) > 2 or any(k in p for k in kwargs) or set(kwargs) - set(names):
                return None
            p.update(kwargs)
            dim, index = p.get("dim"), p.get("index")
        else:  # the common call gather(dim, index): no dictionary
            dim, index = args
        if not isinstance(index, Tensor) or (index.ndim, self.ndim) not in ((0, 1), (1, 0)):
            return None
        out = _core_gather(self.reshape([-1]), dim, index.reshape([-1]), refuse=refuse)
        return out.reshape(list(index.shape))
    p = dict(zip(("index", "axis", "name"), args))
    if len(args) > 3 or any(k in p for k in kwargs):
        return None
    p.update(kwargs)
    index, axis = p.get("index"), p.get("axis")
    if not isinstance(index, Tensor) or index.ndim != 0 or self.ndim == 0:
        return None
    if isinstance(axis, Tensor):
        axis = int(axis.item())
    axis = 0 if axis is None else axis
    return _core_gather(self, index.reshape([1]), axis).squeeze(axis)


def _column_index(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """Paddle's form with an ``[N, 1]`` index: read as the 1-D ``[N]`` index, as Paddle's
    ``GatherInferMeta`` (phi/infermeta/binary.cc) accepts a 2-D index whose last
    dimension is 1; any other 2-D index is still refused."""
    if args and isinstance(args[0], Tensor):
        index = args[0]
        if index.ndim == 2 and index.shape[1] == 1:
            return (index.reshape([-1]), *args[1:]), kwargs
    elif isinstance(kwargs.get("index"), Tensor):
        index = kwargs["index"]
        if index.ndim == 2 and index.shape[1] == 1:
            return args, {**kwargs, "index": index.reshape([-1])}
    return args, kwargs


def _keywords_to_positions(args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, Any]:
    """``(self, *rest)`` and the keywords left, with the tensor given as ``input=`` /
    ``x=``, PyTorch's ``dim=`` / ``index=`` and Paddle's ``index=`` moved to their
    positions (the core method takes them positionally)."""
    kwargs = dict(kwargs)
    if not args:
        for key in ("input", "x"):
            if key in kwargs:
                args = (kwargs.pop(key),)
                break
        else:
            raise TypeError("gather() missing the tensor to gather from (input / x)")
    if "dim" in kwargs and len(args) == 1:
        args = (*args, kwargs.pop("dim"))
    if "index" in kwargs and len(args) == 1 + (not isinstance(args[-1], Tensor)):
        args = (*args, kwargs.pop("index"))
    return args, kwargs


def gather(*args: Any, sparse_grad: bool = False, **kwargs: Any) -> Tensor:
    """torch ``gather(dim, index, *, sparse_grad=False)`` or Paddle ``gather(index,
    axis=None)`` (also with the arguments given by keyword). With ``sparse_grad=True``
    (PyTorch form only) ``input`` gets a sparse COO
    gradient, as in PyTorch. A 0-d index: Paddle's form drops the axis, PyTorch's reads it
    as 1-D for a 1-D input (a 0-d result). An index below 0 counts from the end, except in
    PyTorch code's PyTorch form (PyTorch's IndexError)."""
    (self, *rest), kwargs = _keywords_to_positions(args, kwargs)
    args = tuple(rest)
    torch_form = "dim" in kwargs or (bool(args) and not isinstance(args[0], Tensor))
    if not torch_form:
        args, kwargs = _column_index(args, kwargs)
    # PyTorch code's PyTorch form refuses an index below 0 (_index_sign): decided here once,
    # checked by the core's kernel in its own pass over the index
    refuse = refusal("gather") if torch_form else None
    if not sparse_grad:
        zero_d = _zero_d_index(self, args, kwargs, torch_form, refuse)
        if zero_d is not None:
            return zero_d
        if refuse is None:
            return _core_gather(self, *args, **kwargs)
        return _core_gather(self, *args, refuse=refuse, **kwargs)
    dim = kwargs.pop("dim", args[0] if args else None)
    index = kwargs.pop("index", args[1] if len(args) > 1 else None)
    if kwargs or len(args) > 2 or not isinstance(dim, int) or not isinstance(index, Tensor):
        raise TypeError(
            "gather(dim, index, *, sparse_grad=True): sparse_grad needs the PyTorch form, "
            "an int dim and an index Tensor"
        )
    if not (self.requires_grad and is_grad_enabled() and self.ndim > 0):
        return _core_gather(self, dim, index, refuse=refuse)
    out: Tensor = _SparseGather.apply(self, dim, index, refuse)
    return out


see_through(gather)


def install_tensor_methods() -> Any:
    """Replaces ``Tensor.gather`` with the wrapper that takes ``sparse_grad``; returns the
    module function ``gather`` (dispatching on the argument type, as before), also set in
    ``_dialect_aliases``."""
    from . import _dialect_aliases
    from ._op_functions import dispatching

    Tensor.gather = gather  # type: ignore[method-assign,assignment]
    _dialect_aliases.gather = dispatching(gather, "gather")
    return _dialect_aliases.gather
