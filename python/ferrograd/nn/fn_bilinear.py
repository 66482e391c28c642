"""``F.bilinear``: ``y[..., o] = x1[..., :] @ weight[o] @ x2[..., :] + bias[o]``, as two
matrix products (differentiable to every order). Both peers' weight layout
``[out_features, in1_features, in2_features]``; the bias is ``[out]`` (torch) or
``[1, out]`` (Paddle)."""

from __future__ import annotations

from typing import Any, Optional

from .. import _core

Tensor = _core.Tensor


def bilinear(
    x1: Optional[Tensor] = None,
    x2: Optional[Tensor] = None,
    weight: Optional[Tensor] = None,
    bias: Optional[Tensor] = None,
    name: Optional[str] = None,
    *,
    input1: Optional[Tensor] = None,
    input2: Optional[Tensor] = None,
) -> Tensor:
    """The bilinear form of ``x1`` ``[*, in1]`` and ``x2`` ``[*, in2]`` with ``weight``
    ``[out, in1, in2]``, plus ``bias``: shape ``[*, out]``."""
    what = "bilinear"
    a: Any = input1 if input1 is not None else x1
    b: Any = input2 if input2 is not None else x2
    for arg, t in (("input1", a), ("input2", b), ("weight", weight)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{what}: {arg} must be a Tensor, got {type(t).__name__}")
    assert isinstance(weight, Tensor)
    if weight.ndim != 3:
        raise ValueError(
            f"{what}: weight must be 3-D [out, in1, in2], got shape {list(weight.shape)}"
        )
    o, i, j = weight.shape
    if a.ndim == 0 or b.ndim == 0 or a.shape[-1] != i or b.shape[-1] != j:
        raise ValueError(
            f"{what}: inputs {list(a.shape)} and {list(b.shape)} do not fit weight "
            f"{list(weight.shape)} (their last dims must be {i} and {j})"
        )
    if list(a.shape[:-1]) != list(b.shape[:-1]):
        raise ValueError(
            f"{what}: the inputs' leading dims must agree, got {list(a.shape)} and {list(b.shape)}"
        )
    lead = list(a.shape[:-1])
    a2 = a.reshape([-1, i])
    b2 = b.reshape([-1, j])
    # [n, i] @ [i, o*j] -> [n, o, j], then contracted with x2 over j
    t = a2.matmul(weight.permute([1, 0, 2]).reshape([i, o * j])).reshape([-1, o, j])
    out = (t * b2.unsqueeze(1)).sum(-1)
    if bias is not None:
        if not isinstance(bias, Tensor) or bias.numel() != o:
            shape = list(bias.shape) if isinstance(bias, Tensor) else type(bias).__name__
            raise ValueError(
                f"{what}: bias must have {o} elements ([out] or [1, out]), got {shape}"
            )
        out = out + bias.reshape([o])
    return out.reshape(lead + [o])


__all__ = ["bilinear"]
