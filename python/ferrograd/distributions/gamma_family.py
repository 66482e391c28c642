"""Distributions whose densities need ``lgamma`` / ``digamma``: Gamma, Chi2, Beta,
Dirichlet, StudentT, and their closed-form KL divergences (Gamma-Gamma, Beta-Beta,
Dirichlet-Dirichlet).

Samples come from ferrograd's generator (``manual_seed`` reproduces them): Gamma by
Marsaglia and Tsang's squeeze-rejection method (shape < 1 through ``G(a+1) * U**(1/a)``),
Beta and Dirichlet as normalised Gammas, StudentT as ``Z / sqrt(Chi2(df) / df)``.
``rsample`` is differentiable in every parameter: Gamma draws carry the implicit
reparameterisation gradient ``d sample / d concentration`` (``standard_gamma.py``), and
the other classes are differentiable functions of Gamma draws.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _core
from . import constraints
from ._utils import broadcast_all, eps_of, standard_normal
from .continuous import _validate_flag, _value
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .kl import register_kl
from .standard_gamma import _standard_gamma

Tensor = _core.Tensor

__all__ = ["Gamma", "Chi2", "Beta", "Dirichlet", "StudentT"]


def _tiny(dtype: Any) -> float:
    return float(np.finfo(np.float64 if dtype == _core.float64 else np.float32).tiny)


def _gamma_draw(alpha: Tensor, shape: tuple[int, ...], generator: Any) -> Tensor:
    """Gamma(alpha, 1) draws of ``shape``, differentiable in ``alpha``."""
    a = alpha if tuple(alpha.shape) == tuple(shape) else alpha.broadcast_to(list(shape))
    return _standard_gamma(a, generator)


def _lbeta(a: Tensor, b: Tensor) -> Tensor:
    return a.lgamma() + b.lgamma() - (a + b).lgamma()


class Gamma(ExponentialFamily):
    """The gamma distribution with shape ``concentration`` and ``rate`` (mean
    ``concentration / rate``). PyTorch ``Gamma(concentration, rate)``; Paddle the same."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _params = ("concentration", "rate")

    def __init__(
        self, concentration: Any, rate: Any, validate_args: Any = None, name: Any = None
    ) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.shape, (), _validate_flag(validate_args))
        self._check_params(concentration=self.concentration, rate=self.rate)

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:  # type: ignore[override]
        return (x + 1).lgamma() + (x + 1) * (-y.reciprocal()).log()

    _mean_carrier_measure = 0

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0.0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.square()

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        g = _gamma_draw(self.concentration, shape, generator)
        return (g / self.rate).clamp(min=_tiny(g.dtype))

    def log_prob(self, value: Any) -> Tensor:
        v = _value(self, value, self.rate)
        a, r = self.concentration, self.rate
        return a.xlogy(r) + (a - 1).xlogy(v) - r * v - a.lgamma()

    def entropy(self) -> Tensor:
        a = self.concentration
        return a - self.rate.log() + a.lgamma() + (1.0 - a) * a.digamma()


class Chi2(Gamma):
    """The chi-squared distribution with ``df`` degrees of freedom: ``Gamma(df / 2, 1/2)``."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Any, validate_args: Any = None, name: Any = None) -> None:
        (df_t,) = broadcast_all(df)
        Distribution.__init__(self, df_t.shape, (), _validate_flag(validate_args))
        self._check_params(df=df_t)
        self.concentration = df_t * 0.5
        self.rate = df_t * 0 + 0.5

    @property
    def df(self) -> Tensor:
        """The degrees of freedom."""
        return self.concentration * 2


def _dirichlet_mode(c: Tensor) -> Tensor:
    """PyTorch's Dirichlet mode: ``max(c - 1, 0)`` normalised; a one-hot of the first
    coordinate when every concentration is below 1 (the density peaks at the corners)."""
    cm1 = (c - 1).clamp(min=0.0)
    mode = cm1 / cm1.sum(-1, keepdim=True)
    corner = (_core.arange(int(c.shape[-1])) == 0).astype(c.dtype)
    return _core.where((c < 1).all(-1, keepdim=True), corner, mode)


class Beta(ExponentialFamily):
    """The beta distribution on [0, 1]. PyTorch ``Beta(concentration1, concentration0)``
    (the exponents of ``x`` and ``1 - x``, plus one); Paddle ``Beta(alpha, beta)``."""

    arg_constraints = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True
    _params = ("concentration1", "concentration0")

    def __init__(
        self,
        concentration1: Any = None,
        concentration0: Any = None,
        validate_args: Any = None,
        name: Any = None,
        *,
        alpha: Any = None,
        beta: Any = None,
    ) -> None:
        c1 = concentration1 if alpha is None else alpha
        c0 = concentration0 if beta is None else beta
        if c1 is None or c0 is None:
            raise TypeError("Beta: expects two concentrations (concentration1, concentration0)")
        self.concentration1, self.concentration0 = broadcast_all(c1, c0)
        super().__init__(self.concentration1.shape, (), _validate_flag(validate_args))
        self._check_params(concentration1=self.concentration1, concentration0=self.concentration0)

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        # exponents of log x and log(1 - x), so that the carrier measure is 1
        return (self.concentration1 - 1, self.concentration0 - 1)

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:  # type: ignore[override]
        return _lbeta(x + 1, y + 1)

    _mean_carrier_measure = 0

    @property
    def alpha(self) -> Tensor:
        """Paddle's name of ``concentration1``."""
        return self.concentration1

    @property
    def beta(self) -> Tensor:
        """Paddle's name of ``concentration0``."""
        return self.concentration0

    @property
    def mean(self) -> Tensor:
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Tensor:
        # Dirichlet([a, b])'s first coordinate (PyTorch's): 1 when a > 1 >= b, 0 when
        # b > 1 >= a, 1 when both are below 1 (the first of the two modes)
        a, b = self.concentration1, self.concentration0
        return _dirichlet_mode(_core.stack([a, b], -1))[..., 0]

    @property
    def variance(self) -> Tensor:
        a, b = self.concentration1, self.concentration0
        total = a + b
        return a * b / (total.square() * (total + 1))

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        x = _gamma_draw(self.concentration1, shape, generator)
        y = _gamma_draw(self.concentration0, shape, generator)
        eps = eps_of(x.dtype)
        return (x / (x + y)).clamp(min=_tiny(x.dtype), max=1.0 - eps)

    def log_prob(self, value: Any) -> Tensor:
        v = _value(self, value, self.concentration1)
        a, b = self.concentration1, self.concentration0
        return (a - 1).xlogy(v) + (b - 1).xlogy(1 - v) - _lbeta(a, b)

    def entropy(self) -> Tensor:
        a, b = self.concentration1, self.concentration0
        total = a + b
        return (
            _lbeta(a, b)
            - (a - 1) * a.digamma()
            - (b - 1) * b.digamma()
            + (total - 2) * total.digamma()
        )


class Dirichlet(ExponentialFamily):
    """The Dirichlet distribution over the probability simplex, with ``concentration``
    (last dim: the ``k`` categories; the event shape is ``[k]``). Both peers spell it
    ``Dirichlet(concentration)``."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True
    _params = ("concentration",)

    def __init__(self, concentration: Any, validate_args: Any = None, name: Any = None) -> None:
        (c,) = broadcast_all(concentration)
        if c.ndim < 1:
            raise ValueError("Dirichlet: concentration needs at least one dim (the categories)")
        self.concentration = c
        super().__init__(c.shape[:-1], c.shape[-1:], _validate_flag(validate_args))
        self._check_params(concentration=c)

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        return (self.concentration - 1,)

    def _log_normalizer(self, x: Tensor) -> Tensor:  # type: ignore[override]
        return (x + 1).lgamma().sum(-1) - (x + 1).sum(-1).lgamma()

    _mean_carrier_measure = 0

    @property
    def mean(self) -> Tensor:
        c = self.concentration
        return c / c.sum(-1, keepdim=True)

    @property
    def mode(self) -> Tensor:
        return _dirichlet_mode(self.concentration)

    @property
    def variance(self) -> Tensor:
        c = self.concentration
        c0 = c.sum(-1, keepdim=True)
        return c * (c0 - c) / (c0.square() * (c0 + 1))

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        g = _gamma_draw(self.concentration, shape, generator)
        return (g / g.sum(-1, keepdim=True)).clamp(min=_tiny(g.dtype), max=1.0 - eps_of(g.dtype))

    def log_prob(self, value: Any) -> Tensor:
        v = _value(self, value, self.concentration)
        c = self.concentration
        return (c - 1).xlogy(v).sum(-1) + c.sum(-1).lgamma() - c.lgamma().sum(-1)

    def entropy(self) -> Tensor:
        c = self.concentration
        k = int(c.shape[-1])
        c0 = c.sum(-1)
        lbeta = c.lgamma().sum(-1) - c0.lgamma()
        return lbeta + (c0 - k) * c0.digamma() - ((c - 1) * c.digamma()).sum(-1)


class StudentT(Distribution):
    """Student's t distribution with ``df`` degrees of freedom, location ``loc`` and
    ``scale``. PyTorch ``StudentT(df, loc=0.0, scale=1.0)``; Paddle ``StudentT(df, loc,
    scale)``."""

    arg_constraints = {
        "df": constraints.positive,
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support = constraints.real
    has_rsample = True
    _params = ("df", "loc", "scale")

    def __init__(
        self,
        df: Any,
        loc: Any = 0.0,
        scale: Any = 1.0,
        validate_args: Any = None,
        name: Any = None,
    ) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        super().__init__(self.df.shape, (), _validate_flag(validate_args))
        self._check_params(df=self.df, loc=self.loc, scale=self.scale)

    @property
    def mean(self) -> Tensor:
        nan = self.loc * 0 + float("nan")
        return _core.where(self.df > 1, self.loc, nan)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        df = self.df
        finite = self.scale.square() * df / (df - 2)
        inf = finite * 0 + float("inf")
        nan = finite * 0 + float("nan")
        return _core.where(df > 2, finite, _core.where(df > 1, inf, nan))

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        df = self.df
        z = standard_normal(shape, df.dtype, generator)
        chi2 = _gamma_draw(df * 0.5, shape, generator) * 2.0
        return self.loc + self.scale * z * (df / chi2).sqrt()

    def log_prob(self, value: Any) -> Tensor:
        v = _value(self, value, self.loc)
        df = self.df
        y = (v - self.loc) / self.scale
        z = (
            self.scale.log()
            + 0.5 * df.log()
            + 0.5 * math.log(math.pi)
            + (0.5 * df).lgamma()
            - (0.5 * (df + 1)).lgamma()
        )
        return -0.5 * (df + 1) * (y.square() / df).log1p() - z

    def entropy(self) -> Tensor:
        df = self.df
        lbeta = (0.5 * df).lgamma() + math.lgamma(0.5) - (0.5 * (df + 1)).lgamma()
        return (
            self.scale.log()
            + 0.5 * (df + 1) * ((0.5 * (df + 1)).digamma() - (0.5 * df).digamma())
            + 0.5 * df.log()
            + lbeta
        )


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Tensor:
    pa, pr, qa, qr = p.concentration, p.rate, q.concentration, q.rate
    return (
        qa * (pr / qr).log()
        + qa.lgamma()
        - pa.lgamma()
        + (pa - qa) * pa.digamma()
        + (qr - pr) * (pa / pr)
    )


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Tensor:
    p1, p0, q1, q0 = p.concentration1, p.concentration0, q.concentration1, q.concentration0
    sp, sq = p1 + p0, q1 + q0
    return (
        _lbeta(q1, q0)
        - _lbeta(p1, p0)
        + (p1 - q1) * p1.digamma()
        + (p0 - q0) * p0.digamma()
        + (sq - sp) * sp.digamma()
    )


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Tensor:
    pc, qc = p.concentration, q.concentration
    sp, sq = pc.sum(-1), qc.sum(-1)
    t1 = sp.lgamma() - sq.lgamma()
    t2 = (pc.lgamma() - qc.lgamma()).sum(-1)
    t4 = pc.digamma() - sp.digamma().unsqueeze(-1)
    return t1 - t2 + ((pc - qc) * t4).sum(-1)
