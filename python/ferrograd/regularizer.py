"""Paddle's ``paddle.regularizer``: weight-decay objects for an optimizer's
``weight_decay=`` (or a parameter group's).

``L2Decay(coeff)`` adds ``coeff * param`` to each gradient before the update (the same as
a number ``weight_decay=coeff``); ``L1Decay(coeff)`` adds ``coeff * sign(param)``. As in
Paddle, the term is added after gradient clipping. ``AdamW`` decays the weights itself
(decoupled) and takes a number only. A parameter's own regularizer
(``ParamAttr(regularizer=L2Decay(c))``) replaces the optimizer's ``weight_decay`` for
that parameter (``optim.grad_terms``).
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["L1Decay", "L2Decay", "WeightDecayRegularizer"]


class WeightDecayRegularizer:
    """Base class of the regularizers: a non-negative coefficient ``coeff``."""

    def __init__(self, coeff: float = 0.0) -> None:
        if isinstance(coeff, bool) or not isinstance(coeff, (int, float)):
            raise TypeError(f"{type(self).__name__}: coeff must be a number, got {coeff!r}")
        if not coeff >= 0.0 or math.isinf(coeff):
            raise ValueError(f"{type(self).__name__}: coeff must be finite and >= 0, got {coeff}")
        self._coeff = float(coeff)

    @property
    def coeff(self) -> float:
        """The regularization coefficient."""
        return self._coeff

    def __repr__(self) -> str:
        return f"{type(self).__name__}(coeff={self._coeff})"


class L2Decay(WeightDecayRegularizer):
    """L2 weight decay: adds ``coeff * param`` to the gradient (loss ``coeff/2 * ||p||²``)."""


class L1Decay(WeightDecayRegularizer):
    """L1 weight decay: adds ``coeff * sign(param)`` to the gradient (loss ``coeff * |p|``)."""


def split_decay(value: Any) -> tuple[Any, float]:
    """``(weight_decay, l1)`` for an optimizer's ``weight_decay`` argument: an ``L1Decay``
    becomes an L1 coefficient (and no L2 decay); anything else passes through."""
    if isinstance(value, L1Decay):
        return 0.0, value.coeff
    return value, 0.0
