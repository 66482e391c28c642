"""Distributions with a vector event: ``MultivariateNormal`` and the ``Independent``
wrapper (which reinterprets batch dims of another distribution as event dims)."""

from __future__ import annotations

import math
from typing import Any

from .. import _core, linalg
from . import constraints
from ._utils import as_float_tensor, standard_normal
from .continuous import _validate_flag
from .distribution import Distribution

Tensor = _core.Tensor

__all__ = ["MultivariateNormal", "Independent"]


def _tri_solve_norm2(scale_tril: Tensor, diff: Tensor) -> Tensor:
    """``|L^-1 diff|^2`` over the last dim (the Mahalanobis distance squared); ferrograd
    has no triangular solve, so this uses the general ``linalg.solve`` (LU; exact up to
    rounding for a triangular matrix)."""
    return linalg.solve(scale_tril, diff.unsqueeze(-1)).squeeze(-1).square().sum(-1)


def _half_log_det(scale_tril: Tensor) -> Tensor:
    return scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)


def _one_matrix(who: str, covariance_matrix: Any, precision_matrix: Any, scale_tril: Any) -> Any:
    """The one matrix given of ``covariance_matrix``, ``precision_matrix`` and
    ``scale_tril``; a ``ValueError`` naming ``who`` unless exactly one is given."""
    mats = (covariance_matrix, precision_matrix, scale_tril)
    if sum(m is not None for m in mats) != 1:
        raise ValueError(
            f"{who}: give exactly one of covariance_matrix, precision_matrix or scale_tril"
        )
    return next(m for m in mats if m is not None)


def _batch_with_matrix(who: str, name: str, batch: tuple[int, ...], mat: Tensor) -> tuple[int, ...]:
    """The broadcast of the batch shape ``batch`` of the parameter ``name`` with the batch
    shape of the ``[..., k, k]`` matrix ``mat``; a ``ValueError`` naming ``who`` if they
    do not broadcast."""
    import numpy as np

    try:
        return tuple(np.broadcast_shapes(batch, tuple(mat.shape[:-2])))
    except ValueError:
        raise ValueError(
            f"{who}: the batch shapes of {name} {list(batch)} and the matrix "
            f"{list(mat.shape)} do not broadcast"
        ) from None


class _ScaleTrilMatrices(Distribution):
    """A distribution parametrised by a positive definite matrix held as its lower
    Cholesky factor ``self._scale_tril``: turns whichever of ``covariance_matrix``,
    ``precision_matrix`` or ``scale_tril`` was given into that factor, and derives the
    other two from it."""

    _scale_tril: Tensor

    def _set_scale_tril(
        self, mat: Tensor, covariance_matrix: Any, scale_tril: Any, shape: list[int]
    ) -> None:
        """Checks ``mat`` against the constraint of the argument it came from
        (``scale_tril``, ``covariance_matrix``, else ``precision_matrix``), factors it and
        stores the factor broadcast to ``shape``."""
        if scale_tril is not None:
            self._check_params(scale_tril=mat)
            tril = mat
        elif covariance_matrix is not None:
            self._check_params(covariance_matrix=mat)
            tril = linalg.cholesky(mat)
        else:
            self._check_params(precision_matrix=mat)
            tril = linalg.cholesky(linalg.inv(mat))
        self._scale_tril = tril.broadcast_to(shape)

    @property
    def scale_tril(self) -> Tensor:
        """The lower Cholesky factor ``L`` of the matrix (``L @ L.mT``)."""
        return self._scale_tril

    @property
    def covariance_matrix(self) -> Tensor:
        """The matrix ``L @ L.mT`` (the covariance, or Wishart's scale matrix)."""
        return self._scale_tril.matmul(self._scale_tril.mT)

    @property
    def precision_matrix(self) -> Tensor:
        """The inverse of ``covariance_matrix``."""
        return linalg.inv(self.covariance_matrix)


class MultivariateNormal(_ScaleTrilMatrices):
    """The normal distribution on ``R^k`` with mean ``loc`` (``[..., k]``) and one of
    ``covariance_matrix``, ``precision_matrix`` or ``scale_tril`` (its lower Cholesky
    factor), each ``[..., k, k]``; the batch dims of ``loc`` and the matrix broadcast."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True
    _params = ("loc", "_scale_tril")

    def __init__(
        self,
        loc: Any,
        covariance_matrix: Any = None,
        precision_matrix: Any = None,
        scale_tril: Any = None,
        validate_args: Any = None,
        name: Any = None,
    ) -> None:
        matrix = _one_matrix("MultivariateNormal", covariance_matrix, precision_matrix, scale_tril)
        dtype = next(
            (v.dtype for v in (loc, matrix) if isinstance(v, Tensor) and v.dtype.is_floating_point),
            _core._get_default_dtype(),
        )
        loc_t = as_float_tensor(loc, dtype)
        mat = as_float_tensor(matrix, dtype)
        if loc_t.ndim < 1:
            raise ValueError("MultivariateNormal: loc must be at least one-dimensional")
        if mat.ndim < 2 or mat.shape[-1] != mat.shape[-2] or mat.shape[-1] != loc_t.shape[-1]:
            raise ValueError(
                f"MultivariateNormal: the matrix must be [..., k, k] with k = loc.shape[-1] = "
                f"{loc_t.shape[-1]}, got shape {list(mat.shape)}"
            )
        k = int(loc_t.shape[-1])
        batch = _batch_with_matrix("MultivariateNormal", "loc", tuple(loc_t.shape[:-1]), mat)
        super().__init__(batch, (k,), _validate_flag(validate_args))
        self._set_scale_tril(mat, covariance_matrix, scale_tril, [*batch, k, k])
        self._check_params(loc=loc_t)
        self.loc = loc_t.broadcast_to([*batch, k])

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return self._scale_tril.square().sum(-1)

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        eps = standard_normal(shape, self.loc.dtype, generator)
        return self.loc + self._scale_tril.matmul(eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value: Any) -> Tensor:
        if not isinstance(value, Tensor):
            value = _core.tensor(value, dtype=self.loc.dtype)
        self._validate_sample(value)
        diff = value.astype(self.loc.dtype) - self.loc
        k = self.event_shape[0]
        m = _tri_solve_norm2(self._scale_tril, diff)
        return -0.5 * (k * math.log(2 * math.pi) + m) - _half_log_det(self._scale_tril)

    def entropy(self) -> Tensor:
        k = self.event_shape[0]
        return 0.5 * k * (1.0 + math.log(2 * math.pi)) + _half_log_det(self._scale_tril)


class Independent(Distribution):
    """``base_distribution`` with its last ``reinterpreted_batch_ndims`` batch dims read as
    event dims: ``log_prob`` and ``entropy`` sum over them (Paddle's
    ``Independent(base, reinterpreted_batch_rank)``)."""

    def __init__(
        self,
        base_distribution: Distribution,
        reinterpreted_batch_ndims: int,
        validate_args: Any = None,
        name: Any = None,
    ) -> None:
        if not isinstance(base_distribution, Distribution):
            raise TypeError(
                "Independent: base_distribution must be a Distribution, got "
                f"{type(base_distribution).__name__}"
            )
        n = int(reinterpreted_batch_ndims)
        if not 0 <= n <= len(base_distribution.batch_shape):
            raise ValueError(
                f"Independent: reinterpreted_batch_ndims must lie in [0, "
                f"{len(base_distribution.batch_shape)}] (the base's batch dims), got {n}"
            )
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        event_dim = n + len(base_distribution.event_shape)
        cut = len(shape) - event_dim
        super().__init__(shape[:cut], shape[cut:], _validate_flag(validate_args))
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = n
        self.has_rsample = base_distribution.has_rsample  # type: ignore[misc]
        self.has_enumerate_support = False  # type: ignore[misc]

    @property
    def reinterpreted_batch_rank(self) -> int:
        """Paddle's name for ``reinterpreted_batch_ndims``."""
        return self.reinterpreted_batch_ndims

    @property
    def support(self) -> Any:
        base = self.base_dist.support
        return (
            None if base is None else constraints.independent(base, self.reinterpreted_batch_ndims)
        )

    def expand(self, batch_shape: Any, _instance: Any = None) -> Independent:
        extra = tuple(self.event_shape)[: self.reinterpreted_batch_ndims]
        from ._utils import size_tuple

        base = self.base_dist.expand(size_tuple(batch_shape, "batch_shape") + extra)
        return Independent(base, self.reinterpreted_batch_ndims, self._validate)

    @property
    def mean(self) -> Tensor:
        return self.base_dist.mean

    @property
    def mode(self) -> Tensor:
        return self.base_dist.mode

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        return self.base_dist._draw(shape, generator)

    def _sum_rightmost(self, x: Tensor) -> Tensor:
        for _ in range(self.reinterpreted_batch_ndims):
            x = x.sum(-1)
        return x

    def log_prob(self, value: Any) -> Tensor:
        return self._sum_rightmost(self.base_dist.log_prob(value))

    def entropy(self) -> Tensor:
        return self._sum_rightmost(self.base_dist.entropy())

    def __repr__(self) -> str:
        return f"Independent({self.base_dist!r}, {self.reinterpreted_batch_ndims})"
