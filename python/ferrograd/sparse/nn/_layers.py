"""Paddle's sparse layers: ``sparse.nn.Conv3D`` / ``SubmConv3D`` / ``Conv2D`` /
``SubmConv2D`` (weights [*kernel, in, out], channels-last COO inputs), ``MaxPool3D``
and ``BatchNorm`` (batch norm of the stored values, [nnz, C])."""

from __future__ import annotations

import math
from typing import Any

from ... import _core
from ...nn import BatchNorm1D as _BatchNorm1D
from ...nn import Module as _Module
from ...nn import init as _init
from ...nn.param_attr import apply_param_attr as _apply_param_attr
from ...nn.parameter import Parameter as _Parameter
from . import _conv


class _SparseConv(_Module):
    """Shared by the sparse convolution layers (not built directly)."""

    _nd = 3
    _subm = False

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
        key: Any = None,
        weight_attr: Any = None,
        bias_attr: Any = None,
        data_format: str | None = None,
        backend: Any = None,
    ) -> None:
        super().__init__()
        nd, name = self._nd, type(self).__name__
        if groups != 1 or padding_mode != "zeros":
            raise NotImplementedError(f"{name}: only groups=1 and padding_mode='zeros' (Paddle's)")
        self.in_channels, self.out_channels = int(in_channels), int(out_channels)
        self.kernel_size = tuple(_conv._ints(kernel_size, nd, "kernel_size", name))
        self.stride, self.padding, self.dilation = stride, padding, dilation
        self.data_format = data_format or _conv._FORMATS[nd]
        d = _core._get_default_dtype()
        shape = [*self.kernel_size, self.in_channels, self.out_channels]
        self.weight = _Parameter(_core.empty(shape, dtype=d))
        if bias_attr is not False:
            self.bias = _Parameter(_core.zeros([self.out_channels], dtype=d))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()
        _apply_param_attr(self.weight, weight_attr)
        if self.bias is not None:
            _apply_param_attr(self.bias, bias_attr)

    def reset_parameters(self) -> None:
        """Paddle's default start: weight ~ Normal(0, sqrt(2 / fan_in)), bias zero."""
        fan_in = self.in_channels * math.prod(self.kernel_size)
        _init.normal_(self.weight, 0.0, math.sqrt(2.0 / fan_in) if fan_in else 0.0)
        if self.bias is not None:
            _init.zeros_(self.bias)

    def forward(self, x: Any) -> Any:
        """Applies the sparse convolution (see ``sparse.nn.functional``)."""
        return _conv._conv(
            x, self.weight, self.bias, self.stride, self.padding, self.dilation, 1,
            self.data_format, self._nd, self._subm, type(self).__name__,
        )  # fmt: skip


class Conv3D(_SparseConv):
    """``paddle.sparse.nn.Conv3D``: :func:`functional.conv3d` with a learnt weight
    [kD, kH, kW, in_channels, out_channels] and bias."""


class SubmConv3D(_SparseConv):
    """``paddle.sparse.nn.SubmConv3D``: :func:`functional.subm_conv3d` (outputs at the
    input's sites) with a learnt weight and bias."""

    _subm = True


class Conv2D(_SparseConv):
    """``paddle.sparse.nn.Conv2D``: :func:`functional.conv2d` ([N, H, W, C] inputs)."""

    _nd = 2


class SubmConv2D(_SparseConv):
    """``paddle.sparse.nn.SubmConv2D``: :func:`functional.subm_conv2d`."""

    _nd = 2
    _subm = True


class MaxPool3D(_Module):
    """``paddle.sparse.nn.MaxPool3D``: :func:`functional.max_pool3d` as a layer."""

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        return_mask: bool = False,
        ceil_mode: bool = False,
        data_format: str = "NDHWC",
        name: Any = None,
    ) -> None:
        super().__init__()
        if return_mask:
            raise NotImplementedError("MaxPool3D: return_mask=True is not implemented")
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.data_format = ceil_mode, data_format

    def forward(self, x: Any) -> Any:
        """Applies the pooling."""
        return _conv.max_pool3d(
            x, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.data_format
        )


class BatchNorm(_BatchNorm1D):
    """``paddle.sparse.nn.BatchNorm``: ``nn.BatchNorm1D`` over the stored values [nnz, C]
    of a channels-last COO tensor (implicit zeros take no part, as in Paddle); the result
    keeps the input's pattern."""

    def __init__(
        self,
        num_features: int,
        momentum: float = 0.9,
        epsilon: float = 1e-05,
        weight_attr: Any = None,
        bias_attr: Any = None,
        data_format: str = "NDHWC",
        use_global_stats: Any = None,
        name: Any = None,
    ) -> None:
        if data_format not in ("NDHWC", "NHWC"):
            raise ValueError(
                f"BatchNorm: data_format must be 'NDHWC' or 'NHWC', got {data_format!r}"
            )
        super().__init__(
            num_features, momentum, epsilon, weight_attr, bias_attr, "NC", use_global_stats, name
        )

    def forward(self, x: Any) -> Any:
        """Normalises the values per channel."""
        from .._coo import SparseCooTensor

        if not isinstance(x, SparseCooTensor) or x.dense_dim() != 1:
            raise ValueError(
                "BatchNorm: expects a COO tensor whose values are [nnz, C] (sparse_dim = ndim - 1)"
            )
        c = x.coalesce()
        return c._with_values(super().forward(c.values()))
