"""``LKJCholesky`` (both peers) and ``Wishart`` (PyTorch): distributions over matrices.

``LKJCholesky(dim, concentration)`` is the LKJ distribution over correlation matrices
(Lewandowski, Kurowicka and Joe, 2009), expressed on their lower Cholesky factors ``L``
(density ``prod_{i>=2} L_ii^(dim - i + 2 (eta - 1))`` up to its normaliser). Draws use the
onion method: row ``i`` (from the second) is a uniform direction in the first ``i``
coordinates scaled by ``sqrt(y_i)``, ``y_i ~ Beta(i/2, eta + (dim - 2 - i + 1)/2)``, and
the diagonal entry completes it to unit norm.

``Wishart(df, covariance_matrix | precision_matrix | scale_tril)`` draws by the Bartlett
decomposition: ``X = (L A)(L A)^T`` with ``A`` lower triangular, ``A_ii = sqrt(chi2(df -
i))`` and standard normal entries below the diagonal; the chi-squared draws come from
``_standard_gamma`` and carry its implicit reparameterisation gradient, so ``rsample`` is
differentiable in ``df`` and in the scale.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _core, linalg
from .._ops_gamma import mvlgamma
from . import constraints
from ._utils import as_float_tensor, standard_normal
from .continuous import _validate_flag
from .distribution import Distribution
from .gamma_family import _gamma_draw
from .multivariate import _batch_with_matrix, _half_log_det, _one_matrix, _ScaleTrilMatrices

Tensor = _core.Tensor

__all__ = ["LKJCholesky", "Wishart"]

#: the largest ``dim`` LKJCholesky accepts (a draw holds ``dim * dim`` numbers per matrix)
_MAX_DIM = 1 << 13


def _tiny(dtype: Any) -> float:
    return float(np.finfo(np.float32 if dtype == _core.float32 else np.float64).tiny)


def _float_dtype(*values: Any) -> Any:
    return next(
        (v.dtype for v in values if isinstance(v, Tensor) and v.dtype.is_floating_point),
        _core._get_default_dtype(),
    )


class LKJCholesky(Distribution):
    """LKJ distribution over the lower Cholesky factors of ``dim x dim`` correlation
    matrices with shape parameter ``concentration`` (``eta > 0``; 1 is uniform over
    correlation matrices). PyTorch ``LKJCholesky(dim, concentration=1.0,
    validate_args=None)``; Paddle ``LKJCholesky(dim=2, concentration=1.0,
    sample_method='onion')`` (``'cvine'`` is accepted and also draws by the onion method:
    the distribution is the same)."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky
    has_rsample = False

    def __init__(
        self,
        dim: int = 2,
        concentration: Any = 1.0,
        validate_args: Any = None,
        sample_method: str = "onion",
        name: Any = None,
    ) -> None:
        if isinstance(dim, bool) or not isinstance(dim, (int, np.integer)):
            raise TypeError(f"LKJCholesky: dim must be an int, got {type(dim).__name__}")
        if not 2 <= dim <= _MAX_DIM:
            raise ValueError(f"LKJCholesky: dim must lie in [2, {_MAX_DIM}], got {dim}")
        if sample_method not in ("onion", "cvine"):
            raise ValueError(
                f"LKJCholesky: sample_method must be 'onion' or 'cvine', got {sample_method!r}"
            )
        conc = as_float_tensor(concentration, _float_dtype(concentration))
        self.dim = int(dim)
        self.sample_method = sample_method
        super().__init__(tuple(conc.shape), (self.dim, self.dim), _validate_flag(validate_args))
        self._check_params(concentration=conc)
        self.concentration = conc

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        n = self.dim
        dtype = self.concentration.dtype
        # row i (from 1) has i free coordinates: y_i ~ Beta(i / 2, eta + (n - 1 - i) / 2);
        # row 0 is e_1 whatever y_0 is (kept positive-parameter)
        rows = np.arange(n, dtype=np.float64)
        a = _core.tensor(np.where(rows > 0, rows / 2.0, 0.5)).astype(dtype)
        b = _core.tensor(np.where(rows > 0, (n - 1 - rows) / 2.0, 0.5)).astype(dtype)
        eta = self.concentration.detach().unsqueeze(-1)
        c1 = a.broadcast_to(list(shape[:-1]))
        c0 = (eta + b).broadcast_to(list(shape[:-1]))
        g1 = _gamma_draw(c1, shape[:-1], generator)
        g0 = _gamma_draw(c0, shape[:-1], generator)
        y = g1 / (g1 + g0)
        u = standard_normal(shape, dtype, generator).tril(-1)
        u = u / u.square().sum(-1, keepdim=True).sqrt().clamp(min=_tiny(dtype))
        w = y.sqrt().unsqueeze(-1) * u
        diag = (1.0 - w.square().sum(-1)).clamp(min=_tiny(dtype)).sqrt()
        return w + diag.diag_embed()

    def log_prob(self, value: Any) -> Tensor:
        """``sum_{i>=2} (dim - i + 2 (eta - 1)) log L_ii`` minus the log normaliser."""
        if not isinstance(value, Tensor):
            value = _core.tensor(value, dtype=self.concentration.dtype)
        self._validate_sample(value)
        n = self.dim
        if list(value.shape[-2:]) != [n, n]:
            raise ValueError(f"LKJCholesky: value must be [..., {n}, {n}], got {list(value.shape)}")
        value = value.astype(self.concentration.dtype)
        diag = value.diagonal(dim1=-2, dim2=-1)[..., 1:]
        order = _core.tensor(np.arange(2, n + 1, dtype=np.float64)).astype(value.dtype)
        eta = self.concentration
        power = 2.0 * (eta - 1.0).unsqueeze(-1) + n - order
        unnormalised = (power * diag.log()).sum(-1)
        dm1 = n - 1
        alpha = eta + 0.5 * dm1
        log_norm = 0.5 * dm1 * math.log(math.pi) + mvlgamma(alpha - 0.5, dm1) - dm1 * alpha.lgamma()
        return unnormalised - log_norm

    def __repr__(self) -> str:
        return f"LKJCholesky(dim: {self.dim}, concentration: {list(self.concentration.shape)})"


class Wishart(_ScaleTrilMatrices):
    """The Wishart distribution over ``p x p`` positive definite matrices with ``df``
    degrees of freedom (``df > p - 1``) and scale given as one of ``covariance_matrix``,
    ``precision_matrix`` or ``scale_tril``. PyTorch ``Wishart(df, covariance_matrix=None,
    precision_matrix=None, scale_tril=None, validate_args=None)``; ``rsample`` by the
    Bartlett decomposition (no retry on singular draws, unlike PyTorch's
    ``max_try_correction``)."""

    arg_constraints = {
        "df": constraints.positive,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.positive_definite
    has_rsample = True

    def __init__(
        self,
        df: Any,
        covariance_matrix: Any = None,
        precision_matrix: Any = None,
        scale_tril: Any = None,
        validate_args: Any = None,
    ) -> None:
        matrix = _one_matrix("Wishart", covariance_matrix, precision_matrix, scale_tril)
        dtype = _float_dtype(df, matrix)
        mat = as_float_tensor(matrix, dtype)
        df_t = as_float_tensor(df, dtype)
        if mat.ndim < 2 or mat.shape[-1] != mat.shape[-2] or mat.shape[-1] < 1:
            raise ValueError(f"Wishart: the matrix must be [..., p, p], got {list(mat.shape)}")
        p = int(mat.shape[-1])
        batch = _batch_with_matrix("Wishart", "df", tuple(df_t.shape), mat)
        super().__init__(batch, (p, p), _validate_flag(validate_args))
        if self._validate and not bool((df_t.detach() > p - 1).all()):
            raise ValueError(f"Wishart: df must exceed p - 1 = {p - 1}, got {df_t.tolist()}")
        self._set_scale_tril(mat, covariance_matrix, scale_tril, [*batch, p, p])
        self.df = df_t.broadcast_to(list(batch))

    @property
    def mean(self) -> Tensor:
        """``df * covariance_matrix``."""
        return self.df.unsqueeze(-1).unsqueeze(-1) * self.covariance_matrix

    @property
    def mode(self) -> Tensor:
        """``(df - p - 1) * covariance_matrix``; NaN where ``df <= p + 1``."""
        p = self.event_shape[-1]
        factor = self.df - p - 1
        factor = _core.where(factor > 0, factor, _core.full_like(factor, float("nan")))
        return factor.unsqueeze(-1).unsqueeze(-1) * self.covariance_matrix

    @property
    def variance(self) -> Tensor:
        """``df * (S_ij^2 + S_ii S_jj)`` elementwise, ``S`` the scale matrix."""
        s = self.covariance_matrix
        d = s.diagonal(dim1=-2, dim2=-1)
        return self.df.unsqueeze(-1).unsqueeze(-1) * (
            s.square() + d.unsqueeze(-1) * d.unsqueeze(-2)
        )

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        p = self.event_shape[-1]
        dtype = self._scale_tril.dtype
        steps = _core.tensor(np.arange(p, dtype=np.float64)).astype(dtype)
        conc = ((self.df.unsqueeze(-1) - steps) * 0.5).broadcast_to(list(shape[:-1]))
        chi2 = 2.0 * _gamma_draw(conc, shape[:-1], generator)
        noise = standard_normal(shape, dtype, generator).tril(-1)
        a = noise + chi2.sqrt().diag_embed()
        la = self._scale_tril.matmul(a)
        return la.matmul(la.mT)

    def log_prob(self, value: Any) -> Tensor:
        """``(df-p-1)/2 log|X| - tr(S^-1 X)/2 - df p/2 log 2 - df/2 log|S| - log
        Gamma_p(df/2)``."""
        if not isinstance(value, Tensor):
            value = _core.tensor(value, dtype=self.df.dtype)
        self._validate_sample(value)
        p = self.event_shape[-1]
        if list(value.shape[-2:]) != [p, p]:
            raise ValueError(f"Wishart: value must be [..., {p}, {p}], got {list(value.shape)}")
        x = value.astype(self.df.dtype)
        chol = linalg.cholesky(x)
        shape = np.broadcast_shapes(tuple(chol.shape), tuple(self._scale_tril.shape))
        m = linalg.solve(self._scale_tril.broadcast_to(list(shape)), chol.broadcast_to(list(shape)))
        trace = m.square().sum(-1).sum(-1)
        nu = self.df
        return (
            (nu - p - 1) * _half_log_det(chol)
            - 0.5 * trace
            - 0.5 * p * math.log(2.0) * nu
            - nu * _half_log_det(self._scale_tril)
            - mvlgamma(0.5 * nu, p)
        )

    def entropy(self) -> Tensor:
        """``(p+1)/2 log|S| + p(p+1)/2 log 2 + log Gamma_p(df/2) - (df-p-1)/2 psi_p(df/2)
        + df p / 2``."""
        p = self.event_shape[-1]
        nu = self.df
        steps = _core.tensor(np.arange(p, dtype=np.float64)).astype(nu.dtype)
        psi_p = (0.5 * nu.unsqueeze(-1) - 0.5 * steps).digamma().sum(-1)
        return (
            (p + 1) * _half_log_det(self._scale_tril)
            + 0.5 * p * (p + 1) * math.log(2.0)
            + mvlgamma(0.5 * nu, p)
            - 0.5 * (nu - p - 1) * psi_p
            + 0.5 * nu * p
        )

    def __repr__(self) -> str:
        return f"Wishart(df: {list(self.df.shape)}, scale_tril: {list(self._scale_tril.shape)})"
