"""Distributions whose densities need ``lgamma`` / ``digamma``: Gamma, Chi2, Beta,
Dirichlet, StudentT, and their closed-form KL divergences (Gamma-Gamma, Beta-Beta,
Dirichlet-Dirichlet).

Samples come from ferrograd's generator (``manual_seed`` reproduces them): Gamma by
Marsaglia and Tsang's squeeze-rejection method (shape < 1 through ``G(a+1) * U**(1/a)``),
Beta and Dirichlet as normalised Gammas, StudentT as ``Z / sqrt(Chi2(df) / df)``.
``rsample`` is not available: a reparameterised Gamma draw needs the implicit gradient
``d sample / d concentration`` (the derivative of the regularised incomplete gamma
function in its shape parameter, PyTorch's ``_standard_gamma_grad``), which ferrograd
does not have, and every other class here samples through Gamma.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _core
from . import constraints
from ._utils import broadcast_all, standard_normal
from .continuous import _validate_flag, _value
from .distribution import Distribution
from .kl import register_kl

Tensor = _core.Tensor

__all__ = ["Gamma", "Chi2", "Beta", "Dirichlet", "StudentT"]

_NO_RSAMPLE = (
    "{cls}.rsample needs the reparameterisation gradient of Gamma draws with respect to "
    "the concentration (the derivative of the incomplete gamma function in its shape, "
    "PyTorch's _standard_gamma_grad), which ferrograd does not implement; use sample"
)


def _tiny(dtype: Any) -> float:
    return float(np.finfo(np.float64 if dtype == _core.float64 else np.float32).tiny)


def standard_gamma(alpha: Tensor, shape: tuple[int, ...], generator: Any) -> Tensor:
    """Gamma(alpha, 1) draws of ``shape`` (``alpha`` broadcast to it), no gradient.

    Marsaglia & Tsang (2000): with ``d = a - 1/3``, ``c = 1/sqrt(9d)``, ``x ~ N(0, 1)``,
    ``v = (1 + c x)^3``, accept ``d v`` when ``log u < x^2/2 + d - d v + d log v``
    (over 95 % of proposals pass, so few rounds). Rounds draw noise for every element
    and keep it only where still pending, so a seed fixes the result. ``a < 1`` draws
    with ``a + 1`` and multiplies by ``u^(1/a)`` (in logs, clamped to the dtype's tiny)."""
    dtype = alpha.dtype
    a = np.broadcast_to(alpha.detach().astype(_core.float64).numpy(), shape).astype(np.float64)
    boost = a < 1.0
    a1 = np.where(boost, a + 1.0, a)
    d = a1 - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * d)
    out = np.zeros(shape, dtype=np.float64)
    pending = np.ones(shape, dtype=bool)
    for _ in range(1000):
        if not pending.any():
            break
        x = standard_normal(shape, _core.float64, generator).numpy()
        u = _core._uniform(list(shape), 0.0, 1.0, _core.float64, generator).numpy()
        v = (1.0 + c * x) ** 3
        with np.errstate(invalid="ignore", divide="ignore"):
            ok = (v > 0) & (np.log(u) < 0.5 * x * x + d - d * v + d * np.log(v))
        take = pending & ok
        out[take] = (d * v)[take]
        pending &= ~take
    if pending.any():  # unreachable in practice (rejection rate < 5 % per round)
        raise RuntimeError("Gamma sampling did not converge")
    if boost.any():
        u = _core._uniform(list(shape), 0.0, 1.0, _core.float64, generator).numpy()
        with np.errstate(divide="ignore"):
            logx = np.log(out) + np.log(u) / np.where(boost, a, 1.0)
        out = np.where(boost, np.exp(logx), out)
    out = np.maximum(out, _tiny(dtype))
    return _core.tensor(out).astype(dtype)


def _lbeta(a: Tensor, b: Tensor) -> Tensor:
    return a.lgamma() + b.lgamma() - (a + b).lgamma()


class Gamma(Distribution):
    """The gamma distribution with shape ``concentration`` and ``rate`` (mean
    ``concentration / rate``). PyTorch ``Gamma(concentration, rate)``; Paddle the same."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = False
    _params = ("concentration", "rate")

    def __init__(
        self, concentration: Any, rate: Any, validate_args: Any = None, name: Any = None
    ) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.shape, (), _validate_flag(validate_args))
        self._check_params(concentration=self.concentration, rate=self.rate)

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
        g = standard_gamma(self.concentration, shape, generator)
        return (g / self.rate.detach()).clamp(min=_tiny(g.dtype))

    def rsample(
        self, sample_shape: Any = (), *, shape: Any = None, generator: Any = None
    ) -> Tensor:
        """Not available (see the module docstring): raises NotImplementedError."""
        raise NotImplementedError(_NO_RSAMPLE.format(cls=type(self).__name__))

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


class Beta(Distribution):
    """The beta distribution on [0, 1]. PyTorch ``Beta(concentration1, concentration0)``
    (the exponents of ``x`` and ``1 - x``, plus one); Paddle ``Beta(alpha, beta)``."""

    arg_constraints = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = False
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
        a, b = self.concentration1, self.concentration0
        return (a - 1) / (a + b - 2)

    @property
    def variance(self) -> Tensor:
        a, b = self.concentration1, self.concentration0
        total = a + b
        return a * b / (total.square() * (total + 1))

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        x = standard_gamma(self.concentration1, shape, generator)
        y = standard_gamma(self.concentration0, shape, generator)
        return x / (x + y)

    def rsample(
        self, sample_shape: Any = (), *, shape: Any = None, generator: Any = None
    ) -> Tensor:
        """Not available (see the module docstring): raises NotImplementedError."""
        raise NotImplementedError(_NO_RSAMPLE.format(cls=type(self).__name__))

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


class Dirichlet(Distribution):
    """The Dirichlet distribution over the probability simplex, with ``concentration``
    (last dim: the ``k`` categories; the event shape is ``[k]``). Both peers spell it
    ``Dirichlet(concentration)``."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = False
    _params = ("concentration",)

    def __init__(self, concentration: Any, validate_args: Any = None, name: Any = None) -> None:
        (c,) = broadcast_all(concentration)
        if c.ndim < 1:
            raise ValueError("Dirichlet: concentration needs at least one dim (the categories)")
        self.concentration = c
        super().__init__(c.shape[:-1], c.shape[-1:], _validate_flag(validate_args))
        self._check_params(concentration=c)

    @property
    def mean(self) -> Tensor:
        c = self.concentration
        return c / c.sum(-1, keepdim=True)

    @property
    def mode(self) -> Tensor:
        c = self.concentration
        k = int(c.shape[-1])
        return ((c - 1) / (c.sum(-1, keepdim=True) - k)).clamp(min=0.0)

    @property
    def variance(self) -> Tensor:
        c = self.concentration
        c0 = c.sum(-1, keepdim=True)
        return c * (c0 - c) / (c0.square() * (c0 + 1))

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        g = standard_gamma(self.concentration, shape, generator)
        return g / g.sum(-1, keepdim=True)

    def rsample(
        self, sample_shape: Any = (), *, shape: Any = None, generator: Any = None
    ) -> Tensor:
        """Not available (see the module docstring): raises NotImplementedError."""
        raise NotImplementedError(_NO_RSAMPLE.format(cls=type(self).__name__))

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
    has_rsample = False
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
        df = self.df.detach()
        z = standard_normal(shape, df.dtype, generator)
        chi2 = standard_gamma(df * 0.5, shape, generator) * 2.0
        return self.loc.detach() + self.scale.detach() * z * (df / chi2).sqrt()

    def rsample(
        self, sample_shape: Any = (), *, shape: Any = None, generator: Any = None
    ) -> Tensor:
        """Not available (see the module docstring): raises NotImplementedError."""
        raise NotImplementedError(_NO_RSAMPLE.format(cls=type(self).__name__))

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
