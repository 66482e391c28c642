"""More transforms (re-exported by :mod:`ferrograd.distributions.transforms`):
``SoftplusTransform`` and ``ReshapeTransform`` (PyTorch's; Paddle has the latter)."""

from __future__ import annotations

import math
from typing import Any

from .. import _core
from . import constraints
from ._utils import size_tuple
from .transforms import Transform

Tensor = _core.Tensor

__all__ = ["SoftplusTransform", "ReshapeTransform"]


class SoftplusTransform(Transform):
    """``y = log(1 + exp(x))``, onto the positive reals."""

    bijective = True
    codomain = constraints.positive

    def _call(self, x: Any) -> Tensor:
        return x.softplus()

    def _inverse(self, y: Any) -> Tensor:
        # log(exp(y) - 1): log(expm1(y)) for small y, y + log(1 - exp(-y)) for large y
        small = y < 20.0
        low = y.clamp(max=20.0).expm1().log()
        high = y.clamp(min=20.0)
        return _core.where(small, low, high + (-(-high).exp()).log1p())

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Tensor:
        # d softplus / dx = sigmoid(x); log sigmoid(x) = -softplus(-x)
        return -(-x).softplus()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SoftplusTransform)

    __hash__ = Transform.__hash__


class ReshapeTransform(Transform):
    """Reshapes the trailing ``in_shape`` dims to ``out_shape`` (the same number of
    elements); its Jacobian is the identity. Paddle: ``ReshapeTransform(in_event_shape,
    out_event_shape)``."""

    bijective = True

    def __init__(
        self,
        in_shape: Any = None,
        out_shape: Any = None,
        cache_size: int = 0,
        *,
        in_event_shape: Any = None,
        out_event_shape: Any = None,
    ) -> None:
        super().__init__(cache_size)
        in_shape = in_event_shape if in_shape is None else in_shape  # Paddle's keywords
        out_shape = out_event_shape if out_shape is None else out_shape
        if in_shape is None or out_shape is None:
            raise TypeError("ReshapeTransform expects in_shape and out_shape")
        self.in_shape = size_tuple(in_shape, "in_shape")
        self.out_shape = size_tuple(out_shape, "out_shape")
        if math.prod(self.in_shape) != math.prod(self.out_shape):
            raise ValueError(
                f"ReshapeTransform: in_shape {list(self.in_shape)} and out_shape "
                f"{list(self.out_shape)} have different numbers of elements"
            )

    @property
    def in_event_shape(self) -> tuple[int, ...]:
        """Paddle's name of ``in_shape``."""
        return self.in_shape

    @property
    def out_event_shape(self) -> tuple[int, ...]:
        """Paddle's name of ``out_shape``."""
        return self.out_shape

    @property
    def domain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.independent(constraints.real, len(self.in_shape))

    @property
    def codomain(self) -> constraints.Constraint:  # type: ignore[override]
        return constraints.independent(constraints.real, len(self.out_shape))

    def _reshape(self, x: Tensor, src: tuple[int, ...], dst: tuple[int, ...]) -> Tensor:
        batch = tuple(x.shape)[: x.ndim - len(src)]
        if tuple(x.shape)[x.ndim - len(src) :] != src:
            raise ValueError(
                f"ReshapeTransform: expected trailing dims {list(src)}, got shape {list(x.shape)}"
            )
        return x.reshape(list(batch + dst))

    def _call(self, x: Any) -> Tensor:
        return self._reshape(x, self.in_shape, self.out_shape)

    def _inverse(self, y: Any) -> Tensor:
        return self._reshape(y, self.out_shape, self.in_shape)

    def log_abs_det_jacobian(self, x: Any, y: Any) -> Tensor:
        batch = list(x.shape)[: x.ndim - len(self.in_shape)]
        return _core.zeros(batch, dtype=x.dtype)

    def forward_shape(self, shape: Any) -> tuple[int, ...]:
        shape = tuple(shape)
        n = len(self.in_shape)
        if len(shape) < n or shape[len(shape) - n :] != self.in_shape:
            raise ValueError(
                f"ReshapeTransform: shape {list(shape)} does not end in {list(self.in_shape)}"
            )
        return shape[: len(shape) - n] + self.out_shape

    def inverse_shape(self, shape: Any) -> tuple[int, ...]:
        shape = tuple(shape)
        n = len(self.out_shape)
        if len(shape) < n or shape[len(shape) - n :] != self.out_shape:
            raise ValueError(
                f"ReshapeTransform: shape {list(shape)} does not end in {list(self.out_shape)}"
            )
        return shape[: len(shape) - n] + self.in_shape
