"""Paddle's ``paddle.autograd.jacobian(ys, xs, batch_axis=None)`` and
``hessian(ys, xs, batch_axis=None)`` on already computed tensors, alongside PyTorch's
function-based ``jacobian(func, inputs)`` / ``hessian(func, inputs)``: the two are told
apart by whether the first argument is callable."""

from __future__ import annotations

from typing import Any

from .. import _core
from .._core import Tensor
from . import functional


def _flat_jacobian(y: Tensor, x: Tensor, batch_axis: int | None) -> Tensor:
    """Paddle's layout: ``[M, N]`` for 0/1-D ``y``/``x``, ``[B, M, N]`` with
    ``batch_axis=0`` for 1/2-D ones. Built with ``create_graph=True`` so it can be
    differentiated again."""
    if batch_axis is None:
        if y.ndim > 1 or x.ndim > 1:
            raise ValueError(
                "jacobian: with batch_axis=None, ys and xs must be 0-D or 1-D, got shapes "
                f"{list(y.shape)} and {list(x.shape)}"
            )
        (row,) = functional.jacobian_of((y.reshape([-1]),), (x,), create_graph=True)
        return row[0].reshape([functional._numel(y), functional._numel(x)])
    if batch_axis != 0:
        raise ValueError(f"jacobian: batch_axis must be None or 0, got {batch_axis}")
    if y.ndim not in (1, 2) or x.ndim not in (1, 2):
        raise ValueError(
            "jacobian: with batch_axis=0, ys and xs must be 1-D or 2-D, got shapes "
            f"{list(y.shape)} and {list(x.shape)}"
        )
    y2 = y.reshape([y.shape[0], -1])
    x_cols = 1 if x.ndim == 1 else x.shape[1]
    (row,) = functional.jacobian_of((y2,), (x,), create_graph=True)
    full = row[0].reshape([y2.shape[0], y2.shape[1], x.shape[0], x_cols])
    # keep the diagonal over the batch: J[b, m, n] = d y[b, m] / d x[b, n]
    picks = [full[b, :, b, :] for b in range(y2.shape[0])]
    return _core.stack(picks, 0)


def jacobian(
    ys: Any,
    xs: Any,
    batch_axis: Any = None,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """``jacobian(func, inputs, ...)`` (torch, see :func:`functional.jacobian`) or
    ``jacobian(ys, xs, batch_axis=None)`` (Paddle: nested like ``ys``/``xs``)."""
    if callable(ys):
        return functional.jacobian(
            ys, xs, create_graph=create_graph, strict=strict, vectorize=vectorize, strategy=strategy
        )
    y_seq, x_seq = isinstance(ys, (tuple, list)), isinstance(xs, (tuple, list))
    y_items = functional._tuple(ys, "ys")
    x_items = functional._tuple(xs, "xs")
    table = [[_flat_jacobian(y, x, batch_axis) for x in x_items] for y in y_items]
    rows = [tuple(r) if x_seq else r[0] for r in table]
    return tuple(rows) if y_seq else rows[0]


def hessian(
    ys: Any,
    xs: Any,
    batch_axis: Any = None,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """``hessian(func, inputs, ...)`` (torch) or ``hessian(ys, xs, batch_axis=None)``
    (Paddle: ``ys`` a single-element Tensor, or ``[B]``/``[B, 1]`` with
    ``batch_axis=0``)."""
    if callable(ys):
        return functional.hessian(
            ys,
            xs,
            create_graph=create_graph,
            strict=strict,
            vectorize=vectorize,
            outer_jacobian_strategy=outer_jacobian_strategy,
        )
    if not isinstance(ys, Tensor):
        raise TypeError(f"hessian: ys must be a Tensor, got {type(ys).__name__}")
    x_seq = isinstance(xs, (tuple, list))
    x_items = functional._tuple(xs, "xs")
    if batch_axis is None:
        if functional._numel(ys) != 1:
            raise ValueError(f"hessian: ys must have one element, got shape {list(ys.shape)}")
        y = ys.reshape([])
    else:
        y = ys.reshape([ys.shape[0]])
    grads = [
        g if g is not None else _core.zeros_like(x)
        for g, x in zip(
            _core.grad(
                [y.sum()], list(x_items), create_graph=True, retain_graph=True, allow_unused=True
            ),
            x_items,
        )
    ]
    table = [[_flat_jacobian(g, x, batch_axis) for x in x_items] for g in grads]
    rows = [tuple(r) if x_seq else r[0] for r in table]
    return tuple(rows) if x_seq else rows[0]
