"""PyTorch's fake quantization: ``torch.fake_quantize_per_tensor_affine`` and
``torch.fake_quantize_per_channel_affine``, the building blocks of quantization-aware
training.

A float tensor is rounded onto the integer grid of ``scale`` / ``zero_point``, clamped to
``[quant_min, quant_max]`` and mapped back to floats, with PyTorch's arithmetic
(aten/src/ATen/native/quantized/cpu/kernels/QuantizedOpKernels.cpp,
``_fake_quantize_tensor_helper`` / ``_fake_quant_per_channel_cachemask_cpu_helper``): the
scale is a float32, the input is multiplied by ``1 / scale`` (in float32 for float32 and
half inputs), ``nearbyint`` rounds ties to even, and the back-mapping ``(q - zero_point) *
scale`` is done in float32. The gradient is the straight-through estimator: the incoming
gradient where the rounded value fell inside the range, zero where it was clamped
(``fake_quantize_per_tensor_affine_cachemask_backward``).

ferrograd has no quantized tensor types (``quint8`` / ``qint8``, ``quantize_per_tensor``):
these functions take and return ordinary float tensors.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _core
from ._core import Tensor
from .autograd.py_layer import Function
from .grad_mode import is_grad_enabled

__all__ = ["fake_quantize_per_tensor_affine", "fake_quantize_per_channel_affine"]


def _check_input(x: Any, what: str) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: input must be a Tensor, got {type(x).__name__}")
    if not x.dtype.is_floating_point:
        raise TypeError(f"{what}: input must be a floating tensor, got {x.dtype}")


def _check_range(quant_min: int, quant_max: int, what: str) -> None:
    if quant_min > quant_max:
        raise ValueError(
            f"{what}: quant_min ({quant_min}) must be less than or equal to quant_max ({quant_max})"
        )


def _scalar(v: Any, what: str, name: str) -> Any:
    if isinstance(v, Tensor):
        if v.numel() != 1:
            raise ValueError(f"{what}: a tensor {name} must hold one value, got {list(v.shape)}")
        return v.item()
    return v


class _MaskedIdentity(Function):
    """The fake-quantize node: forward gives the precomputed ``fq``; backward passes the
    gradient to ``x`` where ``mask`` is set (PyTorch's ``dY * mask``)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, fq: Tensor, mask: Tensor) -> Tensor:
        ctx.mask = mask
        return fq

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Any:
        return g * ctx.mask.to(g.dtype), None, None


def _finish(x: Tensor, fq: Tensor, mask: Tensor) -> Tensor:
    """``fq`` as the value, with the straight-through gradient ``grad * mask`` to ``x``."""
    fq = fq.to(x.dtype)
    if not (x.requires_grad and is_grad_enabled()):
        return fq
    return _MaskedIdentity.apply(x, fq, mask)


def _work(x: Tensor) -> Tensor:
    # PyTorch multiplies a half input by the float32 1/scale in float32; a float64 one in
    # float64
    return x.detach() if x.dtype.itemsize >= 4 else x.detach().float()


def fake_quantize_per_tensor_affine(
    input: Tensor, scale: Any, zero_point: Any, quant_min: int, quant_max: int
) -> Tensor:
    """``input`` quantized with one ``scale`` / ``zero_point`` (numbers, or one-element
    tensors) onto ``[quant_min, quant_max]`` and dequantized; same dtype and shape as
    ``input``. The gradient passes straight through where the value was not clamped."""
    what = "fake_quantize_per_tensor_affine"
    _check_input(input, what)
    qmin, qmax = int(quant_min), int(quant_max)
    _check_range(qmin, qmax, what)
    tensor_qparams = isinstance(scale, Tensor) or isinstance(zero_point, Tensor)
    sc = float(np.float32(_scalar(scale, what, "scale")))
    zp = int(_scalar(zero_point, what, "zero_point"))
    if not tensor_qparams and not qmin <= zp <= qmax:
        # (PyTorch checks this for number arguments only)
        raise ValueError(
            f"{what}: zero_point ({zp}) must be between quant_min ({qmin}) and quant_max ({qmax})"
        )
    if sc == 0.0:
        raise ValueError(f"{what}: scale must not be zero")
    inv = float(np.float32(1.0) / np.float32(sc))
    q = (_work(input) * inv).round() + zp
    mask = (q >= qmin).logical_and(q <= qmax)
    fq = (q.clamp(qmin, qmax) - zp).float() * sc
    return _finish(input, fq, mask)


def fake_quantize_per_channel_affine(
    input: Tensor, scale: Tensor, zero_point: Tensor, axis: int, quant_min: int, quant_max: int
) -> Tensor:
    """``input`` quantized per slice along ``axis``, with ``scale[c]`` / ``zero_point[c]``
    for slice ``c`` (1-D tensors of ``input.shape[axis]`` values), onto ``[quant_min,
    quant_max]`` and dequantized. An integer ``zero_point`` is added after rounding, a
    floating one before (as PyTorch). The gradient passes straight through where the value
    was not clamped."""
    what = "fake_quantize_per_channel_affine"
    _check_input(input, what)
    qmin, qmax = int(quant_min), int(quant_max)
    _check_range(qmin, qmax, what)
    if not isinstance(scale, Tensor) or not isinstance(zero_point, Tensor):
        raise TypeError(f"{what}: scale and zero_point must be 1-D Tensors")
    if scale.is_complex() or not scale.dtype.is_floating_point:
        raise TypeError(f"{what}: scale must be a real floating tensor, found {scale.dtype}")
    if zero_point.is_complex() or zero_point.dtype == _core.bool:
        raise TypeError(
            f"{what}: zero_point must be an integer or real floating tensor, found "
            f"{zero_point.dtype}"
        )
    if scale.ndim != 1 or zero_point.ndim != 1:
        raise ValueError(f"{what}: scale and zero_point must be 1-D tensors")
    if scale.numel() != zero_point.numel():
        raise ValueError(
            f"{what}: scale and zero_point must hold the same number of values, got "
            f"{scale.numel()} and {zero_point.numel()}"
        )
    if not 0 <= axis < max(input.ndim, 1):
        raise ValueError(f"{what}: axis {axis} must be between 0 and input.ndim - 1")
    if scale.numel() != input.shape[axis]:
        raise ValueError(
            f"{what}: scale has {scale.numel()} values, not the size of input dimension "
            f"{axis} ({input.shape[axis]})"
        )
    zp_float = zero_point.dtype.is_floating_point
    if (
        not zp_float
        and zero_point.numel()
        and not (int(zero_point.min().item()) >= qmin and int(zero_point.max().item()) <= qmax)
    ):
        raise ValueError(
            f"{what}: zero_point must be between quant_min ({qmin}) and quant_max ({qmax})"
        )
    view = [1] * input.ndim
    view[axis] = -1
    sc = scale.detach().float().reshape(view)
    if bool((sc == 0).any().item()):
        raise ValueError(f"{what}: scale must not hold zeros")
    inv = 1.0 / sc  # float32, as PyTorch's 1.0f / scale
    x = _work(input)
    if zp_float:
        zp = zero_point.detach().float().reshape(view)
        q = (x * inv + zp).round()
    else:
        zp = zero_point.detach().to(x.dtype).reshape(view)
        q = (x * inv).round() + zp
    mask = (q >= qmin).logical_and(q <= qmax)
    fq = (q.clamp(qmin, qmax) - zp).float() * sc
    return _finish(input, fq, mask)
