"""``paddle.vision.models.AlexNet`` and ``alexnet`` (224x224 input, no adaptive pooling)."""

from __future__ import annotations

import math
from typing import Any, Optional

from ... import flatten, nn
from ._pretrained import check_pretrained

__all__ = ["AlexNet", "alexnet"]


def _uniform_attr(stdv: float) -> Any:
    """A ParamAttr drawing from U(-stdv, stdv), Paddle's AlexNet initialisation."""
    return nn.ParamAttr(initializer=nn.initializer.Uniform(-stdv, stdv))


class ConvPoolLayer(nn.Layer):
    """Conv2D (+ ReLU when ``act == "relu"``) then a 3x3 stride-2 max-pool."""

    def __init__(
        self,
        input_channels: int,
        output_channels: int,
        filter_size: int,
        stride: int,
        padding: int,
        stdv: float,
        groups: int = 1,
        act: Optional[str] = None,
    ) -> None:
        super().__init__()
        self.relu = nn.ReLU() if act == "relu" else None
        self._conv = nn.Conv2D(
            input_channels,
            output_channels,
            filter_size,
            stride=stride,
            padding=padding,
            groups=groups,
            weight_attr=_uniform_attr(stdv),
            bias_attr=_uniform_attr(stdv),
        )
        self._pool = nn.MaxPool2D(kernel_size=3, stride=2, padding=0)

    def forward(self, inputs: Any) -> Any:
        """Conv, optional ReLU, pool."""
        x = self._conv(inputs)
        if self.relu is not None:
            x = self.relu(x)
        return self._pool(x)


class AlexNet(nn.Layer):
    """AlexNet as ``paddle.vision.models.AlexNet(num_classes=1000)``; sub-layers ``_conv1``
    ... ``_conv5``, ``_fc6`` ... ``_fc8`` as in Paddle. Needs 224x224 inputs with classes.
    """

    def __init__(self, num_classes: int = 1000) -> None:
        super().__init__()
        self.num_classes = num_classes
        self._conv1 = ConvPoolLayer(3, 64, 11, 4, 2, 1.0 / math.sqrt(3 * 11 * 11), act="relu")
        self._conv2 = ConvPoolLayer(64, 192, 5, 1, 2, 1.0 / math.sqrt(64 * 5 * 5), act="relu")
        s3 = 1.0 / math.sqrt(192 * 3 * 3)
        self._conv3 = nn.Conv2D(
            192,
            384,
            3,
            stride=1,
            padding=1,
            weight_attr=_uniform_attr(s3),
            bias_attr=_uniform_attr(s3),
        )
        s4 = 1.0 / math.sqrt(384 * 3 * 3)
        self._conv4 = nn.Conv2D(
            384,
            256,
            3,
            stride=1,
            padding=1,
            weight_attr=_uniform_attr(s4),
            bias_attr=_uniform_attr(s4),
        )
        self._conv5 = ConvPoolLayer(256, 256, 3, 1, 1, 1.0 / math.sqrt(256 * 3 * 3), act="relu")
        self._relu = nn.ReLU()
        if num_classes > 0:
            s6 = 1.0 / math.sqrt(256 * 6 * 6)
            s7 = 1.0 / math.sqrt(4096)
            self._drop1 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc6 = nn.Linear(
                256 * 6 * 6, 4096, weight_attr=_uniform_attr(s6), bias_attr=_uniform_attr(s6)
            )
            self._drop2 = nn.Dropout(p=0.5, mode="downscale_in_infer")
            self._fc7 = nn.Linear(
                4096, 4096, weight_attr=_uniform_attr(s7), bias_attr=_uniform_attr(s7)
            )
            self._fc8 = nn.Linear(
                4096, num_classes, weight_attr=_uniform_attr(s7), bias_attr=_uniform_attr(s7)
            )

    def forward(self, inputs: Any) -> Any:
        """Five conv stages, then (with classes) dropout + three linear layers."""
        x = self._conv2(self._conv1(inputs))
        x = self._relu(self._conv3(x))
        x = self._relu(self._conv4(x))
        x = self._conv5(x)
        if self.num_classes > 0:
            x = flatten(x, 1)
            x = self._relu(self._fc6(self._drop1(x)))
            x = self._relu(self._fc7(self._drop2(x)))
            x = self._fc8(x)
        return x


def alexnet(pretrained: bool = False, **kwargs: Any) -> AlexNet:
    """AlexNet; ``pretrained=True`` raises (no weights)."""
    check_pretrained("alexnet", pretrained)
    return AlexNet(**kwargs)
