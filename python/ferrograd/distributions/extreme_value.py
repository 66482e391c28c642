"""Distributions PyTorch builds as ``TransformedDistribution``s of a simpler one:
Gumbel, Weibull, Pareto, HalfNormal, HalfCauchy (``isinstance(d,
TransformedDistribution)`` holds, as in PyTorch). Densities, moments and entropies are
written in closed form; sampling pushes the base distribution's draw through the
transforms, so ``rsample`` carries gradients to every parameter.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from .. import _core
from . import constraints
from ._utils import broadcast_all, eps_of, size_tuple
from .continuous import Cauchy, Exponential, Normal, Uniform, _validate_flag, _value
from .distribution import Distribution
from .transformed import TransformedDistribution
from .transforms import AbsTransform, AffineTransform, ExpTransform, PowerTransform

Tensor = _core.Tensor

__all__ = ["Gumbel", "Weibull", "Pareto", "HalfNormal", "HalfCauchy"]

_EULER_GAMMA = 0.57721566490153286061
_LOG2 = math.log(2.0)


def _tiny(dtype: Any) -> float:
    import numpy as np

    return float(np.finfo(np.float64 if dtype == _core.float64 else np.float32).tiny)


class _Rebuilt(TransformedDistribution):
    """Shared ``expand``: rebuilds the distribution from its parameters (the ``_params``,
    in constructor order) broadcast to the new batch shape."""

    _params: ClassVar[tuple[str, ...]] = ()

    def expand(self, batch_shape: Any, _instance: Any = None) -> Any:
        """This distribution with its parameters broadcast to ``batch_shape``."""
        shape = list(size_tuple(batch_shape, "batch_shape"))
        args = [getattr(self, n).broadcast_to(shape) for n in self._params]
        cls: Any = type(self)
        new = cls(*args, validate_args=False)
        new._validate = self._validate
        return new

    def __repr__(self) -> str:
        return Distribution.__repr__(self)


class Gumbel(_Rebuilt):
    """The Gumbel (type-I extreme value) distribution with location ``loc`` and scale
    ``scale``: ``loc - scale * log(-log U)``. PyTorch ``Gumbel(loc, scale)``; Paddle the
    same."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    _params = ("loc", "scale")

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None, name: Any = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        dtype = self.loc.dtype
        flag = _validate_flag(validate_args)
        lo = self.loc * 0 + _tiny(dtype)
        base = Uniform(lo.detach(), lo.detach() * 0 + (1 - eps_of(dtype)), validate_args=False)
        transforms = [
            ExpTransform().inv,
            AffineTransform(loc=0.0, scale=-1.0),
            ExpTransform().inv,
            AffineTransform(loc=self.loc, scale=-self.scale),
        ]
        super().__init__(base, transforms, validate_args=flag)
        self._check_params(loc=self.loc, scale=self.scale)

    def log_prob(self, value: Any) -> Tensor:
        v = _value(self, value, self.loc)
        z = (self.loc - v) / self.scale
        return (z - z.exp()) - self.scale.log()

    def cdf(self, value: Any) -> Tensor:
        v = _value(self, value, self.loc)
        return (-(-(v - self.loc) / self.scale).exp()).exp()

    def icdf(self, value: Any) -> Tensor:
        return self.loc - self.scale * (-value.log()).log()

    @property
    def mean(self) -> Tensor:
        return self.loc + self.scale * _EULER_GAMMA

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev.square()

    def entropy(self) -> Tensor:
        return self.scale.log() + (1 + _EULER_GAMMA)


class Weibull(_Rebuilt):
    """The Weibull distribution with ``scale`` and shape ``concentration``:
    ``scale * E ** (1 / concentration)`` for ``E ~ Exponential(1)``. PyTorch
    ``Weibull(scale, concentration)``."""

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive
    _params = ("scale", "concentration")

    def __init__(
        self, scale: Any, concentration: Any, validate_args: Any = None, name: Any = None
    ) -> None:
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base = Exponential(self.scale.detach() * 0 + 1.0, validate_args=False)
        transforms = [
            PowerTransform(exponent=self.concentration_reciprocal),
            AffineTransform(loc=0.0, scale=self.scale),
        ]
        super().__init__(base, transforms, validate_args=_validate_flag(validate_args))
        self._check_params(scale=self.scale, concentration=self.concentration)

    def log_prob(self, value: Any) -> Tensor:
        v = _value(self, value, self.scale)
        k = self.concentration
        z = v / self.scale
        return (k / self.scale).log() + (k - 1).xlogy(z) - z.pow(k)

    def cdf(self, value: Any) -> Tensor:
        v = _value(self, value, self.scale)
        return -(-(v / self.scale).pow(self.concentration)).expm1()

    def icdf(self, value: Any) -> Tensor:
        return self.scale * (-(-value).log1p()).pow(self.concentration_reciprocal)

    @property
    def mean(self) -> Tensor:
        return self.scale * (1 + self.concentration_reciprocal).lgamma().exp()

    @property
    def mode(self) -> Tensor:
        k = self.concentration
        return self.scale * ((k - 1) / k).pow(self.concentration_reciprocal)

    @property
    def variance(self) -> Tensor:
        r = self.concentration_reciprocal
        return self.scale.square() * ((1 + 2 * r).lgamma().exp() - (2 * (1 + r).lgamma()).exp())

    def entropy(self) -> Tensor:
        return (
            _EULER_GAMMA * (1 - self.concentration_reciprocal)
            + (self.scale / self.concentration).log()
            + 1
        )


class Pareto(_Rebuilt):
    """The Pareto (type I) distribution with ``scale`` (the minimum) and tail index
    ``alpha``: ``scale * exp(E)`` for ``E ~ Exponential(alpha)``. PyTorch
    ``Pareto(scale, alpha)``."""

    arg_constraints = {"alpha": constraints.positive, "scale": constraints.positive}
    _params = ("scale", "alpha")

    def __init__(self, scale: Any, alpha: Any, validate_args: Any = None, name: Any = None) -> None:
        self.scale, self.alpha = broadcast_all(scale, alpha)
        base = Exponential(self.alpha, validate_args=False)
        transforms = [ExpTransform(), AffineTransform(loc=0.0, scale=self.scale)]
        super().__init__(base, transforms, validate_args=_validate_flag(validate_args))
        self._check_params(scale=self.scale, alpha=self.alpha)

    @property
    def support(self) -> Any:
        """``[scale, inf)``."""
        return constraints.greater_than_eq(self.scale.detach())

    def log_prob(self, value: Any) -> Tensor:
        v = _value(self, value, self.scale)
        a = self.alpha
        return a.log() + a * self.scale.log() - (a + 1) * v.log()

    def cdf(self, value: Any) -> Tensor:
        v = _value(self, value, self.scale)
        return 1 - (self.scale / v).pow(self.alpha)

    def icdf(self, value: Any) -> Tensor:
        return self.scale * (-(-value).log1p() / self.alpha).exp()

    @property
    def mean(self) -> Tensor:
        a = self.alpha.clamp(min=1)
        return a * self.scale / (a - 1)

    @property
    def mode(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        a = self.alpha.clamp(min=2)
        return self.scale.square() * a / ((a - 1).square() * (a - 2))

    def entropy(self) -> Tensor:
        return (self.scale / self.alpha).log() + self.alpha.reciprocal() + 1


class _Folded(_Rebuilt):
    """``|X|`` for ``X ~ _base(0, scale)`` with ``_base`` symmetric about 0: the density
    and cdf of the base folded onto ``[0, inf)``, the entropy less ``log 2``."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    _params = ("scale",)
    #: the location-scale family folded, called as ``_base(loc, scale, validate_args=...)``
    _base: Any

    def __init__(self, scale: Any, validate_args: Any = None, name: Any = None) -> None:
        (self.scale,) = broadcast_all(scale)
        base = type(self)._base(self.scale.detach() * 0, self.scale, validate_args=False)
        super().__init__(base, AbsTransform(), validate_args=_validate_flag(validate_args))
        self._check_params(scale=self.scale)

    def log_prob(self, value: Any) -> Tensor:
        v = _value(self, value, self.scale)
        lp = self.base_dist.log_prob(v) + _LOG2
        return _core.where(v >= 0, lp, lp * 0 + float("-inf"))

    def cdf(self, value: Any) -> Tensor:
        v = _value(self, value, self.scale)
        return 2 * self.base_dist.cdf(v) - 1

    @property
    def mode(self) -> Tensor:
        return self.scale * 0

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() - _LOG2


class HalfNormal(_Folded):
    """``|X|`` for ``X ~ Normal(0, scale)``. PyTorch ``HalfNormal(scale)``."""

    _base = Normal

    def icdf(self, value: Any) -> Tensor:
        return self.scale * math.sqrt(2) * value.erfinv()

    @property
    def mean(self) -> Tensor:
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self) -> Tensor:
        return self.scale.square() * (1 - 2 / math.pi)


class HalfCauchy(_Folded):
    """``|X|`` for ``X ~ Cauchy(0, scale)``. PyTorch ``HalfCauchy(scale)`` (its mean and
    variance are infinite)."""

    _base = Cauchy

    def icdf(self, value: Any) -> Tensor:
        return self.scale * (math.pi / 2 * value).tan()

    @property
    def mean(self) -> Tensor:
        return self.scale.detach() * 0 + float("inf")

    @property
    def variance(self) -> Tensor:
        return self.scale.detach() * 0 + float("inf")
