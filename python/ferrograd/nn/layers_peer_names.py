"""Paddle's ``nn.Maxout`` and ``nn.Softmax2D`` (session 22); the functions are in
``fn_peer_names.py`` / ``Tensor.softmax``."""

from __future__ import annotations

from typing import Optional

from .. import _core
from .fn_peer_names import maxout
from .module import Module

Tensor = _core.Tensor


class Maxout(Module):
    """Paddle's ``Maxout(groups, axis=1)``: the maximum over runs of ``groups``
    consecutive channels of a 4-D input (``F.maxout``)."""

    def __init__(self, groups: int, axis: int = 1, name: Optional[str] = None) -> None:
        super().__init__()
        self._groups, self._axis = groups, axis

    def forward(self, x: Tensor) -> Tensor:
        """``F.maxout(x, groups, axis)``."""
        return maxout(x, self._groups, self._axis)

    def extra_repr(self) -> str:
        """The groups and axis."""
        return f"groups={self._groups}, axis={self._axis}"


class Softmax2D(Module):
    """Paddle's ``Softmax2D()``: softmax over the channels (dim -3) of a 3-D ``[C, H, W]``
    or 4-D ``[N, C, H, W]`` input."""

    def __init__(self, name: Optional[str] = None) -> None:
        super().__init__()

    def forward(self, x: Tensor) -> Tensor:
        """softmax of ``x`` along dim -3."""
        if not isinstance(x, Tensor) or x.ndim not in (3, 4):
            nd = x.ndim if isinstance(x, Tensor) else type(x).__name__
            raise ValueError(f"Softmax2D requires a 3D or 4D tensor as input. Received: {nd}D.")
        return x.softmax(-3)


__all__ = ["Maxout", "Softmax2D"]
