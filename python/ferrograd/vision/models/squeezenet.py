"""``paddle.vision.models.SqueezeNet`` and ``squeezenet1_0`` / ``squeezenet1_1`` (fire modules)."""

from __future__ import annotations

from typing import Any

from ... import concat, nn, squeeze
from ...nn import functional as F
from ._pretrained import check_pretrained

__all__ = ["SqueezeNet", "squeezenet1_0", "squeezenet1_1"]


class MakeFireConv(nn.Layer):
    """A biased conv then ReLU, held as ``_conv`` (Paddle's parameter names)."""

    def __init__(
        self, input_channels: int, output_channels: int, filter_size: int, padding: int = 0
    ) -> None:
        super().__init__()
        self._conv = nn.Conv2D(input_channels, output_channels, filter_size, padding=padding)

    def forward(self, x: Any) -> Any:
        """Conv then ReLU."""
        return F.relu(self._conv(x))


class MakeFire(nn.Layer):
    """A fire module: a 1x1 squeeze conv, then 1x1 and 3x3 expand convs concatenated."""

    def __init__(
        self,
        input_channels: int,
        squeeze_channels: int,
        expand1x1_channels: int,
        expand3x3_channels: int,
    ) -> None:
        super().__init__()
        self._conv = MakeFireConv(input_channels, squeeze_channels, 1)
        self._conv_path1 = MakeFireConv(squeeze_channels, expand1x1_channels, 1)
        self._conv_path2 = MakeFireConv(squeeze_channels, expand3x3_channels, 3, padding=1)

    def forward(self, inputs: Any) -> Any:
        """Squeeze, then both expand paths concatenated along channels."""
        x = self._conv(inputs)
        return concat([self._conv_path1(x), self._conv_path2(x)], axis=1)


# (input, squeeze, expand1x1, expand3x3) of the eight fire modules, both versions
_FIRES = [
    (None, 16, 64, 64),
    (128, 16, 64, 64),
    (128, 32, 128, 128),
    (256, 32, 128, 128),
    (256, 48, 192, 192),
    (384, 48, 192, 192),
    (384, 64, 256, 256),
    (512, 64, 256, 256),
]


class SqueezeNet(nn.Layer):
    """SqueezeNet as ``paddle.vision.models.SqueezeNet(version, num_classes=1000,
    with_pool=True)``; ``version`` is ``"1.0"`` or ``"1.1"``.

    The classifier is a 1x1 conv (``_conv9``) after dropout; with ``with_pool`` a ReLU and
    global average pooling follow and the result is ``[N, num_classes]``. ``num_classes
    <= 0`` drops the classifier conv.
    """

    def __init__(self, version: str, num_classes: int = 1000, with_pool: bool = True) -> None:
        super().__init__()
        if version not in ("1.0", "1.1"):
            raise ValueError(f"SqueezeNet: version must be '1.0' or '1.1', got {version!r}")
        self.version, self.num_classes, self.with_pool = version, num_classes, with_pool
        if version == "1.0":
            self._conv = nn.Conv2D(3, 96, 7, stride=2)
            first = 96
        else:
            self._conv = nn.Conv2D(3, 64, 3, stride=2, padding=1)
            first = 64
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        for i, (cin, sq, e1, e3) in enumerate(_FIRES, start=1):
            setattr(self, f"_conv{i}", MakeFire(first if cin is None else cin, sq, e1, e3))
        self._drop = nn.Dropout(p=0.5, mode="downscale_in_infer")
        if num_classes > 0:
            self._conv9 = nn.Conv2D(512, num_classes, 1)
        self._avg_pool = nn.AdaptiveAvgPool2D(1)

    def forward(self, inputs: Any) -> Any:
        """Stem, fire modules with max pooling (where each version puts it), classifier."""
        x = self._pool(F.relu(self._conv(inputs)))
        # the fire modules after which a max pool follows
        pool_after = (3, 7) if self.version == "1.0" else (2, 4)
        for i in range(1, 9):
            x = getattr(self, f"_conv{i}")(x)
            if i in pool_after:
                x = self._pool(x)
        if self.num_classes > 0:
            x = self._conv9(self._drop(x))
        if self.with_pool:
            x = squeeze(self._avg_pool(F.relu(x)), axis=[2, 3])
        return x


def squeezenet1_0(pretrained: bool = False, **kwargs: Any) -> SqueezeNet:
    """SqueezeNet 1.0; ``pretrained=True`` raises (no weights)."""
    check_pretrained("squeezenet1_0", pretrained)
    return SqueezeNet("1.0", **kwargs)


def squeezenet1_1(pretrained: bool = False, **kwargs: Any) -> SqueezeNet:
    """SqueezeNet 1.1 (fewer FLOPs: a 3x3 stem, earlier pooling); ``pretrained=True`` raises."""
    check_pretrained("squeezenet1_1", pretrained)
    return SqueezeNet("1.1", **kwargs)
