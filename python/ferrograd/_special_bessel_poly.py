"""``torch.special``'s Bessel functions beyond ``i0``/``i1`` (``bessel_j0/j1/y0/y1``,
``modified_bessel_i0/i1/k0/k1``, ``scaled_modified_bessel_k0/k1``, ``spherical_bessel_j0``),
``airy_ai``, and the orthogonal polynomials (``chebyshev_polynomial_t/u/v/w``, their
``shifted_`` forms, ``hermite_polynomial_h/he``, ``laguerre_polynomial_l``,
``legendre_polynomial_p``).

Each is a registry op (``src/op_defs/unary_bessel.rs``, ``binary_polynomials.rs``);
these functions give them PyTorch's signatures: a number for either polynomial operand,
the dtype promotion of a binary float op (integers and bools compute in the default
float dtype) and ``out=``. PyTorch declares all of them ``non_differentiable``
(derivatives.yaml, ``special_bessel_j0`` ... ``special_legendre_polynomial_p``); here a
backward that reaches one raises ``NotImplementedError`` rather than silently skipping it.
``modified_bessel_i0`` / ``i1`` are ``i0`` / ``i1`` (the same function), which are
differentiable.
"""

from __future__ import annotations

from typing import Any

from . import _core
from ._out_arg import wrap_out_functions

Tensor = _core.Tensor


def _float(x: Any) -> Tensor:
    t = x if isinstance(x, Tensor) else _core.tensor(x)
    # integers and bools compute in the default float dtype; a complex tensor stays
    # complex (its op computes it or refuses it; never the real part alone)
    return t if t.is_floating_point() or t.is_complex() else t.astype(_core._get_default_dtype())


def bessel_j0(input: Tensor, *, out: Any = None) -> Tensor:
    """The Bessel function of the first kind of order 0, ``J0(x)``."""
    return _float(input).bessel_j0()


def bessel_j1(input: Tensor, *, out: Any = None) -> Tensor:
    """The Bessel function of the first kind of order 1, ``J1(x)``."""
    return _float(input).bessel_j1()


def bessel_y0(input: Tensor, *, out: Any = None) -> Tensor:
    """The Bessel function of the second kind of order 0, ``Y0(x)`` (-inf at 0, NaN for
    negative ``x``)."""
    return _float(input).bessel_y0()


def bessel_y1(input: Tensor, *, out: Any = None) -> Tensor:
    """The Bessel function of the second kind of order 1, ``Y1(x)`` (-inf at 0, NaN for
    negative ``x``)."""
    return _float(input).bessel_y1()


def modified_bessel_i0(input: Tensor, *, out: Any = None) -> Tensor:
    """The modified Bessel function of the first kind of order 0 (``special.i0``)."""
    return _float(input).i0()


def modified_bessel_i1(input: Tensor, *, out: Any = None) -> Tensor:
    """The modified Bessel function of the first kind of order 1 (``special.i1``)."""
    return _float(input).i1()


def modified_bessel_k0(input: Tensor, *, out: Any = None) -> Tensor:
    """The modified Bessel function of the second kind of order 0, ``K0(x)`` (+inf at 0,
    NaN for negative ``x``)."""
    return _float(input).modified_bessel_k0()


def modified_bessel_k1(input: Tensor, *, out: Any = None) -> Tensor:
    """The modified Bessel function of the second kind of order 1, ``K1(x)`` (+inf at 0,
    NaN for negative ``x``)."""
    return _float(input).modified_bessel_k1()


def scaled_modified_bessel_k0(input: Tensor, *, out: Any = None) -> Tensor:
    """The exponentially scaled ``K0(x) * exp(x)``, finite for large ``x``."""
    return _float(input).scaled_modified_bessel_k0()


def scaled_modified_bessel_k1(input: Tensor, *, out: Any = None) -> Tensor:
    """The exponentially scaled ``K1(x) * exp(x)``, finite for large ``x``."""
    return _float(input).scaled_modified_bessel_k1()


def spherical_bessel_j0(input: Tensor, *, out: Any = None) -> Tensor:
    """The spherical Bessel function of the first kind of order 0, ``sin(x) / x``."""
    return _float(input).spherical_bessel_j0()


def airy_ai(input: Tensor, *, out: Any = None) -> Tensor:
    """The Airy function of the first kind ``Ai(x)``."""
    return _float(input).airy_ai()


def _polynomial(name: str, input: Any, n: Any) -> Tensor:
    """``input.<name>(n)`` after PyTorch's promotion of the two operands (a float result;
    either may be a Python number, not both)."""
    from ._dtype_info import result_type

    if not isinstance(input, Tensor) and not isinstance(n, Tensor):
        raise TypeError(
            f"special.{name}(): expects `input` or `n` to be a Tensor, got "
            f"{type(input).__name__} and {type(n).__name__} (wrap one in ferrograd.tensor)"
        )
    for arg, what in ((input, "input"), (n, "n")):
        if isinstance(arg, Tensor) and arg.is_complex():
            raise TypeError(f"special.{name}(): `{what}` must be real, got {arg.dtype}")
    dtype = result_type(input, n)
    if not dtype.is_floating_point:
        dtype = _core._get_default_dtype()
    if isinstance(input, Tensor):
        x = input.astype(dtype)
    else:
        x = _core.full([], input, dtype=dtype)
    return getattr(x, name)(n.astype(dtype) if isinstance(n, Tensor) else n)


def chebyshev_polynomial_t(input: Any, n: Any, *, out: Any = None) -> Tensor:
    """The Chebyshev polynomial of the first kind ``T_n(input)`` (``n`` truncated to an
    integer; 0 for ``n < 0``)."""
    return _polynomial("chebyshev_polynomial_t", input, n)


def chebyshev_polynomial_u(input: Any, n: Any, *, out: Any = None) -> Tensor:
    """The Chebyshev polynomial of the second kind ``U_n(input)``."""
    return _polynomial("chebyshev_polynomial_u", input, n)


def chebyshev_polynomial_v(input: Any, n: Any, *, out: Any = None) -> Tensor:
    """The Chebyshev polynomial of the third kind ``V_n(input)``."""
    return _polynomial("chebyshev_polynomial_v", input, n)


def chebyshev_polynomial_w(input: Any, n: Any, *, out: Any = None) -> Tensor:
    """The Chebyshev polynomial of the fourth kind ``W_n(input)``."""
    return _polynomial("chebyshev_polynomial_w", input, n)


def shifted_chebyshev_polynomial_t(input: Any, n: Any, *, out: Any = None) -> Tensor:
    """The shifted Chebyshev polynomial of the first kind ``T_n(2 input - 1)``."""
    return _polynomial("shifted_chebyshev_polynomial_t", input, n)


def shifted_chebyshev_polynomial_u(input: Any, n: Any, *, out: Any = None) -> Tensor:
    """The shifted Chebyshev polynomial of the second kind ``U_n(2 input - 1)``."""
    return _polynomial("shifted_chebyshev_polynomial_u", input, n)


def shifted_chebyshev_polynomial_v(input: Any, n: Any, *, out: Any = None) -> Tensor:
    """The shifted Chebyshev polynomial of the third kind ``V_n(2 input - 1)``."""
    return _polynomial("shifted_chebyshev_polynomial_v", input, n)


def shifted_chebyshev_polynomial_w(input: Any, n: Any, *, out: Any = None) -> Tensor:
    """The shifted Chebyshev polynomial of the fourth kind ``W_n(2 input - 1)``."""
    return _polynomial("shifted_chebyshev_polynomial_w", input, n)


def hermite_polynomial_h(input: Any, n: Any, *, out: Any = None) -> Tensor:
    """The physicists' Hermite polynomial ``H_n(input)`` (NaN above degree 512, 128 for
    float32, as PyTorch)."""
    return _polynomial("hermite_polynomial_h", input, n)


def hermite_polynomial_he(input: Any, n: Any, *, out: Any = None) -> Tensor:
    """The probabilists' Hermite polynomial ``He_n(input)`` (NaN above degree 512, 128
    for float32, as PyTorch)."""
    return _polynomial("hermite_polynomial_he", input, n)


def laguerre_polynomial_l(input: Any, n: Any, *, out: Any = None) -> Tensor:
    """The Laguerre polynomial ``L_n(input)``."""
    return _polynomial("laguerre_polynomial_l", input, n)


def legendre_polynomial_p(input: Any, n: Any, *, out: Any = None) -> Tensor:
    """The Legendre polynomial ``P_n(input)``."""
    return _polynomial("legendre_polynomial_p", input, n)


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
]

wrap_out_functions(globals(), __all__)  # PyTorch's out= (see _out_arg.py)
