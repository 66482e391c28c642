"""``ContinuousBernoulli``, ``Kumaraswamy`` (on the unit interval), ``FisherSnedecor`` (a
ratio of chi-squares) and ``NegativeBinomial`` (a gamma-Poisson mixture), as PyTorch
defines them; densities and moments are differentiable ferrograd expressions.
"""

from __future__ import annotations

import math
from typing import Any

from .. import _core
from . import constraints
from ._utils import broadcast_all, eps_of, logits_to_probs, probs_to_logits, size_tuple
from .continuous import Uniform, _validate_flag, _value
from .discrete import Poisson, _counts, _one_of
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .gamma_family import Gamma, _tiny
from .transformed import TransformedDistribution
from .transforms import AffineTransform, PowerTransform

Tensor = _core.Tensor

__all__ = ["ContinuousBernoulli", "Kumaraswamy", "FisherSnedecor", "NegativeBinomial"]

_EULER_GAMMA = 0.57721566490153286061


def _nan_where(mask: Tensor, x: Tensor) -> Tensor:
    return _core.where(mask, x * 0 + float("nan"), x)


class ContinuousBernoulli(ExponentialFamily):
    """The continuous Bernoulli distribution on ``[0, 1]`` (Loaiza-Ganem and Cunningham,
    2019): density ``C(p) p^x (1 - p)^(1 - x)``. ``probs`` or ``logits``; within ``lims``
    of ``p = 1/2`` the normaliser and moments use their Taylor expansions (the closed
    forms cancel there). PyTorch ``ContinuousBernoulli(probs=None, logits=None,
    lims=(0.499, 0.501))``; Paddle ``ContinuousBernoulli(probs, lims=(0.48, 0.52))``."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True
    _params = ("probs", "logits")

    def __init__(
        self,
        probs: Any = None,
        logits: Any = None,
        lims: Any = (0.499, 0.501),
        validate_args: Any = None,
        name: Any = None,
    ) -> None:
        if isinstance(logits, (tuple, list)) and len(logits) == 2 and probs is not None:
            lims, logits = logits, None  # Paddle's ContinuousBernoulli(probs, lims)
        _one_of("ContinuousBernoulli", probs, logits)
        flag = _validate_flag(validate_args)
        if probs is not None:
            (p,) = broadcast_all(probs)
            super().__init__(p.shape, (), flag)
            self._check_params(probs=p)
            eps = eps_of(p.dtype)
            self.probs = p.clamp(min=eps, max=1 - eps)
            self.logits = probs_to_logits(self.probs, is_binary=True)
        else:
            (self.logits,) = broadcast_all(logits)
            super().__init__(self.logits.shape, (), flag)
            self._check_params(logits=self.logits)
            self.probs = logits_to_probs(self.logits, is_binary=True)
        self._lims = (float(lims[0]), float(lims[1]))

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.logits,)

    def _log_normalizer(self, x: Tensor) -> Tensor:  # type: ignore[override]
        # log((e^x - 1) / x), with its Taylor series x/2 + x^2/24 - x^4/2880 near 0
        near = x.abs() < 1e-2
        safe = _core.where(near, x * 0 + 1.0, x)
        exact = (safe.expm1() / safe).log()
        taylor = 0.5 * x + x.square() / 24.0 - x.square().square() / 2880.0
        return _core.where(near, taylor, exact)

    _mean_carrier_measure = 0

    @property
    def param_shape(self) -> Any:
        """The shape of ``probs`` / ``logits``."""
        return self.probs.shape

    def _outside(self) -> Tensor:
        p = self.probs
        return (p <= self._lims[0]) | (p > self._lims[1])

    def _cut_probs(self) -> Tensor:
        return _core.where(self._outside(), self.probs, self.probs * 0 + self._lims[0])

    def _cont_bern_log_norm(self) -> Tensor:
        cut = self._cut_probs()
        below = _core.where(cut <= 0.5, cut, cut * 0)
        above = _core.where(cut >= 0.5, cut, cut * 0 + 1)
        exact = ((-cut).log1p() - cut.log()).abs().log() - _core.where(
            cut <= 0.5, (-2 * below).log1p(), (2 * above - 1).log()
        )
        x = (self.probs - 0.5).square()
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return _core.where(self._outside(), exact, taylor)

    @property
    def mean(self) -> Tensor:
        cut = self._cut_probs()
        exact = cut / (2 * cut - 1) + 1 / ((-cut).log1p() - cut.log())
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.square()) * x
        return _core.where(self._outside(), exact, taylor)

    @property
    def variance(self) -> Tensor:
        cut = self._cut_probs()
        exact = cut * (cut - 1) / (1 - 2 * cut).square() + 1 / ((-cut).log1p() - cut.log()).square()
        x = (self.probs - 0.5).square()
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return _core.where(self._outside(), exact, taylor)

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        u = _core._uniform(list(shape), 0.0, 1.0, self.probs.dtype, generator)
        return self.icdf(u)

    def log_prob(self, value: Any) -> Tensor:
        v = _value(self, value, self.probs)
        return v * self.logits - self.logits.softplus() + self._cont_bern_log_norm()

    def cdf(self, value: Any) -> Tensor:
        v = _value(self, value, self.probs)
        cut = self._cut_probs()
        exact = (cut.pow(v) * (1 - cut).pow(1 - v) + cut - 1) / (2 * cut - 1)
        inside = _core.where(self._outside(), exact, v + cut * 0)
        zero = inside * 0
        return _core.where(v <= 0, zero, _core.where(v >= 1, zero + 1, inside))

    def icdf(self, value: Any) -> Tensor:
        if not isinstance(value, Tensor):
            value = _core.tensor(value, dtype=self.probs.dtype)
        cut = self._cut_probs()
        exact = ((-cut + value * (2 * cut - 1)).log1p() - (-cut).log1p()) / (
            cut.log() - (-cut).log1p()
        )
        return _core.where(self._outside(), exact, value + cut * 0)

    def entropy(self) -> Tensor:
        log0 = (-self.probs).log1p()
        log1 = self.probs.log()
        return self.mean * (log0 - log1) - self._cont_bern_log_norm() - log0


def _kumaraswamy_moment(a: Tensor, b: Tensor, n: int) -> Tensor:
    """``E[X^n] = b B(1 + n/a, b)``."""
    arg = 1 + n / a
    return b * (arg.lgamma() + b.lgamma() - (arg + b).lgamma()).exp()


class Kumaraswamy(TransformedDistribution):
    """The Kumaraswamy distribution on ``(0, 1)``: density ``a b x^(a-1) (1 - x^a)^(b-1)``
    with ``a = concentration1``, ``b = concentration0``; draws are
    ``(1 - U^(1/b))^(1/a)``. PyTorch ``Kumaraswamy(concentration1, concentration0)``."""

    arg_constraints = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    _params = ("concentration1", "concentration0")

    def __init__(self, concentration1: Any, concentration0: Any, validate_args: Any = None) -> None:
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        zero = self.concentration0.detach() * 0
        base = Uniform(zero, zero + 1, validate_args=False)
        transforms = [
            PowerTransform(exponent=self.concentration0.reciprocal()),
            AffineTransform(loc=1.0, scale=-1.0),
            PowerTransform(exponent=self.concentration1.reciprocal()),
        ]
        super().__init__(base, transforms, validate_args=_validate_flag(validate_args))
        self._check_params(concentration1=self.concentration1, concentration0=self.concentration0)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Kumaraswamy:
        """This distribution with its parameters broadcast to ``batch_shape``."""
        shape = list(size_tuple(batch_shape, "batch_shape"))
        new = Kumaraswamy(
            self.concentration1.broadcast_to(shape),
            self.concentration0.broadcast_to(shape),
            validate_args=False,
        )
        new._validate = self._validate
        return new

    def __repr__(self) -> str:
        return Distribution.__repr__(self)

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        eps = eps_of(self.concentration1.dtype)
        return super()._draw(shape, generator).clamp(min=eps, max=1 - eps)

    def log_prob(self, value: Any) -> Tensor:
        v = _value(self, value, self.concentration1)
        a, b = self.concentration1, self.concentration0
        return a.log() + b.log() + (a - 1).xlogy(v) + (b - 1).xlogy(1 - v.pow(a))

    def cdf(self, value: Any) -> Tensor:
        v = _value(self, value, self.concentration1)
        return 1 - (1 - v.pow(self.concentration1)).pow(self.concentration0)

    def icdf(self, value: Any) -> Tensor:
        a, b = self.concentration1, self.concentration0
        return (1 - (1 - value).pow(b.reciprocal())).pow(a.reciprocal())

    @property
    def mean(self) -> Tensor:
        return _kumaraswamy_moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self) -> Tensor:
        a, b = self.concentration1, self.concentration0
        log_mode = a.reciprocal() * ((a - 1).log() - (a * b - 1).log())
        return _nan_where((a < 1) | (b < 1), log_mode.exp())

    @property
    def variance(self) -> Tensor:
        a, b = self.concentration1, self.concentration0
        return _kumaraswamy_moment(a, b, 2) - _kumaraswamy_moment(a, b, 1).square()

    def entropy(self) -> Tensor:
        a, b = self.concentration1, self.concentration0
        harmonic_b = (b + 1).digamma() + _EULER_GAMMA
        return (1 - b.reciprocal()) + (1 - a.reciprocal()) * harmonic_b - a.log() - b.log()


class FisherSnedecor(Distribution):
    """The F distribution with ``df1`` and ``df2`` degrees of freedom:
    ``(X1 / df1) / (X2 / df2)`` for independent chi-squares. PyTorch
    ``FisherSnedecor(df1, df2)``; ``rsample`` is reparameterised through Gamma draws."""

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True
    _params = ("df1", "df2")

    def __init__(self, df1: Any, df2: Any, validate_args: Any = None) -> None:
        self.df1, self.df2 = broadcast_all(df1, df2)
        super().__init__(self.df1.shape, (), _validate_flag(validate_args))
        self._check_params(df1=self.df1, df2=self.df2)

    @property
    def mean(self) -> Tensor:
        d2 = self.df2
        return _nan_where(d2 <= 2, d2 / (d2 - 2))

    @property
    def mode(self) -> Tensor:
        d1, d2 = self.df1, self.df2
        return _nan_where(d1 <= 2, (d1 - 2) / d1 * d2 / (d2 + 2))

    @property
    def variance(self) -> Tensor:
        d1, d2 = self.df1, self.df2
        var = 2 * d2.square() * (d1 + d2 - 2) / (d1 * (d2 - 2).square() * (d2 - 4))
        return _nan_where(d2 <= 4, var)

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        half = self.df1 * 0 + 0.5
        x1 = Gamma(0.5 * self.df1, half, validate_args=False)._draw(shape, generator) / self.df1
        x2 = Gamma(0.5 * self.df2, half, validate_args=False)._draw(shape, generator) / self.df2
        return (x1 / x2).clamp(min=_tiny(x1.dtype))

    def log_prob(self, value: Any) -> Tensor:
        v = _value(self, value, self.df1)
        h1, h2 = 0.5 * self.df1, 0.5 * self.df2
        ratio = self.df1 / self.df2
        t1 = (h1 + h2).lgamma() - h1.lgamma() - h2.lgamma()
        t2 = h1 * ratio.log() + (h1 - 1) * v.log()
        t3 = (h1 + h2) * (ratio * v).log1p()
        return t1 + t2 - t3


class NegativeBinomial(Distribution):
    """The number of successes before ``total_count`` failures, each trial succeeding with
    probability ``probs`` (or ``sigmoid(logits)``). PyTorch ``NegativeBinomial(total_count,
    probs=None, logits=None)``; draws are Poisson counts with Gamma-distributed rates."""

    arg_constraints = {
        "total_count": constraints.greater_than_eq(0),
        "probs": constraints.half_open_interval(0.0, 1.0),
        "logits": constraints.real,
    }
    support = constraints.nonnegative_integer
    _params = ("total_count", "probs", "logits")

    def __init__(
        self, total_count: Any, probs: Any = None, logits: Any = None, validate_args: Any = None
    ) -> None:
        _one_of("NegativeBinomial", probs, logits)
        flag = _validate_flag(validate_args)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.logits = probs_to_logits(self.probs, is_binary=True)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.probs = logits_to_probs(self.logits, is_binary=True)
        super().__init__(self.total_count.shape, (), flag)
        if probs is not None:
            self._check_params(total_count=self.total_count, probs=self.probs)
        else:
            self._check_params(total_count=self.total_count, logits=self.logits)

    @property
    def param_shape(self) -> Any:
        """The shape of the parameters."""
        return self.total_count.shape

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.logits.exp()

    @property
    def mode(self) -> Tensor:
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Tensor:
        return self.mean / (-self.logits).sigmoid()

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        rate = (-self.logits).exp()
        lam = Gamma(self.total_count, rate, validate_args=False)._draw(shape, generator)
        lam = _core.where(self.total_count.broadcast_to(list(shape)) > 0, lam, lam * 0)
        counts = Poisson(lam.detach(), validate_args=False)._draw(tuple(shape), generator)
        return counts.astype(self.logits.dtype)

    def log_prob(self, value: Any) -> Tensor:
        v = _counts(self, value, self.logits)
        n = self.total_count
        unnormalized = n * (-(self.logits.softplus())) + v * (-((-self.logits).softplus()))
        norm = -(n + v).lgamma() + (1 + v).lgamma() + n.lgamma()
        norm = _core.where(n + v == 0, norm * 0, norm)
        return unnormalized - norm
