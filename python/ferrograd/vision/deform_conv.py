"""``paddle.vision.ops.deform_conv2d`` and ``DeformConv2D``: deformable convolution v1 / v2.

Composed of differentiable tensor ops (gradients reach ``x``, ``offset``, ``mask``,
``weight`` and ``bias``): each kernel tap is sampled bilinearly at its offset position
(the four corners gathered with ``take_along_axis``; a corner outside the image reads 0),
scaled by the mask (v2), and the sampled columns are multiplied by the weights, group by
group. Memory is that of an explicit im2col: ``N x C x kH x kW x H_out x W_out``.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Optional

import numpy as np

from .. import ParamAttr, _core, matmul, nn, take_along_axis, to_tensor

__all__ = ["deform_conv2d", "DeformConv2D"]

Tensor = _core.Tensor


def _two(v: Any, name: str) -> tuple[int, int]:
    if isinstance(v, numbers.Integral):
        return int(v), int(v)
    if isinstance(v, (list, tuple)) and len(v) == 2:
        return int(v[0]), int(v[1])
    raise ValueError(f"deform_conv2d: {name} must be an int or a pair, got {v!r}")


def deform_conv2d(
    x: Any,
    offset: Any,
    weight: Any,
    bias: Optional[Any] = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    deformable_groups: int = 1,
    groups: int = 1,
    mask: Optional[Any] = None,
    name: Optional[str] = None,
) -> Any:
    """Deformable convolution as ``paddle.vision.ops.deform_conv2d``.

    ``x`` ``[N, C, H, W]``; ``weight`` ``[M, C / groups, kH, kW]``; ``offset``
    ``[N, 2 * deformable_groups * kH * kW, H_out, W_out]`` holding ``(dy, dx)`` per tap
    (tap ``i * kW + j``, deformable group by group); ``mask`` (v2; None for v1)
    ``[N, deformable_groups * kH * kW, H_out, W_out]``. Returns ``[N, M, H_out, W_out]``.
    """
    sh, sw = _two(stride, "stride")
    ph, pw = _two(padding, "padding")
    dh, dw = _two(dilation, "dilation")
    if len(x.shape) != 4 or len(weight.shape) != 4:
        raise ValueError("deform_conv2d: x must be [N, C, H, W] and weight [M, C/groups, kH, kW]")
    n, c, h, w = (int(s) for s in x.shape)
    m, cg, kh, kw = (int(s) for s in weight.shape)
    k = kh * kw
    dg = int(deformable_groups)
    if c % groups or m % groups or cg * groups != c:
        raise ValueError(
            f"deform_conv2d: weight {list(weight.shape)} does not fit {c} input channels in "
            f"{groups} group(s) (weight.shape[1] * groups must equal C, M divisible by groups)"
        )
    if dg < 1 or c % dg:
        raise ValueError(f"deform_conv2d: deformable_groups ({dg}) must divide C ({c})")
    ho = (h + 2 * ph - (dh * (kh - 1) + 1)) // sh + 1
    wo = (w + 2 * pw - (dw * (kw - 1) + 1)) // sw + 1
    if ho <= 0 or wo <= 0:
        raise ValueError(f"deform_conv2d: output size {ho}x{wo} is empty for input {h}x{w}")
    want = [n, 2 * dg * k, ho, wo]
    if list(offset.shape) != want:
        raise ValueError(f"deform_conv2d: offset must have shape {want}, got {list(offset.shape)}")
    if mask is not None and list(mask.shape) != [n, dg * k, ho, wo]:
        raise ValueError(
            f"deform_conv2d: mask must have shape {[n, dg * k, ho, wo]}, got {list(mask.shape)}"
        )
    # tap positions without offsets: [K, Ho, Wo] each
    ii, jj = np.meshgrid(np.arange(kh), np.arange(kw), indexing="ij")
    base_y = (np.arange(ho) * sh - ph)[None, :, None] + (ii.reshape(-1) * dh)[:, None, None]
    base_x = (np.arange(wo) * sw - pw)[None, None, :] + (jj.reshape(-1) * dw)[:, None, None]
    np_dtype = np.float64 if str(x.dtype).endswith("float64") else np.float32
    off = offset.reshape([n, dg, k, 2, ho, wo])
    y = off[:, :, :, 0] + to_tensor(np.broadcast_to(base_y, (k, ho, wo)).astype(np_dtype))
    xx = off[:, :, :, 1] + to_tensor(np.broadcast_to(base_x, (k, ho, wo)).astype(np_dtype))
    y_np, x_np = y.numpy(), xx.numpy()
    inside = (y_np > -1) & (y_np < h) & (x_np > -1) & (x_np < w)
    y0, x0 = np.floor(y_np), np.floor(x_np)
    ly, lx = y - to_tensor(y0.astype(np_dtype)), xx - to_tensor(x0.astype(np_dtype))
    feat = x.reshape([n, dg, c // dg, h * w])
    sampled: Any = None
    for cy, cx in ((0, 0), (0, 1), (1, 0), (1, 1)):
        yi, xi = y0 + cy, x0 + cx
        ok = inside & (yi >= 0) & (yi < h) & (xi >= 0) & (xi < w)
        flat = np.where(ok, yi * w + xi, 0).astype(np.int64).reshape(n, dg, 1, k * ho * wo)
        idx = to_tensor(np.ascontiguousarray(np.broadcast_to(flat, (n, dg, c // dg, k * ho * wo))))
        vals = take_along_axis(feat, idx, 3).reshape([n, dg, c // dg, k, ho, wo])
        wy = ly if cy else 1.0 - ly
        wx = lx if cx else 1.0 - lx
        wgt = (wy * wx) * to_tensor(ok.astype(np_dtype))  # [N, dg, K, Ho, Wo]
        term = vals * wgt.unsqueeze(2)
        sampled = term if sampled is None else sampled + term
    if mask is not None:
        sampled = sampled * mask.reshape([n, dg, 1, k, ho, wo])
    # columns [N, groups, C/groups * K, Ho*Wo] against weights [groups, M/groups, C/groups * K]
    cols = sampled.reshape([n, groups, cg * k, ho * wo])
    wmat = weight.reshape([groups, m // groups, cg * k])
    out = matmul(wmat.unsqueeze(0), cols).reshape([n, m, ho, wo])
    if bias is not None:
        out = out + bias.reshape([1, m, 1, 1])
    return out


class DeformConv2D(nn.Layer):
    """Layer form of :func:`deform_conv2d`: ``DeformConv2D(in_channels, out_channels,
    kernel_size, stride=1, padding=0, dilation=1, deformable_groups=1, groups=1,
    weight_attr=None, bias_attr=None)``, called as ``layer(x, offset, mask=None)``.

    The weight starts from ``Normal(0, sqrt(2 / (kH * kW * in_channels)))`` as in Paddle.
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        deformable_groups: int = 1,
        groups: int = 1,
        weight_attr: Any = None,
        bias_attr: Any = None,
    ) -> None:
        super().__init__()
        if weight_attr is False:
            raise ValueError("DeformConv2D: weight_attr cannot be False (the layer needs a weight)")
        if in_channels % groups:
            raise ValueError(
                f"DeformConv2D: in_channels ({in_channels}) must be divisible by groups ({groups})"
            )
        self._in_channels, self._out_channels = in_channels, out_channels
        self._kernel_size = _two(kernel_size, "kernel_size")
        self._stride = _two(stride, "stride")
        self._padding = _two(padding, "padding")
        self._dilation = _two(dilation, "dilation")
        self._deformable_groups, self._groups = deformable_groups, groups
        std = math.sqrt(2.0 / (self._kernel_size[0] * self._kernel_size[1] * in_channels))
        if weight_attr is None:
            weight_attr = ParamAttr(initializer=nn.initializer.Normal(0.0, std))
        self.weight = self.create_parameter(
            shape=[out_channels, in_channels // groups, *self._kernel_size], attr=weight_attr
        )
        self.bias = self.create_parameter(shape=[out_channels], attr=bias_attr, is_bias=True)

    def forward(self, x: Any, offset: Any, mask: Optional[Any] = None) -> Any:
        """:func:`deform_conv2d` with the layer's weight, bias and settings."""
        return deform_conv2d(
            x,
            offset,
            self.weight,
            self.bias,
            self._stride,
            self._padding,
            self._dilation,
            self._deformable_groups,
            self._groups,
            mask,
        )
