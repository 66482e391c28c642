"""``paddle.vision.models.MobileNetV3Small`` / ``MobileNetV3Large`` and ``mobilenet_v3_small``
/ ``mobilenet_v3_large`` (inverted residuals with squeeze-and-excitation, hard-swish).
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, Optional

from ... import flatten, nn
from ..ops import ConvNormActivation
from ._pretrained import check_pretrained
from .mobilenetv2 import _make_divisible

__all__ = [
    "SqueezeExcitation",
    "MobileNetV3",
    "MobileNetV3Small",
    "MobileNetV3Large",
    "mobilenet_v3_small",
    "mobilenet_v3_large",
]


class SqueezeExcitation(nn.Layer):
    """Squeeze-and-excitation: global pool, 1x1 conv ``fc1``, ``activation``, 1x1 conv
    ``fc2``, ``scale_activation``, then the input scaled channel by channel.
    """

    def __init__(
        self,
        input_channels: int,
        squeeze_channels: int,
        activation: Callable[..., Any] = nn.ReLU,
        scale_activation: Callable[..., Any] = nn.Sigmoid,
    ) -> None:
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2D(1)
        self.fc1 = nn.Conv2D(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2D(squeeze_channels, input_channels, 1)
        self.activation = activation()
        self.scale_activation = scale_activation()

    def forward(self, input: Any) -> Any:
        """``input`` times its per-channel gate."""
        scale = self.fc2(self.activation(self.fc1(self.avgpool(input))))
        return self.scale_activation(scale) * input


_ACTIVATIONS: dict[Optional[str], Any] = {None: None, "relu": nn.ReLU, "hardswish": nn.Hardswish}


class InvertedResidualConfig:
    """One block's settings; channel counts are scaled by ``scale`` and rounded to 8."""

    def __init__(
        self,
        in_channels: int,
        kernel: int,
        expanded_channels: int,
        out_channels: int,
        use_se: bool,
        activation: Optional[str],
        stride: int,
        scale: float = 1.0,
    ) -> None:
        self.in_channels = _make_divisible(in_channels * scale, 8)
        self.kernel = kernel
        self.expanded_channels = _make_divisible(expanded_channels * scale, 8)
        self.out_channels = _make_divisible(out_channels * scale, 8)
        self.use_se = use_se
        if activation not in _ACTIVATIONS:
            raise ValueError(
                f"MobileNetV3: activation must be 'relu', 'hardswish' or None, got {activation!r}"
            )
        self.activation_layer = _ACTIVATIONS[activation]
        self.stride = stride


class InvertedResidual(nn.Layer):
    """1x1 expand (when the width changes), depthwise conv, optional SE, 1x1 linear projection;
    residual when the stride is 1 and the widths agree.
    """

    def __init__(
        self,
        in_channels: int,
        expanded_channels: int,
        out_channels: int,
        filter_size: int,
        stride: int,
        use_se: bool,
        activation_layer: Any,
        norm_layer: Any,
    ) -> None:
        super().__init__()
        self.use_res_connect = stride == 1 and in_channels == out_channels
        self.use_se = use_se
        self.expand = in_channels != expanded_channels
        if self.expand:
            self.expand_conv = ConvNormActivation(
                in_channels,
                expanded_channels,
                kernel_size=1,
                padding=0,
                norm_layer=norm_layer,
                activation_layer=activation_layer,
            )
        self.bottleneck_conv = ConvNormActivation(
            expanded_channels,
            expanded_channels,
            kernel_size=filter_size,
            stride=stride,
            padding=(filter_size - 1) // 2,
            groups=expanded_channels,
            norm_layer=norm_layer,
            activation_layer=activation_layer,
        )
        if use_se:
            self.mid_se = SqueezeExcitation(
                expanded_channels,
                _make_divisible(expanded_channels // 4),
                scale_activation=nn.Hardsigmoid,
            )
        self.linear_conv = ConvNormActivation(
            expanded_channels,
            out_channels,
            kernel_size=1,
            padding=0,
            norm_layer=norm_layer,
            activation_layer=None,
        )

    def forward(self, x: Any) -> Any:
        """The block, plus the input when shapes allow."""
        identity = x
        if self.expand:
            x = self.expand_conv(x)
        x = self.bottleneck_conv(x)
        if self.use_se:
            x = self.mid_se(x)
        x = self.linear_conv(x)
        return identity + x if self.use_res_connect else x


class MobileNetV3(nn.Layer):
    """MobileNetV3 from a block ``config`` as ``paddle.vision.models.MobileNetV3(config,
    last_channel, scale=1.0, num_classes=1000, with_pool=True)``: ``conv``, ``blocks``,
    ``lastconv`` (6x the last block's input width), ``avgpool``, ``classifier``.

    Batch norm uses ``epsilon=0.001, momentum=0.99`` as in Paddle.
    """

    def __init__(
        self,
        config: list[InvertedResidualConfig],
        last_channel: int,
        scale: float = 1.0,
        num_classes: int = 1000,
        with_pool: bool = True,
    ) -> None:
        super().__init__()
        self.config, self.scale, self.last_channel = config, scale, last_channel
        self.num_classes, self.with_pool = num_classes, with_pool
        self.firstconv_in_channels = config[0].in_channels
        self.lastconv_in_channels = config[-1].in_channels
        self.lastconv_out_channels = self.lastconv_in_channels * 6
        norm_layer = partial(nn.BatchNorm2D, epsilon=0.001, momentum=0.99)
        self.conv = ConvNormActivation(
            3,
            self.firstconv_in_channels,
            kernel_size=3,
            stride=2,
            padding=1,
            activation_layer=nn.Hardswish,
            norm_layer=norm_layer,
        )
        self.blocks = nn.Sequential(
            *[
                InvertedResidual(
                    cfg.in_channels,
                    cfg.expanded_channels,
                    cfg.out_channels,
                    cfg.kernel,
                    cfg.stride,
                    cfg.use_se,
                    cfg.activation_layer,
                    norm_layer,
                )
                for cfg in config
            ]
        )
        self.lastconv = ConvNormActivation(
            self.lastconv_in_channels,
            self.lastconv_out_channels,
            kernel_size=1,
            padding=0,
            norm_layer=norm_layer,
            activation_layer=nn.Hardswish,
        )
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.classifier = nn.Sequential(
                nn.Linear(self.lastconv_out_channels, last_channel),
                nn.Hardswish(),
                nn.Dropout(p=0.2),
                nn.Linear(last_channel, num_classes),
            )

    def forward(self, x: Any) -> Any:
        """Stem, blocks, last conv, pooling and classifier."""
        x = self.lastconv(self.blocks(self.conv(x)))
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = self.classifier(flatten(x, 1))
        return x


# in, kernel, expanded, out, SE, activation, stride
_SMALL = [
    (16, 3, 16, 16, True, "relu", 2),
    (16, 3, 72, 24, False, "relu", 2),
    (24, 3, 88, 24, False, "relu", 1),
    (24, 5, 96, 40, True, "hardswish", 2),
    (40, 5, 240, 40, True, "hardswish", 1),
    (40, 5, 240, 40, True, "hardswish", 1),
    (40, 5, 120, 48, True, "hardswish", 1),
    (48, 5, 144, 48, True, "hardswish", 1),
    (48, 5, 288, 96, True, "hardswish", 2),
    (96, 5, 576, 96, True, "hardswish", 1),
    (96, 5, 576, 96, True, "hardswish", 1),
]
_LARGE = [
    (16, 3, 16, 16, False, "relu", 1),
    (16, 3, 64, 24, False, "relu", 2),
    (24, 3, 72, 24, False, "relu", 1),
    (24, 5, 72, 40, True, "relu", 2),
    (40, 5, 120, 40, True, "relu", 1),
    (40, 5, 120, 40, True, "relu", 1),
    (40, 3, 240, 80, False, "hardswish", 2),
    (80, 3, 200, 80, False, "hardswish", 1),
    (80, 3, 184, 80, False, "hardswish", 1),
    (80, 3, 184, 80, False, "hardswish", 1),
    (80, 3, 480, 112, True, "hardswish", 1),
    (112, 3, 672, 112, True, "hardswish", 1),
    (112, 5, 672, 160, True, "hardswish", 2),
    (160, 5, 960, 160, True, "hardswish", 1),
    (160, 5, 960, 160, True, "hardswish", 1),
]


class MobileNetV3Small(MobileNetV3):
    """MobileNetV3-Small as ``paddle.vision.models.MobileNetV3Small(scale=1.0,
    num_classes=1000, with_pool=True)``.
    """

    def __init__(self, scale: float = 1.0, num_classes: int = 1000, with_pool: bool = True) -> None:
        config = [InvertedResidualConfig(*row, scale=scale) for row in _SMALL]
        super().__init__(config, _make_divisible(1024 * scale, 8), scale, num_classes, with_pool)


class MobileNetV3Large(MobileNetV3):
    """MobileNetV3-Large as ``paddle.vision.models.MobileNetV3Large(scale=1.0,
    num_classes=1000, with_pool=True)``.
    """

    def __init__(self, scale: float = 1.0, num_classes: int = 1000, with_pool: bool = True) -> None:
        config = [InvertedResidualConfig(*row, scale=scale) for row in _LARGE]
        super().__init__(config, _make_divisible(1280 * scale, 8), scale, num_classes, with_pool)


def mobilenet_v3_small(
    pretrained: bool = False, scale: float = 1.0, **kwargs: Any
) -> MobileNetV3Small:
    """MobileNetV3-Small with width multiplier ``scale``; ``pretrained=True`` raises (no weights)."""
    check_pretrained("mobilenet_v3_small", pretrained)
    return MobileNetV3Small(scale=scale, **kwargs)


def mobilenet_v3_large(
    pretrained: bool = False, scale: float = 1.0, **kwargs: Any
) -> MobileNetV3Large:
    """MobileNetV3-Large with width multiplier ``scale``; ``pretrained=True`` raises (no weights)."""
    check_pretrained("mobilenet_v3_large", pretrained)
    return MobileNetV3Large(scale=scale, **kwargs)
