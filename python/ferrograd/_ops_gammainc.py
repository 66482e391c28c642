"""The regularized incomplete gamma functions ``gammainc(a, x)`` (lower, ``P``) and
``gammaincc(a, x)`` (upper, ``Q = 1 - P``): Paddle's ``paddle.gammainc`` /
``gammaincc`` (and their in-place ``_`` forms), PyTorch's ``torch.special.gammainc`` /
``gammaincc`` and ``torch.igamma`` / ``igammac``; ``gammaln`` (Paddle's name of
``lgamma``).

A composite with no kernel of its own: the values come from the power series of ``P``
(``x < a + 1``) or the continued fraction of ``Q`` (elsewhere), evaluated in float64 with
NumPy, and the gradient in ``x`` is ``x**(a-1) * exp(-x) / Gamma(a)`` (``-`` that for
``Q``), made of ferrograd ops so that it is differentiable again. As in PyTorch, the
derivative in ``a`` is not available: asking for it raises. Edge values follow the peers:
``a = 0`` gives ``P = 1`` for ``x > 0``, ``x = 0`` gives ``P = 0``, negative ``a`` or
``x`` and NaN give NaN, ``x = inf`` gives ``P = 1``.

Why not ``scipy.special.gammainc``: SciPy is the well-kept library for this, but it is
only a test extra of ferrograd, not a runtime dependency, and one function does not
justify adding it; the series and continued fraction here (Numerical Recipes' method)
are checked against mpmath values in ``tests/python/test_names22_tensor.py``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import _core
from .autograd import Function
from .grad_mode import is_grad_enabled

Tensor = _core.Tensor

__all__ = ["gammainc", "gammaincc", "gammaln", "igamma", "igammac"]

_ITERS = 400
_EPS = 1e-16
_lgamma = np.vectorize(math.lgamma, otypes=[np.float64])


def _p_and_q(a: np.ndarray, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(P(a, x), Q(a, x))`` elementwise (float64 arrays of one shape); each is computed
    directly where it is the small one, so that neither loses digits to ``1 - other``."""
    p = np.full(a.shape, np.nan)
    ok = (a >= 0) & (x >= 0) & ~np.isnan(a) & ~np.isnan(x)
    p[ok & (x == 0) & (a > 0)] = 0.0
    p[ok & (a == 0) & (x > 0)] = 1.0
    p[ok & np.isinf(x) & (a > 0) & ~np.isinf(a)] = 1.0
    p[ok & np.isinf(a) & ~np.isinf(x)] = 0.0
    live = ok & (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    a_, x_ = a[live], x[live]
    with np.errstate(over="ignore", under="ignore", divide="ignore", invalid="ignore"):
        log_front = a_ * np.log(x_) - x_ - _lgamma(a_)
        series = x_ < a_ + 1.0
        out = np.empty(a_.shape)
        out_q = np.empty(a_.shape)
        # power series: P = front / a * sum_n x^n / ((a+1)...(a+n))
        sa, sx = a_[series], x_[series]
        term = 1.0 / sa
        total = term.copy()
        ap = sa.copy()
        for _ in range(_ITERS):
            ap = ap + 1.0
            term = term * sx / ap
            total = total + term
            if np.all(np.abs(term) < np.abs(total) * _EPS):
                break
        out[series] = total * np.exp(log_front[series])
        out_q[series] = 1.0 - out[series]
        # continued fraction for Q (modified Lentz)
        ca, cx = a_[~series], x_[~series]
        b = cx + 1.0 - ca
        c = np.full(ca.shape, 1.0 / 1e-300)
        d = 1.0 / b
        h = d.copy()
        for i in range(1, _ITERS):
            an = -i * (i - ca)
            b = b + 2.0
            d = an * d + b
            d = np.where(np.abs(d) < 1e-300, 1e-300, d)
            c = b + an / c
            c = np.where(np.abs(c) < 1e-300, 1e-300, c)
            d = 1.0 / d
            delta = d * c
            h = h * delta
            if np.all(np.abs(delta - 1.0) < _EPS):
                break
        out_q[~series] = np.exp(log_front[~series]) * h
        out[~series] = 1.0 - out_q[~series]
    q = 1.0 - p
    p[live] = out
    q[live] = out_q
    return p, q


def _as_float(op: str, v: Any, like: Any = None) -> Tensor:
    if isinstance(v, Tensor):
        if v.is_complex() or not v.is_floating_point():
            raise TypeError(f"{op}: expects floating-point tensors, got {v.dtype}")
        return v
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{op}: expects a Tensor, got {type(v).__name__}")
    return _core.tensor(float(v), dtype=like.dtype if isinstance(like, Tensor) else None)


def _density(a: Tensor, x: Tensor) -> Tensor:
    """dP/dx = exp((a - 1) log x - x - lgamma(a)), made of differentiable ops."""
    return ((a - 1.0) * x.log() - x - a.lgamma()).exp()


class _Gammainc(Function):
    @staticmethod
    def forward(ctx: Any, a: Tensor, x: Tensor, upper: bool) -> Tensor:
        shape = list(np.broadcast_shapes(tuple(a.shape), tuple(x.shape)))
        an = np.broadcast_to(a.detach().numpy().astype(np.float64), shape)
        xn = np.broadcast_to(x.detach().numpy().astype(np.float64), shape)
        p, q = _p_and_q(np.ascontiguousarray(an), np.ascontiguousarray(xn))
        ctx.save_for_backward(a, x)
        ctx.upper = upper
        return _core.tensor(q if upper else p, dtype=x.dtype)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Any:
        a, x = ctx.saved_tensors
        g = grad * _density(a.detach(), x)
        if ctx.upper:
            g = -g
        if list(g.shape) != list(x.shape):  # x was broadcast: sum back to its shape
            g = g.sum_to_size(*x.shape)
        return None, g, None


def _gammainc(op: str, a: Any, x: Any, upper: bool) -> Tensor:
    a = _as_float(op, a, x)
    x = _as_float(op, x, a)
    if a.dtype != x.dtype:
        raise TypeError(f"{op}: both inputs must have one dtype, got {a.dtype} and {x.dtype}")
    if a.requires_grad and is_grad_enabled():
        raise RuntimeError(
            f"{op}: the derivative with respect to the first argument (a) is not "
            f"implemented (as in PyTorch); detach it or set stop_gradient"
        )
    return _Gammainc.apply(a, x, upper)


def gammainc(x: Any, y: Any, name: Any = None) -> Tensor:
    """The regularized lower incomplete gamma function ``P(x, y)`` (Paddle's names:
    ``x`` is the shape ``a``, ``y`` the point; PyTorch's ``torch.special.gammainc(input,
    other)``). Differentiable in ``y`` only."""
    return _gammainc("gammainc", x, y, False)


def gammaincc(x: Any, y: Any, name: Any = None) -> Tensor:
    """The regularized upper incomplete gamma function ``Q(x, y) = 1 - P(x, y)``."""
    return _gammainc("gammaincc", x, y, True)


def igamma(input: Any, other: Any, *, out: Any = None) -> Tensor:
    """PyTorch's ``torch.igamma``: :func:`gammainc`."""
    if out is not None:
        raise TypeError("igamma: out= is not supported; assign the result instead")
    return _gammainc("igamma", input, other, False)


def igammac(input: Any, other: Any, *, out: Any = None) -> Tensor:
    """PyTorch's ``torch.igammac``: :func:`gammaincc`."""
    if out is not None:
        raise TypeError("igammac: out= is not supported; assign the result instead")
    return _gammainc("igammac", input, other, True)


def gammaln(x: Any, name: Any = None) -> Tensor:
    """Paddle's ``gammaln``: ``lgamma(x)``, the log of the absolute gamma function."""
    if not isinstance(x, Tensor):
        raise TypeError(f"gammaln: expects a Tensor, got {type(x).__name__}")
    return x.lgamma()
