"""``paddle.vision.models.InceptionV3`` and ``inception_v3`` (299x299 input in the paper;
any size from 75x75 works with the adaptive pooling).
"""

from __future__ import annotations

import math
from typing import Any

from ... import ParamAttr, concat, nn, reshape
from ..ops import ConvNormActivation
from ._pretrained import check_pretrained

__all__ = ["InceptionV3", "inception_v3"]


def _cna(cin: int, cout: int, k: Any, stride: int = 1, padding: Any = 0) -> ConvNormActivation:
    """Conv (no bias) + BatchNorm2D + ReLU, Paddle's ``ConvNormActivation``."""
    return ConvNormActivation(
        cin, cout, kernel_size=k, stride=stride, padding=padding, activation_layer=nn.ReLU
    )


def _avg3() -> Any:
    # 3x3 stride-1 average pool that counts the zero padding (Paddle's exclusive=False)
    return nn.AvgPool2D(kernel_size=3, stride=1, padding=1, exclusive=False)


class InceptionStem(nn.Layer):
    """Five conv blocks and two 3x3 stride-2 max pools: 299x299x3 -> 35x35x192."""

    def __init__(self) -> None:
        super().__init__()
        self.conv_1a_3x3 = _cna(3, 32, 3, stride=2)
        self.conv_2a_3x3 = _cna(32, 32, 3)
        self.conv_2b_3x3 = _cna(32, 64, 3, padding=1)
        self.max_pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)
        self.conv_3b_1x1 = _cna(64, 80, 1)
        self.conv_4a_3x3 = _cna(80, 192, 3)

    def forward(self, x: Any) -> Any:
        """The stem."""
        x = self.conv_2b_3x3(self.conv_2a_3x3(self.conv_1a_3x3(x)))
        x = self.max_pool(x)
        return self.max_pool(self.conv_4a_3x3(self.conv_3b_1x1(x)))


class InceptionA(nn.Layer):
    """1x1 / 5x5 / double 3x3 / pool branches: ``224 + pool_features`` output channels."""

    def __init__(self, num_channels: int, pool_features: int) -> None:
        super().__init__()
        self.branch1x1 = _cna(num_channels, 64, 1)
        self.branch5x5_1 = _cna(num_channels, 48, 1)
        self.branch5x5_2 = _cna(48, 64, 5, padding=2)
        self.branch3x3dbl_1 = _cna(num_channels, 64, 1)
        self.branch3x3dbl_2 = _cna(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cna(96, 96, 3, padding=1)
        self.branch_pool = _avg3()
        self.branch_pool_conv = _cna(num_channels, pool_features, 1)

    def forward(self, x: Any) -> Any:
        """The four branches concatenated."""
        b5 = self.branch5x5_2(self.branch5x5_1(x))
        b3 = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
        bp = self.branch_pool_conv(self.branch_pool(x))
        return concat([self.branch1x1(x), b5, b3, bp], axis=1)


class InceptionB(nn.Layer):
    """Grid reduction 35 -> 17: strided 3x3, strided double 3x3, max pool."""

    def __init__(self, num_channels: int) -> None:
        super().__init__()
        self.branch3x3 = _cna(num_channels, 384, 3, stride=2)
        self.branch3x3dbl_1 = _cna(num_channels, 64, 1)
        self.branch3x3dbl_2 = _cna(64, 96, 3, padding=1)
        self.branch3x3dbl_3 = _cna(96, 96, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x: Any) -> Any:
        """The three branches concatenated."""
        b3 = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
        return concat([self.branch3x3(x), b3, self.branch_pool(x)], axis=1)


class InceptionC(nn.Layer):
    """Factorised 7x7 branches (1x7 and 7x1 convs of ``channels_7x7``): 768 channels out."""

    def __init__(self, num_channels: int, channels_7x7: int) -> None:
        super().__init__()
        c7 = channels_7x7
        self.branch1x1 = _cna(num_channels, 192, 1)
        self.branch7x7_1 = _cna(num_channels, c7, 1)
        self.branch7x7_2 = _cna(c7, c7, (1, 7), padding=(0, 3))
        self.branch7x7_3 = _cna(c7, 192, (7, 1), padding=(3, 0))
        self.branch7x7dbl_1 = _cna(num_channels, c7, 1)
        self.branch7x7dbl_2 = _cna(c7, c7, (7, 1), padding=(3, 0))
        self.branch7x7dbl_3 = _cna(c7, c7, (1, 7), padding=(0, 3))
        self.branch7x7dbl_4 = _cna(c7, c7, (7, 1), padding=(3, 0))
        self.branch7x7dbl_5 = _cna(c7, 192, (1, 7), padding=(0, 3))
        self.branch_pool = _avg3()
        self.branch_pool_conv = _cna(num_channels, 192, 1)

    def forward(self, x: Any) -> Any:
        """The four branches concatenated."""
        b7 = self.branch7x7_3(self.branch7x7_2(self.branch7x7_1(x)))
        bd = self.branch7x7dbl_1(x)
        for conv in (self.branch7x7dbl_2, self.branch7x7dbl_3, self.branch7x7dbl_4):
            bd = conv(bd)
        bd = self.branch7x7dbl_5(bd)
        bp = self.branch_pool_conv(self.branch_pool(x))
        return concat([self.branch1x1(x), b7, bd, bp], axis=1)


class InceptionD(nn.Layer):
    """Grid reduction 17 -> 8: strided 3x3 after 1x1, strided 3x3 after 1x7/7x1, max pool."""

    def __init__(self, num_channels: int) -> None:
        super().__init__()
        self.branch3x3_1 = _cna(num_channels, 192, 1)
        self.branch3x3_2 = _cna(192, 320, 3, stride=2)
        self.branch7x7x3_1 = _cna(num_channels, 192, 1)
        self.branch7x7x3_2 = _cna(192, 192, (1, 7), padding=(0, 3))
        self.branch7x7x3_3 = _cna(192, 192, (7, 1), padding=(3, 0))
        self.branch7x7x3_4 = _cna(192, 192, 3, stride=2)
        self.branch_pool = nn.MaxPool2D(kernel_size=3, stride=2)

    def forward(self, x: Any) -> Any:
        """The three branches concatenated."""
        b3 = self.branch3x3_2(self.branch3x3_1(x))
        b7 = self.branch7x7x3_1(x)
        for conv in (self.branch7x7x3_2, self.branch7x7x3_3, self.branch7x7x3_4):
            b7 = conv(b7)
        return concat([b3, b7, self.branch_pool(x)], axis=1)


class InceptionE(nn.Layer):
    """Expanded filter bank (1x3 and 3x1 side by side): 2048 channels out."""

    def __init__(self, num_channels: int) -> None:
        super().__init__()
        self.branch1x1 = _cna(num_channels, 320, 1)
        self.branch3x3_1 = _cna(num_channels, 384, 1)
        self.branch3x3_2a = _cna(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3_2b = _cna(384, 384, (3, 1), padding=(1, 0))
        self.branch3x3dbl_1 = _cna(num_channels, 448, 1)
        self.branch3x3dbl_2 = _cna(448, 384, 3, padding=1)
        self.branch3x3dbl_3a = _cna(384, 384, (1, 3), padding=(0, 1))
        self.branch3x3dbl_3b = _cna(384, 384, (3, 1), padding=(1, 0))
        self.branch_pool = _avg3()
        self.branch_pool_conv = _cna(num_channels, 192, 1)

    def forward(self, x: Any) -> Any:
        """The four branches (two of them split in two) concatenated."""
        b3 = self.branch3x3_1(x)
        b3 = concat([self.branch3x3_2a(b3), self.branch3x3_2b(b3)], axis=1)
        bd = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        bd = concat([self.branch3x3dbl_3a(bd), self.branch3x3dbl_3b(bd)], axis=1)
        bp = self.branch_pool_conv(self.branch_pool(x))
        return concat([self.branch1x1(x), b3, bd, bp], axis=1)


class InceptionV3(nn.Layer):
    """Inception v3 as ``paddle.vision.models.InceptionV3(num_classes=1000, with_pool=True)``:
    ``inception_stem``, ``inception_block_list`` (3 A, 1 B, 4 C, 1 D, 2 E blocks, numbered
    0-10 as in Paddle), ``avg_pool``, ``dropout`` and ``fc``. No auxiliary head (Paddle has
    none either).
    """

    def __init__(self, num_classes: int = 1000, with_pool: bool = True) -> None:
        super().__init__()
        self.num_classes, self.with_pool = num_classes, with_pool
        self.inception_stem = InceptionStem()
        blocks: list[Any] = [InceptionA(c, p) for c, p in [(192, 32), (256, 64), (288, 64)]]
        blocks.append(InceptionB(288))
        blocks += [InceptionC(768, c7) for c7 in (128, 160, 160, 192)]
        blocks.append(InceptionD(768))
        blocks += [InceptionE(1280), InceptionE(2048)]
        self.inception_block_list = nn.LayerList(blocks)
        if with_pool:
            self.avg_pool = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            self.dropout = nn.Dropout(p=0.2, mode="downscale_in_infer")
            stdv = 1.0 / math.sqrt(2048.0)
            self.fc = nn.Linear(
                2048,
                num_classes,
                weight_attr=ParamAttr(initializer=nn.initializer.Uniform(-stdv, stdv)),
            )

    def forward(self, x: Any) -> Any:
        """Stem, the eleven inception blocks, pooling and classifier."""
        x = self.inception_stem(x)
        for block in self.inception_block_list:
            x = block(x)
        if self.with_pool:
            x = self.avg_pool(x)
        if self.num_classes > 0:
            if not self.with_pool and (int(x.shape[2]) != 1 or int(x.shape[3]) != 1):
                raise ValueError(
                    "InceptionV3: with_pool=False needs a 1x1 feature map before fc "
                    f"(got {list(x.shape)[2:]}); use with_pool=True or num_classes=0"
                )
            x = self.fc(self.dropout(reshape(x, [-1, 2048])))
        return x


def inception_v3(pretrained: bool = False, **kwargs: Any) -> InceptionV3:
    """Inception v3; ``pretrained=True`` raises (no weights)."""
    check_pretrained("inception_v3", pretrained)
    return InceptionV3(**kwargs)
