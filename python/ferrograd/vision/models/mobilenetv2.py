"""``paddle.vision.models.MobileNetV2`` and ``mobilenet_v2`` (inverted residual blocks)."""

from __future__ import annotations

from typing import Any, Optional

from ... import flatten, nn
from ..ops import ConvNormActivation
from ._pretrained import check_pretrained

__all__ = ["InvertedResidual", "MobileNetV2", "mobilenet_v2"]


def _make_divisible(v: float, divisor: int = 8, min_value: Optional[int] = None) -> int:
    """Round ``v`` to a multiple of ``divisor``, never more than 10% below ``v``."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class InvertedResidual(nn.Layer):
    """1x1 expand (if ``expand_ratio != 1``), 3x3 depthwise, 1x1 project; residual when shapes allow."""

    def __init__(
        self, inp: int, oup: int, stride: int, expand_ratio: float, norm_layer: Any = nn.BatchNorm2D
    ) -> None:
        super().__init__()
        self.stride = stride
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = self.stride == 1 and inp == oup
        layers: list[Any] = []
        if expand_ratio != 1:
            layers.append(
                ConvNormActivation(
                    inp, hidden_dim, kernel_size=1, norm_layer=norm_layer, activation_layer=nn.ReLU6
                )
            )
        layers.extend(
            [
                ConvNormActivation(
                    hidden_dim,
                    hidden_dim,
                    stride=stride,
                    groups=hidden_dim,
                    norm_layer=norm_layer,
                    activation_layer=nn.ReLU6,
                ),
                nn.Conv2D(hidden_dim, oup, 1, 1, 0, bias_attr=False),
                norm_layer(oup),
            ]
        )
        self.conv = nn.Sequential(*layers)

    def forward(self, x: Any) -> Any:
        """The block, plus the input when stride is 1 and the channel counts agree."""
        if self.use_res_connect:
            return x + self.conv(x)
        return self.conv(x)


# expansion t, output channels c, repeats n, first stride s
_SETTING = [
    [1, 16, 1, 1],
    [6, 24, 2, 2],
    [6, 32, 3, 2],
    [6, 64, 4, 2],
    [6, 96, 3, 1],
    [6, 160, 3, 2],
    [6, 320, 1, 1],
]


class MobileNetV2(nn.Layer):
    """MobileNetV2 as ``paddle.vision.models.MobileNetV2(scale=1.0, num_classes=1000,
    with_pool=True)``: ``features`` (a Sequential of conv blocks), ``pool2d_avg`` and
    ``classifier`` (Dropout(0.2) + Linear), named as in Paddle.
    """

    def __init__(self, scale: float = 1.0, num_classes: int = 1000, with_pool: bool = True) -> None:
        super().__init__()
        self.num_classes = num_classes
        self.with_pool = with_pool
        norm_layer = nn.BatchNorm2D
        input_channel = _make_divisible(32 * scale, 8)
        self.last_channel = _make_divisible(1280 * max(1.0, scale), 8)
        features: list[Any] = [
            ConvNormActivation(
                3, input_channel, stride=2, norm_layer=norm_layer, activation_layer=nn.ReLU6
            )
        ]
        for t, c, n, s in _SETTING:
            output_channel = _make_divisible(c * scale, 8)
            for i in range(n):
                features.append(
                    InvertedResidual(
                        input_channel, output_channel, s if i == 0 else 1, t, norm_layer=norm_layer
                    )
                )
                input_channel = output_channel
        features.append(
            ConvNormActivation(
                input_channel,
                self.last_channel,
                kernel_size=1,
                norm_layer=norm_layer,
                activation_layer=nn.ReLU6,
            )
        )
        self.features = nn.Sequential(*features)
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.classifier = nn.Sequential(
                nn.Dropout(0.2), nn.Linear(self.last_channel, num_classes)
            )

    def forward(self, x: Any) -> Any:
        """Feature stack, pooling and (with classes) the classifier."""
        x = self.features(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = flatten(x, 1)
            x = self.classifier(x)
        return x


def mobilenet_v2(pretrained: bool = False, scale: float = 1.0, **kwargs: Any) -> MobileNetV2:
    """MobileNetV2 with width multiplier ``scale``; ``pretrained=True`` raises (no weights)."""
    check_pretrained("mobilenet_v2", pretrained)
    return MobileNetV2(scale=scale, **kwargs)
