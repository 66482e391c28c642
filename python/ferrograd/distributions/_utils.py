"""Shared helpers: turning parameters into tensors, sample shapes, noise draws, and the
probs <-> logits conversions (kept here so every distribution spells them one way)."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from .. import _core

Tensor = _core.Tensor


def _float_dtype(values: Sequence[Any]) -> Any:
    """The float dtype parameters share: the first floating tensor's, else the default."""
    for v in values:
        if isinstance(v, Tensor) and v.dtype.is_floating_point:
            return v.dtype
    return _core._get_default_dtype()


def as_float_tensor(value: Any, dtype: Any) -> Tensor:
    """``value`` (number, list, NumPy array or tensor) as a tensor of ``dtype``; a tensor
    keeps its autograd history (``astype`` is differentiable)."""
    if isinstance(value, Tensor):
        return value if value.dtype == dtype else value.astype(dtype)
    if isinstance(value, np.ndarray):
        return _core.tensor(value.astype(np.float64)).astype(dtype)
    return _core.tensor(value, dtype=dtype)


def broadcast_all(*values: Any) -> list[Tensor]:
    """The parameters as float tensors of one dtype, broadcast to one shape (numbers,
    lists and arrays become tensors of the dtype of the first float tensor given, else the
    default dtype, as in both peers)."""
    dtype = _float_dtype(values)
    tensors = [as_float_tensor(v, dtype) for v in values]
    try:
        shape = np.broadcast_shapes(*(tuple(t.shape) for t in tensors))
    except ValueError:
        shapes = ", ".join(str(list(t.shape)) for t in tensors)
        raise ValueError(f"the parameters' shapes {shapes} do not broadcast together") from None
    return [t if tuple(t.shape) == shape else t.broadcast_to(list(shape)) for t in tensors]


def size_tuple(shape: Any, what: str = "sample_shape") -> tuple[int, ...]:
    """A sample shape (int, list, tuple, Size or 1-D tensor) as a tuple of ints."""
    if shape is None:
        return ()
    if isinstance(shape, Tensor):
        shape = shape.tolist()
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        return (int(shape),)
    try:
        dims = tuple(int(d) for d in shape)
    except TypeError:
        raise TypeError(f"{what} must be a sequence of ints, got {shape!r}") from None
    if any(d < 0 for d in dims):
        raise ValueError(f"{what} has a negative dimension: {list(dims)}")
    return dims


def generator_for(seed: int, generator: Any = None) -> Any:
    """The generator a draw uses: Paddle's non-zero ``seed`` gives a fresh generator seeded
    with it (the same draw each call, as ``paddle.uniform(seed=...)``); otherwise
    ``generator`` (None: the default one behind ``manual_seed`` / ``seed``)."""
    if seed:
        return _core.Generator().manual_seed(int(seed))
    return generator


def standard_normal(shape: Sequence[int], dtype: Any, gen: Any) -> Tensor:
    """Standard normal noise (no gradient)."""
    return _core._normal(list(shape), 0.0, 1.0, dtype, gen)


def open_uniform(shape: Sequence[int], dtype: Any, gen: Any) -> Tensor:
    """Uniform noise in the open interval (0, 1): zero is replaced by the dtype's
    smallest normal number so that logs stay finite."""
    u = _core._uniform(list(shape), 0.0, 1.0, dtype, gen)
    tiny = float(np.finfo(np.float32 if dtype == _core.float32 else np.float64).tiny)
    return u.clamp(min=tiny)


def standard_exponential(shape: Sequence[int], dtype: Any, gen: Any) -> Tensor:
    """Exponential noise of rate 1 (no gradient)."""
    return _core._exponential(list(shape), 1.0, dtype, gen)


def eps_of(dtype: Any) -> float:
    """Machine epsilon of a float dtype."""
    if dtype == _core.float64:
        return float(np.finfo(np.float64).eps)
    if dtype in (_core.float16, _core.bfloat16):
        return float(np.finfo(np.float16).eps)
    return float(np.finfo(np.float32).eps)


def min_of(dtype: Any) -> float:
    """The most negative finite number of a float dtype."""
    return float(np.finfo(np.float64 if dtype == _core.float64 else np.float32).min)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Log-odds (binary) or log-probabilities of ``probs``, clamped away from 0 and 1 so
    the result is finite (as both peers do)."""
    eps = eps_of(probs.dtype)
    p = probs.clamp(min=eps, max=1 - eps)
    if is_binary:
        return p.log() - (-p).log1p()
    return p.log()


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities from log-odds (binary: sigmoid) or unnormalised log-probabilities
    (softmax over the last dim)."""
    if is_binary:
        return logits.sigmoid()
    return logits.softmax(-1)


def log_factorial(counts: Tensor) -> Tensor:
    """``log(k!) = lgamma(k + 1)`` of counts (float64 for integer counts): +inf at the
    negative integers, so an unvalidated count outside the support gives a log-probability
    of -inf, as PyTorch's (``math.lgamma`` raised there)."""
    k = counts if counts.dtype.is_floating_point else counts.astype(_core.float64)
    return (k + 1).lgamma()


def numel(shape: Sequence[int]) -> int:
    """The number of elements of ``shape``."""
    return int(math.prod(shape))
