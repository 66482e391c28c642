"""PyTorch's ``torch.sparse.spdiags``, ``check_sparse_tensor_invariants`` and
``as_sparse_gradcheck``."""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from .. import _core
from ._base import SparseTensor
from ._coo import SparseCooTensor

Tensor = _core.Tensor


def spdiags(diagonals: Tensor, offsets: Any, shape: Any, layout: Any = None) -> SparseTensor:
    """``torch.sparse.spdiags(diagonals, offsets, shape, layout=None)``: a 2-D sparse
    matrix with ``diagonals[k]`` on diagonal ``offsets[k]`` (SciPy's convention: the entry
    at column ``j`` comes from ``diagonals[k, j]``).

    COO (uncoalesced, diagonal by diagonal, as PyTorch) unless ``layout`` is
    ``sparse_csr`` / ``sparse_csc``. The values are gathered from ``diagonals``, so
    gradients reach it.
    """
    what = "spdiags"
    if not isinstance(diagonals, Tensor) or diagonals.ndim != 2:
        raise ValueError(f"{what}: diagonals must be a 2-D tensor [num_diagonals, length]")
    offs = np.asarray(offsets.tolist() if isinstance(offsets, Tensor) else offsets)
    if offs.ndim != 1 or offs.dtype.kind not in "iu":
        raise ValueError(f"{what}: offsets must be a 1-D integer tensor")
    if offs.shape[0] != diagonals.shape[0]:
        raise ValueError(
            f"{what}: number of diagonals ({diagonals.shape[0]}) does not match the number "
            f"of offsets ({offs.shape[0]})"
        )
    if len(set(offs.tolist())) != offs.shape[0]:
        raise ValueError(f"{what}: offsets contain duplicate values")
    rows_n, cols_n = (int(s) for s in shape)
    length = int(diagonals.shape[1])
    rows, cols, src = [], [], []
    for k, o in enumerate(offs.tolist()):  # one step per diagonal, vectorised within it
        c = np.arange(max(o, 0), min(cols_n, length, rows_n + o))
        rows.append(c - o)
        cols.append(c)
        src.append(k * length + c)
    idx = np.stack([np.concatenate(rows), np.concatenate(cols)]).astype(np.int64)
    gather = _core.tensor(np.concatenate(src).astype(np.int64))
    vals = diagonals.reshape([-1]).index_select(0, gather)
    out = SparseCooTensor(_core.tensor(idx), vals, (rows_n, cols_n))
    return out if layout is None else out.to_sparse(layout=layout)


class check_sparse_tensor_invariants:  # noqa: N801  (torch's name)
    """``torch.sparse.check_sparse_tensor_invariants``: a context manager and decorator
    that turns invariant checks of sparse constructors on.

    ferrograd always checks them (a bad index or pointer is an error, never a wrong
    tensor) and cannot turn them off: :meth:`is_enabled` is always True, and
    :meth:`disable` or ``check_sparse_tensor_invariants(False)`` change nothing (PyTorch
    would skip the checks there).
    """

    def __init__(self, enable: bool = True) -> None:
        self.enable_ = bool(enable)

    @staticmethod
    def is_enabled() -> bool:
        """True: ferrograd always checks sparse tensor invariants."""
        return True

    @staticmethod
    def enable() -> None:
        """Nothing to do: the checks are always on."""

    @staticmethod
    def disable() -> None:
        """Nothing happens: ferrograd cannot skip the checks."""

    def __enter__(self) -> check_sparse_tensor_invariants:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """As a decorator: ``fn`` runs with the checks on (as always)."""

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)

        return run


def _full_pattern(x: SparseTensor) -> SparseTensor:
    """``x`` with every element stored (zeros included), in ``x``'s layout."""
    d = x.to_dense()
    sd = x.sparse_dim() + (x.ndim - x.sparse_dim() - x.dense_dim())  # batch dims too
    grid = np.indices(tuple(x.shape[:sd])).reshape(sd, -1).astype(np.int64)
    coo = SparseCooTensor(
        _core.tensor(grid),
        d.reshape([int(grid.shape[1]), *x.shape[sd:]]),
        tuple(x.shape),
        coalesced=True,
    )
    if isinstance(x, SparseCooTensor):
        return coo
    return coo.to_sparse(layout=x.layout, blocksize=getattr(x, "blocksize", None))  # type: ignore[attr-defined]


def as_sparse_gradcheck(gradcheck: Callable[..., Any]) -> Callable[..., Any]:
    """``torch.sparse.as_sparse_gradcheck(gradcheck)``: ``gradcheck`` for functions that
    take and/or return sparse tensors.

    Each sparse input that requires grad is handed to ``gradcheck`` as its values (a
    dense tensor) and rebuilt around them for ``func``; sparse outputs are compared in
    their dense form. With ``masked=False`` (the default, as PyTorch) an input first gets
    every element stored, so the check covers the gradient at implicit zeros too;
    ``masked=True`` checks only the stored values.
    """

    @functools.wraps(gradcheck)
    def check(func: Callable[..., Any], inputs: Any, **kwargs: Any) -> Any:
        masked = bool(kwargs.pop("masked", False))
        items = list(inputs) if isinstance(inputs, (list, tuple)) else [inputs]
        shells: list[Any] = []
        flat: list[Any] = []
        for obj in items:
            if isinstance(obj, SparseTensor) and obj.requires_grad:
                shell = obj.detach() if masked else _full_pattern(obj.detach())
                shells.append(shell)
                values = shell.values().detach().clone()
                values.requires_grad_(True)
                flat.append(values)
            else:
                shells.append(None)
                flat.append(obj)

        def dense_func(*args: Any) -> Any:
            rebuilt = [a if s is None else s._with_values(a) for s, a in zip(shells, args)]
            out = func(*rebuilt)
            if isinstance(out, (list, tuple)):
                return type(out)(o.to_dense() if isinstance(o, SparseTensor) else o for o in out)
            return out.to_dense() if isinstance(out, SparseTensor) else out

        return gradcheck(dense_func, tuple(flat), **kwargs)

    return check


def mask_as(x: Tensor, mask: SparseTensor, name: Any = None) -> SparseTensor:
    """Paddle's ``sparse.mask_as(x, mask)``: the entries of the dense ``x`` at ``mask``'s
    stored positions, as a sparse tensor with ``mask``'s layout and pattern (zeros of
    ``x`` stay stored). Differentiable w.r.t. ``x``."""
    what = "sparse.mask_as"
    if not isinstance(mask, SparseTensor) or not isinstance(x, Tensor):
        raise TypeError(f"{what}: expects a dense x and a sparse mask")
    if list(x.shape) != list(mask.shape):
        raise ValueError(f"{what}: x {list(x.shape)} and mask {list(mask.shape)} differ in shape")
    c = mask.coalesce() if isinstance(mask, SparseCooTensor) else mask
    coo = c if isinstance(c, SparseCooTensor) else c.to_sparse_coo()
    idx = coo.indices()
    vals = x[tuple(idx[d] for d in range(int(idx.shape[0])))]
    # a compressed mask's COO view lists its entries in stored order
    return c._with_values(vals.reshape(list(c.values().shape)))


def spsolve(input: SparseTensor, other: Tensor, *, left: bool = True) -> Tensor:
    """``torch.sparse.spsolve(A, b)``: the solution of ``A @ out = b`` for a sparse square
    ``A``. It densifies ``A`` and calls ``linalg.solve`` (O(n^3), no sparse
    factorisation); differentiable w.r.t. ``A``'s values and ``b``. Only ``left=True``
    (as PyTorch)."""
    from .. import linalg

    if not left:
        raise NotImplementedError("sparse.spsolve: only left=True is supported (as PyTorch)")
    if not isinstance(input, SparseTensor) or input.ndim != 2 or input.shape[0] != input.shape[1]:
        raise ValueError("sparse.spsolve: input must be a square 2-D sparse matrix")
    return linalg.solve(input.to_dense(), other)
