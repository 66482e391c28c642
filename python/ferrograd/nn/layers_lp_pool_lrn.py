"""Power-average pooling layers (PyTorch ``LPPool1d/2d/3d(norm_type, kernel_size,
stride, ceil_mode)``, Paddle ``LPPool1D/2D(norm_type, kernel_size, stride, padding,
ceil_mode, data_format)``) and ``LocalResponseNorm`` (both peers), over
``nn.fn_lp_pool_lrn``."""

from __future__ import annotations

from typing import Any, Optional

from .. import _core
from . import fn_lp_pool_lrn as L
from .module import Module

Tensor = _core.Tensor


class _LPPool(Module):
    _nd = 1

    def __init__(
        self,
        norm_type: float,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        data_format: Optional[str] = None,
        name: Optional[str] = None,
    ) -> None:
        super().__init__()
        if isinstance(padding, bool):  # PyTorch's fourth argument is ceil_mode
            padding, ceil_mode = 0, padding
        if isinstance(norm_type, bool) or not isinstance(norm_type, (int, float)) or norm_type == 0:
            raise ValueError(
                f"{type(self).__name__}: norm_type must be a non-zero number, got {norm_type!r}"
            )
        self.norm_type, self.kernel_size, self.stride = norm_type, kernel_size, stride
        self.padding, self.ceil_mode, self.data_format = padding, bool(ceil_mode), data_format

    def forward(self, x: Tensor) -> Tensor:
        """``x`` pooled."""
        return L._lp_pool(
            self._nd,
            x,
            self.norm_type,
            self.kernel_size,
            self.stride,
            self.padding,
            self.ceil_mode,
            self.data_format,
        )

    def extra_repr(self) -> str:
        """The pooling settings."""
        return (
            f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}, ceil_mode={self.ceil_mode}"
        )


class LPPool1d(_LPPool):
    """Power-average pooling over ``[N, C, L]`` (``F.lp_pool1d``)."""

    _nd = 1


class LPPool2d(_LPPool):
    """Power-average pooling over ``[N, C, H, W]`` (``F.lp_pool2d``)."""

    _nd = 2


class LPPool3d(_LPPool):
    """Power-average pooling over ``[N, C, D, H, W]`` (``F.lp_pool3d``)."""

    _nd = 3


class LPPool1D(LPPool1d):
    """Paddle's name for :class:`LPPool1d` (``padding``, ``data_format`` too)."""


class LPPool2D(LPPool2d):
    """Paddle's name for :class:`LPPool2d` (``padding``, ``data_format`` too)."""


class LocalResponseNorm(Module):
    """Local response normalisation across channels (``F.local_response_norm``):
    ``LocalResponseNorm(size, alpha=1e-4, beta=0.75, k=1.0)``, Paddle's
    ``data_format`` too."""

    def __init__(
        self,
        size: int,
        alpha: float = 1e-4,
        beta: float = 0.75,
        k: float = 1.0,
        data_format: Optional[str] = None,
        name: Optional[str] = None,
    ) -> None:
        super().__init__()
        if isinstance(size, bool) or not isinstance(size, int) or size < 1:
            raise ValueError(f"LocalResponseNorm: size must be a positive int, got {size!r}")
        self.size, self.alpha, self.beta, self.k = size, float(alpha), float(beta), float(k)
        self.data_format = data_format

    def forward(self, x: Tensor) -> Tensor:
        """``x`` normalised by its neighbouring channels."""
        return L.local_response_norm(x, self.size, self.alpha, self.beta, self.k, self.data_format)

    def extra_repr(self) -> str:
        """The settings."""
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


__all__ = ["LPPool1d", "LPPool2d", "LPPool3d", "LPPool1D", "LPPool2D", "LocalResponseNorm"]
