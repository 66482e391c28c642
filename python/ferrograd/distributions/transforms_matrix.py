"""Matrix-valued transforms (re-exported by :mod:`ferrograd.distributions.transforms`):
``LowerCholeskyTransform``, ``PositiveDefiniteTransform`` and ``CorrCholeskyTransform``,
with PyTorch's maps, domains and codomains (``torch/distributions/transforms.py``).

``CorrCholeskyTransform`` takes a vector of ``D*(D-1)/2`` reals to the Cholesky factor of
a ``D x D`` correlation matrix (Stan's construction: ``tanh`` onto ``(-1, 1)``, then a
signed stick-breaking along each row). Everything is composed from differentiable ops.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _core
from . import constraints
from ._utils import eps_of
from .transforms import Transform

Tensor = _core.Tensor

__all__ = ["LowerCholeskyTransform", "PositiveDefiniteTransform", "CorrCholeskyTransform"]


def _tril_flat_index(n: int, diag: int) -> np.ndarray:
    """Flat (row-major) positions of the entries ``j < i + diag + 1`` of an ``n x n``
    matrix, in row order: PyTorch's ``tril_matrix_to_vec`` / ``vec_to_tril_matrix`` order."""
    i, j = np.meshgrid(np.arange(n), np.arange(n), indexing="ij")
    return np.flatnonzero((j < i + diag + 1).ravel())


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The entries of ``mat``'s lower triangle (below ``diag``), row by row."""
    n = int(mat.shape[-1])
    flat = mat.reshape([*mat.shape[:-2], n * n])
    return flat[..., _core.tensor(_tril_flat_index(n, diag).astype(np.int64))]


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The ``n x n`` matrix whose lower triangle (below ``diag``) holds ``vec`` row by
    row, zeros elsewhere; ``n`` is inferred from ``vec.shape[-1]``."""
    m = int(vec.shape[-1])
    # m = n(n+1)/2 + diag*n - diag(diag+1)/2 ... solve the quadratic for n
    b = 1 + 2 * diag
    n_real = (-b + math.sqrt(b * b + 8 * m + 4 * abs(diag) * (diag + 1))) / 2
    n = int(round(n_real))
    idx = _tril_flat_index(n, diag)
    if len(idx) != m:
        raise ValueError(
            f"vec_to_tril_matrix: a last dim of {m} is not the size of a lower triangle "
            f"(diag={diag}) of any square matrix"
        )
    # a 0/1 scatter matrix keeps the fill differentiable: mat_flat = vec @ S
    scatter = np.zeros((m, n * n))
    scatter[np.arange(m), idx] = 1.0
    s = _core.tensor(scatter).astype(vec.dtype)
    return (vec @ s).reshape([*vec.shape[:-1], n, n])


class LowerCholeskyTransform(Transform):
    """Unconstrained square matrices to lower-triangular ones with a positive diagonal:
    the strict lower triangle kept, the diagonal exponentiated (not bijective onto all
    of its domain: the upper triangle is dropped)."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def _call(self, x: Any) -> Tensor:
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()

    def _inverse(self, y: Any) -> Tensor:
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LowerCholeskyTransform)

    __hash__ = Transform.__hash__


class PositiveDefiniteTransform(Transform):
    """Unconstrained square matrices to positive-definite ones: ``L @ L.mT`` with ``L``
    from :class:`LowerCholeskyTransform`; the inverse goes through ``cholesky``."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def _call(self, x: Any) -> Tensor:
        low = LowerCholeskyTransform()(x)
        return low @ low.mT

    def _inverse(self, y: Any) -> Tensor:
        from .. import linalg

        return LowerCholeskyTransform().inv(linalg.cholesky(y))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PositiveDefiniteTransform)

    __hash__ = Transform.__hash__


class CorrCholeskyTransform(Transform):
    """A real vector of length ``D*(D-1)/2`` to the lower Cholesky factor of a ``D x D``
    correlation matrix (positive diagonal, rows of unit norm). ``log_abs_det_jacobian``
    is taken between ``x`` and the strict lower triangle of ``y`` (the two spaces have
    the same dimension), as PyTorch does."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x: Any) -> Tensor:
        eps = eps_of(x.dtype)
        r = vec_to_tril_matrix(x.tanh().clamp(min=-1 + eps, max=1 - eps), diag=-1)
        # y_ij = r_ij * sqrt(prod_{k<j} (1 - r_ik^2)): stick-breaking on the squares,
        # the sign carried by r; the diagonal r_ii = 1 takes what is left of the stick
        left = (1 - r.square()).sqrt().cumprod(-1)
        ones = left[..., :1] * 0 + 1
        shifted = _core.concat([ones, left[..., :-1]], -1)
        n = int(r.shape[-1])
        eye = _core.eye(n, dtype=r.dtype)
        return (r + eye) * shifted

    def _inverse(self, y: Any) -> Tensor:
        left = 1 - (y * y).cumsum(-1)
        ones = left[..., :1] * 0 + 1
        shifted = _core.concat([ones, left[..., :-1]], -1)
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(shifted, diag=-1).sqrt()
        return (t.log1p() - (-t).log1p()) / 2  # atanh

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Tensor:
        # stick-breaking part: 1/2 sum log(1 - sum_{k<j} y_ik^2) over the strict lower
        # triangle (diag=-2 reads the cumulative sum one column to the left)
        left = 1 - (y * y).cumsum(-1)
        stick = 0.5 * tril_matrix_to_vec(left, diag=-2).log().sum(-1)
        # tanh part: log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x))
        tanh_part = -2 * (x + (-2 * x).softplus() - math.log(2.0)).sum(-1)
        return stick + tanh_part

    def forward_shape(self, shape: Any) -> tuple[int, ...]:
        shape = tuple(shape)
        if len(shape) < 1:
            raise ValueError("CorrCholeskyTransform: too few dimensions on input")
        m = shape[-1]
        d = round((0.25 + 2 * m) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != m:
            raise ValueError(
                f"CorrCholeskyTransform: an input of last dim {m} is not D*(D-1)/2 for any D"
            )
        return shape[:-1] + (d, d)

    def inverse_shape(self, shape: Any) -> tuple[int, ...]:
        shape = tuple(shape)
        if len(shape) < 2:
            raise ValueError("CorrCholeskyTransform: too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError(f"CorrCholeskyTransform: the input {list(shape)} is not square")
        d = shape[-1]
        return shape[:-2] + (d * (d - 1) // 2,)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, CorrCholeskyTransform)

    __hash__ = Transform.__hash__
