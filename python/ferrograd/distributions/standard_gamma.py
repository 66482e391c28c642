"""Gamma(alpha, 1) draws and their reparameterisation gradient.

``standard_gamma`` draws with Marsaglia and Tsang's method (no gradient);
``_standard_gamma(alpha)`` (PyTorch's ``torch._standard_gamma``) returns the same draw as a
differentiable function of ``alpha``, through the *implicit* reparameterisation gradient
(Figurnov, Mohamed and Mnih, 2018): a draw ``x`` with CDF ``F(x; alpha) = u`` held fixed
moves with ``alpha`` as

    dx/dalpha = -(dF/dalpha) / (dF/dx),

``dF/dx`` being the density. ``standard_gamma_grad(alpha, x)`` evaluates this ratio.
With ``P(a, x) = sum_n exp(-x) x^(a+n) / Gamma(a+n+1)`` (the regularised lower incomplete
gamma function), each term's ``a``-derivative is the term times
``log x - digamma(a+n+1)``, and dividing by the density ``x^(a-1) exp(-x) / Gamma(a)``
leaves ``(x / a) * sum_n t_n (log x - digamma(a+n+1))`` with ``t_0 = 1``,
``t_(n+1) = t_n x / (a+n+1)``: a sum with no overflow and (in the bulk of the
distribution) little cancellation, whose length grows like ``sqrt(a)``. Shapes above
``_WH_ABOVE`` use the Wilson-Hilferty cube-root normal approximation of the quantile
instead (relative error below 1e-6 there; the series is good to about 1e-7 below).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _core
from ..autograd.py_layer import Function
from ._utils import standard_normal

Tensor = _core.Tensor

__all__ = ["standard_gamma", "standard_gamma_grad", "_standard_gamma", "_standard_gamma_grad"]

#: shapes above this use the Wilson-Hilferty approximation in ``standard_gamma_grad``
_WH_ABOVE = 2.0e4
#: shape bands summed separately, so that small shapes do not pay for the long series
_BANDS = (0.0, 10.0, 200.0, 2000.0, _WH_ABOVE)


def _tiny(dtype: Any) -> float:
    return float(np.finfo(np.float64 if dtype == _core.float64 else np.float32).tiny)


def _digamma(a: np.ndarray) -> np.ndarray:
    """Digamma of positive float64 values (ferrograd's own, through a tensor)."""
    return _core.tensor(a).digamma().numpy()


def _series_grad(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``dx/da`` from the incomplete-gamma series (see the module docstring)."""
    lx = np.log(x)
    psi = _digamma(a + 1.0)
    t = np.ones_like(x)
    s = lx - psi
    reach = np.maximum(x - a, 0.0) + 12.0 * np.sqrt(np.maximum(a, x)) + 40.0
    for n in range(int(np.ceil(reach.max()))):
        k = a + (n + 1.0)
        t = t * x / k
        psi = psi + 1.0 / k
        s = s + t * (lx - psi)
    return -(x / a) * s


def _wilson_hilferty_grad(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``dx/da`` of ``x = a (1 - 1/(9a) + z / (3 sqrt a))^3`` at fixed ``z``."""
    w = np.cbrt(x / a)
    z = (w - 1.0 + 1.0 / (9.0 * a)) * 3.0 * np.sqrt(a)
    dw = 1.0 / (9.0 * a * a) - z / (6.0 * a**1.5)
    return w**3 + 3.0 * a * w * w * dw


def standard_gamma_grad(alpha: Any, x: Any) -> np.ndarray:
    """``d x / d alpha`` of a Gamma(alpha, 1) draw ``x`` at fixed CDF value (the implicit
    reparameterisation gradient), elementwise over broadcast float64 NumPy arrays.
    ``x`` is clamped to the smallest normal float64 (a draw of exactly 0 has gradient 0
    in the limit, which the clamp reproduces)."""
    a, xv = np.broadcast_arrays(np.asarray(alpha, np.float64), np.asarray(x, np.float64))
    out = np.full(a.shape, np.nan)
    xv = np.maximum(xv, np.finfo(np.float64).tiny)
    ok = (a > 0) & np.isfinite(a) & np.isfinite(xv)
    for lo, hi in zip(_BANDS[:-1], _BANDS[1:]):
        band = ok & (a > lo) & (a <= hi)
        if band.any():
            out[band] = _series_grad(a[band], xv[band])
    big = ok & (a > _WH_ABOVE)
    if big.any():
        out[big] = _wilson_hilferty_grad(a[big], xv[big])
    return out


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
    with np.errstate(invalid="ignore", divide="ignore"):
        c = 1.0 / np.sqrt(9.0 * d)
    valid = (a > 0) & np.isfinite(a)
    out = np.where(valid, 0.0, np.nan)  # a non-positive or nan shape draws nan
    pending = valid.copy()
    c = np.where(valid, c, 0.0)
    d = np.where(valid, d, 1.0)
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
        with np.errstate(divide="ignore", invalid="ignore"):
            logx = np.log(out) + np.log(u) / np.where(boost, a, 1.0)
        out = np.where(boost, np.exp(logx), out)
    out = np.maximum(out, _tiny(dtype))
    return _core.tensor(out).astype(dtype)


class _StandardGamma(Function):
    """``alpha -> x``: forward returns the given draw ``x``; backward multiplies the
    incoming gradient by ``standard_gamma_grad(alpha, x)``."""

    @staticmethod
    def forward(ctx: Any, alpha: Tensor, draw: Tensor) -> Tensor:
        """Returns (a copy of) the draw, keeping ``alpha`` and the draw for backward."""
        ctx.save_for_backward(alpha, draw)
        return draw.clone()

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Any:
        """``grad * dx/dalpha`` for ``alpha``; nothing for the draw."""
        alpha, draw = ctx.saved_tensors
        local = _standard_gamma_grad(alpha, draw)
        return grad * local, None


def _standard_gamma_grad(alpha: Any, output: Any) -> Tensor:
    """``d output / d alpha`` of Gamma(alpha, 1) draws ``output`` (PyTorch's
    ``torch._standard_gamma_grad``), a tensor of ``alpha``'s dtype (no gradient)."""
    if not isinstance(alpha, Tensor) or not isinstance(output, Tensor):
        raise TypeError("_standard_gamma_grad expects two tensors (alpha, output)")
    if not alpha.dtype.is_floating_point:
        raise TypeError(f"_standard_gamma_grad: alpha must be floating point, got {alpha.dtype}")
    a = alpha.detach().astype(_core.float64).numpy()
    x = output.detach().astype(_core.float64).numpy()
    try:
        g = standard_gamma_grad(a, x)
    except ValueError:
        raise ValueError(
            f"_standard_gamma_grad: shapes {list(alpha.shape)} and {list(output.shape)} "
            "do not broadcast"
        ) from None
    return _core.tensor(g).astype(alpha.dtype)


def _standard_gamma(alpha: Any, generator: Any = None) -> Tensor:
    """Gamma(alpha, 1) draws, one per element of ``alpha`` (PyTorch's
    ``torch._standard_gamma``), differentiable in ``alpha`` through the implicit
    reparameterisation gradient (``standard_gamma_grad``). Draws come from ``generator``
    (None: the default one, which ``manual_seed`` seeds)."""
    if not isinstance(alpha, Tensor):
        raise TypeError(f"_standard_gamma expects a Tensor, got {type(alpha).__name__}")
    if not alpha.dtype.is_floating_point or alpha.dtype.is_complex:
        raise TypeError(f"_standard_gamma: alpha must be real floating point, got {alpha.dtype}")
    with _no_grad():
        draw = standard_gamma(alpha, tuple(alpha.shape), generator)
    if not alpha.requires_grad:
        return draw
    return _StandardGamma.apply(alpha, draw)


def _no_grad() -> Any:
    from ..grad_mode import no_grad

    return no_grad()
