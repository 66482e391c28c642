"""PyTorch's deprecated resizing aliases ``upsample_nearest`` / ``upsample_bilinear``
(thin wrappers over :func:`~ferrograd.nn.functional.interpolate`) and Paddle's
``temporal_shift`` (the TSM channel shift along time)."""

from __future__ import annotations

import math
import operator
import warnings
from typing import Any, Optional

from .. import _core
from .fn_pad import interpolate

Tensor = _core.Tensor


def upsample_nearest(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """torch's deprecated ``F.upsample_nearest(input, size=None, scale_factor=None)``:
    ``interpolate(input, size, scale_factor, mode="nearest")`` (warns, as torch does)."""
    warnings.warn(
        "nn.functional.upsample_nearest is deprecated. Use nn.functional.interpolate instead.",
        UserWarning,
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size: Any = None, scale_factor: Any = None) -> Tensor:
    """torch's deprecated ``F.upsample_bilinear(input, size=None, scale_factor=None)``:
    ``interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)`` of a
    4-D ``[N, C, H, W]`` input (warns, as torch does)."""
    warnings.warn(
        "nn.functional.upsample_bilinear is deprecated. Use nn.functional.interpolate instead.",
        UserWarning,
        stacklevel=2,
    )
    if not isinstance(input, Tensor) or input.ndim != 4:
        got = list(input.shape) if isinstance(input, Tensor) else type(input).__name__
        raise ValueError(f"upsample_bilinear: input must be a 4-D tensor [N, C, H, W], got {got}")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def _shift(x: Tensor, steps: int) -> Tensor:
    """``x`` ``[N, T, c, H, W]`` moved ``steps`` (+1 or -1) along time, zero filled:
    ``out[:, t] = x[:, t - steps]``."""
    t = x.shape[1]
    if t <= 1 or x.shape[2] == 0:
        return x * 0.0
    zero = _core.zeros_like(x[:, :1])
    if steps > 0:
        return _core.concat([zero, x[:, : t - 1]], 1)
    return _core.concat([x[:, 1:], zero], 1)


def temporal_shift(
    x: Tensor,
    seg_num: int,
    shift_ratio: float = 0.25,
    name: Optional[str] = None,
    data_format: str = "NCHW",
) -> Tensor:
    """Paddle's ``F.temporal_shift(x, seg_num, shift_ratio=0.25, name=None,
    data_format="NCHW")`` (TSM). ``x`` is ``[N * seg_num, C, H, W]`` (``"NHWC"``:
    ``[N * seg_num, H, W, C]``); with ``c1 = int(C * shift_ratio)`` and ``c2 = int(C * 2
    * shift_ratio)``, channels ``[0, c1)`` take the previous time step's values, channels
    ``[c1, c2)`` the next one's (zero where that step does not exist; both bounds capped at
    ``C``), the rest stay."""
    what = "temporal_shift"
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: x must be a Tensor, got {type(x).__name__}")
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"{what}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    if x.ndim != 4:
        raise ValueError(f"{what}: x must be 4-D, got shape {list(x.shape)}")
    if isinstance(seg_num, bool):
        raise TypeError(f"{what}: seg_num must be an int, got bool")
    seg_num = operator.index(seg_num)
    nt = x.shape[0]
    if seg_num <= 0 or (nt and seg_num > nt) or nt % seg_num:
        raise ValueError(
            f"{what}: seg_num must be a positive divisor of x.shape[0] = {nt}, got {seg_num}"
        )
    ratio = float(shift_ratio)
    if not 0.0 <= ratio < math.inf:
        raise ValueError(f"{what}: shift_ratio must be a finite number >= 0, got {shift_ratio}")
    if nt == 0:
        return x * 1.0
    nchw = x if data_format == "NCHW" else x.permute(0, 3, 1, 2)
    _, c, h, w = nchw.shape
    c1, c2 = min(int(c * ratio), c), min(int(c * 2 * ratio), c)  # past 0.5: all shift
    x5 = nchw.reshape([nt // seg_num, seg_num, c, h, w])
    parts = [_shift(x5[:, :, :c1], 1), _shift(x5[:, :, c1:c2], -1), x5[:, :, c2:]]
    out = _core.concat(parts, 2).reshape([nt, c, h, w])
    return out if data_format == "NCHW" else out.permute(0, 2, 3, 1)
