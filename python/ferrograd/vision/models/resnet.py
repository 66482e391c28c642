"""``paddle.vision.models.ResNet`` and ``resnet18`` ... ``resnet152`` (no pretrained weights)."""

from __future__ import annotations

from typing import Any, Callable, Optional

from ... import flatten, nn
from ._pretrained import check_pretrained

__all__ = [
    "BasicBlock",
    "BottleneckBlock",
    "ResNet",
    "resnet18",
    "resnet34",
    "resnet50",
    "resnet101",
    "resnet152",
    "resnext50_32x4d",
    "resnext50_64x4d",
    "resnext101_32x4d",
    "resnext101_64x4d",
    "resnext152_32x4d",
    "resnext152_64x4d",
    "wide_resnet50_2",
    "wide_resnet101_2",
]


class BasicBlock(nn.Layer):
    """Two 3x3 conv + BatchNorm stages with a residual connection (ResNet-18/34)."""

    expansion = 1

    def __init__(
        self,
        inplanes: int,
        planes: int,
        stride: int = 1,
        downsample: Optional[Any] = None,
        groups: int = 1,
        base_width: int = 64,
        dilation: int = 1,
        norm_layer: Optional[Any] = None,
    ) -> None:
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2D
        if dilation > 1:
            raise NotImplementedError("Dilation > 1 not supported in BasicBlock")
        self.conv1 = nn.Conv2D(inplanes, planes, 3, padding=1, stride=stride, bias_attr=False)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU()
        self.conv2 = nn.Conv2D(planes, planes, 3, padding=1, bias_attr=False)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x: Any) -> Any:
        """conv-bn-relu, conv-bn, add the (downsampled) input, relu."""
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        return self.relu(out + identity)


class BottleneckBlock(nn.Layer):
    """1x1 reduce, 3x3 (grouped) and 1x1 expand convs with BatchNorm (ResNet-50/101/152)."""

    expansion = 4

    def __init__(
        self,
        inplanes: int,
        planes: int,
        stride: int = 1,
        downsample: Optional[Any] = None,
        groups: int = 1,
        base_width: int = 64,
        dilation: int = 1,
        norm_layer: Optional[Any] = None,
    ) -> None:
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2D
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = nn.Conv2D(inplanes, width, 1, bias_attr=False)
        self.bn1 = norm_layer(width)
        self.conv2 = nn.Conv2D(
            width,
            width,
            3,
            padding=dilation,
            stride=stride,
            groups=groups,
            dilation=dilation,
            bias_attr=False,
        )
        self.bn2 = norm_layer(width)
        self.conv3 = nn.Conv2D(width, planes * self.expansion, 1, bias_attr=False)
        self.bn3 = norm_layer(planes * self.expansion)
        self.relu = nn.ReLU()
        self.downsample = downsample
        self.stride = stride

    def forward(self, x: Any) -> Any:
        """Three conv-bn stages (relu between), add the (downsampled) input, relu."""
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        if self.downsample is not None:
            identity = self.downsample(x)
        return self.relu(out + identity)


_LAYERS = {
    18: [2, 2, 2, 2],
    34: [3, 4, 6, 3],
    50: [3, 4, 6, 3],
    101: [3, 4, 23, 3],
    152: [3, 8, 36, 3],
}


class ResNet(nn.Layer):
    """ResNet as ``paddle.vision.models.ResNet(block, depth=50, width=64, num_classes=1000,
    with_pool=True, groups=1)``.

    ``block`` is :class:`BasicBlock` or :class:`BottleneckBlock`, ``depth`` one of 18, 34,
    50, 101, 152; ``width`` and ``groups`` give the wide / ResNeXt variants. Parameter names
    match Paddle's (``conv1.weight``, ``bn1._mean``, ``layer1.0.conv1.weight``,
    ``layer2.0.downsample.0.weight``, ``fc.weight`` ...). With ``num_classes <= 0`` there is
    no ``fc``; with ``with_pool=False`` no ``avgpool``.
    """

    def __init__(
        self,
        block: Any,
        depth: int = 50,
        width: int = 64,
        num_classes: int = 1000,
        with_pool: bool = True,
        groups: int = 1,
    ) -> None:
        super().__init__()
        if depth not in _LAYERS:
            raise ValueError(f"ResNet: depth must be one of {sorted(_LAYERS)}, got {depth!r}")
        layers = _LAYERS[depth]
        self.groups = groups
        self.base_width = width
        self.num_classes = num_classes
        self.with_pool = with_pool
        self._norm_layer = nn.BatchNorm2D
        self.inplanes = 64
        self.dilation = 1
        self.conv1 = nn.Conv2D(
            3, self.inplanes, kernel_size=7, stride=2, padding=3, bias_attr=False
        )
        self.bn1 = self._norm_layer(self.inplanes)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], stride=2)
        self.layer3 = self._make_layer(block, 256, layers[2], stride=2)
        self.layer4 = self._make_layer(block, 512, layers[3], stride=2)
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((1, 1))
        if num_classes > 0:
            self.fc = nn.Linear(512 * block.expansion, num_classes)

    def _make_layer(self, block: Any, planes: int, blocks: int, stride: int = 1) -> Any:
        norm_layer = self._norm_layer
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(
                nn.Conv2D(
                    self.inplanes, planes * block.expansion, 1, stride=stride, bias_attr=False
                ),
                norm_layer(planes * block.expansion),
            )
        seq = [
            block(
                self.inplanes,
                planes,
                stride,
                downsample,
                self.groups,
                self.base_width,
                1,
                norm_layer,
            )
        ]
        self.inplanes = planes * block.expansion
        for _ in range(1, blocks):
            seq.append(
                block(
                    self.inplanes,
                    planes,
                    groups=self.groups,
                    base_width=self.base_width,
                    norm_layer=norm_layer,
                )
            )
        return nn.Sequential(*seq)

    def forward(self, x: Any) -> Any:
        """Stem, four stages, pooling and (with classes) the classifier."""
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = flatten(x, 1)
            x = self.fc(x)
        return x


def _resnet(arch: str, block: Any, depth: int, pretrained: bool, **kwargs: Any) -> ResNet:
    check_pretrained(arch, pretrained)
    return ResNet(block, depth, **kwargs)


def _factory(arch: str, block: Any, depth: int, what: str, **fixed: Any) -> Callable[..., ResNet]:
    """The public constructor ``arch(pretrained=False, **kwargs)``: a :class:`ResNet` of
    ``block`` and ``depth`` with the keyword arguments ``fixed`` set over ``kwargs``; its
    docstring names ``what``."""

    def build(pretrained: bool = False, **kwargs: Any) -> ResNet:
        kwargs.update(fixed)
        return _resnet(arch, block, depth, pretrained, **kwargs)

    build.__name__ = build.__qualname__ = arch
    build.__doc__ = f"{what}; ``pretrained=True`` raises (no weights)."
    return build


_B, _BN = BasicBlock, BottleneckBlock
_RX, _WIDE = "(``groups={}, width=4``)", "(bottleneck width 128)"

resnet18 = _factory("resnet18", _B, 18, "ResNet-18 (BasicBlock, [2, 2, 2, 2])")
resnet34 = _factory("resnet34", _B, 34, "ResNet-34 (BasicBlock, [3, 4, 6, 3])")
resnet50 = _factory("resnet50", _BN, 50, "ResNet-50 (BottleneckBlock, [3, 4, 6, 3])")
resnet101 = _factory("resnet101", _BN, 101, "ResNet-101 (BottleneckBlock, [3, 4, 23, 3])")
resnet152 = _factory("resnet152", _BN, 152, "ResNet-152 (BottleneckBlock, [3, 8, 36, 3])")
resnext50_32x4d = _factory(
    "resnext50_32x4d", _BN, 50, "ResNeXt-50 32x4d " + _RX.format(32), groups=32, width=4
)
resnext50_64x4d = _factory(
    "resnext50_64x4d", _BN, 50, "ResNeXt-50 64x4d " + _RX.format(64), groups=64, width=4
)
resnext101_32x4d = _factory(
    "resnext101_32x4d", _BN, 101, "ResNeXt-101 32x4d " + _RX.format(32), groups=32, width=4
)
resnext101_64x4d = _factory(
    "resnext101_64x4d", _BN, 101, "ResNeXt-101 64x4d " + _RX.format(64), groups=64, width=4
)
resnext152_32x4d = _factory(
    "resnext152_32x4d", _BN, 152, "ResNeXt-152 32x4d " + _RX.format(32), groups=32, width=4
)
resnext152_64x4d = _factory(
    "resnext152_64x4d", _BN, 152, "ResNeXt-152 64x4d " + _RX.format(64), groups=64, width=4
)
wide_resnet50_2 = _factory("wide_resnet50_2", _BN, 50, "Wide ResNet-50-2 " + _WIDE, width=128)
wide_resnet101_2 = _factory("wide_resnet101_2", _BN, 101, "Wide ResNet-101-2 " + _WIDE, width=128)
