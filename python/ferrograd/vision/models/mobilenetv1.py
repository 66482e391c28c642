"""``paddle.vision.models.MobileNetV1`` and ``mobilenet_v1`` (depthwise-separable convnet)."""

from __future__ import annotations

from typing import Any

from ... import flatten, nn
from ..ops import ConvNormActivation
from ._pretrained import check_pretrained

__all__ = ["DepthwiseSeparable", "MobileNetV1", "mobilenet_v1"]


class DepthwiseSeparable(nn.Layer):
    """A 3x3 depthwise conv block then a 1x1 pointwise one (each conv + BatchNorm + ReLU)."""

    def __init__(
        self,
        in_channels: int,
        out_channels1: int,
        out_channels2: int,
        num_groups: int,
        stride: int,
        scale: float,
    ) -> None:
        super().__init__()
        self._depthwise_conv = ConvNormActivation(
            in_channels,
            int(out_channels1 * scale),
            kernel_size=3,
            stride=stride,
            padding=1,
            groups=int(num_groups * scale),
        )
        self._pointwise_conv = ConvNormActivation(
            int(out_channels1 * scale),
            int(out_channels2 * scale),
            kernel_size=1,
            stride=1,
            padding=0,
        )

    def forward(self, x: Any) -> Any:
        """Depthwise then pointwise."""
        return self._pointwise_conv(self._depthwise_conv(x))


# (name, in_channels, out_channels1, out_channels2, num_groups, stride), before scaling
_BLOCKS = [
    ("conv2_1", 32, 32, 64, 32, 1),
    ("conv2_2", 64, 64, 128, 64, 2),
    ("conv3_1", 128, 128, 128, 128, 1),
    ("conv3_2", 128, 128, 256, 128, 2),
    ("conv4_1", 256, 256, 256, 256, 1),
    ("conv4_2", 256, 256, 512, 256, 2),
    *[(f"conv5_{i}", 512, 512, 512, 512, 1) for i in range(1, 6)],
    ("conv5_6", 512, 512, 1024, 512, 2),
    ("conv6", 1024, 1024, 1024, 1024, 1),
]


class MobileNetV1(nn.Layer):
    """MobileNetV1 as ``paddle.vision.models.MobileNetV1(scale=1.0, num_classes=1000,
    with_pool=True)``.

    Sub-layers are named as in Paddle: ``conv1``, ``conv2_1`` ... ``conv6`` (each with
    ``_depthwise_conv`` / ``_pointwise_conv``), ``pool2d_avg`` and ``fc``.
    """

    def __init__(self, scale: float = 1.0, num_classes: int = 1000, with_pool: bool = True) -> None:
        super().__init__()
        self.scale = scale
        self.num_classes = num_classes
        self.with_pool = with_pool
        self.conv1 = ConvNormActivation(3, int(32 * scale), kernel_size=3, stride=2, padding=1)
        self.dwsl: list[Any] = []
        for name, cin, c1, c2, groups, stride in _BLOCKS:
            block = DepthwiseSeparable(int(cin * scale), c1, c2, groups, stride, scale)
            self.add_sublayer(name, block)
            self.dwsl.append(block)
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.fc = nn.Linear(int(1024 * scale), num_classes)

    def forward(self, x: Any) -> Any:
        """Stem, the thirteen depthwise-separable blocks, pooling and the classifier."""
        x = self.conv1(x)
        for block in self.dwsl:
            x = block(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = flatten(x, 1)
            x = self.fc(x)
        return x


def mobilenet_v1(pretrained: bool = False, scale: float = 1.0, **kwargs: Any) -> MobileNetV1:
    """MobileNetV1 with channel ``scale``; ``pretrained=True`` raises (no weights)."""
    check_pretrained("mobilenet_v1", pretrained)
    return MobileNetV1(scale=scale, **kwargs)
