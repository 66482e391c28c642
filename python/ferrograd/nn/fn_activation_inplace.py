"""The in-place activation functions of both peers' ``nn.functional`` (PyTorch's
``F.relu_``, ``elu_``, ``leaky_relu_``, ``hardtanh_``, ``threshold_``, ``selu_``,
``celu_``, ``rrelu_``; Paddle's ``relu_``, ``elu_``, ``leaky_relu_``, ``hardtanh_``,
``tanh_``, ``softmax_``, ``thresholded_relu_``): the activation with ``inplace=True``
(``nn/_inplace.py``: the result is written into ``x``, which is returned)."""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from . import functional as F
from ._inplace import run_inplace

Tensor = _core.Tensor


def relu_(x: Tensor, name: Optional[str] = None) -> Tensor:
    """``relu`` in place."""
    return F.relu(x, inplace=True)


def elu_(x: Tensor, alpha: float = 1.0, name: Optional[str] = None) -> Tensor:
    """``elu`` in place."""
    return F.elu(x, alpha, inplace=True)


def leaky_relu_(x: Tensor, negative_slope: float = 0.01, name: Optional[str] = None) -> Tensor:
    """``leaky_relu`` in place."""
    return F.leaky_relu(x, negative_slope, inplace=True)


def hardtanh_(
    x: Tensor,
    min_val: float = -1.0,
    max_val: float = 1.0,
    name: Optional[str] = None,
    **paddle_names: float,
) -> Tensor:
    """``hardtanh`` in place (Paddle's ``min=`` / ``max=`` also accepted)."""
    low, high = paddle_names.pop("min", min_val), paddle_names.pop("max", max_val)
    if paddle_names:
        raise TypeError(f"hardtanh_() got unexpected keyword arguments {sorted(paddle_names)}")
    return F.hardtanh(x, low, high, inplace=True)


def threshold_(x: Tensor, threshold: float, value: float, name: Optional[str] = None) -> Tensor:
    """``threshold`` in place: ``value`` where ``x <= threshold``."""
    return F.threshold(x, threshold, value, inplace=True)


def selu_(x: Tensor, name: Optional[str] = None) -> Tensor:
    """``selu`` in place."""
    return F.selu(x, inplace=True)


def celu_(x: Tensor, alpha: float = 1.0, name: Optional[str] = None) -> Tensor:
    """``celu`` in place."""
    return F.celu(x, alpha, inplace=True)


def rrelu_(
    x: Tensor,
    lower: float = 1.0 / 8,
    upper: float = 1.0 / 3,
    training: bool = False,
    name: Optional[str] = None,
) -> Tensor:
    """``rrelu`` in place."""
    return F.rrelu(x, lower, upper, training, inplace=True)


def tanh_(x: Tensor, name: Optional[str] = None) -> Tensor:
    """Paddle's ``F.tanh_``: ``tanh`` in place."""
    return run_inplace(x, lambda s: s.tanh(), "tanh_")


def softmax_(x: Tensor, axis: int = -1, dtype: Any = None, name: Optional[str] = None) -> Tensor:
    """Paddle's ``F.softmax_``: ``softmax`` along ``axis`` in place."""
    return run_inplace(x, lambda s: F.softmax(s, axis=axis, dtype=dtype), "softmax_")


def thresholded_relu_(
    x: Tensor, threshold: float = 1.0, value: float = 0.0, name: Optional[str] = None
) -> Tensor:
    """Paddle's ``F.thresholded_relu_``: ``thresholded_relu`` in place."""
    return run_inplace(x, lambda s: F.thresholded_relu(s, threshold, value), "thresholded_relu_")


__all__ = [
    "relu_", "elu_", "leaky_relu_", "hardtanh_", "threshold_", "selu_", "celu_", "rrelu_",
    "tanh_", "softmax_", "thresholded_relu_",
]  # fmt: skip
