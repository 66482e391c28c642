"""``LowRankMultivariateNormal`` (a normal whose covariance is ``W W^T + diag(D)``) and
``MixtureSameFamily`` (a categorical mixture of one batched component distribution).

The low-rank normal never forms the ``n x n`` covariance for its density: the
Woodbury identity and the matrix determinant lemma reduce the Mahalanobis term and the
log-determinant to the ``r x r`` capacitance matrix ``I + W^T D^-1 W``.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from .. import _core, linalg
from . import constraints
from ._utils import as_float_tensor, size_tuple, standard_normal
from .continuous import _validate_flag
from .discrete import Categorical
from .distribution import Distribution

Tensor = _core.Tensor

__all__ = ["LowRankMultivariateNormal", "MixtureSameFamily"]


class LowRankMultivariateNormal(Distribution):
    """The normal distribution on ``R^n`` with mean ``loc`` (``[..., n]``) and covariance
    ``cov_factor @ cov_factor^T + diag(cov_diag)`` (``cov_factor``: ``[..., n, r]``,
    ``cov_diag``: ``[..., n]``). PyTorch ``LowRankMultivariateNormal(loc, cov_factor,
    cov_diag)``."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "cov_factor": constraints.independent(constraints.real, 2),
        "cov_diag": constraints.independent(constraints.positive, 1),
    }
    support = constraints.real_vector
    has_rsample = True
    _params = ("loc", "cov_factor", "cov_diag")

    def __init__(self, loc: Any, cov_factor: Any, cov_diag: Any, validate_args: Any = None) -> None:
        dtype = next(
            (v.dtype for v in (loc, cov_factor, cov_diag) if isinstance(v, Tensor)),
            _core._get_default_dtype(),
        )
        loc, w, d = (as_float_tensor(v, dtype) for v in (loc, cov_factor, cov_diag))
        if loc.ndim < 1 or w.ndim < 2 or d.ndim < 1:
            raise ValueError(
                "LowRankMultivariateNormal: loc and cov_diag need at least one dim and "
                "cov_factor two"
            )
        n = int(w.shape[-2])
        if int(loc.shape[-1]) != n or int(d.shape[-1]) != n:
            raise ValueError(
                f"LowRankMultivariateNormal: loc {list(loc.shape)}, cov_factor "
                f"{list(w.shape)} and cov_diag {list(d.shape)} disagree on the event size"
            )
        try:
            batch = np.broadcast_shapes(
                tuple(loc.shape[:-1]), tuple(w.shape[:-2]), tuple(d.shape[:-1])
            )
        except ValueError:
            raise ValueError(
                "LowRankMultivariateNormal: the parameters' batch shapes do not broadcast"
            ) from None
        self.loc = loc.broadcast_to(list(batch) + [n])
        self.cov_factor = w.broadcast_to(list(batch) + list(w.shape[-2:]))
        self.cov_diag = d.broadcast_to(list(batch) + [n])
        super().__init__(batch, (n,), _validate_flag(validate_args))
        self._check_params(loc=self.loc, cov_factor=self.cov_factor, cov_diag=self.cov_diag)

    def _capacitance_tril(self) -> Tensor:
        w, d = self.cov_factor, self.cov_diag
        r = int(w.shape[-1])
        cap = w.mT @ (w / d.unsqueeze(-1)) + _core.eye(r, dtype=w.dtype)
        return linalg.cholesky(cap)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return self.cov_factor.square().sum(-1) + self.cov_diag

    @property
    def covariance_matrix(self) -> Tensor:
        """``W W^T + diag(D)``."""
        n = int(self.loc.shape[-1])
        eye = _core.eye(n, dtype=self.loc.dtype)
        return self.cov_factor @ self.cov_factor.mT + self.cov_diag.unsqueeze(-1) * eye

    @property
    def precision_matrix(self) -> Tensor:
        """The inverse covariance, by the Woodbury identity."""
        w, d = self.cov_factor, self.cov_diag
        n, r = int(w.shape[-2]), int(w.shape[-1])
        dinv_w = w / d.unsqueeze(-1)
        cap = w.mT @ dinv_w + _core.eye(r, dtype=w.dtype)
        eye = _core.eye(n, dtype=w.dtype)
        return eye / d.unsqueeze(-1) - dinv_w @ linalg.inv(cap) @ dinv_w.mT

    @property
    def scale_tril(self) -> Tensor:
        """The lower Cholesky factor of the covariance."""
        return linalg.cholesky(self.covariance_matrix)

    def _log_det(self) -> Tensor:
        lc = self._capacitance_tril()
        return 2 * lc.diagonal(dim1=-2, dim2=-1).log().sum(-1) + self.cov_diag.log().sum(-1)

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        r = int(self.cov_factor.shape[-1])
        eps_w = standard_normal(tuple(shape[:-1]) + (r,), self.loc.dtype, generator)
        eps_d = standard_normal(shape, self.loc.dtype, generator)
        low = (self.cov_factor @ eps_w.unsqueeze(-1)).squeeze(-1)
        return self.loc + low + self.cov_diag.sqrt() * eps_d

    def log_prob(self, value: Any) -> Tensor:
        if not isinstance(value, Tensor):
            value = _core.tensor(value, dtype=self.loc.dtype)
        self._validate_sample(value)
        diff = value - self.loc
        dinv_diff = diff / self.cov_diag
        wt = (self.cov_factor.mT @ dinv_diff.unsqueeze(-1)).squeeze(-1)
        lc = self._capacitance_tril()
        shape = np.broadcast_shapes(tuple(lc.shape[:-2]), tuple(wt.shape[:-1]))
        lc = lc.broadcast_to(list(shape) + list(lc.shape[-2:]))
        wt = wt.broadcast_to(list(shape) + list(wt.shape[-1:]))
        inner = linalg.solve(lc, wt.unsqueeze(-1)).squeeze(-1).square().sum(-1)
        maha = (diff * dinv_diff).sum(-1) - inner
        n = int(self.event_shape[0])
        return -0.5 * (n * math.log(2 * math.pi) + self._log_det() + maha)

    def entropy(self) -> Tensor:
        n = int(self.event_shape[0])
        return 0.5 * (n * (1.0 + math.log(2 * math.pi)) + self._log_det())


class MixtureSameFamily(Distribution):
    """A mixture whose ``K`` components are the last batch dim of
    ``component_distribution``, weighted by the ``Categorical`` ``mixture_distribution``
    (batch shapes ``B`` and ``B + [K]``). PyTorch ``MixtureSameFamily(mixture_distribution,
    component_distribution)``; no ``rsample`` (the component choice is discrete)."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {}
    has_rsample = False

    def __init__(
        self,
        mixture_distribution: Any,
        component_distribution: Any,
        validate_args: Any = None,
    ) -> None:
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(
                "MixtureSameFamily: mixture_distribution must be a Categorical, got "
                f"{type(mixture_distribution).__name__}"
            )
        if not isinstance(component_distribution, Distribution):
            raise ValueError(
                "MixtureSameFamily: component_distribution must be a Distribution, got "
                f"{type(component_distribution).__name__}"
            )
        mix_batch = tuple(mixture_distribution.batch_shape)
        comp_batch = tuple(component_distribution.batch_shape)
        if len(comp_batch) < 1 or mix_batch != comp_batch[:-1]:
            raise ValueError(
                f"MixtureSameFamily: the mixture's batch shape {list(mix_batch)} must be the "
                f"components' batch shape {list(comp_batch)} without its last dim"
            )
        k = int(mixture_distribution.logits.shape[-1])
        if k != comp_batch[-1]:
            raise ValueError(
                f"MixtureSameFamily: the mixture has {k} categories but there are "
                f"{comp_batch[-1]} components"
            )
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        self._num_component = k
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(
            comp_batch[:-1], component_distribution.event_shape, _validate_flag(validate_args)
        )

    @property
    def mixture_distribution(self) -> Categorical:
        """The categorical distribution over components."""
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        """The batched component distribution (its last batch dim indexes components)."""
        return self._component_distribution

    @property
    def support(self) -> Any:
        """The components' support."""
        return self._component_distribution.support

    def expand(self, batch_shape: Any, _instance: Any = None) -> MixtureSameFamily:
        """This mixture with both parts expanded to ``batch_shape``."""
        shape = size_tuple(batch_shape, "batch_shape")
        comp = self._component_distribution.expand(shape + (self._num_component,))
        mix = self._mixture_distribution.expand(shape)
        new = MixtureSameFamily(mix, comp, validate_args=False)
        new._validate = self._validate
        return new

    def _pad_probs(self) -> Tensor:
        p = self._mixture_distribution.probs
        return p.reshape(list(p.shape) + [1] * self._event_ndims)

    def _pad(self, x: Tensor) -> Tensor:
        return x.unsqueeze(-1 - self._event_ndims)

    @property
    def mean(self) -> Tensor:
        return (self._pad_probs() * self._component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self) -> Tensor:
        p = self._pad_probs()
        dim = -1 - self._event_ndims
        comp = self._component_distribution
        within = (p * comp.variance).sum(dim)
        between = (p * (comp.mean - self._pad(self.mean)).square()).sum(dim)
        return within + between

    def log_prob(self, value: Any) -> Tensor:
        if not isinstance(value, Tensor):
            value = _core.tensor(value, dtype=self._mixture_distribution.logits.dtype)
        self._validate_sample(value)
        lp = self._component_distribution.log_prob(self._pad(value))
        log_mix = self._mixture_distribution.logits.log_softmax(-1)
        return (lp + log_mix).logsumexp(-1)

    def cdf(self, value: Any) -> Tensor:
        if not isinstance(value, Tensor):
            value = _core.tensor(value, dtype=self._mixture_distribution.logits.dtype)
        c = self._component_distribution.cdf(self._pad(value))
        return (c * self._mixture_distribution.probs).sum(-1)

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        n_event = self._event_ndims
        sample_shape = tuple(shape[: len(shape) - len(self.batch_shape) - n_event])
        mix = self._mixture_distribution
        idx = mix._draw(sample_shape + tuple(mix.batch_shape), generator)
        comp = self._component_distribution
        full = sample_shape + tuple(comp.batch_shape) + tuple(comp.event_shape)
        xs = comp._draw(full, generator)
        idx = idx.reshape(list(idx.shape) + [1] * (1 + n_event))
        idx = idx.broadcast_to(list(idx.shape[: len(idx.shape) - n_event]) + list(comp.event_shape))
        return xs.gather(-1 - n_event, idx.astype(_core.int64)).squeeze(-1 - n_event)

    def __repr__(self) -> str:
        return (
            f"MixtureSameFamily({self._mixture_distribution!r}, {self._component_distribution!r})"
        )
