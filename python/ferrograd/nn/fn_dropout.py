"""Dropout variants of ``nn.functional``: whole-channel dropout (``dropout1d/2d/3d``)
and the self-normalising ``alpha_dropout`` / ``feature_alpha_dropout``.

The masks come from ferrograd's generator (``manual_seed`` / ``seed`` reproduce them)
and multiply the input, so gradients of every order flow through the kept elements.

- ``dropout1d/2d/3d``: each channel (all of its ``L`` / ``H*W`` / ``D*H*W`` values) is
  zeroed with probability ``p``, the kept channels scaled by ``1/(1-p)``. PyTorch: the
  input is ``[N, C, *spatial]`` or, unbatched, ``[C, *spatial]`` (``dropout2d`` given a
  3-D input treats it as ``[N, C, L]``, as PyTorch does). Paddle: ``dropout2d(x, p,
  training, data_format)`` on a 4-D (``dropout3d``: 5-D) ``NC*`` or channels-last input.
- ``alpha_dropout``: dropped elements are set to SELU's negative saturation value and
  an affine map keeps zero mean and unit variance:
  ``a * (x * m + alpha' * (1 - m)) + b`` with ``alpha' = -1.7580993408473766``,
  ``a = ((1 - p) (1 + p alpha'^2))^-1/2``, ``b = -a alpha' p`` (both peers' formula).
  ``feature_alpha_dropout`` draws one mask value per channel.

- ``dropout(x, p, axis=...)`` (Paddle's): the mask has ``x``'s size along the dims of
  ``axis`` and size 1 along the others, so each index of those dims is kept or dropped
  as a whole (``axis=[0, 1]`` of an ``NCHW`` input drops whole channels).

``inplace=True`` writes the result into the input and returns it, as the peers do (see
``_inplace.py``: same meaning, no memory saved).
"""

from __future__ import annotations

import numbers
from typing import Any, Optional

from .. import _core
from .._memory_format import inverse, memory_order
from ._inplace import run_inplace

Tensor = _core.Tensor

#: SELU's ``-scale * alpha``: where alpha dropout sends dropped elements
_ALPHA_P = -1.7580993408473766


def _check_p(p: Any, what: str) -> float:
    pv = float(p) if isinstance(p, numbers.Real) and not isinstance(p, bool) else -1.0
    if not 0.0 <= pv <= 1.0:
        raise ValueError(f"{what}: p must be a probability in [0, 1], got {p!r}")
    return pv


def _check_input(x: Any, what: str, real: bool = False) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expects a Tensor, got {type(x).__name__}")
    if not (x.dtype.is_floating_point or (x.dtype.is_complex and not real)):
        kind = "a real floating-point" if real else "a floating-point"
        raise TypeError(f"{what}: expects {kind} tensor, got {x.dtype}")
    return x


def _keep_mask(shape: list[int], p: float, dtype: Any) -> Tensor:
    """1 (kept, probability ``1 - p``) or 0, of ``shape``, from ferrograd's generator."""
    return (_core.rand(shape, dtype=dtype) >= p).astype(dtype)


def _channel_dropout(x: Tensor, p: float, training: bool, mask_shape: list[int]) -> Tensor:
    if not training or p == 0.0 or x.numel() == 0:
        return x
    if p == 1.0:
        return x * 0.0
    keep = _keep_mask(mask_shape, p, x.dtype if x.dtype.is_floating_point else _core.float32)
    return _in_layout(x, keep * (1.0 / (1.0 - p)))


def _in_layout(x: Tensor, scale: Tensor) -> Tensor:
    """``x * scale`` (``scale`` broadcasts to ``x``) with ``x``'s layout: computed in
    ``x``'s memory order and permuted back when ``x`` is not contiguous (a
    ``channels_last`` input gives a ``channels_last`` result and gradient, as in PyTorch)."""
    order = memory_order(x) if scale.ndim == x.ndim else None
    if order is None:
        return x * scale
    return (x.permute(order) * scale.permute(order)).permute(inverse(order))


def _torch_mask_shape(x: Tensor, k: int, what: str) -> list[int]:
    """The mask shape for PyTorch's ``dropout{k}d``: one value per (sample, channel)."""
    nd = x.ndim
    allowed = (k + 1, k + 2) if k != 2 else (3, 4)
    if nd not in allowed:
        raise ValueError(
            f"{what}: expects a {allowed[0]}-D (unbatched) or {allowed[1]}-D (batched) input, "
            f"got shape {list(x.shape)}"
        )
    if nd == k + 1 and k != 2:  # unbatched [C, *spatial]
        return [x.shape[0]] + [1] * k
    return [x.shape[0], x.shape[1]] + [1] * (nd - 2)


def _check_format(k: int, data_format: Any, what: str) -> tuple[str, str]:
    """Paddle's channels-first and channels-last names for ``k`` spatial dims."""
    formats = {2: ("NCHW", "NHWC"), 3: ("NCDHW", "NDHWC")}[k]
    if data_format not in formats:
        raise ValueError(f"{what}: data_format must be one of {formats}, got {data_format!r}")
    return formats


def _paddle_mask_shape(x: Tensor, k: int, data_format: str, what: str) -> list[int]:
    formats = _check_format(k, data_format, what)
    if x.ndim != k + 2:
        raise ValueError(f"{what}: expects a {k + 2}-D {data_format} input, got {list(x.shape)}")
    if data_format == formats[0]:
        return [x.shape[0], x.shape[1]] + [1] * k
    return [x.shape[0]] + [1] * k + [x.shape[-1]]


def _feature_dropout(
    k: int,
    x: Any,
    p: Any,
    training: bool,
    inplace: Any,
    data_format: Optional[str],
    what: str,
) -> Tensor:
    # Paddle's fourth positional argument is data_format, torch's inplace
    if isinstance(inplace, str):
        data_format, inplace = inplace, False
    if inplace is True:
        return run_inplace(
            x, lambda v: _feature_dropout(k, v, p, training, False, data_format, what), what
        )
    x = _check_input(x, what)
    pv = _check_p(p, what)
    if data_format is not None and k in (2, 3):
        shape = _paddle_mask_shape(x, k, data_format, what)
    else:
        shape = _torch_mask_shape(x, k, what)
    return _channel_dropout(x, pv, bool(training), shape)


def dropout1d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """PyTorch's ``dropout1d``: zeroes whole channels of ``[N, C, L]`` (or ``[C, L]``)
    with probability ``p``, scaling the rest by ``1/(1-p)``; the identity when not
    ``training``."""
    return _feature_dropout(1, input, p, training, inplace, None, "dropout1d")


def dropout2d(
    x: Optional[Tensor] = None,
    p: float = 0.5,
    training: bool = True,
    inplace: Any = False,
    data_format: Optional[str] = None,
    name: Optional[str] = None,
    *,
    input: Optional[Tensor] = None,
) -> Tensor:
    """Zeroes whole channels of ``[N, C, H, W]`` (PyTorch also ``[N, C, L]``; Paddle's
    ``data_format`` ``"NCHW"`` / ``"NHWC"``) with probability ``p``, scaling the rest by
    ``1/(1-p)``; the identity when not ``training``."""
    return _feature_dropout(
        2, input if input is not None else x, p, training, inplace, data_format, "dropout2d"
    )


def dropout3d(
    x: Optional[Tensor] = None,
    p: float = 0.5,
    training: bool = True,
    inplace: Any = False,
    data_format: Optional[str] = None,
    name: Optional[str] = None,
    *,
    input: Optional[Tensor] = None,
) -> Tensor:
    """Zeroes whole channels of ``[N, C, D, H, W]`` (PyTorch also ``[C, D, H, W]``;
    Paddle's ``data_format`` ``"NCDHW"`` / ``"NDHWC"``) with probability ``p``, scaling the
    rest by ``1/(1-p)``; the identity when not ``training``."""
    return _feature_dropout(
        3, input if input is not None else x, p, training, inplace, data_format, "dropout3d"
    )


def _alpha(x: Tensor, p: float, training: bool, mask_shape: list[int]) -> Tensor:
    if not training or p == 0.0 or x.numel() == 0:
        return x
    if p == 1.0:  # PyTorch's choice (the affine map's scale is infinite there)
        return x * 0.0
    a = ((1.0 - p) * (1.0 + p * _ALPHA_P * _ALPHA_P)) ** -0.5
    b = -a * _ALPHA_P * p
    keep = _keep_mask(mask_shape, p, x.dtype)
    # a * (x * m + alpha' * (1 - m)) + b, the constant part folded into one tensor
    return x * (keep * a) + ((1.0 - keep) * (a * _ALPHA_P) + b)


def alpha_dropout(
    x: Optional[Tensor] = None,
    p: float = 0.5,
    training: bool = False,
    inplace: bool = False,
    name: Optional[str] = None,
    *,
    input: Optional[Tensor] = None,
) -> Tensor:
    """Alpha dropout (for SELU networks): dropped elements take SELU's saturation value
    and an affine map keeps the mean and variance (see the module docs). PyTorch's
    default is ``training=False``; pass ``training=True`` (or use ``nn.AlphaDropout``)."""
    what = "alpha_dropout"
    x = _check_input(input if input is not None else x, what, real=True)
    if inplace is True:
        return run_inplace(x, lambda v: alpha_dropout(v, p, training), what)
    return _alpha(x, _check_p(p, what), bool(training), list(x.shape))


def feature_alpha_dropout(
    input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False
) -> Tensor:
    """PyTorch's ``feature_alpha_dropout``: :func:`alpha_dropout` with one mask value per
    channel of ``[N, C, *]``."""
    what = "feature_alpha_dropout"
    x = _check_input(input, what, real=True)
    if inplace is True:
        return run_inplace(x, lambda v: feature_alpha_dropout(v, p, training), what)
    if x.ndim < 2:
        raise ValueError(f"{what}: expects an [N, C, *] input, got shape {list(x.shape)}")
    shape = [x.shape[0], x.shape[1]] + [1] * (x.ndim - 2)
    return _alpha(x, _check_p(p, what), bool(training), shape)


def dropout_axes(x: Tensor, p: float, axis: Any, training: bool, mode: str) -> Tensor:
    """Paddle's ``F.dropout(x, p, axis=...)``: one mask value per index of the ``axis``
    dims (ints in ``[0, x.ndim)``, as Paddle), broadcast along the other dims; ``mode``
    as in ``F.dropout``."""
    what = "dropout"
    axes = [axis] if isinstance(axis, numbers.Integral) else axis
    if isinstance(axis, bool) or not isinstance(axes, (list, tuple)) or not axes:
        raise TypeError(f"{what}: axis must be an int or a non-empty list of ints, got {axis!r}")
    nd = x.ndim
    for a in axes:
        if isinstance(a, bool) or not isinstance(a, numbers.Integral) or not 0 <= int(a) < nd:
            raise ValueError(
                f"{what}: each axis must be an int in [0, {nd}) (the input's dims), got {axis!r}"
            )
    if len(axes) > nd:
        raise ValueError(f"{what}: axis {axis!r} names more dims than the input's {nd}")
    if p == 0.0:
        return x
    if not training:
        return x * (1.0 - p) if mode == "downscale_in_infer" else x
    if p == 1.0:
        return x * 0.0
    picked = {int(a) for a in axes}
    shape = [int(n) if i in picked else 1 for i, n in enumerate(x.shape)]
    keep = _keep_mask(shape, p, x.dtype if x.dtype.is_floating_point else _core.float32)
    return x * (keep * (1.0 / (1.0 - p)) if mode == "upscale_in_train" else keep)


__all__ = [
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "alpha_dropout",
    "feature_alpha_dropout",
]
