"""Softmax variants of ``nn.functional``: ``softmin`` (softmax of ``-x``) and
``gumbel_softmax`` (a differentiable sample from a categorical distribution), composed
from differentiable ops. The Gumbel noise comes from ferrograd's generator, so
``manual_seed`` / ``seed`` reproduce a sample.
"""

from __future__ import annotations

from typing import Any, Optional

from .. import _core

Tensor = _core.Tensor


def _dim(dim: Optional[int], axis: Optional[int], what: str) -> int:
    if dim is not None and axis is not None and dim != axis:
        raise TypeError(f"{what}: pass one of dim ({dim}) and axis ({axis}), not both")
    d = dim if dim is not None else axis
    return -1 if d is None else d


def softmin(
    input: Tensor,
    dim: Optional[int] = None,
    _stacklevel: int = 3,
    dtype: Any = None,
    *,
    axis: Optional[int] = None,
) -> Tensor:
    """``softmax(-input)`` along ``dim`` (default the last, as ferrograd's ``softmax``);
    ``dtype`` casts the input first."""
    if not isinstance(input, Tensor):
        raise TypeError(f"softmin: expects a Tensor, got {type(input).__name__}")
    return (-input).softmax(_dim(dim, axis, "softmin"), dtype)


def gumbel_softmax(
    x: Optional[Tensor] = None,
    temperature: Optional[float] = None,
    hard: bool = False,
    axis: Optional[int] = None,
    name: Optional[str] = None,
    *,
    logits: Optional[Tensor] = None,
    tau: Optional[float] = None,
    eps: float = 1e-10,
    dim: Optional[int] = None,
) -> Tensor:
    """``softmax((logits + g) / tau)`` along ``dim`` with ``g`` standard Gumbel noise
    (torch: ``logits, tau, hard, eps, dim``; Paddle: ``x, temperature, hard, axis``).
    ``hard=True`` returns the one-hot of the arg-max in the forward pass and the soft
    sample's gradient in the backward pass (straight-through). torch's ``eps`` is
    accepted and unused (deprecated there)."""
    what = "gumbel_softmax"
    if isinstance(axis, float):  # torch's fourth positional argument is eps (unused)
        axis = None
    if logits is not None:
        if x is not None:
            raise TypeError(f"{what}: pass the logits once (x or logits=)")
        x = logits
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expects a Tensor of logits, got {type(x).__name__}")
    if temperature is not None and tau is not None:
        raise TypeError(f"{what}: pass tau (torch) or temperature (Paddle), not both")
    t = tau if tau is not None else temperature
    t = 1.0 if t is None else float(t)
    if not t > 0:
        raise ValueError(f"{what}: the temperature must be positive, got {t}")
    d = _dim(dim, axis, what)
    if x.ndim == 0:
        raise ValueError(f"{what}: expects at least one dimension, got a 0-d tensor")
    dtype = x.dtype if x.dtype.is_floating_point else _core.float32
    # g = -log(E) with E ~ Exp(1) = -log(1 - U); U in [0, 1), so E = 0 is clamped
    u = _core.rand(list(x.shape), dtype=dtype)
    e = (-(1.0 - u).log()).clip(min=1e-30)
    y_soft = ((x - e.log()) / t).softmax(d)
    if not hard:
        return y_soft
    index = y_soft.argmax(d, keepdim=True)
    y_hard = _core.zeros_like(y_soft).put_along_axis(index, 1.0, d)
    return y_hard - y_soft.detach() + y_soft


__all__ = ["softmin", "gumbel_softmax"]
