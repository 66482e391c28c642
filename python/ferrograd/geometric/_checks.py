"""Input checks shared by ``ferrograd.geometric``: index vectors, value dtypes, index
ranges and ``out_size``, each failing with a clear exception that names the op.

Paddle 3.3.1's own checks are the model (``SendURecvInferMeta`` / ``SendUERecvInferMeta``
in paddle/phi/infermeta/{ternary,multiary}.cc: an index is ``[E]`` or ``[E, 1]``, the two
index vectors have one length); ferrograd adds the range checks Paddle's CPU kernels
leave out (they read out of bounds), so a bad index never gives a silently wrong value.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .. import _core

Tensor = _core.Tensor
INDEX_DTYPES = (_core.int32, _core.int64)
#: the value dtypes Paddle's graph kernels take (float16 / bfloat16 on GPU there)
VALUE_DTYPES = (
    _core.float16,
    _core.bfloat16,
    _core.float32,
    _core.float64,
    _core.int32,
    _core.int64,
)


def as_tensor(value: Any, what: str, op: str) -> Tensor:
    """``value`` as a Tensor (lists and NumPy arrays are converted)."""
    if isinstance(value, Tensor):
        return value
    try:
        return _core.from_numpy(np.ascontiguousarray(np.asarray(value)))
    except Exception as exc:  # noqa: BLE001  (any conversion failure is the caller's input)
        raise TypeError(f"{op}: {what} must be a Tensor, got {type(value).__name__}") from exc


def index_vector(value: Any, what: str, op: str) -> Tensor:
    """An int32/int64 index of shape ``[E]`` or ``[E, 1]``, returned as a 1-D int64 Tensor."""
    t = as_tensor(value, what, op)
    if t.dtype not in INDEX_DTYPES:
        raise TypeError(f"{op}: {what} must be an int32 or int64 tensor, got {t.dtype}")
    shape = list(t.shape)
    if not (len(shape) == 1 or (len(shape) == 2 and shape[1] == 1)):
        raise ValueError(f"{op}: {what} must have shape [n] or [n, 1], got {shape}")
    return t.reshape([-1]).astype(_core.int64)


def value_tensor(value: Any, what: str, op: str) -> Tensor:
    """A Tensor of at least one dimension whose dtype the graph kernels take."""
    t = as_tensor(value, what, op)
    if t.dtype not in VALUE_DTYPES:
        raise TypeError(
            f"{op}: {what} must be float16, bfloat16, float32, float64, int32 or int64, "
            f"got {t.dtype}"
        )
    if t.ndim == 0:
        raise ValueError(f"{op}: {what} must have at least one dimension (rows), got a 0-d tensor")
    return t


def same_length(a: Tensor, b: Tensor, names: tuple[str, str], op: str) -> None:
    """ValueError unless the 1-D tensors ``a`` and ``b`` have one length."""
    if a.shape[0] != b.shape[0]:
        raise ValueError(
            f"{op}: {names[0]} and {names[1]} should have the same shape, got "
            f"{a.shape[0]} and {b.shape[0]} elements"
        )


def check_range(index: Tensor, n: int, what: str, op: str, hint: str = "") -> None:
    """IndexError unless every entry of the int64 vector ``index`` is in ``[0, n)``."""
    if index.numel() == 0:
        return
    lo, hi = int(index.min().item()), int(index.max().item())
    if lo < 0 or hi >= n:
        bad = lo if lo < 0 else hi
        extra = f" ({hint})" if hint else ""
        raise IndexError(f"{op}: {what} holds {bad}, out of range [0, {n}){extra}")


def out_rows(out_size: Any, default: int, op: str) -> int:
    """The output's row count: ``out_size`` if it is above 0, else ``default`` (Paddle's
    rule: "if not set or smaller or equal to 0, this input will not be used")."""
    if out_size is None:
        return default
    if isinstance(out_size, Tensor):
        if out_size.dtype not in INDEX_DTYPES or out_size.numel() != 1:
            raise TypeError(
                f"{op}: out_size must be an int or a one-element int32/int64 tensor, "
                f"got a {out_size.dtype} tensor of shape {list(out_size.shape)}"
            )
        n = int(out_size.reshape([-1])[0].item())
    elif isinstance(out_size, bool):
        raise TypeError(f"{op}: out_size must be an int, got a bool")
    else:
        try:
            n = operator.index(out_size)
        except TypeError:
            if isinstance(out_size, float) and out_size.is_integer():
                n = int(out_size)  # Paddle's dynamic mode takes int(out_size)
            else:
                raise TypeError(
                    f"{op}: out_size must be an int or an int tensor, got {out_size!r}"
                ) from None
    return n if n > 0 else default


def to_numpy(t: Tensor) -> np.ndarray:
    """The values of ``t`` as a NumPy array (no graph)."""
    return np.asarray(t.detach().numpy())


def from_numpy(a: np.ndarray, dtype: Any) -> Tensor:
    """A Tensor of ``dtype`` holding the NumPy array ``a``."""
    t = _core.from_numpy(np.ascontiguousarray(a))
    return t if t.dtype == dtype else t.astype(dtype)
