"""``paddle.sparse.nn``: activation layers over sparse tensors (value-wise, zeros stay
zero), sparse convolution / pooling / batch norm layers (``_layers.py``) and
``functional``. ``SyncBatchNorm`` is not implemented (listed in ``ferrograd._missing``)."""

from __future__ import annotations

from typing import Any

from ..._missing import missing_attribute as _missing_attribute
from ...nn import Module as _Module
from . import functional as functional
from ._layers import BatchNorm as BatchNorm
from ._layers import Conv2D as Conv2D
from ._layers import Conv3D as Conv3D
from ._layers import MaxPool3D as MaxPool3D
from ._layers import SubmConv2D as SubmConv2D
from ._layers import SubmConv3D as SubmConv3D


class ReLU(_Module):
    """``max(x, 0)`` on the stored values."""

    def forward(self, x: Any) -> Any:
        """Applies the activation."""
        return functional.relu(x)


class ReLU6(_Module):
    """``min(max(x, 0), 6)`` on the stored values."""

    def forward(self, x: Any) -> Any:
        """Applies the activation."""
        return functional.relu6(x)


class LeakyReLU(_Module):
    """Leaky ReLU on the stored values (``negative_slope`` as in ``nn.LeakyReLU``)."""

    def __init__(self, negative_slope: float = 0.01, name: Any = None) -> None:
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x: Any) -> Any:
        """Applies the activation."""
        return functional.leaky_relu(x, self.negative_slope)


class Softmax(_Module):
    """Softmax over the stored entries along ``axis`` (see ``sparse.softmax``)."""

    def __init__(self, axis: int = -1, name: Any = None) -> None:
        super().__init__()
        self.axis = axis

    def forward(self, x: Any) -> Any:
        """Applies the softmax."""
        return functional.softmax(x, self.axis)


__all__ = [
    "ReLU", "ReLU6", "LeakyReLU", "Softmax", "functional", "BatchNorm", "Conv2D", "Conv3D",
    "MaxPool3D", "SubmConv2D", "SubmConv3D",
]  # fmt: skip
__getattr__ = _missing_attribute(__name__)
