"""``paddle.vision.models.ShuffleNetV2`` and ``shufflenet_v2_x0_25`` ... ``x2_0``, ``_swish``."""

from __future__ import annotations

from typing import Any, Callable, Optional

from ... import concat, flatten, nn, reshape, split, transpose
from ..ops import ConvNormActivation
from ._pretrained import check_pretrained

__all__ = [
    "ShuffleNetV2",
    "shufflenet_v2_x0_25",
    "shufflenet_v2_x0_33",
    "shufflenet_v2_x0_5",
    "shufflenet_v2_x1_0",
    "shufflenet_v2_x1_5",
    "shufflenet_v2_x2_0",
    "shufflenet_v2_swish",
]

# stage output channels per width scale (stem, three stages, last conv)
_STAGE_CHANNELS = {
    0.25: [24, 24, 48, 96, 512],
    0.33: [24, 32, 64, 128, 512],
    0.5: [24, 48, 96, 192, 1024],
    1.0: [24, 116, 232, 464, 1024],
    1.5: [24, 176, 352, 704, 1024],
    2.0: [24, 224, 488, 976, 2048],
}
_STAGE_REPEATS = [4, 8, 4]


def _activation(act: Optional[str]) -> Optional[Callable[..., Any]]:
    if act == "swish":
        return nn.Swish
    if act == "relu":
        return nn.ReLU
    if act is None:
        return None
    raise ValueError(f"ShuffleNetV2: act must be 'relu', 'swish' or None, got {act!r}")


def channel_shuffle(x: Any, groups: int) -> Any:
    """Interleave the channels of ``groups`` groups (``[N, C, H, W]`` in and out)."""
    n, c, h, w = (int(s) for s in x.shape[0:4])
    x = reshape(x, [n, groups, c // groups, h, w])
    x = transpose(x, perm=[0, 2, 1, 3, 4])
    return reshape(x, [n, c, h, w])


def _cna(cin: int, cout: int, k: int, stride: int, groups: int, act: Any) -> ConvNormActivation:
    return ConvNormActivation(
        cin, cout, k, stride=stride, padding=(k - 1) // 2, groups=groups, activation_layer=act
    )


class InvertedResidual(nn.Layer):
    """Stride-1 unit: half the channels pass through, the other half go 1x1 / 3x3 depthwise
    / 1x1, then the halves are concatenated and shuffled.
    """

    def __init__(
        self, in_channels: int, out_channels: int, stride: int, activation_layer: Any = nn.ReLU
    ) -> None:
        super().__init__()
        half = out_channels // 2
        self._conv_pw = _cna(in_channels // 2, half, 1, 1, 1, activation_layer)
        self._conv_dw = _cna(half, half, 3, stride, half, None)
        self._conv_linear = _cna(half, half, 1, 1, 1, activation_layer)

    def forward(self, inputs: Any) -> Any:
        """Split, transform one half, concatenate, shuffle."""
        c = int(inputs.shape[1])
        x1, x2 = split(inputs, [c // 2, c // 2], axis=1)
        x2 = self._conv_linear(self._conv_dw(self._conv_pw(x2)))
        return channel_shuffle(concat([x1, x2], axis=1), 2)


class InvertedResidualDS(nn.Layer):
    """Down-sampling unit: two strided branches (depthwise then 1x1; 1x1, depthwise, 1x1),
    concatenated and shuffled.
    """

    def __init__(
        self, in_channels: int, out_channels: int, stride: int, activation_layer: Any = nn.ReLU
    ) -> None:
        super().__init__()
        half = out_channels // 2
        self._conv_dw_1 = _cna(in_channels, in_channels, 3, stride, in_channels, None)
        self._conv_linear_1 = _cna(in_channels, half, 1, 1, 1, activation_layer)
        self._conv_pw_2 = _cna(in_channels, half, 1, 1, 1, activation_layer)
        self._conv_dw_2 = _cna(half, half, 3, stride, half, None)
        self._conv_linear_2 = _cna(half, half, 1, 1, 1, activation_layer)

    def forward(self, inputs: Any) -> Any:
        """Both branches, concatenated and shuffled."""
        x1 = self._conv_linear_1(self._conv_dw_1(inputs))
        x2 = self._conv_linear_2(self._conv_dw_2(self._conv_pw_2(inputs)))
        return channel_shuffle(concat([x1, x2], axis=1), 2)


class ShuffleNetV2(nn.Layer):
    """ShuffleNetV2 as ``paddle.vision.models.ShuffleNetV2(scale=1.0, act="relu",
    num_classes=1000, with_pool=True)``; ``scale`` is one of 0.25, 0.33, 0.5, 1.0, 1.5, 2.0.

    The units are sub-layers named ``2_1`` ... ``4_4`` (stage, unit) as in Paddle, then
    ``_last_conv``, ``_pool2d_avg`` and ``_fc``.
    """

    def __init__(
        self,
        scale: float = 1.0,
        act: Optional[str] = "relu",
        num_classes: int = 1000,
        with_pool: bool = True,
    ) -> None:
        super().__init__()
        if scale not in _STAGE_CHANNELS:
            raise ValueError(
                f"ShuffleNetV2: scale must be one of {sorted(_STAGE_CHANNELS)}, got {scale!r}"
            )
        self.scale, self.num_classes, self.with_pool = scale, num_classes, with_pool
        act_layer = _activation(act)
        ch = _STAGE_CHANNELS[scale]
        self._conv1 = _cna(3, ch[0], 3, 2, 1, act_layer)
        self._max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self._block_list: list[Any] = []
        for stage, repeats in enumerate(_STAGE_REPEATS):
            for i in range(repeats):
                if i == 0:
                    block: Any = InvertedResidualDS(ch[stage], ch[stage + 1], 2, act_layer)
                else:
                    block = InvertedResidual(ch[stage + 1], ch[stage + 1], 1, act_layer)
                self.add_sublayer(f"{stage + 2}_{i + 1}", block)
                self._block_list.append(block)
        self._last_conv = _cna(ch[-2], ch[-1], 1, 1, 1, act_layer)
        if with_pool:
            self._pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self._out_c = ch[-1]
            self._fc = nn.Linear(ch[-1], num_classes)

    def forward(self, inputs: Any) -> Any:
        """Stem, max pool, the shuffle units, last conv, pooling and classifier."""
        x = self._max_pool(self._conv1(inputs))
        for block in self._block_list:
            x = block(x)
        x = self._last_conv(x)
        if self.with_pool:
            x = self._pool2d_avg(x)
        if self.num_classes > 0:
            x = self._fc(flatten(x, 1))
        return x


def _shufflenet_v2(arch: str, scale: float, pretrained: bool, **kwargs: Any) -> ShuffleNetV2:
    check_pretrained(arch, pretrained)
    return ShuffleNetV2(scale=scale, **kwargs)


def shufflenet_v2_x0_25(pretrained: bool = False, **kwargs: Any) -> ShuffleNetV2:
    """ShuffleNetV2 at 0.25x width; ``pretrained=True`` raises (no weights)."""
    return _shufflenet_v2("shufflenet_v2_x0_25", 0.25, pretrained, **kwargs)


def shufflenet_v2_x0_33(pretrained: bool = False, **kwargs: Any) -> ShuffleNetV2:
    """ShuffleNetV2 at 0.33x width; ``pretrained=True`` raises (no weights)."""
    return _shufflenet_v2("shufflenet_v2_x0_33", 0.33, pretrained, **kwargs)


def shufflenet_v2_x0_5(pretrained: bool = False, **kwargs: Any) -> ShuffleNetV2:
    """ShuffleNetV2 at 0.5x width; ``pretrained=True`` raises (no weights)."""
    return _shufflenet_v2("shufflenet_v2_x0_5", 0.5, pretrained, **kwargs)


def shufflenet_v2_x1_0(pretrained: bool = False, **kwargs: Any) -> ShuffleNetV2:
    """ShuffleNetV2 at 1.0x width; ``pretrained=True`` raises (no weights)."""
    return _shufflenet_v2("shufflenet_v2_x1_0", 1.0, pretrained, **kwargs)


def shufflenet_v2_x1_5(pretrained: bool = False, **kwargs: Any) -> ShuffleNetV2:
    """ShuffleNetV2 at 1.5x width; ``pretrained=True`` raises (no weights)."""
    return _shufflenet_v2("shufflenet_v2_x1_5", 1.5, pretrained, **kwargs)


def shufflenet_v2_x2_0(pretrained: bool = False, **kwargs: Any) -> ShuffleNetV2:
    """ShuffleNetV2 at 2.0x width; ``pretrained=True`` raises (no weights)."""
    return _shufflenet_v2("shufflenet_v2_x2_0", 2.0, pretrained, **kwargs)


def shufflenet_v2_swish(pretrained: bool = False, **kwargs: Any) -> ShuffleNetV2:
    """ShuffleNetV2 at 1.0x width with Swish activations; ``pretrained=True`` raises."""
    check_pretrained("shufflenet_v2_swish", pretrained)
    return ShuffleNetV2(scale=1.0, act="swish", **kwargs)
