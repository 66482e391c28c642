"""``paddle.vision.models.DenseNet`` and ``densenet121`` / ``161`` / ``169`` / ``201`` / ``264``."""

from __future__ import annotations

import math
from typing import Any

from ... import ParamAttr, concat, flatten, nn
from ._pretrained import check_pretrained

__all__ = [
    "DenseNet",
    "densenet121",
    "densenet161",
    "densenet169",
    "densenet201",
    "densenet264",
]

# depth -> (stem width, growth rate, layers per dense block)
_SPEC = {
    121: (64, 32, [6, 12, 24, 16]),
    161: (96, 48, [6, 12, 36, 24]),
    169: (64, 32, [6, 12, 32, 32]),
    201: (64, 32, [6, 12, 48, 32]),
    264: (64, 32, [6, 12, 64, 48]),
}


class BNACConvLayer(nn.Layer):
    """Pre-activation conv: ``_batch_norm`` (with ReLU) then a bias-free ``_conv``."""

    def __init__(
        self,
        num_channels: int,
        num_filters: int,
        filter_size: int,
        stride: int = 1,
        pad: int = 0,
        groups: int = 1,
        act: str = "relu",
    ) -> None:
        super().__init__()
        self._batch_norm = nn.BatchNorm(num_channels, act=act)
        self._conv = nn.Conv2D(
            num_channels, num_filters, filter_size, stride, pad, groups=groups, bias_attr=False
        )

    def forward(self, input: Any) -> Any:
        """Norm + activation, then the conv."""
        return self._conv(self._batch_norm(input))


class DenseLayer(nn.Layer):
    """Bottleneck (1x1 to ``bn_size * growth_rate``) then 3x3 to ``growth_rate`` channels,
    concatenated to the input.
    """

    def __init__(self, num_channels: int, growth_rate: int, bn_size: int, dropout: float) -> None:
        super().__init__()
        self.dropout = dropout
        self.bn_ac_func1 = BNACConvLayer(num_channels, bn_size * growth_rate, 1, 1, 0)
        self.bn_ac_func2 = BNACConvLayer(bn_size * growth_rate, growth_rate, 3, 1, 1)
        if dropout:
            self.dropout_func = nn.Dropout(p=dropout, mode="downscale_in_infer")

    def forward(self, input: Any) -> Any:
        """The input with ``growth_rate`` new channels appended."""
        conv = self.bn_ac_func2(self.bn_ac_func1(input))
        if self.dropout:
            conv = self.dropout_func(conv)
        return concat([input, conv], axis=1)


class DenseBlock(nn.Layer):
    """``num_layers`` dense layers, sub-layers named ``<name>_1`` ... as in Paddle."""

    def __init__(
        self,
        num_channels: int,
        num_layers: int,
        bn_size: int,
        growth_rate: int,
        dropout: float,
        name: str = "conv",
    ) -> None:
        super().__init__()
        self.dropout = dropout
        self.dense_layer_func: list[Any] = []
        channels = num_channels
        for i in range(num_layers):
            layer = DenseLayer(channels, growth_rate, bn_size, dropout)
            self.add_sublayer(f"{name}_{i + 1}", layer)
            self.dense_layer_func.append(layer)
            channels += growth_rate

    def forward(self, input: Any) -> Any:
        """Each dense layer in turn."""
        for layer in self.dense_layer_func:
            input = layer(input)
        return input


class TransitionLayer(nn.Layer):
    """Pre-activation 1x1 conv then 2x2 average pooling."""

    def __init__(self, num_channels: int, num_output_features: int) -> None:
        super().__init__()
        self.conv_ac_func = BNACConvLayer(num_channels, num_output_features, 1, 1, 0)
        self.pool2d_avg = nn.AvgPool2D(kernel_size=2, stride=2, padding=0)

    def forward(self, input: Any) -> Any:
        """Conv then pooling."""
        return self.pool2d_avg(self.conv_ac_func(input))


class ConvBNLayer(nn.Layer):
    """Bias-free ``_conv`` then ``_batch_norm`` with ReLU (the stem)."""

    def __init__(
        self,
        num_channels: int,
        num_filters: int,
        filter_size: int,
        stride: int = 1,
        pad: int = 0,
        groups: int = 1,
        act: str = "relu",
    ) -> None:
        super().__init__()
        self._conv = nn.Conv2D(
            num_channels, num_filters, filter_size, stride, pad, groups=groups, bias_attr=False
        )
        self._batch_norm = nn.BatchNorm(num_filters, act=act)

    def forward(self, input: Any) -> Any:
        """Conv, norm, activation."""
        return self._batch_norm(self._conv(input))


class DenseNet(nn.Layer):
    """DenseNet as ``paddle.vision.models.DenseNet(layers=121, bn_size=4, dropout=0.0,
    num_classes=1000, with_pool=True)``; ``layers`` is 121, 161, 169, 201 or 264.

    Sub-layers follow Paddle: ``conv1_func``, ``db_conv_2`` ... ``db_conv_5`` (dense
    blocks), ``tr_conv2_blk`` ... (transitions), ``batch_norm`` and the classifier ``out``
    (weights drawn from ``Uniform(-1/sqrt(features), 1/sqrt(features))`` as in Paddle).
    """

    def __init__(
        self,
        layers: int = 121,
        bn_size: int = 4,
        dropout: float = 0.0,
        num_classes: int = 1000,
        with_pool: bool = True,
    ) -> None:
        super().__init__()
        if layers not in _SPEC:
            raise ValueError(f"DenseNet: layers must be one of {sorted(_SPEC)}, got {layers!r}")
        self.num_classes, self.with_pool = num_classes, with_pool
        num_init_features, growth_rate, block_config = _SPEC[layers]
        self.block_config = block_config
        self.conv1_func = ConvBNLayer(3, num_init_features, 7, stride=2, pad=3, act="relu")
        self.pool2d_max = nn.MaxPool2D(kernel_size=3, stride=2, padding=1)
        self.dense_block_func_list: list[Any] = []
        self.transition_func_list: list[Any] = []
        features = num_init_features
        for i, num_layers in enumerate(block_config):
            block = DenseBlock(features, num_layers, bn_size, growth_rate, dropout, f"conv{i + 2}")
            self.add_sublayer(f"db_conv_{i + 2}", block)
            self.dense_block_func_list.append(block)
            features += num_layers * growth_rate
            if i != len(block_config) - 1:
                trans = TransitionLayer(features, features // 2)
                self.add_sublayer(f"tr_conv{i + 2}_blk", trans)
                self.transition_func_list.append(trans)
                features //= 2
        self.batch_norm = nn.BatchNorm(features, act="relu")
        if with_pool:
            self.pool2d_avg = nn.AdaptiveAvgPool2D(1)
        if num_classes > 0:
            stdv = 1.0 / math.sqrt(features)
            self.out = nn.Linear(
                features,
                num_classes,
                weight_attr=ParamAttr(initializer=nn.initializer.Uniform(-stdv, stdv)),
            )

    def forward(self, input: Any) -> Any:
        """Stem, dense blocks with transitions, final norm, pooling and classifier."""
        x = self.pool2d_max(self.conv1_func(input))
        for i, block in enumerate(self.dense_block_func_list):
            x = block(x)
            if i < len(self.transition_func_list):
                x = self.transition_func_list[i](x)
        x = self.batch_norm(x)
        if self.with_pool:
            x = self.pool2d_avg(x)
        if self.num_classes > 0:
            x = self.out(flatten(x, 1))
        return x


def _densenet(layers: int, pretrained: bool, **kwargs: Any) -> DenseNet:
    check_pretrained(f"densenet{layers}", pretrained)
    return DenseNet(layers=layers, **kwargs)


def densenet121(pretrained: bool = False, **kwargs: Any) -> DenseNet:
    """DenseNet-121; ``pretrained=True`` raises (no weights)."""
    return _densenet(121, pretrained, **kwargs)


def densenet161(pretrained: bool = False, **kwargs: Any) -> DenseNet:
    """DenseNet-161; ``pretrained=True`` raises (no weights)."""
    return _densenet(161, pretrained, **kwargs)


def densenet169(pretrained: bool = False, **kwargs: Any) -> DenseNet:
    """DenseNet-169; ``pretrained=True`` raises (no weights)."""
    return _densenet(169, pretrained, **kwargs)


def densenet201(pretrained: bool = False, **kwargs: Any) -> DenseNet:
    """DenseNet-201; ``pretrained=True`` raises (no weights)."""
    return _densenet(201, pretrained, **kwargs)


def densenet264(pretrained: bool = False, **kwargs: Any) -> DenseNet:
    """DenseNet-264; ``pretrained=True`` raises (no weights)."""
    return _densenet(264, pretrained, **kwargs)
