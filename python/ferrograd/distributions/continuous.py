"""Continuous scalar distributions: Normal, Uniform, Exponential, Laplace, LogNormal,
Cauchy. Each has ``rsample`` (noise from ferrograd's generator, shifted and scaled by the
parameters with differentiable ops)."""

from __future__ import annotations

import math
from typing import Any, Optional

from .. import _core
from . import constraints
from ._utils import (
    broadcast_all,
    eps_of,
    open_uniform,
    standard_exponential,
    standard_normal,
)
from .distribution import Distribution
from .exp_family import ExponentialFamily

Tensor = _core.Tensor

__all__ = ["Normal", "Uniform", "Exponential", "Laplace", "LogNormal", "Cauchy"]

_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _validate_flag(validate_args: Any) -> Optional[bool]:
    # Paddle's third positional argument is ``name`` (a string): not a validation flag
    return None if isinstance(validate_args, str) else validate_args


def _value(d: Distribution, value: Any, like: Tensor) -> Tensor:
    """``value`` as a tensor of the parameters' dtype, checked against the support."""
    if not isinstance(value, Tensor):
        value = _core.tensor(value, dtype=like.dtype)
    elif value.dtype != like.dtype and not value.dtype.is_complex:
        value = value.astype(like.dtype)
    d._validate_sample(value)
    return value


class Normal(ExponentialFamily):
    """The normal distribution with mean ``loc`` and standard deviation ``scale``
    (``Normal(loc, scale, validate_args=None)``; Paddle's ``Normal(loc, scale, name)``)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _params = ("loc", "scale")

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None, name: Any = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, (), _validate_flag(validate_args))
        self._check_params(loc=self.loc, scale=self.scale)

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.loc / self.scale.square(), -0.5 * self.scale.square().reciprocal())

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:  # type: ignore[override]
        return -0.25 * x.square() / y + 0.5 * (-math.pi / y).log()

    _mean_carrier_measure = 0

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.scale.square()

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        return self.loc + standard_normal(shape, self.loc.dtype, generator) * self.scale

    def probs(self, value: Any) -> Tensor:
        """The density at ``value`` (Paddle's ``probs``; the same as ``prob``)."""
        return self.prob(value)

    def log_prob(self, value: Any) -> Tensor:
        v = _value(self, value, self.loc)
        return -((v - self.loc).square()) / (2 * self.variance) - self.scale.log() - _LOG_SQRT_2PI

    def cdf(self, value: Any) -> Tensor:
        v = _value(self, value, self.loc)
        return 0.5 * (1 + ((v - self.loc) / (self.scale * math.sqrt(2))).erf())

    def icdf(self, value: Any) -> Tensor:
        """The quantile ``loc + scale * sqrt(2) * erfinv(2 value - 1)``."""
        if not isinstance(value, Tensor):
            value = _core.tensor(value, dtype=self.loc.dtype)
        return self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)

    def entropy(self) -> Tensor:
        return 0.5 + _LOG_SQRT_2PI + self.scale.log()


class Uniform(Distribution):
    """The uniform distribution on ``[low, high)``."""

    arg_constraints = {"low": constraints.real, "high": constraints.real}
    has_rsample = True
    _params = ("low", "high")

    def __init__(self, low: Any, high: Any, validate_args: Any = None, name: Any = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        super().__init__(self.low.shape, (), _validate_flag(validate_args))
        if self._validate and not bool((self.low < self.high).all()):
            raise ValueError(
                f"Uniform: low must be less than high everywhere, got low={self.low.tolist()} "
                f"and high={self.high.tolist()}"
            )

    @property
    def support(self) -> Any:
        return constraints.half_open_interval(self.low.detach(), self.high.detach())

    @property
    def mean(self) -> Tensor:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Tensor:
        return self.mean * float("nan")

    @property
    def stddev(self) -> Tensor:
        return (self.high - self.low) / math.sqrt(12)

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low).square() / 12

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        u = _core._uniform(list(shape), 0.0, 1.0, self.low.dtype, generator)
        return self.low + u * (self.high - self.low)

    def probs(self, value: Any) -> Tensor:
        """The density at ``value`` (Paddle's ``probs``; the same as ``prob``)."""
        return self.prob(value)

    def log_prob(self, value: Any) -> Tensor:
        v = _value(self, value, self.low)
        inside = (v >= self.low) & (v < self.high)
        lp = -(self.high - self.low).log()
        return _core.where(inside, lp, lp * 0 + float("-inf"))

    def cdf(self, value: Any) -> Tensor:
        v = _value(self, value, self.low)
        return ((v - self.low) / (self.high - self.low)).clamp(min=0.0, max=1.0)

    def icdf(self, value: Any) -> Tensor:
        return self.low + value * (self.high - self.low)

    def entropy(self) -> Tensor:
        return (self.high - self.low).log()


class Exponential(ExponentialFamily):
    """The exponential distribution of rate ``rate`` (mean ``1 / rate``)."""

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _params = ("rate",)

    def __init__(self, rate: Any, validate_args: Any = None, name: Any = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.shape, (), _validate_flag(validate_args))
        self._check_params(rate=self.rate)

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (-self.rate,)

    def _log_normalizer(self, x: Tensor) -> Tensor:  # type: ignore[override]
        return -(-x).log()

    _mean_carrier_measure = 0

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        return self.rate * 0

    @property
    def stddev(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate.square().reciprocal()

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        return standard_exponential(shape, self.rate.dtype, generator) / self.rate

    def log_prob(self, value: Any) -> Tensor:
        v = _value(self, value, self.rate)
        return self.rate.log() - self.rate * v

    def cdf(self, value: Any) -> Tensor:
        v = _value(self, value, self.rate)
        return 1 - (-self.rate * v).exp()

    def icdf(self, value: Any) -> Tensor:
        return -(-value).log1p() / self.rate

    def entropy(self) -> Tensor:
        return 1.0 - self.rate.log()


class Laplace(Distribution):
    """The Laplace distribution with location ``loc`` and scale ``scale``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _params = ("loc", "scale")

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None, name: Any = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, (), _validate_flag(validate_args))
        self._check_params(loc=self.loc, scale=self.scale)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return math.sqrt(2) * self.scale

    @property
    def variance(self) -> Tensor:
        return 2 * self.scale.square()

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        # inverse CDF of u in (-1, 1): loc - scale * sign(u) * log(1 - |u|)
        eps = eps_of(self.loc.dtype)
        u = _core._uniform(list(shape), -1.0 + eps, 1.0, self.loc.dtype, generator)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value: Any) -> Tensor:
        v = _value(self, value, self.loc)
        return -(2 * self.scale).log() - (v - self.loc).abs() / self.scale

    def cdf(self, value: Any) -> Tensor:
        v = _value(self, value, self.loc)
        z = v - self.loc
        return 0.5 - 0.5 * z.sign() * (-z.abs() / self.scale).expm1()

    def entropy(self) -> Tensor:
        return 1 + (2 * self.scale).log()


class LogNormal(Distribution):
    """``exp(X)`` for ``X ~ Normal(loc, scale)``."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True
    _params = ("loc", "scale")

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None, name: Any = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, (), _validate_flag(validate_args))
        self._check_params(loc=self.loc, scale=self.scale)

    @property
    def base_dist(self) -> Normal:
        """The normal distribution of ``log(X)``."""
        return Normal(self.loc, self.scale, validate_args=False)

    @property
    def mean(self) -> Tensor:
        return (self.loc + self.scale.square() / 2).exp()

    @property
    def mode(self) -> Tensor:
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self) -> Tensor:
        s2 = self.scale.square()
        return s2.expm1() * (2 * self.loc + s2).exp()

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        return (self.loc + standard_normal(shape, self.loc.dtype, generator) * self.scale).exp()

    def log_prob(self, value: Any) -> Tensor:
        v = _value(self, value, self.loc)
        y = v.log()
        return (
            -((y - self.loc).square()) / (2 * self.scale.square())
            - self.scale.log()
            - _LOG_SQRT_2PI
            - y
        )

    def cdf(self, value: Any) -> Tensor:
        v = _value(self, value, self.loc)
        return 0.5 * (1 + ((v.log() - self.loc) / (self.scale * math.sqrt(2))).erf())

    def entropy(self) -> Tensor:
        return 0.5 + _LOG_SQRT_2PI + self.scale.log() + self.loc


class Cauchy(Distribution):
    """The Cauchy distribution with location ``loc`` and scale ``scale`` (its mean is
    undefined, nan; its variance infinite)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _params = ("loc", "scale")

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None, name: Any = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.shape, (), _validate_flag(validate_args))
        self._check_params(loc=self.loc, scale=self.scale)

    @property
    def mean(self) -> Tensor:
        return self.loc.detach() * 0 + float("nan")

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return self.loc.detach() * 0 + float("inf")

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        u = open_uniform(shape, self.loc.dtype, generator)
        return self.loc + self.scale * (math.pi * (u - 0.5)).tan()

    def log_prob(self, value: Any) -> Tensor:
        v = _value(self, value, self.loc)
        z = (v - self.loc) / self.scale
        return -math.log(math.pi) - self.scale.log() - z.square().log1p()

    def cdf(self, value: Any) -> Tensor:
        v = _value(self, value, self.loc)
        return ((v - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value: Any) -> Tensor:
        return self.loc + self.scale * (math.pi * (value - 0.5)).tan()

    def entropy(self) -> Tensor:
        return math.log(4 * math.pi) + self.scale.log()
