"""``nn.utils.fusion``: folding an eval-mode batch norm into the convolution or linear layer
before it (PyTorch's ``fuse_conv_bn_eval`` / ``fuse_linear_bn_eval`` and their weight
functions), so inference runs one layer instead of two with the same outputs.

With ``s = bn.weight / sqrt(running_var + eps)`` per output channel, the fused layer has
weight ``W * s`` (scaled along the output-channel axis) and bias
``(b - running_mean) * s + bn.bias``."""

from __future__ import annotations

import copy
from typing import Any, Optional

from .. import _core
from ..grad_mode import no_grad
from .parameter import Parameter

Tensor = _core.Tensor


def _bn_scale(running_var: Tensor, eps: float, weight: Optional[Tensor]) -> Tensor:
    """``weight / sqrt(running_var + eps)`` per channel (1 for an absent weight)."""
    scale = (running_var + eps).rsqrt()
    return scale if weight is None else weight * scale


def fuse_conv_bn_weights(
    conv_w: Tensor,
    conv_b: Optional[Tensor],
    bn_rm: Tensor,
    bn_rv: Tensor,
    bn_eps: float,
    bn_w: Optional[Tensor],
    bn_b: Optional[Tensor],
    transpose: bool = False,
) -> tuple[Parameter, Parameter]:
    """The weight and bias of a convolution ``(conv_w, conv_b)`` followed by a batch norm
    in eval mode (running mean/var, eps, affine weight/bias; None for absent ones), as
    one convolution. ``transpose``: ``conv_w`` is a transposed convolution's
    ``[in, out / groups, ...]`` weight."""
    with no_grad():
        scale = _bn_scale(bn_rv, bn_eps, bn_w)
        shape = [1] * conv_w.ndim
        shape[1 if transpose else 0] = -1
        b = _core.zeros_like(bn_rm) if conv_b is None else conv_b
        fused_w = (conv_w * scale.reshape(shape)).astype(conv_w.dtype)
        fused_b = (b - bn_rm) * scale + (0.0 if bn_b is None else bn_b)
    return (
        Parameter(fused_w, requires_grad=conv_w.requires_grad),
        Parameter(fused_b.astype(b.dtype), requires_grad=b.requires_grad),
    )


def fuse_linear_bn_weights(
    linear_w: Tensor,
    linear_b: Optional[Tensor],
    bn_rm: Tensor,
    bn_rv: Tensor,
    bn_eps: float,
    bn_w: Optional[Tensor],
    bn_b: Optional[Tensor],
) -> tuple[Parameter, Parameter]:
    """The weight ``[out, in]`` and bias of a linear layer followed by an eval-mode batch
    norm over its outputs, as one linear layer."""
    with no_grad():
        scale = _bn_scale(bn_rv, bn_eps, bn_w)
        b = _core.zeros_like(bn_rm) if linear_b is None else linear_b
        fused_w = linear_w * scale.unsqueeze(-1)
        fused_b = (b - bn_rm) * scale + (0.0 if bn_b is None else bn_b)
    return (
        Parameter(fused_w, requires_grad=linear_w.requires_grad),
        Parameter(fused_b, requires_grad=b.requires_grad),
    )


def _check_eval(a: Any, b: Any, what: str) -> None:
    if a.training or b.training:
        raise ValueError(f"{what}: only the eval mode of both layers can be fused (call .eval())")
    if b.running_mean is None or b.running_var is None:
        raise ValueError(f"{what}: the batch norm keeps no running statistics to fold")


def fuse_conv_bn_eval(conv: Any, bn: Any, transpose: bool = False) -> Any:
    """A copy of the eval-mode convolution ``conv`` with the eval-mode batch norm ``bn``
    that follows it folded in (``conv`` and ``bn`` are left as they are)."""
    _check_eval(conv, bn, "fuse_conv_bn_eval")
    fused = copy.deepcopy(conv)
    fused.weight, fused.bias = fuse_conv_bn_weights(
        fused.weight, fused.bias, bn.running_mean, bn.running_var, bn.eps,
        bn.weight, bn.bias, transpose,
    )  # fmt: skip
    return fused


def fuse_linear_bn_eval(linear: Any, bn: Any) -> Any:
    """A copy of the eval-mode linear layer ``linear`` with the eval-mode batch norm ``bn``
    over its outputs folded in. A layer in Paddle's ``[in, out]`` layout is folded in it."""
    _check_eval(linear, bn, "fuse_linear_bn_eval")
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise ValueError(
            "fuse_linear_bn_eval: the batch norm's num_features must equal the linear "
            f"layer's out_features ({linear.out_features}) or be 1, got {bn.num_features}"
        )
    fused = copy.deepcopy(linear)
    in_out = getattr(linear, "weight_layout", "out_in") == "in_out"
    w = fused.weight.t() if in_out else fused.weight
    new_w, new_b = fuse_linear_bn_weights(
        w, fused.bias, bn.running_mean, bn.running_var, bn.eps, bn.weight, bn.bias
    )
    fused.weight = Parameter(new_w.t(), requires_grad=new_w.requires_grad) if in_out else new_w
    fused.bias = new_b
    return fused


__all__ = [
    "fuse_conv_bn_eval",
    "fuse_conv_bn_weights",
    "fuse_linear_bn_eval",
    "fuse_linear_bn_weights",
]
