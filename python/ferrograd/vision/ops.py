"""``paddle.vision.ops``: the conv + norm + activation block the model zoo is built from."""

from __future__ import annotations

from typing import Any, Callable, Optional

from .. import nn

__all__ = ["ConvNormActivation"]


class ConvNormActivation(nn.Sequential):
    """``Conv2D`` then a norm layer then an activation, as ``paddle.vision.ops.ConvNormActivation``.

    Sub-layers are numbered ``0`` (conv), ``1`` (norm, unless ``norm_layer`` is None) and
    then the activation (unless ``activation_layer`` is None), as in Paddle, so the
    parameter names (``0.weight``, ``1._mean`` ...) line up. ``padding`` defaults to
    ``(kernel_size - 1) // 2 * dilation``; the conv has a bias only without a norm layer
    unless ``bias`` says otherwise.
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: int = 3,
        stride: int = 1,
        padding: Optional[int] = None,
        groups: int = 1,
        norm_layer: Optional[Callable[..., Any]] = nn.BatchNorm2D,
        activation_layer: Optional[Callable[..., Any]] = nn.ReLU,
        dilation: int = 1,
        bias: Optional[bool] = None,
    ) -> None:
        if padding is None:
            padding = (kernel_size - 1) // 2 * dilation
        if bias is None:
            bias = norm_layer is None
        layers: list[Any] = [
            nn.Conv2D(
                in_channels,
                out_channels,
                kernel_size,
                stride,
                padding,
                dilation=dilation,
                groups=groups,
                bias_attr=None if bias else False,
            )
        ]
        if norm_layer is not None:
            layers.append(norm_layer(out_channels))
        if activation_layer is not None:
            layers.append(activation_layer())
        super().__init__(*layers)
