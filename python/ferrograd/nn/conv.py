"""Convolution layers: PyTorch's ``Conv1d/2d/3d``, ``ConvTranspose1d/2d/3d`` and
Paddle's ``Conv1D/2D/3D``, ``Conv1DTranspose/2DTranspose/3DTranspose``.

Weights use the peers' layouts (``[out, in/groups, *k]``; transposed:
``[in, out/groups, *k]``). PyTorch's classes start as PyTorch's do:
``kaiming_uniform_(a=sqrt(5))``, i.e. uniform in ``±1/sqrt(fan_in)``, the bias too.
Paddle's classes start as Paddle 3.3's (python/paddle/nn/layer/conv.py ``_ConvNd``): the
weight ``Normal(0, sqrt(2 / (in_channels * prod(kernel_size))))`` (all input channels,
whatever ``groups``), Xavier-uniform for the transposed ones (``create_parameter``'s
default), and a zero bias; an initializer in ``weight_attr`` / ``bias_attr`` wins.
``padding_mode`` other than ``"zeros"`` (``"reflect"``, ``"replicate"``, ``"circular"``)
pads explicitly, then convolves without padding.
"""

from __future__ import annotations

import math
from typing import Any, Optional

from .. import _core
from . import _window as W
from . import fn_conv, init
from .module import Module
from .param_attr import apply_param_attr
from .parameter import Parameter
from .static_build import recording, unsupported

Tensor = _core.Tensor

_FORMATS = {1: "NCL", 2: "NCHW", 3: "NCDHW"}


class _ConvNd(Module):
    """Shared body of the convolution layers (not public)."""

    _nd = 2
    _transposed = False
    _paddle_init = False  # Paddle's default initial values (its classes)

    def _setup(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any,
        padding: Any,
        dilation: Any,
        groups: int,
        bias: bool,
        padding_mode: str,
        output_padding: Any = 0,
        dtype: Any = None,
        weight_attr: Any = None,
        bias_attr: Any = None,
        data_format: Optional[str] = None,
    ) -> None:
        nd, name = self._nd, type(self).__name__
        for what, v in (("in_channels", in_channels), ("out_channels", out_channels)):
            if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
                raise ValueError(f"{name}: {what} must be a positive int, got {v!r}")
        if isinstance(groups, bool) or not isinstance(groups, int) or groups <= 0:
            raise ValueError(f"{name}: groups must be a positive int, got {groups!r}")
        if in_channels % groups or out_channels % groups:
            raise ValueError(
                f"{name}: in_channels ({in_channels}) and out_channels ({out_channels}) must "
                f"both be divisible by groups ({groups})"
            )
        if padding_mode not in ("zeros", "reflect", "replicate", "circular"):
            raise ValueError(
                f"{name}: padding_mode must be 'zeros', 'reflect', 'replicate' or 'circular', "
                f"got {padding_mode!r}"
            )
        if self._transposed and padding_mode != "zeros":
            raise ValueError(
                f"{name}: only padding_mode='zeros' is supported, got {padding_mode!r}"
            )
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size = tuple(W.ints(kernel_size, nd, "kernel_size", name))
        self.stride = tuple(W.ints(stride, nd, "stride", name))
        self.dilation = tuple(W.ints(dilation, nd, "dilation", name))
        self.padding = padding if isinstance(padding, str) else padding
        self.output_padding = output_padding
        self.padding_mode = padding_mode
        self.data_format = data_format or _FORMATS[nd]
        W.is_channels_last(self.data_format, nd, name)
        if isinstance(padding, str) and padding.lower() == "same" and self._transposed:
            raise ValueError(f"{name}: padding='same' is not supported for a transposed conv")
        d = dtype if dtype is not None else _core._get_default_dtype()
        if self._transposed:
            shape = [in_channels, out_channels // groups, *self.kernel_size]
        else:
            shape = [out_channels, in_channels // groups, *self.kernel_size]
        self.weight = Parameter(_core.empty(shape, dtype=d))
        if bias and bias_attr is not False:
            self.bias = Parameter(_core.empty([out_channels], dtype=d))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()
        apply_param_attr(self.weight, weight_attr)
        if self.bias is not None:
            apply_param_attr(self.bias, bias_attr, is_bias=True)

    def reset_parameters(self) -> None:
        """Draws fresh initial values (from ferrograd's seeded generator) as PyTorch does,
        or, for Paddle's classes, as Paddle does (see the module docstring)."""
        if self._paddle_init:
            if self._transposed:
                init.xavier_uniform_(self.weight)
            else:
                fan = self.in_channels * math.prod(self.kernel_size)
                init.normal_(self.weight, 0.0, math.sqrt(2.0 / fan) if fan > 0 else 0.0)
            if self.bias is not None:
                init.zeros_(self.bias)
            return
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1] * math.prod(self.kernel_size)
            bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0
            init.uniform_(self.bias, -bound, bound)

    def _mode_padded(self, x: Tensor) -> Any:
        """(input, padding) with a non-zeros padding_mode applied explicitly."""
        if self.padding_mode == "zeros":
            return x, self.padding
        nd, name = self._nd, type(self).__name__
        last = W.is_channels_last(self.data_format, nd, name)
        unbatched = W.check_input(x, nd, name)
        xb = x.unsqueeze(0) if unbatched else x
        xb = W.to_channels_first(xb, nd) if last else xb
        k = list(self.kernel_size)
        lo, hi = W.padding(
            self.padding, nd, name, list(xb.shape[2:]), k, list(self.stride),
            list(self.dilation), last,
        )  # fmt: skip
        xb = W.pad_mode(xb, nd, lo, hi, self.padding_mode, name)
        xb = W.to_channels_last(xb, nd) if last else xb
        return (xb.squeeze(0) if unbatched else xb), 0

    def forward(self, x: Tensor, output_size: Any = None) -> Tensor:
        """The convolution of ``x`` with this layer's weight and bias."""
        # a static Variable records through nn.functional's dispatching function
        eager = isinstance(x, Tensor)
        if self._transposed:
            name = f"conv_transpose{self._nd}d"
            fn = getattr(fn_conv, name) if eager else recording(name)
            return fn(
                x, self.weight, self.bias, self.stride, self.padding, self.output_padding,
                self.groups, self.dilation, output_size, self.data_format,
            )  # fmt: skip
        if output_size is not None:
            raise TypeError(f"{type(self).__name__}.forward takes no output_size")
        if not eager and self.padding_mode != "zeros":
            raise unsupported(
                self, f"padding_mode={self.padding_mode!r} is not recorded",
                f"pad with F.pad(x, ..., mode={self.padding_mode!r}) and use padding=0",
            )  # fmt: skip
        x, pad = self._mode_padded(x) if eager else (x, self.padding)
        fn = getattr(fn_conv, f"conv{self._nd}d") if eager else recording(f"conv{self._nd}d")
        return fn(
            x, self.weight, self.bias, self.stride, pad, self.dilation, self.groups,
            self.data_format,
        )  # fmt: skip

    def extra_repr(self) -> str:
        s = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        if self.padding not in (0, "valid"):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * self._nd:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode!r}"
        return s


class _TorchConv(_ConvNd):
    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self._setup(
            in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
            bias, padding_mode, dtype=dtype,
        )  # fmt: skip


class _PaddleConv(_ConvNd):
    _paddle_init = True

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        padding_mode: str = "zeros",
        weight_attr: Any = None,
        bias_attr: Any = None,
        data_format: Optional[str] = None,
    ) -> None:
        super().__init__()
        self._setup(
            in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
            True, padding_mode, weight_attr=weight_attr, bias_attr=bias_attr,
            data_format=data_format,
        )  # fmt: skip


class _TorchTranspose(_ConvNd):
    _transposed = True

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Any = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self._setup(
            in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
            bias, padding_mode, output_padding=output_padding, dtype=dtype,
        )  # fmt: skip


class _PaddleTranspose(_ConvNd):
    _transposed = True
    _paddle_init = True

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        dilation: Any = 1,
        weight_attr: Any = None,
        bias_attr: Any = None,
        data_format: Optional[str] = None,
    ) -> None:
        super().__init__()
        self._setup(
            in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
            True, "zeros", output_padding=output_padding, weight_attr=weight_attr,
            bias_attr=bias_attr, data_format=data_format,
        )  # fmt: skip


class Conv1d(_TorchConv):
    """PyTorch's ``nn.Conv1d``: weight ``[out, in/groups, *kernel_size]``, bias ``[out]``; ``padding`` an int, ints, ``'same'`` or ``'valid'``."""

    _nd = 1


class Conv2d(_TorchConv):
    """PyTorch's ``nn.Conv2d``: weight ``[out, in/groups, *kernel_size]``, bias ``[out]``; ``padding`` an int, ints, ``'same'`` or ``'valid'``."""

    _nd = 2


class Conv3d(_TorchConv):
    """PyTorch's ``nn.Conv3d``: weight ``[out, in/groups, *kernel_size]``, bias ``[out]``; ``padding`` an int, ints, ``'same'`` or ``'valid'``."""

    _nd = 3


class Conv1D(_PaddleConv):
    """Paddle's ``nn.Conv1D``: weight ``[out, in/groups, *kernel_size]``; ``bias_attr=False`` leaves the bias out; ``data_format`` channels first or last."""

    _nd = 1


class Conv2D(_PaddleConv):
    """Paddle's ``nn.Conv2D``: weight ``[out, in/groups, *kernel_size]``; ``bias_attr=False`` leaves the bias out; ``data_format`` channels first or last."""

    _nd = 2


class Conv3D(_PaddleConv):
    """Paddle's ``nn.Conv3D``: weight ``[out, in/groups, *kernel_size]``; ``bias_attr=False`` leaves the bias out; ``data_format`` channels first or last."""

    _nd = 3


class ConvTranspose1d(_TorchTranspose):
    """PyTorch's ``nn.ConvTranspose1d``: weight ``[in, out/groups, *kernel_size]``; ``forward(x, output_size=None)``."""

    _nd = 1


class ConvTranspose2d(_TorchTranspose):
    """PyTorch's ``nn.ConvTranspose2d``: weight ``[in, out/groups, *kernel_size]``; ``forward(x, output_size=None)``."""

    _nd = 2


class ConvTranspose3d(_TorchTranspose):
    """PyTorch's ``nn.ConvTranspose3d``: weight ``[in, out/groups, *kernel_size]``; ``forward(x, output_size=None)``."""

    _nd = 3


class Conv1DTranspose(_PaddleTranspose):
    """Paddle's ``nn.Conv1DTranspose``: weight ``[in, out/groups, *kernel_size]``; ``forward(x, output_size=None)``."""

    _nd = 1


class Conv2DTranspose(_PaddleTranspose):
    """Paddle's ``nn.Conv2DTranspose``: weight ``[in, out/groups, *kernel_size]``; ``forward(x, output_size=None)``."""

    _nd = 2


class Conv3DTranspose(_PaddleTranspose):
    """Paddle's ``nn.Conv3DTranspose``: weight ``[in, out/groups, *kernel_size]``; ``forward(x, output_size=None)``."""

    _nd = 3


__all__ = [
    "Conv1d",
    "Conv2d",
    "Conv3d",
    "Conv1D",
    "Conv2D",
    "Conv3D",
    "ConvTranspose1d",
    "ConvTranspose2d",
    "ConvTranspose3d",
    "Conv1DTranspose",
    "Conv2DTranspose",
    "Conv3DTranspose",
]
