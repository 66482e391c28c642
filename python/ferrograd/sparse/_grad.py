"""A sparse COO ``.grad`` on a dense tensor (PyTorch's ``p.grad = sparse_coo_tensor(...)``,
``p.backward(sparse)``), and its accumulation.

The core keeps such a gradient as an opaque handle with its dense slot empty and a flag
set (``src/python/tensor/sparse_grad.rs``); it calls these helpers to check an
assignment and to sum a gradient into a sparse ``.grad``. The rules are PyTorch's:

* sparse ``.grad`` + dense gradient: a new dense ``.grad`` (the sparse object is left
  as it was);
* sparse ``.grad`` + sparse gradient: summed into the same object (coalesced), or into a
  new one under ``create_graph``;
* dense ``.grad`` + sparse gradient: into the dense ``.grad`` in place (a new tensor
  under ``create_graph``).

Paddle has no sparse ``.grad`` on a dense tensor in its public dygraph API, so Paddle
code that assigns one gets a ``TypeError``.
"""

from __future__ import annotations

import threading
from typing import Any

import ferrograd as fg

from .. import _core
from .._dialect import caller_dialect
from ..grad_mode import enable_grad, no_grad
from ._base import SparseTensor
from ._coo import SparseCooTensor

Tensor = _core.Tensor


def _check_like(param: Tensor, value: Any) -> SparseCooTensor:
    """``value`` as a gradient of ``param``: a sparse COO tensor of its shape and dtype."""
    if not isinstance(value, SparseTensor):
        raise TypeError(f"assigned grad must be a Tensor or None, got {type(value).__name__}")
    if not isinstance(value, SparseCooTensor):
        raise TypeError(
            f"a sparse .grad must be in the COO layout, got {getattr(value, 'layout', None)}; "
            "convert it with .to_sparse_coo() (or .to_dense())"
        )
    if tuple(value.shape) != tuple(param.shape):
        raise RuntimeError(
            f"attempting to assign a gradient of size '{list(value.shape)}' to a tensor of "
            f"size '{list(param.shape)}'. Please ensure that the gradient and the tensor "
            "are the same size"
        )
    if value.dtype != param.dtype:
        raise RuntimeError(
            f"attempting to assign a gradient with dtype '{value.dtype}' to a tensor with "
            f"dtype '{param.dtype}'; the gradient's dtype must match the tensor's"
        )
    return value


def _check_assign(param: Tensor, value: Any) -> None:
    """``param.grad = value`` for a value that is not a dense Tensor (called by the core)."""
    if caller_dialect(2) == "paddle":
        raise TypeError(
            "assigned grad must be a Tensor or None: Paddle has no sparse gradient on a "
            f"dense tensor, got {type(value).__name__} (assign value.to_dense())"
        )
    _check_like(param, value)


def _add_into(acc: SparseCooTensor, g: SparseCooTensor) -> None:
    """``acc += g`` in place (both detached gradients of one shape): coalesced entries."""
    idx = fg.cat([acc._idx, g._idx], 1)
    vals = fg.cat([acc._vals, g._vals], 0)
    summed = SparseCooTensor(idx, vals, acc._shape).coalesce()
    acc._idx, acc._vals, acc._coalesced = summed._idx, summed._vals, True


# backward passes may run in several threads: the read-modify-write of one .grad must
# not interleave with another's (the GIL alone can switch threads in between)
_LOCK = threading.RLock()


def _accumulate(param: Tensor, g: Any, create_graph: bool) -> None:
    with _LOCK:
        _accumulate_locked(param, g, create_graph)


def _accumulate_locked(param: Tensor, g: Any, create_graph: bool) -> None:
    """Sums the gradient ``g`` (dense Tensor, one carrying its sparse form, or sparse COO)
    into ``param.grad`` (called by the core for a sparse ``.grad`` or a gradient carrying
    a sparse form)."""
    old = param.grad
    if isinstance(g, Tensor):
        carried = g.grad  # a dense gradient carrying its sparse form (nn.Embedding(sparse=True))
        if carried is not None and not isinstance(carried, Tensor):
            g = carried
    if isinstance(g, SparseTensor):
        g = _check_like(param, g)
    with enable_grad() if create_graph else no_grad():
        if old is None:
            param.grad = g if create_graph else g.detach().clone()
        elif isinstance(old, SparseCooTensor):
            if isinstance(g, SparseCooTensor):
                if create_graph:
                    param.grad = SparseCooTensor(
                        fg.cat([old._idx, g._idx], 1),
                        fg.cat([old._vals, g._vals], 0),
                        old._shape,
                    ).coalesce()
                else:
                    _add_into(old, g.detach())
            else:
                param.grad = old.to_dense() + g
        elif isinstance(g, SparseCooTensor):
            if create_graph:
                param.grad = old + g.to_dense()
            else:
                old.add_(g.to_dense())
        else:  # both dense: the core's own path
            param.grad = old + g if create_graph else old.add_(g)


def _sparse_backward(t: Tensor, gradient: Any, create_graph: bool, leaf: bool, hooked: bool) -> Any:
    """``t.backward(gradient)`` with a gradient that is not a dense Tensor (called by the
    core): a sparse gradient of a leaf is accumulated as it is (``None`` returned); for a
    non-leaf it is returned densified (the pass runs on dense gradients). Anything else is
    returned unchanged for the core's own checks."""
    if not isinstance(gradient, SparseTensor):
        return gradient
    if tuple(gradient.shape) != tuple(t.shape):
        raise RuntimeError(
            f"Mismatch in shape: grad_output[0] has a shape of {list(gradient.shape)} and "
            f"output[0] has a shape of {list(t.shape)}."
        )
    if not leaf:
        return gradient.to_dense()
    if hooked:
        raise NotImplementedError(
            "backward(sparse gradient) into a leaf with gradient hooks is not supported; "
            "pass gradient.to_dense()"
        )
    _accumulate(t, _check_like(t, gradient), create_graph)
    return None


def _add_sparse_rows(p: Tensor, g: SparseCooTensor, alpha: float) -> None:
    """``p += alpha * g`` in place at ``g``'s entries only (``p`` is not differentiated)."""
    g = g.coalesce()
    sizes = g._sparse_sizes()
    rows = 1
    for s in sizes:
        rows *= s
    flat = p.view([rows, *p.shape[len(sizes) :]])
    flat.index_add_(0, g._keys("sparse gradient"), g._vals.detach(), alpha=alpha)
