"""Resizing layers: ``Upsample`` (both peers) and the fixed-mode variants
``UpsamplingNearest2d`` / ``UpsamplingBilinear2d`` (PyTorch) and
``UpsamplingNearest2D`` / ``UpsamplingBilinear2D`` (Paddle). Each forwards to
``F.interpolate``."""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from .fn_pad import interpolate
from .module import Module

Tensor = _core.Tensor


class Upsample(Module):
    """``F.interpolate(x, size, scale_factor, mode, align_corners, ...)`` as a layer."""

    def __init__(
        self,
        size: Any = None,
        scale_factor: Any = None,
        mode: str = "nearest",
        align_corners: Optional[bool] = None,
        align_mode: int = 0,
        data_format: Optional[str] = None,
        recompute_scale_factor: Optional[bool] = None,
        name: Optional[str] = None,
    ) -> None:
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.align_mode = align_corners, align_mode
        self.data_format, self.recompute_scale_factor = data_format, recompute_scale_factor

    def forward(self, x: Tensor) -> Tensor:
        """``x`` resized."""
        return interpolate(
            x,
            self.size,
            self.scale_factor,
            self.mode,
            self.align_corners,
            self.align_mode,
            self.data_format,
            self.recompute_scale_factor,
        )

    def extra_repr(self) -> str:
        """The resize settings."""
        what = f"size={self.size}" if self.size is not None else f"scale_factor={self.scale_factor}"
        return f"{what}, mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    """2-D nearest upsampling (PyTorch ``UpsamplingNearest2d``, Paddle ``UpsamplingNearest2D``)."""

    def __init__(
        self,
        size: Any = None,
        scale_factor: Any = None,
        data_format: Optional[str] = None,
        name: Optional[str] = None,
    ) -> None:
        super().__init__(size, scale_factor, "nearest", data_format=data_format)


class UpsamplingBilinear2d(Upsample):
    """2-D bilinear upsampling with ``align_corners=True`` (PyTorch
    ``UpsamplingBilinear2d``, Paddle ``UpsamplingBilinear2D``)."""

    def __init__(
        self,
        size: Any = None,
        scale_factor: Any = None,
        data_format: Optional[str] = None,
        name: Optional[str] = None,
    ) -> None:
        super().__init__(size, scale_factor, "bilinear", True, data_format=data_format)


UpsamplingNearest2D = UpsamplingNearest2d
UpsamplingBilinear2D = UpsamplingBilinear2d
