"""``VonMises``: the circular normal distribution on ``[-pi, pi)``.

The density ``exp(k cos(x - loc)) / (2 pi I0(k))`` needs the modified Bessel functions
``I0`` and ``I1``; they are written here as differentiable ferrograd expressions (their
power series for small arguments, Hankel's asymptotic expansion for large ones), so
``log_prob`` and ``entropy`` carry gradients to ``concentration``. Draws use
Best and Fisher's (1979) wrapped-Cauchy rejection sampler, with no gradient (as in
PyTorch, where ``VonMises`` has no ``rsample``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import _core
from . import constraints
from ._utils import broadcast_all
from .continuous import _validate_flag, _value
from .distribution import Distribution

Tensor = _core.Tensor

__all__ = ["VonMises"]

#: below this the power series of I0 / I1 is summed; above it, the asymptotic expansion
_SERIES_BELOW = 30.0
_SERIES_TERMS = 64
_ASYMPTOTIC_TERMS = 13


def _asymptotic_coeffs(order: int) -> list[float]:
    """``c_n`` of ``I_v(x) ~ e^x / sqrt(2 pi x) * sum_n c_n / x^n`` (Hankel's expansion:
    ``c_n = c_(n-1) * -(4 v^2 - (2n - 1)^2) / (8 n)``)."""
    out = [1.0]
    for n in range(1, _ASYMPTOTIC_TERMS):
        out.append(out[-1] * -(4.0 * order * order - (2 * n - 1) ** 2) / (8.0 * n))
    return out


_HANKEL = {0: _asymptotic_coeffs(0), 1: _asymptotic_coeffs(1)}


def _log_bessel_i(x: Tensor, order: int) -> Tensor:
    """``log I_order(x)`` for ``x > 0`` (order 0 or 1), differentiable in ``x``: the power
    series ``sum_m (x/2)^(2m + v) / (m! (m + v)!)`` up to 30, Hankel's asymptotic
    expansion above (both good to about 1e-14)."""
    small = x <= _SERIES_BELOW
    xs = _core.where(small, x, x * 0 + 1.0)  # keeps each branch finite where unused
    xl = _core.where(small, x * 0 + _SERIES_BELOW, x)
    quarter = (0.5 * xs).square()
    term = xs * 0 + 1.0
    total = term
    for m in range(1, _SERIES_TERMS):
        term = term * quarter / float(m * (m + order))
        total = total + term
    log_small = total.log() + (order * (0.5 * xs).log() if order else 0.0)
    inv = xl.reciprocal()
    coeffs = _HANKEL[order]
    poly = inv * 0 + coeffs[-1]
    for c in reversed(coeffs[:-1]):
        poly = poly * inv + c
    log_large = xl - 0.5 * (2 * math.pi * xl).log() + poly.log()
    return _core.where(small, log_small, log_large)


class VonMises(Distribution):
    """The von Mises distribution with mean direction ``loc`` and ``concentration``
    ``k > 0`` (``1/k`` plays the role of a variance). PyTorch ``VonMises(loc,
    concentration)``."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    #: PyTorch's: any real angle (the density is periodic); draws lie in [-pi, pi)
    support = constraints.real
    has_rsample = False
    _params = ("loc", "concentration")

    def __init__(self, loc: Any, concentration: Any, validate_args: Any = None) -> None:
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, (), _validate_flag(validate_args))
        self._check_params(loc=self.loc, concentration=self.concentration)

    @property
    def mean(self) -> Tensor:
        """The circular mean: ``loc``."""
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        """The circular variance ``1 - I1(k) / I0(k)``."""
        k = self.concentration
        return 1 - (_log_bessel_i(k, 1) - _log_bessel_i(k, 0)).exp()

    def log_prob(self, value: Any) -> Tensor:
        v = _value(self, value, self.loc)
        k = self.concentration
        return k * (v - self.loc).cos() - math.log(2 * math.pi) - _log_bessel_i(k, 0)

    def entropy(self) -> Tensor:
        k = self.concentration
        ratio = (_log_bessel_i(k, 1) - _log_bessel_i(k, 0)).exp()
        return math.log(2 * math.pi) + _log_bessel_i(k, 0) - k * ratio

    def _draw(self, shape: tuple[int, ...], generator: Any) -> Tensor:
        dtype = self.loc.dtype
        k = np.broadcast_to(self.concentration.detach().astype(_core.float64).numpy(), shape)
        loc = np.broadcast_to(self.loc.detach().astype(_core.float64).numpy(), shape)
        # Best & Fisher: a wrapped Cauchy envelope with parameter rho, r = (1 + rho^2) / (2 rho)
        with np.errstate(divide="ignore", invalid="ignore"):
            tau = 1.0 + np.sqrt(1.0 + 4.0 * k * k)
            rho = (tau - np.sqrt(2.0 * tau)) / (2.0 * k)
            r = np.where(k < 1e-5, 1.0 / k + k, (1.0 + rho * rho) / (2.0 * rho))
        out = np.full(shape, np.nan)
        pending = np.isfinite(r) & (k > 0)
        for _ in range(1000):
            if not pending.any():
                break
            u = [_core._uniform(list(shape), 0.0, 1.0, _core.float64, generator).numpy()]
            u.append(_core._uniform(list(shape), 0.0, 1.0, _core.float64, generator).numpy())
            u.append(_core._uniform(list(shape), 0.0, 1.0, _core.float64, generator).numpy())
            z = np.cos(math.pi * u[0])
            with np.errstate(divide="ignore", invalid="ignore"):
                f = (1.0 + r * z) / (r + z)
                c = k * (r - f)
                ok = (c * (2.0 - c) - u[1] > 0) | (np.log(c / u[1]) + 1.0 - c >= 0)
            take = pending & ok
            theta = np.sign(u[2] - 0.5) * np.arccos(np.clip(f, -1.0, 1.0))
            out[take] = theta[take]
            pending &= ~take
        if pending.any():  # unreachable in practice (acceptance is above 65 %)
            raise RuntimeError("VonMises sampling did not converge")
        x = np.mod(out + loc + math.pi, 2.0 * math.pi) - math.pi
        return _core.tensor(x).astype(dtype)
