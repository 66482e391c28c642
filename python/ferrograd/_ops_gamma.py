"""The gamma-function family beyond the table ops ``lgamma``, ``digamma`` and ``zeta``:
``polygamma`` (both dialects' argument orders) and the multivariate log-gamma
``mvlgamma`` / ``multigammaln``. Differentiable through the ops they are made of.

Why ``polygamma`` is not a unary table entry: its order ``n`` is an integer parameter and
the unary table's kernels and formulas see one element only (no per-call attribute). It
is ``digamma`` for ``n == 0`` and ``(-1)**(n+1) * n! * zeta(n + 1, x)`` otherwise, with
``zeta`` the binary table's Hurwitz zeta, whose derivative in ``q`` (``-s * zeta(s + 1,
q)``) makes the gradient ``polygamma(n + 1, x)`` with no formula of its own; for ``x >=
1e8`` it is the asymptotic series, as differentiable."""

from __future__ import annotations

import math
from typing import Any

from . import _core

Tensor = _core.Tensor

__all__ = ["multigammaln", "mvlgamma", "polygamma"]


def _float(op: str, x: Any) -> Tensor:
    if not isinstance(x, Tensor):
        if isinstance(x, (bool, int, float)):
            x = _core.tensor(float(x))
        else:
            raise TypeError(f"{op}: expects a Tensor, got {type(x).__name__}")
    if x.is_complex():
        raise TypeError(f"{op}: complex tensors are not supported")
    return x if x.is_floating_point() else x.astype(_core._get_default_dtype())


def _order(op: str, n: Any, what: str = "n") -> int:
    if isinstance(n, Tensor) and n.ndim == 0 and not n.is_floating_point():
        n = int(n.item())
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"{op}: {what} must be an int, got {type(n).__name__}")
    return n


def _polygamma(x: Tensor, n: int) -> Tensor:
    if n < 0:
        raise ValueError(f"polygamma: n must be a non-negative integer, got {n}")
    x = _float("polygamma", x)
    if n == 0:
        return x.digamma()
    if x.dtype == _core.float32:  # float64 inside: float32's zeta terms underflow early
        return _polygamma(x.astype(_core.float64), n).astype(_core.float32)
    # n! overflows f64 past 170: the result is then +-inf (or NaN) as in the peers
    coef = float(math.factorial(n)) if n <= 170 else math.inf
    if n % 2 == 0:
        coef = -coef
    s = _core.tensor(float(n + 1), dtype=x.dtype)
    big = x >= _ASYMPTOTIC_MIN
    # each branch sees a safe argument where the other is taken (no NaN in the gradient)
    xz = _core.where(big, _core.ones([], dtype=x.dtype), x)
    xa = _core.where(big, x, _core.full([], _ASYMPTOTIC_MIN, dtype=x.dtype))
    return _core.where(big, _asymptotic(xa, n), s.zeta(xz) * coef)


# From here up the asymptotic series serves: zeta(n + 1, x) loses everything once x^-(n+1)
# underflows (x above ~1e162 for n = 1, ~3e15 for n = 20), where the series is exact
_ASYMPTOTIC_MIN = 1e8


def _asymptotic(x: Tensor, n: int) -> Tensor:
    """``polygamma(n, x)`` for ``x >= 1e8``: ``(-1)^(n+1) (n-1)! / x^n (1 + n / (2x) +
    n (n+1) / (12 x^2))`` (the next term is ``n^4 / (720 x^4)`` relative, below 1e-30
    there); ``(n-1)! / x^n`` as a product of falling factors ``k / x``, so that it
    underflows only where the result does."""
    r = 1.0 / x
    lead = r
    # each factor k / x is below 64e-8 up to k = 64, so the product is 0 by then (it is
    # under 1e-300 after ~40 factors): the loop stops there, whatever n (a huge n such as
    # 2**62 would otherwise loop forever)
    for k in range(1, min(n, 64)):
        lead = lead * (r * float(k))
    value = lead * (1.0 + r * (n / 2.0) + r * r * (n * (n + 1) / 12.0))
    return value if n % 2 == 1 else -value


def polygamma(
    n: Any = None,
    x: Any = None,
    name: Any = None,
    *,
    input: Any = None,
) -> Tensor:
    """The ``n``-th derivative of ``digamma``. PyTorch: ``polygamma(n, input)``; Paddle:
    ``polygamma(x, n)`` (the argument that is a Tensor is the input)."""
    if input is not None:
        if x is not None:
            raise TypeError("polygamma: got both x and input")
        x = input
    if isinstance(n, Tensor) and not isinstance(x, Tensor):
        n, x = x, n  # Paddle's order polygamma(x, n)
    if n is None or x is None:
        raise TypeError("polygamma: expects an order n and a Tensor")
    return _polygamma(_float("polygamma", x), _order("polygamma", n))


def _tensor_polygamma(self: Tensor, n: Any, name: Any = None) -> Tensor:
    """``polygamma(n, self)``: the ``n``-th derivative of ``digamma``."""
    return _polygamma(self, _order("polygamma", n))


def mvlgamma(input: Any = None, p: Any = None, *, x: Any = None) -> Tensor:
    """Multivariate log-gamma ``sum_{i<p} lgamma(x - i/2) + p(p-1)/4 * ln(pi)``;
    every element must exceed ``(p - 1) / 2``. PyTorch: ``mvlgamma(input, p)``."""
    if x is not None:
        if input is not None:
            raise TypeError("mvlgamma: got both input and x")
        input = x
    if p is None:
        raise TypeError("mvlgamma: missing the dimension p")
    pi = _order("mvlgamma", p, "p")
    if pi < 1:
        raise ValueError(f"mvlgamma: p must be >= 1, got {pi}")
    t = _float("mvlgamma", input)
    bound = 0.5 * (pi - 1)
    if t.numel() and not bool((t > bound).all().item()):
        raise ValueError(f"mvlgamma: all elements must be greater than (p-1)/2 = {bound}")
    # arange, not a Python list: a huge p is refused by the fallible allocation (MemoryError)
    offsets = _core.arange(pi, dtype=t.dtype) * 0.5
    total = (t.unsqueeze(-1) - offsets).lgamma().sum(-1)
    return total + pi * (pi - 1) / 4.0 * math.log(math.pi)


def multigammaln(x: Any = None, p: Any = None, name: Any = None, *, input: Any = None) -> Tensor:
    """Paddle's / scipy's name of :func:`mvlgamma`: ``multigammaln(x, p)``."""
    return mvlgamma(x if input is None else input, p)


def _tensor_mvlgamma(self: Tensor, p: Any, name: Any = None) -> Tensor:
    """``mvlgamma(self, p)``: the multivariate log-gamma of dimension ``p``."""
    return mvlgamma(self, p)


def install_tensor_methods() -> None:
    """Adds ``Tensor.polygamma(n)``, ``Tensor.mvlgamma(p)`` and ``Tensor.multigammaln(p)``."""
    Tensor.polygamma = _tensor_polygamma  # type: ignore[method-assign,assignment]
    Tensor.mvlgamma = _tensor_mvlgamma  # type: ignore[method-assign,assignment]
    Tensor.multigammaln = _tensor_mvlgamma  # type: ignore[method-assign,assignment]
