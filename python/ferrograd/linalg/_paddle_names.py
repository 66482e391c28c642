"""Names only ``paddle.linalg`` has, as thin adapters of ferrograd's ops:
``matrix_transpose`` (also ``paddle.matrix_transpose`` and the method), ``cov`` and
``corrcoef`` (Paddle's ``rowvar`` / ``ddof`` spelling of ``ferrograd.cov`` /
``corrcoef``). Differentiable as the ops they call."""

from __future__ import annotations

from typing import Any

from .. import _core
from .._ops_stats import corrcoef as _corrcoef
from .._ops_stats import cov as _cov
from ._common import float_tensor, mT, pick

Tensor = _core.Tensor


def matrix_transpose(x: Any = None, name: Any = None) -> Tensor:
    """``paddle.linalg.matrix_transpose(x)``: ``x`` with its last two dims swapped (the
    view ``x.mT``); ``x`` needs at least 2 dims."""
    op = "matrix_transpose"
    t = pick(x, None, "x", op)
    if not isinstance(t, Tensor):
        raise TypeError(f"{op}: x must be a Tensor, got {type(t).__name__}")
    if t.ndim < 2:
        raise ValueError(f"{op}: x must have at least 2 dimensions, got shape {list(t.shape)}")
    return mT(t)


def _observations(x: Any, rowvar: Any, op: str) -> Tensor:
    t = float_tensor(pick(x, None, "x", op), op)
    if not 1 <= t.ndim <= 2:
        raise ValueError(f"{op}: x must be 1-D or 2-D, got shape {list(t.shape)}")
    if not isinstance(rowvar, bool):
        raise TypeError(f"{op}: rowvar must be a bool, got {type(rowvar).__name__}")
    # rows are variables unless rowvar=False (a single row stays as is, as Paddle)
    return t if rowvar or t.ndim == 1 or t.shape[0] == 1 else mT(t)


def cov(
    x: Any = None,
    rowvar: bool = True,
    ddof: bool = True,
    fweights: Any = None,
    aweights: Any = None,
    name: Any = None,
) -> Tensor:
    """``paddle.linalg.cov(x, rowvar=True, ddof=True, fweights=None, aweights=None)``: the
    covariance matrix of the variables in ``x``'s rows (``rowvar=False``: columns), with
    the unbiased normalization when ``ddof`` (``torch.cov``'s ``correction=1``)."""
    op = "linalg.cov"
    t = _observations(x, rowvar, op)
    if not isinstance(ddof, bool):
        raise TypeError(f"{op}: ddof must be a bool, got {type(ddof).__name__}")
    return _cov(t, correction=int(ddof), fweights=fweights, aweights=aweights)


def corrcoef(x: Any = None, rowvar: bool = True, name: Any = None) -> Tensor:
    """``paddle.linalg.corrcoef(x, rowvar=True)``: Pearson correlation coefficients of
    the variables in ``x``'s rows (``rowvar=False``: columns), clipped to ``[-1, 1]``."""
    return _corrcoef(_observations(x, rowvar, "linalg.corrcoef"))
