"""Pooling layers in both dialects, each forwarding to ``nn.functional`` (fn_pool.py):
PyTorch's ``MaxPool1d/2d/3d``, ``AvgPool1d/2d/3d``, ``AdaptiveAvgPool1d/2d/3d``,
``AdaptiveMaxPool1d/2d/3d``, ``MaxUnpool1d/2d/3d`` and Paddle's ``MaxPool1D/2D/3D``,
``AvgPool1D/2D/3D``, ``AdaptiveAvgPool1D/2D/3D``, ``AdaptiveMaxPool1D/2D/3D``,
``MaxUnPool1D/2D/3D``, with each dialect's argument order and defaults (Paddle's
``AvgPool`` excludes the padding from the divisor by default, PyTorch's includes it).
"""

from __future__ import annotations

from typing import Any, Dict, Optional

from .. import _core
from . import fn_pool
from .module import Module
from .static_build import recording

Tensor = _core.Tensor


class _Pool(Module):
    """Stores its arguments and calls ``fn(x, **args)`` (not public)."""

    _fn = "max_pool"
    _nd = 2

    def __init__(self, **args: Any) -> None:
        super().__init__()
        self._args: Dict[str, Any] = args

    def forward(self, x: Tensor) -> Any:
        """Pools ``x``."""
        name = f"{self._fn}{self._nd}d"
        # a static Variable records through nn.functional's dispatching function
        fn = getattr(fn_pool, name) if isinstance(x, Tensor) else recording(name)
        return fn(x, **self._args)

    def extra_repr(self) -> str:
        return ", ".join(f"{k}={v!r}" for k, v in self._args.items())

    def __getattr__(self, name: str) -> Any:
        args = self.__dict__.get("_args")
        if args is not None and name in args:
            return args[name]
        return super().__getattr__(name)


class _MaxPoolT(_Pool):
    _fn = "max_pool"

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__(
            kernel_size=kernel_size, stride=stride, padding=padding, dilation=dilation,
            ceil_mode=ceil_mode, return_indices=return_indices,
        )  # fmt: skip


class _MaxPoolP(_Pool):
    _fn = "max_pool"

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        return_mask: bool = False,
        ceil_mode: bool = False,
        data_format: Optional[str] = None,
        name: Optional[str] = None,
    ) -> None:
        super().__init__(
            kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
            return_mask=return_mask, data_format=data_format,
        )  # fmt: skip


class _AvgPoolT(_Pool):
    _fn = "avg_pool"

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: Optional[int] = None,
    ) -> None:
        super().__init__(
            kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
            count_include_pad=count_include_pad, divisor_override=divisor_override,
        )  # fmt: skip


class _AvgPoolP(_Pool):
    _fn = "avg_pool"

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        exclusive: bool = True,
        divisor_override: Optional[int] = None,
        data_format: Optional[str] = None,
        name: Optional[str] = None,
    ) -> None:
        super().__init__(
            kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
            exclusive=exclusive, divisor_override=divisor_override, data_format=data_format,
        )  # fmt: skip


class _AdaptiveAvgT(_Pool):
    _fn = "adaptive_avg_pool"

    def __init__(self, output_size: Any) -> None:
        super().__init__(output_size=output_size)


class _AdaptiveAvgP(_Pool):
    _fn = "adaptive_avg_pool"

    def __init__(
        self, output_size: Any, data_format: Optional[str] = None, name: Optional[str] = None
    ) -> None:
        super().__init__(output_size=output_size, data_format=data_format)


class _AdaptiveMaxT(_Pool):
    _fn = "adaptive_max_pool"

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__(output_size=output_size, return_indices=return_indices)


class _AdaptiveMaxP(_Pool):
    _fn = "adaptive_max_pool"

    def __init__(
        self, output_size: Any, return_mask: bool = False, name: Optional[str] = None
    ) -> None:
        super().__init__(output_size=output_size, return_mask=return_mask)


class _UnpoolT(_Pool):
    _fn = "max_unpool"

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
        super().__init__(kernel_size=kernel_size, stride=stride, padding=padding)

    def forward(self, x: Tensor, indices: Tensor, output_size: Any = None) -> Any:  # type: ignore[override]
        """Unpools ``x`` at ``indices``."""
        fn = getattr(fn_pool, f"max_unpool{self._nd}d")
        return fn(x, indices, output_size=output_size, **self._args)


class _UnpoolP(_Pool):
    _fn = "max_unpool"

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        data_format: Optional[str] = None,
        output_size: Any = None,
        name: Optional[str] = None,
    ) -> None:
        super().__init__(
            kernel_size=kernel_size, stride=stride, padding=padding,
            data_format=data_format, output_size=output_size,
        )  # fmt: skip

    def forward(self, x: Tensor, indices: Tensor) -> Any:  # type: ignore[override]
        """Unpools ``x`` at ``indices``."""
        fn = getattr(fn_pool, f"max_unpool{self._nd}d")
        return fn(x, indices, **self._args)


class AvgPool1D(_Pool):
    """Paddle's ``nn.AvgPool1D`` (see ``nn.functional.avg_pool1d``; Paddle's argument order)."""

    _fn, _nd = "avg_pool", 1

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        exclusive: bool = True,
        ceil_mode: bool = False,
        name: Optional[str] = None,
    ) -> None:
        super().__init__(
            kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
            exclusive=exclusive,
        )  # fmt: skip


class MaxPool1d(_MaxPoolT):
    """PyTorch's ``nn.MaxPool1d`` (see ``nn.functional.max_pool1d``)."""

    _nd = 1


class MaxPool1D(_MaxPoolP):
    """Paddle's ``nn.MaxPool1D`` (see ``nn.functional.max_pool1d``)."""

    _nd = 1


class AvgPool1d(_AvgPoolT):
    """PyTorch's ``nn.AvgPool1d`` (see ``nn.functional.avg_pool1d``)."""

    _nd = 1


class AdaptiveAvgPool1d(_AdaptiveAvgT):
    """PyTorch's ``nn.AdaptiveAvgPool1d`` (see ``nn.functional.adaptive_avg_pool1d``)."""

    _nd = 1


class AdaptiveAvgPool1D(_AdaptiveAvgP):
    """Paddle's ``nn.AdaptiveAvgPool1D`` (see ``nn.functional.adaptive_avg_pool1d``)."""

    _nd = 1


class AdaptiveMaxPool1d(_AdaptiveMaxT):
    """PyTorch's ``nn.AdaptiveMaxPool1d`` (see ``nn.functional.adaptive_max_pool1d``)."""

    _nd = 1


class AdaptiveMaxPool1D(_AdaptiveMaxP):
    """Paddle's ``nn.AdaptiveMaxPool1D`` (see ``nn.functional.adaptive_max_pool1d``)."""

    _nd = 1


class MaxUnpool1d(_UnpoolT):
    """PyTorch's ``nn.MaxUnpool1d`` (see ``nn.functional.max_unpool1d``)."""

    _nd = 1


class MaxUnPool1D(_UnpoolP):
    """Paddle's ``nn.MaxUnPool1D`` (see ``nn.functional.max_unpool1d``)."""

    _nd = 1


class MaxPool2d(_MaxPoolT):
    """PyTorch's ``nn.MaxPool2d`` (see ``nn.functional.max_pool2d``)."""

    _nd = 2


class MaxPool2D(_MaxPoolP):
    """Paddle's ``nn.MaxPool2D`` (see ``nn.functional.max_pool2d``)."""

    _nd = 2


class AvgPool2d(_AvgPoolT):
    """PyTorch's ``nn.AvgPool2d`` (see ``nn.functional.avg_pool2d``)."""

    _nd = 2


class AvgPool2D(_AvgPoolP):
    """Paddle's ``nn.AvgPool2D`` (see ``nn.functional.avg_pool2d``)."""

    _nd = 2


class AdaptiveAvgPool2d(_AdaptiveAvgT):
    """PyTorch's ``nn.AdaptiveAvgPool2d`` (see ``nn.functional.adaptive_avg_pool2d``)."""

    _nd = 2


class AdaptiveAvgPool2D(_AdaptiveAvgP):
    """Paddle's ``nn.AdaptiveAvgPool2D`` (see ``nn.functional.adaptive_avg_pool2d``)."""

    _nd = 2


class AdaptiveMaxPool2d(_AdaptiveMaxT):
    """PyTorch's ``nn.AdaptiveMaxPool2d`` (see ``nn.functional.adaptive_max_pool2d``)."""

    _nd = 2


class AdaptiveMaxPool2D(_AdaptiveMaxP):
    """Paddle's ``nn.AdaptiveMaxPool2D`` (see ``nn.functional.adaptive_max_pool2d``)."""

    _nd = 2


class MaxUnpool2d(_UnpoolT):
    """PyTorch's ``nn.MaxUnpool2d`` (see ``nn.functional.max_unpool2d``)."""

    _nd = 2


class MaxUnPool2D(_UnpoolP):
    """Paddle's ``nn.MaxUnPool2D`` (see ``nn.functional.max_unpool2d``)."""

    _nd = 2


class MaxPool3d(_MaxPoolT):
    """PyTorch's ``nn.MaxPool3d`` (see ``nn.functional.max_pool3d``)."""

    _nd = 3


class MaxPool3D(_MaxPoolP):
    """Paddle's ``nn.MaxPool3D`` (see ``nn.functional.max_pool3d``)."""

    _nd = 3


class AvgPool3d(_AvgPoolT):
    """PyTorch's ``nn.AvgPool3d`` (see ``nn.functional.avg_pool3d``)."""

    _nd = 3


class AvgPool3D(_AvgPoolP):
    """Paddle's ``nn.AvgPool3D`` (see ``nn.functional.avg_pool3d``)."""

    _nd = 3


class AdaptiveAvgPool3d(_AdaptiveAvgT):
    """PyTorch's ``nn.AdaptiveAvgPool3d`` (see ``nn.functional.adaptive_avg_pool3d``)."""

    _nd = 3


class AdaptiveAvgPool3D(_AdaptiveAvgP):
    """Paddle's ``nn.AdaptiveAvgPool3D`` (see ``nn.functional.adaptive_avg_pool3d``)."""

    _nd = 3


class AdaptiveMaxPool3d(_AdaptiveMaxT):
    """PyTorch's ``nn.AdaptiveMaxPool3d`` (see ``nn.functional.adaptive_max_pool3d``)."""

    _nd = 3


class AdaptiveMaxPool3D(_AdaptiveMaxP):
    """Paddle's ``nn.AdaptiveMaxPool3D`` (see ``nn.functional.adaptive_max_pool3d``)."""

    _nd = 3


class MaxUnpool3d(_UnpoolT):
    """PyTorch's ``nn.MaxUnpool3d`` (see ``nn.functional.max_unpool3d``)."""

    _nd = 3


class MaxUnPool3D(_UnpoolP):
    """Paddle's ``nn.MaxUnPool3D`` (see ``nn.functional.max_unpool3d``)."""

    _nd = 3


__all__ = [
    "AdaptiveAvgPool1D",
    "AdaptiveAvgPool1d",
    "AdaptiveAvgPool2D",
    "AdaptiveAvgPool2d",
    "AdaptiveAvgPool3D",
    "AdaptiveAvgPool3d",
    "AdaptiveMaxPool1D",
    "AdaptiveMaxPool1d",
    "AdaptiveMaxPool2D",
    "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3D",
    "AdaptiveMaxPool3d",
    "AvgPool1D",
    "AvgPool1d",
    "AvgPool2D",
    "AvgPool2d",
    "AvgPool3D",
    "AvgPool3d",
    "MaxPool1D",
    "MaxPool1d",
    "MaxPool2D",
    "MaxPool2d",
    "MaxPool3D",
    "MaxPool3d",
    "MaxUnPool1D",
    "MaxUnPool2D",
    "MaxUnPool3D",
    "MaxUnpool1d",
    "MaxUnpool2d",
    "MaxUnpool3d",
]
