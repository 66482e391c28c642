"""``GeneralizedPareto``, ``InverseGamma`` and ``OneHotCategoricalStraightThrough``
(PyTorch's ``torch.distributions`` classes of those names; Paddle has none of them).

* ``GeneralizedPareto(loc, scale, concentration)``: the peaks-over-threshold family
  (Exponential at ``concentration = 0``, Pareto above 0, bounded support below 0);
  sampled by its inverse CDF, no ``rsample`` (as in PyTorch).
* ``InverseGamma(concentration, rate)``: ``1 / X`` for ``X ~ Gamma(concentration,
  rate)``, a ``TransformedDistribution`` through ``PowerTransform(-1)``, so ``rsample``
  carries gradients through the gamma's reparameterised draw.
* ``OneHotCategoricalStraightThrough``: a ``OneHotCategorical`` whose ``rsample`` is the
  one-hot draw plus ``probs - probs.detach()`` (the straight-through gradient estimator).
"""

from __future__ import annotations

import math
from typing import Any

from .. import _core
from . import constraints
from ._utils import broadcast_all, open_uniform, size_tuple
from .continuous import _validate_flag, _value
from .discrete import OneHotCategorical
from .distribution import Distribution
from .gamma_family import Gamma
from .transformed import TransformedDistribution
from .transforms import PowerTransform

Tensor = _core.Tensor

__all__ = ["GeneralizedPareto", "InverseGamma", "OneHotCategoricalStraightThrough"]


class GeneralizedPareto(Distribution):
    """The generalized Pareto distribution with location ``loc``, scale ``scale`` and
    shape ``concentration`` (``xi``): ``P(X > x) = (1 + xi z)^(-1/xi)`` for
    ``z = (x - loc) / scale`` (``exp(-z)`` at ``xi = 0``). Support ``[loc, inf)`` when
    ``xi >= 0``, ``[loc, loc + scale / |xi|]`` when ``xi < 0``."""

    arg_constraints = {
        "loc": constraints.real,
        "scale": constraints.positive,
        "concentration": constraints.real,
    }
    has_rsample = False

    def __init__(self, loc: Any, scale: Any, concentration: Any, validate_args: Any = None) -> None:
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(self.loc.shape, (), _validate_flag(validate_args))
        self._check_params(loc=self.loc, scale=self.scale, concentration=self.concentration)

    def expand(self, batch_shape: Any, _instance: Any = None) -> GeneralizedPareto:
        """This distribution with its parameters broadcast to ``batch_shape``."""
        shape = list(size_tuple(batch_shape, "batch_shape"))
        new = GeneralizedPareto(
            self.loc.broadcast_to(shape),
            self.scale.broadcast_to(shape),
            self.concentration.broadcast_to(shape),
            validate_args=False,
        )
        new._validate = self._validate
        return new

    @property
    def support(self) -> Any:  # type: ignore[override]
        """``interval(loc, loc + scale / |xi|)`` if any ``xi < 0``, else
        ``greater_than_eq(loc)`` (PyTorch's choice for a mixed batch)."""
        k = self.concentration.detach()
        if bool((k < 0).any()):
            return constraints.interval(
                self.loc.detach(), (self.loc + self.scale / k.abs()).detach()
            )
        return constraints.greater_than_eq(self.loc.detach())

    def _zero_k(self) -> tuple[Tensor, Tensor]:
        # torch.isclose(k, 0) with its default atol: |k| <= 1e-8; a safe k of 1 there
        k = self.concentration
        zero = k.abs() <= 1e-8
        return zero, _core.where(zero, k * 0 + 1, k)

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        u = open_uniform(list(shape), self.loc.dtype, generator)
        return self.icdf(u)

    def log_prob(self, value: Any) -> Tensor:
        v = _value(self, value, self.loc)
        z = (v - self.loc) / self.scale
        zero, k = self._zero_k()
        y = 1 / k + 1
        # y == 0 (xi = -1, the uniform case): the density is flat, the log term vanishes
        term = _core.where(y == 0, y * z, y * (k * z).log1p())
        return -self.scale.log() - _core.where(zero, z, term)

    def log_survival_function(self, value: Any) -> Tensor:
        """``log P(X > value)``."""
        v = _value(self, value, self.loc)
        z = (v - self.loc) / self.scale
        zero, k = self._zero_k()
        return _core.where(zero, -z, -(k * z).log1p() / k)

    def log_cdf(self, value: Any) -> Tensor:
        """``log P(X <= value)``."""
        return (-self.log_survival_function(value).exp()).log1p()

    def cdf(self, value: Any) -> Tensor:
        return self.log_cdf(value).exp()

    def icdf(self, value: Any) -> Tensor:
        zero, k = self._zero_k()
        if not isinstance(value, Tensor):
            value = _core.tensor(value, dtype=self.loc.dtype)
        neglog1mp = -(-value).log1p()
        return self.loc + self.scale * _core.where(zero, neglog1mp, (k * neglog1mp).expm1() / k)

    @property
    def mean(self) -> Tensor:
        k = self.concentration
        valid = k < 1
        safe = _core.where(valid, k, k * 0 + 0.5)
        return _core.where(valid, self.loc + self.scale / (1 - safe), k * 0 + math.nan)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        k = self.concentration
        valid = k < 0.5
        safe = _core.where(valid, k, k * 0 + 0.25)
        out = self.scale.square() / ((1 - safe).square() * (1 - 2 * safe)) + self.loc * 0
        return _core.where(valid, out, out * 0 + math.nan)

    def entropy(self) -> Tensor:
        return (self.scale.log() + self.concentration + 1).broadcast_to(list(self.batch_shape))


class InverseGamma(TransformedDistribution):
    """The inverse-gamma distribution: ``1 / X`` for ``X ~ Gamma(concentration, rate)``
    (``rate`` is the inverse gamma's scale)."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True  # type: ignore[assignment]

    def __init__(self, concentration: Any, rate: Any, validate_args: Any = None) -> None:
        flag = _validate_flag(validate_args)
        base = Gamma(concentration, rate, validate_args=flag)
        super().__init__(base, PowerTransform(-1.0), validate_args=flag)

    @property
    def concentration(self) -> Tensor:
        """The shape ``alpha``."""
        return self.base_dist.concentration  # type: ignore[attr-defined, no-any-return]

    @property
    def rate(self) -> Tensor:
        """The scale ``beta`` of the inverse gamma (the gamma's rate)."""
        return self.base_dist.rate  # type: ignore[attr-defined, no-any-return]

    def log_prob(self, value: Any) -> Tensor:
        v = _value(self, value, self.rate)
        a, b = self.concentration, self.rate
        return a * b.log() - a.lgamma() - (a + 1) * v.log() - b / v

    @property
    def mean(self) -> Tensor:
        a = self.concentration
        out = self.rate / (a - 1)
        return _core.where(a > 1, out, out * 0 + math.inf)

    @property
    def mode(self) -> Tensor:
        return self.rate / (self.concentration + 1)

    @property
    def variance(self) -> Tensor:
        a = self.concentration
        out = self.rate.square() / ((a - 1).square() * (a - 2))
        return _core.where(a > 2, out, out * 0 + math.inf)

    def entropy(self) -> Tensor:
        a = self.concentration
        return a + self.rate.log() + a.lgamma() - (1 + a) * a.digamma()


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """``OneHotCategorical`` with a straight-through ``rsample``: the forward value is the
    one-hot draw, the gradient is that of ``probs``."""

    has_rsample = True

    def rsample(
        self, sample_shape: Any = (), *, shape: Any = None, generator: Any = None
    ) -> Tensor:
        """A one-hot draw whose gradient flows to ``probs`` (``draw + probs -
        probs.detach()``)."""
        draw = self.sample(sample_shape if shape is None else shape, generator=generator)
        probs = self._categorical.probs
        return draw + (probs - probs.detach())

    def expand(self, batch_shape: Any, _instance: Any = None) -> OneHotCategoricalStraightThrough:
        """This distribution broadcast to ``batch_shape``."""
        new = object.__new__(OneHotCategoricalStraightThrough)
        new.__dict__.update(OneHotCategorical.expand(self, batch_shape).__dict__)
        return new
