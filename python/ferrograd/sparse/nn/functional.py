"""``paddle.sparse.nn.functional``: value-wise activations and softmax over stored
entries (sparse convolution, pooling and attention are not implemented)."""

from __future__ import annotations

from ..._missing import missing_attribute as _missing_attribute
from .._elementwise import ACTIVATIONS as _ACTIVATIONS
from .._reduce import softmax as softmax

relu = _ACTIVATIONS["relu"]
relu6 = _ACTIVATIONS["relu6"]
leaky_relu = _ACTIVATIONS["leaky_relu"]

__all__ = ["relu", "relu6", "leaky_relu", "softmax"]
__getattr__ = _missing_attribute(__name__)
