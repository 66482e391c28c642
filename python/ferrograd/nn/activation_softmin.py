"""``nn.Softmin`` (softmax of ``-x``) and PyTorch's ``nn.Softmax2d`` (softmax over the
channels of ``[N, C, H, W]`` / ``[C, H, W]``)."""

from __future__ import annotations

from typing import Optional

from .. import _core
from .fn_softmax_variants import _dim, softmin
from .module import Module

Tensor = _core.Tensor


class Softmin(Module):
    """``softmax(-x)`` along ``dim`` (Paddle-style ``axis=`` too; default the last, as
    ferrograd's ``nn.Softmax``)."""

    def __init__(self, dim: Optional[int] = None, *, axis: Optional[int] = None) -> None:
        super().__init__()
        self.dim = _dim(dim, axis, "Softmin")

    def forward(self, x: Tensor) -> Tensor:
        """softmin of ``x``."""
        return softmin(x, self.dim)

    def extra_repr(self) -> str:
        """The dim."""
        return f"dim={self.dim}"


class Softmax2d(Module):
    """PyTorch's ``Softmax2d``: softmax over the channel dim of a 3-D or 4-D input."""

    def forward(self, x: Tensor) -> Tensor:
        """softmax of ``x`` over its channels (dim -3)."""
        if not isinstance(x, Tensor) or x.ndim not in (3, 4):
            shape = list(x.shape) if isinstance(x, Tensor) else type(x).__name__
            raise ValueError(f"Softmax2d: expects a 3-D or 4-D input, got {shape}")
        return x.softmax(-3)


__all__ = ["Softmin", "Softmax2d"]
