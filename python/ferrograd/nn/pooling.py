"""Pooling layers in both dialects, each forwarding to ``nn.functional`` (fn_pool.py):
PyTorch's ``MaxPool1d/2d/3d``, ``AvgPool1d/2d/3d``, ``AdaptiveAvgPool1d/2d/3d``,
``AdaptiveMaxPool1d/2d/3d``, ``MaxUnpool1d/2d/3d`` and Paddle's ``MaxPool1D/2D/3D``,
``AvgPool1D/2D/3D``, ``AdaptiveAvgPool1D/2D/3D``, ``AdaptiveMaxPool1D/2D/3D``,
``MaxUnPool1D/2D/3D``, with each dialect's argument order and defaults (Paddle's
``AvgPool`` excludes the padding from the divisor by default, PyTorch's includes it).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Type

from .. import _core
from . import fn_pool
from .module import Module

Tensor = _core.Tensor

_FORMATS = {1: "NCL", 2: "NCHW", 3: "NCDHW"}


class _Pool(Module):
    """Stores its arguments and calls ``fn(x, **args)`` (not public)."""

    _fn = "max_pool"
    _nd = 2

    def __init__(self, **args: Any) -> None:
        super().__init__()
        self._args: Dict[str, Any] = args

    def forward(self, x: Tensor) -> Any:
        """Pools ``x``."""
        fn = getattr(fn_pool, f"{self._fn}{self._nd}d")
        return fn(x, **self._args)

    def extra_repr(self) -> str:
        return ", ".join(f"{k}={v!r}" for k, v in self._args.items())

    def __getattr__(self, name: str) -> Any:
        args = self.__dict__.get("_args")
        if args is not None and name in args:
            return args[name]
        return super().__getattr__(name)


def _classes(nd: int) -> Dict[str, type]:
    fmt = _FORMATS[nd]

    class MaxPoolT(_Pool):
        _fn, _nd = "max_pool", nd

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

    class MaxPoolP(_Pool):
        _fn, _nd = "max_pool", nd

        def __init__(
            self,
            kernel_size: Any,
            stride: Any = None,
            padding: Any = 0,
            return_mask: bool = False,
            ceil_mode: bool = False,
            data_format: str = fmt,
            name: Optional[str] = None,
        ) -> None:
            super().__init__(
                kernel_size=kernel_size, stride=stride, padding=padding, ceil_mode=ceil_mode,
                return_mask=return_mask, data_format=data_format,
            )  # fmt: skip

    class AvgPoolT(_Pool):
        _fn, _nd = "avg_pool", nd

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

    if nd == 1:

        class AvgPoolP(_Pool):
            _fn, _nd = "avg_pool", nd

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
                    kernel_size=kernel_size, stride=stride, padding=padding,
                    ceil_mode=ceil_mode, exclusive=exclusive,
                )  # fmt: skip

    else:

        class AvgPoolP(_Pool):  # type: ignore[no-redef]
            _fn, _nd = "avg_pool", nd

            def __init__(
                self,
                kernel_size: Any,
                stride: Any = None,
                padding: Any = 0,
                ceil_mode: bool = False,
                exclusive: bool = True,
                divisor_override: Optional[int] = None,
                data_format: str = fmt,
                name: Optional[str] = None,
            ) -> None:
                super().__init__(
                    kernel_size=kernel_size, stride=stride, padding=padding,
                    ceil_mode=ceil_mode, exclusive=exclusive,
                    divisor_override=divisor_override, data_format=data_format,
                )  # fmt: skip

    class AdaptiveAvgT(_Pool):
        _fn, _nd = "adaptive_avg_pool", nd

        def __init__(self, output_size: Any) -> None:
            super().__init__(output_size=output_size)

    class AdaptiveAvgP(_Pool):
        _fn, _nd = "adaptive_avg_pool", nd

        def __init__(
            self, output_size: Any, data_format: str = fmt, name: Optional[str] = None
        ) -> None:
            super().__init__(output_size=output_size, data_format=data_format)

    class AdaptiveMaxT(_Pool):
        _fn, _nd = "adaptive_max_pool", nd

        def __init__(self, output_size: Any, return_indices: bool = False) -> None:
            super().__init__(output_size=output_size, return_indices=return_indices)

    class AdaptiveMaxP(_Pool):
        _fn, _nd = "adaptive_max_pool", nd

        def __init__(
            self, output_size: Any, return_mask: bool = False, name: Optional[str] = None
        ) -> None:
            super().__init__(output_size=output_size, return_mask=return_mask)

    class UnpoolT(_Pool):
        _fn, _nd = "max_unpool", nd

        def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0) -> None:
            super().__init__(kernel_size=kernel_size, stride=stride, padding=padding)

        def forward(self, x: Tensor, indices: Tensor, output_size: Any = None) -> Any:  # type: ignore[override]
            """Unpools ``x`` at ``indices``."""
            fn = getattr(fn_pool, f"max_unpool{nd}d")
            return fn(x, indices, output_size=output_size, **self._args)

    class UnpoolP(_Pool):
        _fn, _nd = "max_unpool", nd

        def __init__(
            self,
            kernel_size: Any,
            stride: Any = None,
            padding: Any = 0,
            data_format: str = fmt,
            output_size: Any = None,
            name: Optional[str] = None,
        ) -> None:
            super().__init__(
                kernel_size=kernel_size, stride=stride, padding=padding,
                data_format=data_format, output_size=output_size,
            )  # fmt: skip

        def forward(self, x: Tensor, indices: Tensor) -> Any:  # type: ignore[override]
            """Unpools ``x`` at ``indices``."""
            fn = getattr(fn_pool, f"max_unpool{nd}d")
            return fn(x, indices, **self._args)

    names: Dict[str, Type[_Pool]] = {
        f"MaxPool{nd}d": MaxPoolT,
        f"MaxPool{nd}D": MaxPoolP,
        f"AvgPool{nd}d": AvgPoolT,
        f"AvgPool{nd}D": AvgPoolP,
        f"AdaptiveAvgPool{nd}d": AdaptiveAvgT,
        f"AdaptiveAvgPool{nd}D": AdaptiveAvgP,
        f"AdaptiveMaxPool{nd}d": AdaptiveMaxT,
        f"AdaptiveMaxPool{nd}D": AdaptiveMaxP,
        f"MaxUnpool{nd}d": UnpoolT,
        f"MaxUnPool{nd}D": UnpoolP,
    }
    for n, cls in names.items():
        cls.__name__ = cls.__qualname__ = n
        dialect = "Paddle" if n.endswith("D") else "PyTorch"
        cls.__doc__ = f"{dialect}'s ``nn.{n}`` (see ``nn.functional.{cls._fn}{nd}d``)."
        cls.__module__ = __name__
    return names


_ALL: Dict[str, type] = {}
for _nd in (1, 2, 3):
    _ALL.update(_classes(_nd))

MaxPool1d, MaxPool2d, MaxPool3d = (_ALL[f"MaxPool{n}d"] for n in (1, 2, 3))
MaxPool1D, MaxPool2D, MaxPool3D = (_ALL[f"MaxPool{n}D"] for n in (1, 2, 3))
AvgPool1d, AvgPool2d, AvgPool3d = (_ALL[f"AvgPool{n}d"] for n in (1, 2, 3))
AvgPool1D, AvgPool2D, AvgPool3D = (_ALL[f"AvgPool{n}D"] for n in (1, 2, 3))
AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d = (
    _ALL[f"AdaptiveAvgPool{n}d"] for n in (1, 2, 3)
)
AdaptiveAvgPool1D, AdaptiveAvgPool2D, AdaptiveAvgPool3D = (
    _ALL[f"AdaptiveAvgPool{n}D"] for n in (1, 2, 3)
)
AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d = (
    _ALL[f"AdaptiveMaxPool{n}d"] for n in (1, 2, 3)
)
AdaptiveMaxPool1D, AdaptiveMaxPool2D, AdaptiveMaxPool3D = (
    _ALL[f"AdaptiveMaxPool{n}D"] for n in (1, 2, 3)
)
MaxUnpool1d, MaxUnpool2d, MaxUnpool3d = (_ALL[f"MaxUnpool{n}d"] for n in (1, 2, 3))
MaxUnPool1D, MaxUnPool2D, MaxUnPool3D = (_ALL[f"MaxUnPool{n}D"] for n in (1, 2, 3))

__all__: List[str] = sorted(_ALL)
