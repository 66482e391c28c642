"""``paddle.vision.ops``: detection ops and the conv + norm + activation block of the zoo.

Where each lives: ``nms``, ``matrix_nms``, ``box_coder`` in :mod:`.box_ops`;
``roi_align``, ``roi_pool``, ``psroi_pool`` and their layers in :mod:`.roi_ops`;
``deform_conv2d`` / ``DeformConv2D`` in :mod:`.deform_conv`; ``prior_box`` / ``yolo_box``
in :mod:`.anchor_ops`; ``yolo_loss`` in :mod:`.detection_loss`; ``generate_proposals`` /
``distribute_fpn_proposals`` in :mod:`.proposal_ops`; ``read_file`` / ``decode_jpeg`` in
:mod:`.image`. A Paddle name not implemented would raise a clear AttributeError (see
``ferrograd._missing``); today every ``paddle.vision.ops`` name is here.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from .. import nn
from .anchor_ops import prior_box as prior_box
from .anchor_ops import yolo_box as yolo_box
from .box_ops import box_coder as box_coder
from .box_ops import matrix_nms as matrix_nms
from .box_ops import nms as nms
from .deform_conv import DeformConv2D as DeformConv2D
from .deform_conv import deform_conv2d as deform_conv2d
from .detection_loss import yolo_loss as yolo_loss
from .image import decode_jpeg as decode_jpeg
from .image import read_file as read_file
from .proposal_ops import distribute_fpn_proposals as distribute_fpn_proposals
from .proposal_ops import generate_proposals as generate_proposals
from .roi_ops import PSRoIPool as PSRoIPool
from .roi_ops import RoIAlign as RoIAlign
from .roi_ops import RoIPool as RoIPool
from .roi_ops import psroi_pool as psroi_pool
from .roi_ops import roi_align as roi_align
from .roi_ops import roi_pool as roi_pool

__all__ = [
    "ConvNormActivation",
    "nms",
    "box_coder",
    "roi_align",
    "roi_pool",
    "RoIAlign",
    "RoIPool",
    "deform_conv2d",
    "DeformConv2D",
    "psroi_pool",
    "PSRoIPool",
    "prior_box",
    "yolo_box",
    "read_file",
    "decode_jpeg",
    "matrix_nms",
    "generate_proposals",
    "distribute_fpn_proposals",
    "yolo_loss",
]


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


from .._missing import missing_attribute as _missing_attribute  # noqa: E402

# Paddle names not implemented here raise an AttributeError saying so (PEP 562).
__getattr__ = _missing_attribute(__name__)
