"""``Variable`` methods for the elementwise binary ops (add, mul, pow, comparisons, ...).

The block below is generated from the binary table (``src/op_defs/binary.rs``) by
``scripts/gen_op_bindings.py`` and checked for freshness in the tests: edit the table,
not this file. Each method records one op through ``Variable._binary``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .variable import Variable


class VariableBinaryMixin:
    """The binary elementwise methods mixed into ``Variable``."""

    __slots__ = ()

    if TYPE_CHECKING:

        def _binary(self, op: str, other: Any) -> Variable: ...

    # BEGIN generated: binary Variable methods (scripts/gen_op_bindings.py from src/op_defs/binary.rs)
    def add(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise ``self + other`` (broadcasting; Paddle's ``y=`` also accepted)."""
        return self._binary("add", y)

    def subtract(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise ``self - other`` (broadcasting; Paddle's ``y=`` also accepted)."""
        return self._binary("subtract", y)

    def sub(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise ``self - other`` (broadcasting; Paddle's ``y=`` also accepted)."""
        return self._binary("subtract", y)

    def multiply(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise ``self * other`` (broadcasting; Paddle's ``y=`` also accepted)."""
        return self._binary("multiply", y)

    def mul(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise ``self * other`` (broadcasting; Paddle's ``y=`` also accepted)."""
        return self._binary("multiply", y)

    def divide(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise true division ``self / other`` (Paddle's ``y=`` also accepted)."""
        return self._binary("divide", y)

    def div(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise true division ``self / other`` (Paddle's ``y=`` also accepted)."""
        return self._binary("divide", y)

    def true_divide(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise true division ``self / other`` (Paddle's ``y=`` also accepted)."""
        return self._binary("divide", y)

    def floor_divide(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise ``self // other`` (rounding toward minus infinity)."""
        return self._binary("floor_divide", y)

    def remainder(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise ``self % other``, with the sign of the divisor (Python's ``%``)."""
        return self._binary("remainder", y)

    def mod(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise ``self % other``, with the sign of the divisor (Python's ``%``)."""
        return self._binary("remainder", y)

    def pow(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise ``self ** other`` (torch's ``exponent=`` and Paddle's ``y=`` also accepted)."""
        return self._binary("pow", y)

    def maximum(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise maximum of ``self`` and ``other`` (NaN propagates)."""
        return self._binary("maximum", y)

    def minimum(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise minimum of ``self`` and ``other`` (NaN propagates)."""
        return self._binary("minimum", y)

    def equal(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise ``self == other``, as a bool tensor."""
        return self._binary("equal", y)

    def eq(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise ``self == other``, as a bool tensor."""
        return self._binary("equal", y)

    def not_equal(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise ``self != other``, as a bool tensor."""
        return self._binary("not_equal", y)

    def ne(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise ``self != other``, as a bool tensor."""
        return self._binary("not_equal", y)

    def less_than(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise ``self < other``, as a bool tensor."""
        return self._binary("less_than", y)

    def lt(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise ``self < other``, as a bool tensor."""
        return self._binary("less_than", y)

    def less_equal(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise ``self <= other``, as a bool tensor."""
        return self._binary("less_equal", y)

    def le(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise ``self <= other``, as a bool tensor."""
        return self._binary("less_equal", y)

    def greater_than(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise ``self > other``, as a bool tensor."""
        return self._binary("greater_than", y)

    def gt(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise ``self > other``, as a bool tensor."""
        return self._binary("greater_than", y)

    def greater_equal(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise ``self >= other``, as a bool tensor."""
        return self._binary("greater_equal", y)

    def ge(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise ``self >= other``, as a bool tensor."""
        return self._binary("greater_equal", y)

    def logical_and(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise logical AND of the truth values, as a bool tensor."""
        return self._binary("logical_and", y)

    def logical_or(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise logical OR of the truth values, as a bool tensor."""
        return self._binary("logical_or", y)

    def logical_xor(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise logical XOR of the truth values, as a bool tensor."""
        return self._binary("logical_xor", y)

    def bitwise_and(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise bitwise AND of integer or bool tensors (``&``)."""
        return self._binary("bitwise_and", y)

    def bitwise_or(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise bitwise OR of integer or bool tensors (``|``)."""
        return self._binary("bitwise_or", y)

    def bitwise_xor(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise bitwise XOR of integer or bool tensors (``^``)."""
        return self._binary("bitwise_xor", y)

    def copysign(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise ``|self|`` with the sign of ``other`` (IEEE ``copysign``; ``-0.0`` counts as negative)."""
        return self._binary("copysign", y)

    def atan2(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise angle of the point ``(other, self)``: ``atan(self / other)`` in the right quadrant, in ``[-pi, pi]``."""
        return self._binary("atan2", y)

    def arctan2(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise angle of the point ``(other, self)``: ``atan(self / other)`` in the right quadrant, in ``[-pi, pi]``."""
        return self._binary("atan2", y)

    def zeta(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise Hurwitz zeta function ``sum_k (other + k) ** -self`` (NaN for ``self < 1``; differentiable in ``other`` only)."""
        return self._binary("zeta", y)

    def chebyshev_polynomial_t(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise Chebyshev polynomial of the first kind ``T_n(self)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
        return self._binary("chebyshev_polynomial_t", y)

    def chebyshev_polynomial_u(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise Chebyshev polynomial of the second kind ``U_n(self)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
        return self._binary("chebyshev_polynomial_u", y)

    def chebyshev_polynomial_v(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise Chebyshev polynomial of the third kind ``V_n(self)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
        return self._binary("chebyshev_polynomial_v", y)

    def chebyshev_polynomial_w(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise Chebyshev polynomial of the fourth kind ``W_n(self)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
        return self._binary("chebyshev_polynomial_w", y)

    def shifted_chebyshev_polynomial_t(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise shifted Chebyshev polynomial of the first kind ``T_n(2 self - 1)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
        return self._binary("shifted_chebyshev_polynomial_t", y)

    def shifted_chebyshev_polynomial_u(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise shifted Chebyshev polynomial of the second kind ``U_n(2 self - 1)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
        return self._binary("shifted_chebyshev_polynomial_u", y)

    def shifted_chebyshev_polynomial_v(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise shifted Chebyshev polynomial of the third kind ``V_n(2 self - 1)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
        return self._binary("shifted_chebyshev_polynomial_v", y)

    def shifted_chebyshev_polynomial_w(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise shifted Chebyshev polynomial of the fourth kind ``W_n(2 self - 1)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
        return self._binary("shifted_chebyshev_polynomial_w", y)

    def hermite_polynomial_h(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise physicists' Hermite polynomial ``H_n(self)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
        return self._binary("hermite_polynomial_h", y)

    def hermite_polynomial_he(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise probabilists' Hermite polynomial ``He_n(self)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
        return self._binary("hermite_polynomial_he", y)

    def laguerre_polynomial_l(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise Laguerre polynomial ``L_n(self)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
        return self._binary("laguerre_polynomial_l", y)

    def legendre_polynomial_p(self, y: Any, name: str | None = None) -> Variable:
        """Elementwise Legendre polynomial ``P_n(self)`` of degree ``n = other`` (truncated; 0 for ``n < 0``; not differentiable)."""
        return self._binary("legendre_polynomial_p", y)

    # END generated: binary Variable methods
