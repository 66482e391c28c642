"""PyTorch's ``torch.special``: special functions, most of them other names of ferrograd
ops (``expit`` is ``sigmoid``, ``ndtr`` the normal CDF through ``erfc``, ...). All are
differentiable through the ops they are made of. The gamma family (``gammaln``,
``digamma``/``psi``, ``polygamma``, ``multigammaln``, ``zeta``, the regularized incomplete
gamma functions ``gammainc`` / ``gammaincc``) is here; so are the other Bessel functions, ``airy_ai`` and
the orthogonal polynomials (``ferrograd._special_bessel_poly``: not differentiable, as
PyTorch)."""

from __future__ import annotations

import math
from typing import Any

from . import _core

# the Bessel functions, airy_ai and the orthogonal polynomials
from ._special_bessel_poly import (
    airy_ai,
    bessel_j0,
    bessel_j1,
    bessel_y0,
    bessel_y1,
    chebyshev_polynomial_t,
    chebyshev_polynomial_u,
    chebyshev_polynomial_v,
    chebyshev_polynomial_w,
    hermite_polynomial_h,
    hermite_polynomial_he,
    laguerre_polynomial_l,
    legendre_polynomial_p,
    modified_bessel_i0,
    modified_bessel_i1,
    modified_bessel_k0,
    modified_bessel_k1,
    scaled_modified_bessel_k0,
    scaled_modified_bessel_k1,
    shifted_chebyshev_polynomial_t,
    shifted_chebyshev_polynomial_u,
    shifted_chebyshev_polynomial_v,
    shifted_chebyshev_polynomial_w,
    spherical_bessel_j0,
)

Tensor = _core.Tensor

__all__ = [
    "airy_ai",
    "bessel_j0",
    "bessel_j1",
    "bessel_y0",
    "bessel_y1",
    "chebyshev_polynomial_t",
    "chebyshev_polynomial_u",
    "chebyshev_polynomial_v",
    "chebyshev_polynomial_w",
    "hermite_polynomial_h",
    "hermite_polynomial_he",
    "laguerre_polynomial_l",
    "legendre_polynomial_p",
    "modified_bessel_i0",
    "modified_bessel_i1",
    "modified_bessel_k0",
    "modified_bessel_k1",
    "scaled_modified_bessel_k0",
    "scaled_modified_bessel_k1",
    "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u",
    "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w",
    "spherical_bessel_j0",
    "digamma",
    "entr",
    "erf",
    "erfc",
    "erfinv",
    "exp2",
    "expit",
    "expm1",
    "erfcx",
    "gammainc",
    "gammaincc",
    "gammaln",
    "i0",
    "i0e",
    "i1",
    "i1e",
    "log1p",
    "log_ndtr",
    "log_softmax",
    "logit",
    "logsumexp",
    "multigammaln",
    "ndtr",
    "ndtri",
    "polygamma",
    "psi",
    "round",
    "sinc",
    "softmax",
    "xlog1py",
    "xlogy",
    "zeta",
]

_SQRT1_2 = 1.0 / math.sqrt(2.0)


def _float(x: Any) -> Tensor:
    t = x if isinstance(x, Tensor) else _core.tensor(x)
    # integers and bools compute in the default float dtype; a complex tensor stays
    # complex (its op computes it or refuses it; never the real part alone)
    return t if t.is_floating_point() or t.is_complex() else t.astype(_core._get_default_dtype())


def gammaln(input: Tensor) -> Tensor:
    """``ln |Gamma(x)|`` (``torch.special.gammaln``; ``lgamma``)."""
    return _float(input).lgamma()


def digamma(input: Tensor) -> Tensor:
    """The digamma function, the derivative of ``gammaln``."""
    return _float(input).digamma()


def psi(input: Tensor) -> Tensor:
    """Another name of :func:`digamma`."""
    return _float(input).digamma()


def polygamma(n: int, input: Tensor) -> Tensor:
    """The ``n``-th derivative of :func:`digamma`."""
    from ._ops_gamma import polygamma as _polygamma

    return _polygamma(n, input)


def multigammaln(input: Tensor, p: int) -> Tensor:
    """The multivariate log-gamma function of dimension ``p``."""
    from ._ops_gamma import mvlgamma

    return mvlgamma(input, p)


def zeta(input: Any, other: Any) -> Tensor:
    """The Hurwitz zeta function ``sum_k (other + k) ** -input`` (differentiable in ``other``)."""
    from ._dtype_info import result_type

    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError("zeta: expects at least one Tensor")
    dtype = result_type(input, other)  # (the peers' promotion; integers, bools: default float)
    if not dtype.is_floating_point:
        dtype = _core._get_default_dtype()
    s = input.astype(dtype) if isinstance(input, Tensor) else _core.tensor(input, dtype=dtype)
    return s.zeta(other.astype(dtype) if isinstance(other, Tensor) else other)


def erf(x: Tensor) -> Tensor:
    """The error function."""
    return _float(x).erf()


def erfc(x: Tensor) -> Tensor:
    """The complementary error function ``1 - erf(x)``."""
    return _float(x).erfc()


def erfinv(x: Tensor) -> Tensor:
    """The inverse error function."""
    return _float(x).erfinv()


def exp2(x: Tensor) -> Tensor:
    """``2 ** x``."""
    return _float(x).exp2()


def expit(x: Tensor) -> Tensor:
    """The logistic sigmoid ``1 / (1 + exp(-x))``."""
    return _float(x).sigmoid()


def expm1(x: Tensor) -> Tensor:
    """``exp(x) - 1``, accurate near 0."""
    return _float(x).expm1()


def log1p(x: Tensor) -> Tensor:
    """``log(1 + x)``, accurate near 0."""
    return _float(x).log1p()


def logit(x: Tensor, eps: Any = None) -> Tensor:
    """``log(x / (1 - x))`` (``x`` clamped to ``[eps, 1 - eps]`` when ``eps`` is given)."""
    from ._ops_more_math import logit as _logit

    return _logit(_float(x), eps)


def ndtr(x: Tensor) -> Tensor:
    """The standard normal CDF ``(1 + erf(x / sqrt(2))) / 2`` (through ``erfc``, so the
    lower tail keeps its precision)."""
    return (_float(x) * -_SQRT1_2).erfc() * 0.5


def log_ndtr(x: Tensor) -> Tensor:
    """``log(ndtr(x))``, accurate in both tails (see ``ferrograd._special_tails``)."""
    from ._special_tails import log_ndtr as _log_ndtr

    return _log_ndtr(_float(x))


def ndtri(p: Tensor) -> Tensor:
    """The standard normal quantile function, the inverse of ``ndtr``, accurate in both
    tails (see ``ferrograd._special_tails``)."""
    from ._special_tails import ndtri as _ndtri

    if isinstance(p, Tensor) and p.is_complex():
        raise TypeError(f"special.ndtri: not supported for {p.dtype} tensors (real input only)")
    return _ndtri(_float(p))


def entr(x: Tensor) -> Tensor:
    """Elementwise entropy term ``-x log x`` (0 at 0, ``-inf`` for negative ``x``)."""
    x = _float(x)
    zero = _core.zeros([], dtype=x.dtype)
    safe = _core.where(x > 0, x, _core.ones([], dtype=x.dtype))
    val = _core.where(x > 0, -x * safe.log(), zero)
    val = _core.where(x < 0, _core.full([], -math.inf, dtype=x.dtype), val)
    return _core.where(x != x, x, val)  # NaN stays NaN (as in PyTorch and SciPy)


def xlogy(x: Any, y: Any) -> Tensor:
    """``x * log(y)``, 0 where ``x == 0``."""
    from ._ops_math import xlogy as _xlogy

    return _xlogy(x, y)


def xlog1py(x: Any, y: Any) -> Tensor:
    """``x * log1p(y)``: 0 where ``x == 0`` unless ``y`` is NaN (then NaN, as PyTorch's
    and SciPy's). The gradient in ``x`` is ``log1p(y)``, also at ``x == 0``, except 0
    there for ``y <= -1`` (PyTorch's derivatives.yaml, ``special_xlog1py``) and for
    ``y = inf``; in ``y`` it is ``x / (1 + y)``."""
    from ._dtype_info import result_type

    dtype = result_type(x, y)  # (the peers' promotion; integers and bools: default float)
    if not dtype.is_floating_point:
        dtype = _core._get_default_dtype()
    # (a Python number goes straight to `dtype`, not through the default float dtype)
    xt = x.astype(dtype) if isinstance(x, Tensor) else _core.tensor(x, dtype=dtype)
    yt = y.astype(dtype) if isinstance(y, Tensor) else _core.tensor(y, dtype=dtype)
    zero = xt == 0
    # at x == 0, y <= -1 (log1p -inf or NaN) and y = inf give 0 * log1p(0) instead
    off = zero & ((yt <= -1) | (yt == math.inf))
    safe = _core.where(off, _core.zeros([], dtype=yt.dtype), yt)
    # (+ 0.0: a -0.0 product becomes +0.0, as the peers' 0 at x == 0)
    return xt * safe.log1p() + 0.0


def round(x: Tensor, decimals: int = 0) -> Tensor:  # noqa: A001  (torch's name)
    """Rounding to ``decimals`` places (halves to even), as ``Tensor.round(decimals=)``."""
    return x.round(decimals=decimals)


def erfcx(x: Tensor) -> Tensor:
    """The scaled complementary error function ``exp(x**2) * erfc(x)``, accurate for large
    ``x`` (where the product would overflow and underflow)."""
    return _float(x).erfcx()


def i0(x: Tensor) -> Tensor:
    """The modified Bessel function of the first kind of order 0."""
    return _float(x).i0()


def i0e(x: Tensor) -> Tensor:
    """The exponentially scaled ``i0(x) * exp(-|x|)``."""
    return _float(x).i0e()


def i1(x: Tensor) -> Tensor:
    """The modified Bessel function of the first kind of order 1."""
    return _float(x).i1()


def i1e(x: Tensor) -> Tensor:
    """The exponentially scaled ``i1(x) * exp(-|x|)``."""
    return _float(x).i1e()


def sinc(x: Tensor) -> Tensor:
    """The normalized sinc ``sin(pi x) / (pi x)``."""
    from ._ops_compose_more import sinc as _sinc

    return _sinc(x)


def softmax(x: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """Softmax along ``dim`` (after casting to ``dtype``)."""
    from .nn import functional as F

    return F.softmax(x if dtype is None else x.astype(dtype), dim)


def log_softmax(x: Tensor, dim: int, dtype: Any = None) -> Tensor:
    """Log-softmax along ``dim`` (after casting to ``dtype``)."""
    from .nn import functional as F

    return F.log_softmax(x if dtype is None else x.astype(dtype), dim)


def logsumexp(x: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """``log(sum(exp(x)))`` over ``dim``, stably."""
    return x.logsumexp(dim, keepdim=keepdim)


def gammainc(input: Any, other: Any, *, out: Any = None) -> Tensor:
    """The regularized lower incomplete gamma function ``P(input, other)``; differentiable
    in ``other`` (a composite, see ``ferrograd._ops_gammainc``)."""
    from ._ops_gammainc import igamma

    return igamma(input, other, out=out)


def gammaincc(input: Any, other: Any, *, out: Any = None) -> Tensor:
    """The regularized upper incomplete gamma function ``Q(input, other) = 1 - P``."""
    from ._ops_gammainc import igammac

    return igammac(input, other, out=out)
