"""``paddle.vision.models.VGG`` and ``vgg11`` / ``vgg13`` / ``vgg16`` / ``vgg19``."""

from __future__ import annotations

from typing import Any, Union

from ... import flatten, nn
from ._pretrained import check_pretrained

__all__ = ["VGG", "make_layers", "vgg11", "vgg13", "vgg16", "vgg19"]

_CFGS: dict[str, list[Union[int, str]]] = {
    "A": [64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "B": [64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"],
    "D": [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"],
    "E": [
        64,
        64,
        "M",
        128,
        128,
        "M",
        256,
        256,
        256,
        256,
        "M",
        512,
        512,
        512,
        512,
        "M",
        512,
        512,
        512,
        512,
        "M",
    ],  # fmt: skip
}


class VGG(nn.Layer):
    """VGG as ``paddle.vision.models.VGG(features, num_classes=1000, with_pool=True)``.

    ``features`` is the conv stack (see :func:`make_layers`); ``avgpool`` is an adaptive
    7x7 average pool, so any input of at least 32x32 works; ``classifier`` is the
    4096-4096 MLP with dropout (parameter names ``classifier.0.weight`` ... as in Paddle).
    """

    def __init__(self, features: Any, num_classes: int = 1000, with_pool: bool = True) -> None:
        super().__init__()
        self.features = features
        self.num_classes = num_classes
        self.with_pool = with_pool
        if with_pool:
            self.avgpool = nn.AdaptiveAvgPool2D((7, 7))
        if num_classes > 0:
            self.classifier = nn.Sequential(
                nn.Linear(512 * 7 * 7, 4096),
                nn.ReLU(),
                nn.Dropout(),
                nn.Linear(4096, 4096),
                nn.ReLU(),
                nn.Dropout(),
                nn.Linear(4096, num_classes),
            )

    def forward(self, x: Any) -> Any:
        """Conv stack, pooling and (with classes) the classifier."""
        x = self.features(x)
        if self.with_pool:
            x = self.avgpool(x)
        if self.num_classes > 0:
            x = flatten(x, 1)
            x = self.classifier(x)
        return x


def make_layers(cfg: list[Union[int, str]], batch_norm: bool = False) -> Any:
    """The VGG conv stack: an int is a 3x3 conv (+ BatchNorm) + ReLU, ``"M"`` a 2x2 max-pool."""
    layers: list[Any] = []
    in_channels = 3
    for v in cfg:
        if v == "M":
            layers.append(nn.MaxPool2D(kernel_size=2, stride=2))
        else:
            assert isinstance(v, int)
            layers.append(nn.Conv2D(in_channels, v, kernel_size=3, padding=1))
            if batch_norm:
                layers.append(nn.BatchNorm2D(v))
            layers.append(nn.ReLU())
            in_channels = v
    return nn.Sequential(*layers)


def _vgg(arch: str, cfg: str, batch_norm: bool, pretrained: bool, **kwargs: Any) -> VGG:
    check_pretrained(arch + ("_bn" if batch_norm else ""), pretrained)
    return VGG(make_layers(_CFGS[cfg], batch_norm=batch_norm), **kwargs)


def vgg11(pretrained: bool = False, batch_norm: bool = False, **kwargs: Any) -> VGG:
    """VGG-11 (configuration A); ``pretrained=True`` raises (no weights)."""
    return _vgg("vgg11", "A", batch_norm, pretrained, **kwargs)


def vgg13(pretrained: bool = False, batch_norm: bool = False, **kwargs: Any) -> VGG:
    """VGG-13 (configuration B); ``pretrained=True`` raises (no weights)."""
    return _vgg("vgg13", "B", batch_norm, pretrained, **kwargs)


def vgg16(pretrained: bool = False, batch_norm: bool = False, **kwargs: Any) -> VGG:
    """VGG-16 (configuration D); ``pretrained=True`` raises (no weights)."""
    return _vgg("vgg16", "D", batch_norm, pretrained, **kwargs)


def vgg19(pretrained: bool = False, batch_norm: bool = False, **kwargs: Any) -> VGG:
    """VGG-19 (configuration E); ``pretrained=True`` raises (no weights)."""
    return _vgg("vgg19", "E", batch_norm, pretrained, **kwargs)
