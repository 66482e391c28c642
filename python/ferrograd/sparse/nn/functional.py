"""``paddle.sparse.nn.functional``: value-wise activations, softmax over stored entries,
sparse convolution and pooling (``_conv.py``) and attention at a sparse mask."""

from __future__ import annotations

from ..._missing import missing_attribute as _missing_attribute
from .._elementwise import ACTIVATIONS as _ACTIVATIONS
from .._reduce import softmax as softmax
from ._attention import attention as attention
from ._conv import conv2d as conv2d
from ._conv import conv3d as conv3d
from ._conv import max_pool3d as max_pool3d
from ._conv import subm_conv2d as subm_conv2d
from ._conv import subm_conv3d as subm_conv3d

relu = _ACTIVATIONS["relu"]
relu6 = _ACTIVATIONS["relu6"]
leaky_relu = _ACTIVATIONS["leaky_relu"]
# Paddle's implicit-GEMM backends of the same operation
subm_conv2d_igemm = subm_conv2d
subm_conv3d_igemm = subm_conv3d

__all__ = [
    "relu", "relu6", "leaky_relu", "softmax", "conv2d", "conv3d", "subm_conv2d",
    "subm_conv3d", "max_pool3d", "attention", "subm_conv2d_igemm", "subm_conv3d_igemm",
]  # fmt: skip
__getattr__ = _missing_attribute(__name__)
