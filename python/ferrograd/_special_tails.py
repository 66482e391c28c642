"""The normal distribution's tails for ``torch.special``: ``log_ndtr`` (the log of the
standard normal CDF) and ``ndtri`` (its inverse), both accurate over the whole range.

``log_ndtr(x)`` as ``log(ndtr(x))`` would be 0 for ``x`` above ~8 (``ndtr`` rounds to 1)
and ``-inf`` below ~-38 (``ndtr`` underflows). Here, for ``x > 0`` it is
``log1p(-ndtr(-x))`` (``ndtr(-x)`` is the small upper tail, through ``erfc``), and for
``x <= 0`` ``log(erfcx(-x / sqrt 2) / 2) - x**2 / 2`` (``ndtr(x) = erfcx(-x / sqrt 2)
exp(-x**2 / 2) / 2``, with the exponential taken out of the log). Both are made of
differentiable ops, so gradients of any order follow.

``ndtri(p)`` as ``sqrt 2 * erfinv(2p - 1)`` loses the lower tail (``2p - 1`` rounds to
``-1`` for ``p`` below ~1e-16), so that form serves the centre ``[0.25, 0.75]`` only,
where ``2p - 1`` is exact. Outside it the smaller of ``p`` and ``1 - p`` (exact for ``p >=
0.5``) starts from Abramowitz & Stegun's 26.2.23 (error below 4.5e-4) and takes Newton
steps on ``log_ndtr(z) = log q``, nearly linear in ``z`` over the whole tail (the log of
SciPy's documented tail treatment, written here with the kernels above), so ``p`` down
to the smallest subnormal keeps full precision. Its derivative ``sqrt(2 pi) exp(z**2 /
2)`` is written with ops on the saved output, so it is differentiable again.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import _core
from .autograd import Function
from .grad_mode import no_grad

Tensor = _core.Tensor

__all__ = ["log_ndtr", "ndtri"]

_SQRT1_2 = 1.0 / math.sqrt(2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_SQRT_2PI = math.sqrt(2.0 * math.pi)
# Abramowitz & Stegun 26.2.23: the start of the Newton steps of ndtri
_AS_NUM = (2.515517, 0.802853, 0.010328)
_AS_DEN = (1.432788, 0.189269, 0.001308)
_NEWTON_STEPS = 4  # quadratic convergence from a 4.5e-4 start: 1e-7, 1e-14, 1e-28


def _const(v: float, like: Tensor) -> Tensor:
    return _core.full([], v, dtype=like.dtype)


def log_ndtr(x: Tensor) -> Tensor:
    """``log(ndtr(x))``, the log of the standard normal CDF, accurate in both tails
    (``-x**2 / 2 - log(-x sqrt(2 pi))`` far left, ``-ndtr(-x)`` far right); ``x`` a
    floating tensor."""
    pos = x > 0
    # each branch sees a safe argument where the other is taken (no NaN in the gradient)
    xp = _core.where(pos, x, _const(1.0, x))
    xn = _core.where(pos, _const(-1.0, x), x)
    right = (-((xp * _SQRT1_2).erfc() * 0.5)).log1p()
    left = (xn * -_SQRT1_2).erfcx().log() - math.log(2.0) - xn * xn * 0.5
    return _core.where(pos, right, left)


def _log_ndtr_values(z: np.ndarray) -> np.ndarray:
    """:func:`log_ndtr` of a float64 array, without autograd."""
    with no_grad():
        return log_ndtr(_core.tensor(z, dtype=_core.float64)).numpy()


def _ndtri_values(p: np.ndarray) -> np.ndarray:
    """``ndtri`` of a float64 array: NaN outside ``[0, 1]``, ``-inf`` at 0, ``inf`` at
    1."""
    lower = p < 0.5
    q = np.where(lower, p, 1.0 - p)  # (exact for p >= 0.5: Sterbenz)
    live = (q > 0) & (q <= 0.5)  # False for NaN and outside [0, 1]
    qs = np.where(live, q, 0.25)
    with np.errstate(all="ignore"):
        t = np.sqrt(-2.0 * np.log(qs))
        num = _AS_NUM[0] + t * (_AS_NUM[1] + t * _AS_NUM[2])
        den = 1.0 + t * (_AS_DEN[0] + t * (_AS_DEN[1] + t * _AS_DEN[2]))
        z = -(t - num / den)
        log_q = np.log(qs)
        for _ in range(_NEWTON_STEPS):
            ln = _log_ndtr_values(z)
            # f = log_ndtr(z) - log q, f' = pdf(z) / ndtr(z), taken as one exponential
            slope = np.exp(-0.5 * z * z - _LOG_SQRT_2PI - ln)
            z = z - (ln - log_q) / slope
    out = np.where(lower, z, -z)
    # the centre: sqrt 2 erfinv(2 (p - 1/2)), whose argument is exact there (Sterbenz)
    # and keeps the relative precision of small results, which a residual of log_ndtr
    # near log(1/2) does not
    centre = (p >= 0.25) & (p <= 0.75)
    with no_grad():
        mid = _core.tensor(np.where(centre, 2.0 * (p - 0.5), 0.0), dtype=_core.float64)
        out = np.where(centre, mid.erfinv().numpy() * math.sqrt(2.0), out)
    out = np.where(live, out, np.nan)
    out = np.where(p == 0, -np.inf, out)
    return np.where(p == 1, np.inf, out)


class _Ndtri(Function):
    """``ndtri`` with the derivative ``sqrt(2 pi) exp(z**2 / 2)`` of the output ``z``."""

    @staticmethod
    def forward(ctx: Any, p: Tensor) -> Tensor:
        values = _ndtri_values(np.asarray(p.detach().numpy(), dtype=np.float64))
        out = _core.tensor(np.asarray(values), dtype=p.dtype)
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (z,) = ctx.saved_tensors
        return grad * (z * z * 0.5).exp() * _SQRT_2PI


def ndtri(p: Tensor) -> Tensor:
    """The standard normal quantile function, the inverse of ``ndtr`` (``p`` a floating
    tensor): NaN outside ``[0, 1]``, ``-inf`` at 0, ``inf`` at 1, full precision in both
    tails."""
    return _Ndtri.apply(p)
