"""The value-wise math methods of sparse tensors (``x.abs()``, ``x.sqrt()``,
``x.relu()``, ...): each calls the op of that name in ``_elementwise`` (zeros stay zero;
COO coalesced first). Written out, one per op, so type checkers and ``dir()`` see them."""

from __future__ import annotations

from typing import Any


def _op(name: str) -> Any:
    from . import _elementwise

    return {**_elementwise.VALUE_WISE, **_elementwise.ACTIVATIONS}[name]


class ValueWiseMethods:
    """Mixin of :class:`SparseTensor`: the value-wise ops as methods."""

    def abs(self) -> Any:
        """Elementwise ``abs`` of the stored values (a sparse result)."""
        return _op("abs")(self)

    def sin(self) -> Any:
        """Elementwise ``sin`` of the stored values (a sparse result)."""
        return _op("sin")(self)

    def tan(self) -> Any:
        """Elementwise ``tan`` of the stored values (a sparse result)."""
        return _op("tan")(self)

    def asin(self) -> Any:
        """Elementwise ``asin`` of the stored values (a sparse result)."""
        return _op("asin")(self)

    def atan(self) -> Any:
        """Elementwise ``atan`` of the stored values (a sparse result)."""
        return _op("atan")(self)

    def sinh(self) -> Any:
        """Elementwise ``sinh`` of the stored values (a sparse result)."""
        return _op("sinh")(self)

    def tanh(self) -> Any:
        """Elementwise ``tanh`` of the stored values (a sparse result)."""
        return _op("tanh")(self)

    def asinh(self) -> Any:
        """Elementwise ``asinh`` of the stored values (a sparse result)."""
        return _op("asinh")(self)

    def atanh(self) -> Any:
        """Elementwise ``atanh`` of the stored values (a sparse result)."""
        return _op("atanh")(self)

    def sqrt(self) -> Any:
        """Elementwise ``sqrt`` of the stored values (a sparse result)."""
        return _op("sqrt")(self)

    def square(self) -> Any:
        """Elementwise ``square`` of the stored values (a sparse result)."""
        return _op("square")(self)

    def log1p(self) -> Any:
        """Elementwise ``log1p`` of the stored values (a sparse result)."""
        return _op("log1p")(self)

    def expm1(self) -> Any:
        """Elementwise ``expm1`` of the stored values (a sparse result)."""
        return _op("expm1")(self)

    def deg2rad(self) -> Any:
        """Elementwise ``deg2rad`` of the stored values (a sparse result)."""
        return _op("deg2rad")(self)

    def rad2deg(self) -> Any:
        """Elementwise ``rad2deg`` of the stored values (a sparse result)."""
        return _op("rad2deg")(self)

    def isnan(self) -> Any:
        """Elementwise ``isnan`` of the stored values (a sparse result)."""
        return _op("isnan")(self)

    def sign(self) -> Any:
        """Elementwise ``sign`` of the stored values (a sparse result)."""
        return _op("sign")(self)

    def sgn(self) -> Any:
        """Elementwise ``sgn`` of the stored values (a sparse result)."""
        return _op("sgn")(self)

    def trunc(self) -> Any:
        """Elementwise ``trunc`` of the stored values (a sparse result)."""
        return _op("trunc")(self)

    def floor(self) -> Any:
        """Elementwise ``floor`` of the stored values (a sparse result)."""
        return _op("floor")(self)

    def ceil(self) -> Any:
        """Elementwise ``ceil`` of the stored values (a sparse result)."""
        return _op("ceil")(self)

    def round(self) -> Any:
        """Elementwise ``round`` of the stored values (a sparse result)."""
        return _op("round")(self)

    def neg(self) -> Any:
        """Elementwise ``neg`` of the stored values (a sparse result)."""
        return _op("neg")(self)

    def pow(self, exponent: Any) -> Any:
        """``x ** exponent`` of the stored values (``exponent > 0`` keeps zeros zero)."""
        return _op("pow")(self, exponent)

    def __pow__(self, exponent: Any) -> Any:
        return _op("pow")(self, exponent)

    def relu(self) -> Any:
        """``max(x, 0)`` of the stored values."""
        return _op("relu")(self)

    def relu6(self) -> Any:
        """``min(max(x, 0), 6)`` of the stored values."""
        return _op("relu6")(self)

    def leaky_relu(self, negative_slope: float = 0.01) -> Any:
        """Leaky ReLU of the stored values."""
        return _op("leaky_relu")(self, negative_slope)
