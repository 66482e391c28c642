"""The regularized incomplete gamma functions ``gammainc(a, x)`` (lower, ``P``) and
``gammaincc(a, x)`` (upper, ``Q = 1 - P``): Paddle's ``paddle.gammainc`` /
``gammaincc`` (and their in-place ``_`` forms), PyTorch's ``torch.special.gammainc`` /
``gammaincc`` and ``torch.igamma`` / ``igammac``; ``gammaln`` (Paddle's name of
``lgamma``).

A composite with no kernel of its own: the values come from
``ferrograd._gammainc_values`` (power series, continued fraction, ``Q``'s own series for
small ``a``, Temme's uniform expansion for large ``a``), evaluated in float64 with NumPy;
operands of two float dtypes compute in the promoted one (as PyTorch's), and the gradient in ``x`` is ``x**(a-1) * exp(-x) / Gamma(a)`` (``-`` that for
``Q``), made of ferrograd ops so that it is differentiable again. As in PyTorch, the
derivative in ``a`` is not available: asking for it raises. Edge values follow the peers:
``a = 0`` gives ``P = 1`` for ``x > 0``, ``x = 0`` gives ``P = 0``, negative ``a`` or
``x`` and NaN give NaN, ``x = inf`` gives ``P = 1``.

Why not ``scipy.special.gammainc``: SciPy is the well-kept library for this, but it is
only a test extra of ferrograd, not a runtime dependency, and one function does not
justify adding it; the values are checked against mpmath in
``tests/python/test_names22_tensor.py`` and against SciPy in
``tests/python/test_fuzz_special.py``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import _core
from ._dtype_info import result_type
from ._gammainc_values import p_and_q
from .autograd import Function
from .grad_mode import is_grad_enabled

Tensor = _core.Tensor

__all__ = ["gammainc", "gammaincc", "gammaln", "igamma", "igammac"]


def _as_float(op: str, v: Any, like: Any = None) -> Tensor:
    if isinstance(v, Tensor):
        if v.is_complex() or not v.is_floating_point():
            raise TypeError(f"{op}: expects floating-point tensors, got {v.dtype}")
        return v
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"{op}: expects a Tensor, got {type(v).__name__}")
    return _core.tensor(float(v), dtype=like.dtype if isinstance(like, Tensor) else None)


def _density(a: Tensor, x: Tensor) -> Tensor:
    """dP/dx = exp((a - 1) log x - x - lgamma(a)), made of differentiable ops (in ``x``;
    ``a`` is a constant here). For ``a >= 50`` the exponent is taken as ``a log(x / a) -
    (x - a) + log(a / 2 pi) / 2 - corr(a) - log x`` (Stirling's series for ``lgamma``),
    which neither overflows nor cancels for huge ``a``; each branch sees a safe ``a``."""
    big = a >= 50
    one = _core.ones([], dtype=a.dtype)
    a_small = _core.where(big, one, a)
    a_big = _core.where(big, a, _core.full([], 50.0, dtype=a.dtype))
    plain = (a_small - 1.0) * x.log() - x - a_small.lgamma()
    r = 1.0 / a_big
    r2 = r * r
    corr = r * (1 / 12 - r2 * (1 / 360 - r2 * (1 / 1260 - r2 / 1680)))
    half_log = (a_big.log() - math.log(2.0 * math.pi)) * 0.5
    stirling = a_big * (x / a_big).log() - (x - a_big) + half_log - corr - x.log()
    return _core.where(big, stirling, plain).exp()


class _Gammainc(Function):
    @staticmethod
    def forward(ctx: Any, a: Tensor, x: Tensor, upper: bool) -> Tensor:
        shape = list(np.broadcast_shapes(tuple(a.shape), tuple(x.shape)))
        # (np.array copies, keeping a 0-d shape: ascontiguousarray makes it [1])
        an = np.array(np.broadcast_to(a.detach().numpy().astype(np.float64), shape))
        xn = np.array(np.broadcast_to(x.detach().numpy().astype(np.float64), shape))
        p, q = p_and_q(an, xn)
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
    if a.dtype != x.dtype:  # two float dtypes: the promoted one (as PyTorch's)
        dtype = result_type(a, x)
        a, x = a.astype(dtype), x.astype(dtype)
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
