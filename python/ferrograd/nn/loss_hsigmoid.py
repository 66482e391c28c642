"""Paddle's ``nn.HSigmoidLoss`` (the function is ``fn_hsigmoid.py``)."""

from __future__ import annotations

import operator
from typing import Any, Optional

from .. import _core
from .fn_hsigmoid import hsigmoid_loss
from .module import Module

Tensor = _core.Tensor


class HSigmoidLoss(Module):
    """``HSigmoidLoss(feature_size, num_classes, weight_attr=None, bias_attr=None,
    is_custom=False, is_sparse=False, name=None)``: the hierarchical sigmoid loss with its
    own ``weight`` ``[C, feature_size]`` (Xavier-uniform) and ``bias`` ``[C, 1]`` (zeros;
    ``bias_attr=False`` drops it), ``C = num_classes - 1`` for the default tree and
    ``num_classes`` (the inner nodes) with ``is_custom=True``.
    ``forward(input, label, path_table=None, path_code=None)`` gives ``[N, 1]``."""

    def __init__(
        self,
        feature_size: int,
        num_classes: int,
        weight_attr: Any = None,
        bias_attr: Any = None,
        is_custom: bool = False,
        is_sparse: bool = False,
        name: Optional[str] = None,
    ) -> None:
        super().__init__()
        for arg, v in (("feature_size", feature_size), ("num_classes", num_classes)):
            if isinstance(v, bool):
                raise TypeError(f"HSigmoidLoss: {arg} must be an int, got bool")
        feature_size, num_classes = operator.index(feature_size), operator.index(num_classes)
        if num_classes < 2 and not is_custom:
            raise ValueError("HSigmoidLoss: num_classes must not be less than 2 with default tree")
        if feature_size <= 0 or num_classes <= 0:
            raise ValueError(
                f"HSigmoidLoss: feature_size and num_classes must be positive, got "
                f"{feature_size}, {num_classes}"
            )
        rows = num_classes if is_custom else num_classes - 1
        if rows * feature_size > 2**31:
            raise ValueError(
                f"HSigmoidLoss: a weight of [{rows}, {feature_size}] is too large (over 2**31 "
                "values)"
            )
        self._feature_size, self._num_classes = feature_size, num_classes
        self._is_custom, self._is_sparse = bool(is_custom), bool(is_sparse)
        self.weight = self.create_parameter([rows, feature_size], attr=weight_attr)
        if bias_attr is False:
            self.register_parameter("bias", None)
        else:
            self.bias = self.create_parameter([rows, 1], attr=bias_attr, is_bias=True)

    def forward(
        self,
        input: Tensor,
        label: Tensor,
        path_table: Optional[Tensor] = None,
        path_code: Optional[Tensor] = None,
    ) -> Tensor:
        """The per-sample loss ``[N, 1]`` (``F.hsigmoid_loss``)."""
        return hsigmoid_loss(
            input, label, self._num_classes, self.weight, self.bias, path_table, path_code,
            self._is_sparse,
        )  # fmt: skip

    def extra_repr(self) -> str:
        return (
            f"feature_size={self._feature_size}, num_classes={self._num_classes}, "
            f"is_custom={self._is_custom}"
        )
