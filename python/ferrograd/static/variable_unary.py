"""``Variable`` methods for the elementwise unary ops (neg, exp, sin, relu, isnan, ...).

The block below is generated from the unary table (``src/op_defs/unary.rs``) by
``scripts/gen_op_bindings.py`` and checked for freshness in the tests: edit the table,
not this file. Each method records one op through ``Variable._op`` (``round``'s
``decimals`` through ``Variable._unary_extra``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .variable import Variable


class VariableUnaryMixin:
    """The unary elementwise methods mixed into ``Variable``."""

    __slots__ = ()

    if TYPE_CHECKING:

        def _op(self, op: str, inputs: Sequence[Any], **attrs: Any) -> Variable: ...
        def _unary_extra(self, op: str, decimals: Any = None) -> Variable: ...

    # BEGIN generated: unary Variable methods (scripts/gen_op_bindings.py from src/op_defs/unary.rs)
    def neg(self, name: str | None = None) -> Variable:
        """Elementwise negation ``-self``."""
        return self._op("neg", [self])

    def negative(self, name: str | None = None) -> Variable:
        """Elementwise negation ``-self``."""
        return self._op("neg", [self])

    def abs(self, name: str | None = None) -> Variable:
        """Elementwise absolute value (the modulus for complex tensors)."""
        return self._op("abs", [self])

    def absolute(self, name: str | None = None) -> Variable:
        """Elementwise absolute value (the modulus for complex tensors)."""
        return self._op("abs", [self])

    def sign(self, name: str | None = None) -> Variable:
        """Elementwise sign: -1, 0 or 1."""
        return self._op("sign", [self])

    def sgn(self, name: str | None = None) -> Variable:
        """Elementwise sign: -1, 0 or 1."""
        return self._op("sign", [self])

    def exp(self, name: str | None = None) -> Variable:
        """Elementwise ``e ** self``."""
        return self._op("exp", [self])

    def log(self, name: str | None = None) -> Variable:
        """Elementwise natural logarithm."""
        return self._op("log", [self])

    def log1p(self, name: str | None = None) -> Variable:
        """Elementwise ``log(1 + self)``, accurate near zero."""
        return self._op("log1p", [self])

    def expm1(self, name: str | None = None) -> Variable:
        """Elementwise ``exp(self) - 1``, accurate near zero."""
        return self._op("expm1", [self])

    def sqrt(self, name: str | None = None) -> Variable:
        """Elementwise square root."""
        return self._op("sqrt", [self])

    def rsqrt(self, name: str | None = None) -> Variable:
        """Elementwise reciprocal square root ``1 / sqrt(self)``."""
        return self._op("rsqrt", [self])

    def square(self, name: str | None = None) -> Variable:
        """Elementwise ``self * self``."""
        return self._op("square", [self])

    def reciprocal(self, name: str | None = None) -> Variable:
        """Elementwise ``1 / self``."""
        return self._op("reciprocal", [self])

    def sin(self, name: str | None = None) -> Variable:
        """Elementwise sine."""
        return self._op("sin", [self])

    def cos(self, name: str | None = None) -> Variable:
        """Elementwise cosine."""
        return self._op("cos", [self])

    def tan(self, name: str | None = None) -> Variable:
        """Elementwise tangent."""
        return self._op("tan", [self])

    def tanh(self, name: str | None = None) -> Variable:
        """Elementwise hyperbolic tangent."""
        return self._op("tanh", [self])

    def sigmoid(self, name: str | None = None) -> Variable:
        """Elementwise logistic sigmoid ``1 / (1 + exp(-self))``."""
        return self._op("sigmoid", [self])

    def relu(self, name: str | None = None) -> Variable:
        """Elementwise ``max(self, 0)``."""
        return self._op("relu", [self])

    def gelu(self, name: str | None = None) -> Variable:
        """Elementwise GELU (the exact, erf-based form)."""
        return self._op("gelu", [self])

    def gelu_tanh(self, name: str | None = None) -> Variable:
        """Elementwise GELU, tanh approximation ``0.5 * self * (1 + tanh(sqrt(2/pi) * (self + 0.044715 * self**3)))``."""
        return self._op("gelu_tanh", [self])

    def softplus(self, name: str | None = None) -> Variable:
        """Elementwise ``log(1 + exp(self))`` (linear above 20, as torch)."""
        return self._op("softplus", [self])

    def mish(self, name: str | None = None) -> Variable:
        """Elementwise Mish ``self * tanh(softplus(self))``."""
        return self._op("mish", [self])

    def erf(self, name: str | None = None) -> Variable:
        """Elementwise Gauss error function."""
        return self._op("erf", [self])

    def floor(self, name: str | None = None) -> Variable:
        """Elementwise rounding down."""
        return self._op("floor", [self])

    def ceil(self, name: str | None = None) -> Variable:
        """Elementwise rounding up."""
        return self._op("ceil", [self])

    def round(self, decimals: Any = None, name: str | None = None) -> Variable:
        """Elementwise rounding to the nearest integer, or with ``decimals`` to that many decimal places (halves to even, as NumPy)."""
        return self._unary_extra("round", decimals=decimals)

    def silu(self, name: str | None = None) -> Variable:
        """Elementwise SiLU (swish) ``self * sigmoid(self)``."""
        return self._op("silu", [self])

    def selu(self, name: str | None = None) -> Variable:
        """Elementwise SELU ``scale * (self if self > 0 else alpha * (exp(self) - 1))``."""
        return self._op("selu", [self])

    def relu6(self, name: str | None = None) -> Variable:
        """Elementwise ``min(max(self, 0), 6)``."""
        return self._op("relu6", [self])

    def hardsigmoid(self, name: str | None = None) -> Variable:
        """Elementwise hard sigmoid ``relu6(self + 3) / 6``."""
        return self._op("hardsigmoid", [self])

    def hardswish(self, name: str | None = None) -> Variable:
        """Elementwise hard swish ``self * relu6(self + 3) / 6``."""
        return self._op("hardswish", [self])

    def softsign(self, name: str | None = None) -> Variable:
        """Elementwise ``self / (1 + |self|)``."""
        return self._op("softsign", [self])

    def tanhshrink(self, name: str | None = None) -> Variable:
        """Elementwise ``self - tanh(self)``."""
        return self._op("tanhshrink", [self])

    def log_sigmoid(self, name: str | None = None) -> Variable:
        """Elementwise ``log(sigmoid(self))``, computed stably."""
        return self._op("log_sigmoid", [self])

    def logical_not(self, name: str | None = None) -> Variable:
        """Elementwise logical NOT of the truth values, as a bool tensor."""
        return self._op("logical_not", [self])

    def bitwise_not(self, name: str | None = None) -> Variable:
        """Elementwise bitwise NOT ``~self`` of integers (logical NOT of bools)."""
        return self._op("bitwise_not", [self])

    def isnan(self, name: str | None = None) -> Variable:
        """Elementwise test for NaN, as a bool tensor (complex: either part)."""
        return self._op("isnan", [self])

    def isinf(self, name: str | None = None) -> Variable:
        """Elementwise test for +inf or -inf, as a bool tensor (complex: either part)."""
        return self._op("isinf", [self])

    def isfinite(self, name: str | None = None) -> Variable:
        """Elementwise test for a finite value (not NaN, not infinite), as a bool tensor."""
        return self._op("isfinite", [self])

    def isposinf(self, name: str | None = None) -> Variable:
        """Elementwise test for +inf, as a bool tensor."""
        return self._op("isposinf", [self])

    def isneginf(self, name: str | None = None) -> Variable:
        """Elementwise test for -inf, as a bool tensor."""
        return self._op("isneginf", [self])

    def asin(self, name: str | None = None) -> Variable:
        """Elementwise inverse sine (NaN outside [-1, 1])."""
        return self._op("asin", [self])

    def arcsin(self, name: str | None = None) -> Variable:
        """Elementwise inverse sine (NaN outside [-1, 1])."""
        return self._op("asin", [self])

    def acos(self, name: str | None = None) -> Variable:
        """Elementwise inverse cosine (NaN outside [-1, 1])."""
        return self._op("acos", [self])

    def arccos(self, name: str | None = None) -> Variable:
        """Elementwise inverse cosine (NaN outside [-1, 1])."""
        return self._op("acos", [self])

    def atan(self, name: str | None = None) -> Variable:
        """Elementwise inverse tangent."""
        return self._op("atan", [self])

    def arctan(self, name: str | None = None) -> Variable:
        """Elementwise inverse tangent."""
        return self._op("atan", [self])

    def sinh(self, name: str | None = None) -> Variable:
        """Elementwise hyperbolic sine."""
        return self._op("sinh", [self])

    def cosh(self, name: str | None = None) -> Variable:
        """Elementwise hyperbolic cosine."""
        return self._op("cosh", [self])

    def asinh(self, name: str | None = None) -> Variable:
        """Elementwise inverse hyperbolic sine."""
        return self._op("asinh", [self])

    def arcsinh(self, name: str | None = None) -> Variable:
        """Elementwise inverse hyperbolic sine."""
        return self._op("asinh", [self])

    def acosh(self, name: str | None = None) -> Variable:
        """Elementwise inverse hyperbolic cosine (NaN below 1)."""
        return self._op("acosh", [self])

    def arccosh(self, name: str | None = None) -> Variable:
        """Elementwise inverse hyperbolic cosine (NaN below 1)."""
        return self._op("acosh", [self])

    def atanh(self, name: str | None = None) -> Variable:
        """Elementwise inverse hyperbolic tangent (NaN outside [-1, 1])."""
        return self._op("atanh", [self])

    def arctanh(self, name: str | None = None) -> Variable:
        """Elementwise inverse hyperbolic tangent (NaN outside [-1, 1])."""
        return self._op("atanh", [self])

    def log2(self, name: str | None = None) -> Variable:
        """Elementwise base-2 logarithm."""
        return self._op("log2", [self])

    def log10(self, name: str | None = None) -> Variable:
        """Elementwise base-10 logarithm."""
        return self._op("log10", [self])

    def exp2(self, name: str | None = None) -> Variable:
        """Elementwise ``2 ** self``."""
        return self._op("exp2", [self])

    def erfc(self, name: str | None = None) -> Variable:
        """Elementwise complementary error function ``1 - erf(self)``, accurate for large inputs."""
        return self._op("erfc", [self])

    def erfinv(self, name: str | None = None) -> Variable:
        """Elementwise inverse error function (NaN outside [-1, 1], +-inf at +-1)."""
        return self._op("erfinv", [self])

    def trunc(self, name: str | None = None) -> Variable:
        """Elementwise rounding toward zero."""
        return self._op("trunc", [self])

    def fix(self, name: str | None = None) -> Variable:
        """Elementwise rounding toward zero."""
        return self._op("trunc", [self])

    def frac(self, name: str | None = None) -> Variable:
        """Elementwise fractional part ``self - trunc(self)`` (keeps the sign; 0 for integers)."""
        return self._op("frac", [self])

    def deg2rad(self, name: str | None = None) -> Variable:
        """Elementwise conversion of degrees to radians."""
        return self._op("deg2rad", [self])

    def rad2deg(self, name: str | None = None) -> Variable:
        """Elementwise conversion of radians to degrees."""
        return self._op("rad2deg", [self])

    def lgamma(self, name: str | None = None) -> Variable:
        """Elementwise natural logarithm of the absolute value of the gamma function (+inf at the poles 0, -1, -2, ...)."""
        return self._op("lgamma", [self])

    def digamma(self, name: str | None = None) -> Variable:
        """Elementwise digamma function, the derivative of ``lgamma`` (-inf at 0, NaN at negative integers)."""
        return self._op("digamma", [self])

    def i0(self, name: str | None = None) -> Variable:
        """Elementwise modified Bessel function of the first kind of order 0."""
        return self._op("i0", [self])

    def i0e(self, name: str | None = None) -> Variable:
        """Elementwise exponentially scaled modified Bessel function ``i0(self) * exp(-|self|)``."""
        return self._op("i0e", [self])

    def i1(self, name: str | None = None) -> Variable:
        """Elementwise modified Bessel function of the first kind of order 1."""
        return self._op("i1", [self])

    def i1e(self, name: str | None = None) -> Variable:
        """Elementwise exponentially scaled modified Bessel function ``i1(self) * exp(-|self|)``."""
        return self._op("i1e", [self])

    def erfcx(self, name: str | None = None) -> Variable:
        """Elementwise scaled complementary error function ``exp(self**2) * erfc(self)``, accurate for large inputs."""
        return self._op("erfcx", [self])

    def bessel_j0(self, name: str | None = None) -> Variable:
        """Elementwise Bessel function of the first kind of order 0 (not differentiable)."""
        return self._op("bessel_j0", [self])

    def bessel_j1(self, name: str | None = None) -> Variable:
        """Elementwise Bessel function of the first kind of order 1 (not differentiable)."""
        return self._op("bessel_j1", [self])

    def bessel_y0(self, name: str | None = None) -> Variable:
        """Elementwise Bessel function of the second kind of order 0 (-inf at 0, NaN below; not differentiable)."""
        return self._op("bessel_y0", [self])

    def bessel_y1(self, name: str | None = None) -> Variable:
        """Elementwise Bessel function of the second kind of order 1 (-inf at 0, NaN below; not differentiable)."""
        return self._op("bessel_y1", [self])

    def modified_bessel_k0(self, name: str | None = None) -> Variable:
        """Elementwise modified Bessel function of the second kind of order 0 (+inf at 0, NaN below; not differentiable)."""
        return self._op("modified_bessel_k0", [self])

    def modified_bessel_k1(self, name: str | None = None) -> Variable:
        """Elementwise modified Bessel function of the second kind of order 1 (+inf at 0, NaN below; not differentiable)."""
        return self._op("modified_bessel_k1", [self])

    def scaled_modified_bessel_k0(self, name: str | None = None) -> Variable:
        """Elementwise exponentially scaled ``modified_bessel_k0(self) * exp(self)`` (not differentiable)."""
        return self._op("scaled_modified_bessel_k0", [self])

    def scaled_modified_bessel_k1(self, name: str | None = None) -> Variable:
        """Elementwise exponentially scaled ``modified_bessel_k1(self) * exp(self)`` (not differentiable)."""
        return self._op("scaled_modified_bessel_k1", [self])

    def spherical_bessel_j0(self, name: str | None = None) -> Variable:
        """Elementwise spherical Bessel function of the first kind of order 0, ``sin(self) / self`` (not differentiable)."""
        return self._op("spherical_bessel_j0", [self])

    def airy_ai(self, name: str | None = None) -> Variable:
        """Elementwise Airy function of the first kind ``Ai(self)`` (not differentiable)."""
        return self._op("airy_ai", [self])

    def signbit(self, name: str | None = None) -> Variable:
        """Elementwise test of the sign bit (true for negative numbers and -0.0), as a bool tensor."""
        return self._op("signbit", [self])

    # END generated: unary Variable methods
