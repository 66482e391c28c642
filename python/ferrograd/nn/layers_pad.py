"""Padding layers over ``F.pad``, in both dialects.

PyTorch: ``ZeroPad1d/2d/3d``, ``ConstantPad1d/2d/3d(padding, value)``,
``ReflectionPad1d/2d/3d``, ``ReplicationPad1d/2d/3d``, ``CircularPad1d/2d/3d``; the
padding is an int (every side) or ``2 * k`` ints ``(left, right, top, bottom, front,
back)`` from the last dimension backwards, and the input is batched ``[N, C, *spatial]``
or not ``[C, *spatial]``. Paddle: ``Pad1D/Pad2D/Pad3D(padding, mode, value,
data_format)`` and ``ZeroPad1D/2D/3D(padding, data_format)``, the same padding order
over the spatial dims of an ``NC*`` (or channels-last) input.
"""

from __future__ import annotations

import operator
from typing import Any, Optional

from .. import _core
from .fn_pad import pad
from .module import Module

Tensor = _core.Tensor

_PADDLE_FORMATS = {1: ("NCL", "NLC"), 2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}


def _padding_list(padding: Any, k: int, what: str) -> list[int]:
    """An int (all ``2 * k`` sides) or ``2 * k`` ints, as a list."""
    if isinstance(padding, Tensor):
        padding = padding.tolist()
    if isinstance(padding, bool):
        raise TypeError(f"{what}: padding must be an int or {2 * k} ints, got {padding!r}")
    if isinstance(padding, int):
        return [padding] * (2 * k)
    try:
        pads = [operator.index(p) for p in padding]
    except TypeError:
        raise TypeError(
            f"{what}: padding must be an int or {2 * k} ints, got {padding!r}"
        ) from None
    if len(pads) != 2 * k:
        raise ValueError(
            f"{what}: padding needs {2 * k} ints (or one int), got {len(pads)}: {pads}"
        )
    return pads


class _TorchPad(Module):
    """PyTorch's ``*PadNd``: ``k`` spatial dims, a fixed mode."""

    _k = 1
    _mode = "constant"

    def __init__(self, padding: Any, value: float = 0.0) -> None:
        super().__init__()
        self.padding = tuple(_padding_list(padding, self._k, type(self).__name__))
        self.value = float(value)

    def forward(self, x: Tensor) -> Tensor:
        """``x`` padded (its last ``k`` dims)."""
        k = self._k
        what = type(self).__name__
        if not isinstance(x, Tensor):
            raise TypeError(f"{what}: expects a Tensor, got {type(x).__name__}")
        if self._mode == "constant":
            if x.ndim < k:
                raise ValueError(
                    f"{what}: expects at least {k} dimension(s), got shape {list(x.shape)}"
                )
        elif x.ndim not in (k + 1, k + 2):
            raise ValueError(
                f"{what}: expects a {k + 1}-D (unbatched) or {k + 2}-D (batched) input, got "
                f"shape {list(x.shape)}"
            )
        return pad(x, list(self.padding), self._mode, self.value, pad_from_left_axis=False)

    def extra_repr(self) -> str:
        """The padding (and value)."""
        extra = f", value={self.value}" if type(self).__name__.startswith("Constant") else ""
        return f"{self.padding}{extra}"


class ZeroPad1d(_TorchPad):
    """PyTorch's ``ZeroPad1d``: pads the last 1 dim(s) with zeros."""

    _k = 1

    def __init__(self, padding: Any) -> None:
        super().__init__(padding)


class ZeroPad2d(_TorchPad):
    """PyTorch's ``ZeroPad2d``: pads the last 2 dim(s) with zeros."""

    _k = 2

    def __init__(self, padding: Any) -> None:
        super().__init__(padding)


class ZeroPad3d(_TorchPad):
    """PyTorch's ``ZeroPad3d``: pads the last 3 dim(s) with zeros."""

    _k = 3

    def __init__(self, padding: Any) -> None:
        super().__init__(padding)


class ConstantPad1d(_TorchPad):
    """PyTorch's ``ConstantPad1d``: pads the last 1 dim(s) with ``value``."""

    _k = 1

    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding, value)


class ConstantPad2d(_TorchPad):
    """PyTorch's ``ConstantPad2d``: pads the last 2 dim(s) with ``value``."""

    _k = 2

    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding, value)


class ConstantPad3d(_TorchPad):
    """PyTorch's ``ConstantPad3d``: pads the last 3 dim(s) with ``value``."""

    _k = 3

    def __init__(self, padding: Any, value: float) -> None:
        super().__init__(padding, value)


class ReflectionPad1d(_TorchPad):
    """PyTorch's ``ReflectionPad1d``: pads the last 1 dim(s) with the input mirrored at its edges (the edge not repeated)."""

    _k = 1
    _mode = "reflect"


class ReflectionPad2d(_TorchPad):
    """PyTorch's ``ReflectionPad2d``: pads the last 2 dim(s) with the input mirrored at its edges (the edge not repeated)."""

    _k = 2
    _mode = "reflect"


class ReflectionPad3d(_TorchPad):
    """PyTorch's ``ReflectionPad3d``: pads the last 3 dim(s) with the input mirrored at its edges (the edge not repeated)."""

    _k = 3
    _mode = "reflect"


class ReplicationPad1d(_TorchPad):
    """PyTorch's ``ReplicationPad1d``: pads the last 1 dim(s) with the edge values repeated."""

    _k = 1
    _mode = "replicate"


class ReplicationPad2d(_TorchPad):
    """PyTorch's ``ReplicationPad2d``: pads the last 2 dim(s) with the edge values repeated."""

    _k = 2
    _mode = "replicate"


class ReplicationPad3d(_TorchPad):
    """PyTorch's ``ReplicationPad3d``: pads the last 3 dim(s) with the edge values repeated."""

    _k = 3
    _mode = "replicate"


class CircularPad1d(_TorchPad):
    """PyTorch's ``CircularPad1d``: pads the last 1 dim(s) with the input wrapped around."""

    _k = 1
    _mode = "circular"


class CircularPad2d(_TorchPad):
    """PyTorch's ``CircularPad2d``: pads the last 2 dim(s) with the input wrapped around."""

    _k = 2
    _mode = "circular"


class CircularPad3d(_TorchPad):
    """PyTorch's ``CircularPad3d``: pads the last 3 dim(s) with the input wrapped around."""

    _k = 3
    _mode = "circular"


class _PaddlePad(Module):
    """Paddle's ``PadND(padding, mode, value, data_format)`` for ``k`` spatial dims."""

    _k = 1

    def __init__(
        self,
        padding: Any,
        mode: str = "constant",
        value: float = 0.0,
        data_format: Optional[str] = None,
        name: Optional[str] = None,
    ) -> None:
        super().__init__()
        what = type(self).__name__
        formats = _PADDLE_FORMATS[self._k]
        data_format = formats[0] if data_format is None else data_format
        if data_format not in formats:
            raise ValueError(f"{what}: data_format must be one of {formats}, got {data_format!r}")
        if mode not in ("constant", "reflect", "replicate", "circular"):
            raise ValueError(
                f"{what}: mode must be 'constant', 'reflect', 'replicate' or 'circular', "
                f"got {mode!r}"
            )
        self.padding = _padding_list(padding, self._k, what)
        self.mode, self.value, self.data_format = mode, float(value), data_format

    def forward(self, x: Tensor) -> Tensor:
        """``x`` padded over its spatial dims."""
        what = type(self).__name__
        if not isinstance(x, Tensor) or x.ndim != self._k + 2:
            shape = list(x.shape) if isinstance(x, Tensor) else type(x).__name__
            raise ValueError(
                f"{what}: expects a {self._k + 2}-D {self.data_format} input, got {shape}"
            )
        return pad(x, self.padding, self.mode, self.value, self.data_format)

    def extra_repr(self) -> str:
        """The padding, mode, value and layout."""
        return (
            f"padding={self.padding}, mode={self.mode!r}, value={self.value}, "
            f"data_format={self.data_format!r}"
        )


class Pad1D(_PaddlePad):
    """Paddle's ``Pad1D(padding, mode, value, data_format='NCL')``: ``padding`` an int or
    ``[left, right]``."""

    _k = 1


class Pad2D(_PaddlePad):
    """Paddle's ``Pad2D(padding, mode, value, data_format='NCHW')``: ``padding`` an int or
    ``[left, right, top, bottom]``."""

    _k = 2


class Pad3D(_PaddlePad):
    """Paddle's ``Pad3D(padding, mode, value, data_format='NCDHW')``: ``padding`` an int or
    ``[left, right, top, bottom, front, back]``."""

    _k = 3


class ZeroPad1D(_PaddlePad):
    """Paddle's ``ZeroPad1D(padding, data_format='NCL')``: zeros on the length dim."""

    _k = 1

    def __init__(
        self, padding: Any, data_format: Optional[str] = None, name: Optional[str] = None
    ) -> None:
        super().__init__(padding, "constant", 0.0, data_format)


class ZeroPad2D(_PaddlePad):
    """Paddle's ``ZeroPad2D(padding, data_format='NCHW')``: ``[left, right, top,
    bottom]`` zeros."""

    _k = 2

    def __init__(
        self, padding: Any, data_format: Optional[str] = None, name: Optional[str] = None
    ) -> None:
        super().__init__(padding, "constant", 0.0, data_format)


class ZeroPad3D(_PaddlePad):
    """Paddle's ``ZeroPad3D(padding, data_format='NCDHW')``: zeros on the three spatial
    dims."""

    _k = 3

    def __init__(
        self, padding: Any, data_format: Optional[str] = None, name: Optional[str] = None
    ) -> None:
        super().__init__(padding, "constant", 0.0, data_format)


__all__ = [
    "ZeroPad1d", "ZeroPad2d", "ZeroPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d",
    "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d",
    "Pad1D", "Pad2D", "Pad3D", "ZeroPad1D", "ZeroPad2D", "ZeroPad3D",
]  # fmt: skip
