"""Layers that rearrange their input: ``Unflatten`` (both peers), ``PixelShuffle`` /
``PixelUnshuffle`` / ``ChannelShuffle`` (both; Paddle's take ``data_format``), and
``Fold`` / ``Unfold`` (col2im / im2col; the peers' argument orders agree). Each forwards
to ``nn.functional``."""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from . import fn_conv as C
from . import fn_shuffle as S
from .module import Module

Tensor = _core.Tensor


class Unflatten(Module):
    """Splits dim ``dim`` (Paddle: ``axis``) into ``unflattened_size`` (Paddle:
    ``shape``); one entry may be -1."""

    def __init__(
        self,
        dim: Any = None,
        unflattened_size: Any = None,
        name: Optional[str] = None,
        *,
        axis: Any = None,
        shape: Any = None,
    ) -> None:
        super().__init__()
        d = axis if dim is None else dim
        sizes = shape if unflattened_size is None else unflattened_size
        if d is None or sizes is None:
            raise TypeError("Unflatten needs the dim (axis) and the sizes (shape)")
        if isinstance(d, bool) or not isinstance(d, int):
            raise TypeError(f"Unflatten: dim must be an int, got {d!r}")
        if isinstance(sizes, Tensor):
            sizes = sizes.tolist()
        if not isinstance(sizes, (list, tuple)) or not all(
            isinstance(s, int) and not isinstance(s, bool) for s in sizes
        ):
            raise TypeError(f"Unflatten: the sizes must be a list or tuple of ints, got {sizes!r}")
        self.dim, self.unflattened_size = d, tuple(sizes)

    def forward(self, x: Tensor) -> Tensor:
        """``x`` with dim ``dim`` split."""
        return x.unflatten(self.dim, list(self.unflattened_size))

    def extra_repr(self) -> str:
        """The dim and the sizes."""
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class PixelShuffle(Module):
    """``[*, C*r*r, H, W]`` -> ``[*, C, H*r, W*r]`` (``F.pixel_shuffle``)."""

    def __init__(
        self, upscale_factor: int, data_format: str = "NCHW", name: Optional[str] = None
    ) -> None:
        super().__init__()
        self.upscale_factor = S._factor(upscale_factor, "PixelShuffle", "upscale_factor")
        S._channels_last(data_format, "PixelShuffle")
        self.data_format = data_format

    def forward(self, x: Tensor) -> Tensor:
        """``x`` shuffled from channels into space."""
        return S.pixel_shuffle(x, self.upscale_factor, self.data_format)

    def extra_repr(self) -> str:
        """The factor."""
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """``[*, C, H*r, W*r]`` -> ``[*, C*r*r, H, W]`` (``F.pixel_unshuffle``)."""

    def __init__(
        self, downscale_factor: int, data_format: str = "NCHW", name: Optional[str] = None
    ) -> None:
        super().__init__()
        self.downscale_factor = S._factor(downscale_factor, "PixelUnshuffle", "downscale_factor")
        S._channels_last(data_format, "PixelUnshuffle")
        self.data_format = data_format

    def forward(self, x: Tensor) -> Tensor:
        """``x`` shuffled from space into channels."""
        return S.pixel_unshuffle(x, self.downscale_factor, self.data_format)

    def extra_repr(self) -> str:
        """The factor."""
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """ShuffleNet's channel shuffle in ``groups`` (``F.channel_shuffle``)."""

    def __init__(self, groups: int, data_format: str = "NCHW", name: Optional[str] = None) -> None:
        super().__init__()
        self.groups = S._factor(groups, "ChannelShuffle", "groups")
        S._channels_last(data_format, "ChannelShuffle")
        self.data_format = data_format

    def forward(self, x: Tensor) -> Tensor:
        """``x`` with its channels shuffled."""
        return S.channel_shuffle(x, self.groups, self.data_format)

    def extra_repr(self) -> str:
        """The group count."""
        return f"groups={self.groups}"


class Unfold(Module):
    """im2col: ``[N, C, H, W]`` -> ``[N, C*kh*kw, L]`` (``F.unfold``). PyTorch's
    ``Unfold(kernel_size, dilation, padding, stride)`` or Paddle's ``Unfold(kernel_sizes,
    dilations, paddings, strides)``."""

    def __init__(
        self,
        kernel_size: Any = None,
        dilation: Any = 1,
        padding: Any = 0,
        stride: Any = 1,
        name: Optional[str] = None,
        *,
        kernel_sizes: Any = None,
        dilations: Any = None,
        paddings: Any = None,
        strides: Any = None,
    ) -> None:
        super().__init__()
        self.kernel_size = kernel_sizes if kernel_sizes is not None else kernel_size
        if self.kernel_size is None:
            raise TypeError("Unfold needs kernel_size (Paddle: kernel_sizes)")
        self.dilation = dilations if dilations is not None else dilation
        self.padding = paddings if paddings is not None else padding
        self.stride = strides if strides is not None else stride

    def forward(self, x: Tensor) -> Tensor:
        """The sliding blocks of ``x`` as columns."""
        return C.unfold(x, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        """The window settings."""
        return (
            f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
            f"padding={self.padding}, stride={self.stride}"
        )


class Fold(Module):
    """col2im: ``[N, C*kh*kw, L]`` -> ``[N, C, *output_size]``, summing overlaps
    (``F.fold``). PyTorch's ``Fold(output_size, kernel_size, dilation, padding, stride)``
    or Paddle's ``Fold(output_sizes, kernel_sizes, dilations, paddings, strides)``."""

    def __init__(
        self,
        output_size: Any = None,
        kernel_size: Any = None,
        dilation: Any = 1,
        padding: Any = 0,
        stride: Any = 1,
        name: Optional[str] = None,
        *,
        output_sizes: Any = None,
        kernel_sizes: Any = None,
        dilations: Any = None,
        paddings: Any = None,
        strides: Any = None,
    ) -> None:
        super().__init__()
        self.output_size = output_sizes if output_sizes is not None else output_size
        self.kernel_size = kernel_sizes if kernel_sizes is not None else kernel_size
        if self.output_size is None or self.kernel_size is None:
            raise TypeError("Fold needs output_size and kernel_size (Paddle: *_sizes)")
        self.dilation = dilations if dilations is not None else dilation
        self.padding = paddings if paddings is not None else padding
        self.stride = strides if strides is not None else stride

    def forward(self, x: Tensor) -> Tensor:
        """The columns of ``x`` summed back into an image."""
        return C.fold(
            x, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride
        )

    def extra_repr(self) -> str:
        """The output size and window settings."""
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
            f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}"
        )


__all__ = ["Unflatten", "PixelShuffle", "PixelUnshuffle", "ChannelShuffle", "Unfold", "Fold"]
