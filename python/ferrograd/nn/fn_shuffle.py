"""Channel rearrangements of ``nn.functional``: ``pixel_shuffle`` / ``pixel_unshuffle``
(sub-pixel convolution's depth-to-space and back) and ``channel_shuffle`` (ShuffleNet).

Each is a reshape, a permutation and a reshape, so gradients of every order flow
through it. PyTorch's forms take ``[*, C, H, W]`` (any number of leading dims); Paddle's
take a 4-D tensor and ``data_format`` (``"NCHW"`` or ``"NHWC"``).
"""

from __future__ import annotations

import operator
from typing import Any, Optional

from .. import _core

Tensor = _core.Tensor


def _factor(value: Any, what: str, arg: str) -> int:
    try:
        if isinstance(value, bool):
            raise TypeError
        r = operator.index(value)
    except TypeError:
        raise TypeError(f"{what}: {arg} must be a positive int, got {value!r}") from None
    if r < 1:
        raise ValueError(f"{what}: {arg} must be a positive int, got {r}")
    return r


def _channels_last(data_format: Optional[str], what: str) -> bool:
    if data_format is None or data_format == "NCHW":
        return False
    if data_format == "NHWC":
        return True
    raise ValueError(f"{what}: data_format must be 'NCHW' or 'NHWC', got {data_format!r}")


def _image(x: Any, last: bool, what: str) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expects a Tensor, got {type(x).__name__}")
    if x.ndim < 3 or (last and x.ndim != 4):
        need = "a 4-D NHWC" if last else "a [*, C, H, W] (at least 3-D)"
        raise ValueError(f"{what}: expects {need} tensor, got shape {list(x.shape)}")
    return x


def _nchw(fn: Any, x: Tensor, last: bool) -> Tensor:
    """``fn`` applied in channels-first layout."""
    if not last:
        return fn(x)
    return fn(x.permute([0, 3, 1, 2])).permute([0, 2, 3, 1])


def pixel_shuffle(
    x: Optional[Tensor] = None,
    upscale_factor: Any = None,
    data_format: Optional[str] = None,
    name: Optional[str] = None,
    *,
    input: Optional[Tensor] = None,
) -> Tensor:
    """``[*, C*r*r, H, W]`` -> ``[*, C, H*r, W*r]`` with ``r = upscale_factor``: output
    pixel ``(c, h*r + i, w*r + j)`` is input channel ``c*r*r + i*r + j`` at ``(h, w)``."""
    what = "pixel_shuffle"
    x = input if input is not None else x
    r = _factor(upscale_factor, what, "upscale_factor")
    last = _channels_last(data_format, what)
    x = _image(x, last, what)
    c = x.shape[3] if last else x.shape[-3]
    if c % (r * r):
        raise ValueError(
            f"{what}: the channel count {c} must be divisible by upscale_factor**2 = {r * r}"
        )

    def run(t: Tensor) -> Tensor:
        *lead, ch, h, w = t.shape
        n = len(lead)
        t = t.reshape([*lead, ch // (r * r), r, r, h, w])
        t = t.permute([*range(n), n, n + 3, n + 1, n + 4, n + 2])
        return t.reshape([*lead, ch // (r * r), h * r, w * r])

    return _nchw(run, x, last)


def pixel_unshuffle(
    x: Optional[Tensor] = None,
    downscale_factor: Any = None,
    data_format: Optional[str] = None,
    name: Optional[str] = None,
    *,
    input: Optional[Tensor] = None,
) -> Tensor:
    """The inverse of :func:`pixel_shuffle`: ``[*, C, H*r, W*r]`` -> ``[*, C*r*r, H, W]``
    with ``r = downscale_factor``."""
    what = "pixel_unshuffle"
    x = input if input is not None else x
    r = _factor(downscale_factor, what, "downscale_factor")
    last = _channels_last(data_format, what)
    x = _image(x, last, what)
    h, w = (x.shape[1], x.shape[2]) if last else (x.shape[-2], x.shape[-1])
    if h % r or w % r:
        raise ValueError(
            f"{what}: height {h} and width {w} must both be divisible by downscale_factor {r}"
        )

    def run(t: Tensor) -> Tensor:
        *lead, ch, hh, ww = t.shape
        n = len(lead)
        t = t.reshape([*lead, ch, hh // r, r, ww // r, r])
        t = t.permute([*range(n), n, n + 2, n + 4, n + 1, n + 3])
        return t.reshape([*lead, ch * r * r, hh // r, ww // r])

    return _nchw(run, x, last)


def channel_shuffle(
    x: Optional[Tensor] = None,
    groups: Any = None,
    data_format: Optional[str] = None,
    name: Optional[str] = None,
    *,
    input: Optional[Tensor] = None,
) -> Tensor:
    """ShuffleNet's channel shuffle of ``[N, C, *]`` (Paddle: 4-D, ``data_format``):
    the channels viewed as ``[groups, C/groups]`` are transposed, so output channel
    ``j*groups + g`` is input channel ``g*(C/groups) + j``."""
    what = "channel_shuffle"
    x = input if input is not None else x
    g = _factor(groups, what, "groups")
    last = _channels_last(data_format, what)
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expects a Tensor, got {type(x).__name__}")
    if x.ndim < 3 or (last and x.ndim != 4):
        need = "a 4-D NHWC" if last else "an [N, C, *] (at least 3-D)"
        raise ValueError(f"{what}: expects {need} tensor, got shape {list(x.shape)}")
    c = x.shape[3] if last else x.shape[1]
    if c % g:
        raise ValueError(f"{what}: the channel count {c} must be divisible by groups {g}")

    def run(t: Tensor) -> Tensor:
        n, ch, *rest = t.shape
        t = t.reshape([n, g, ch // g, *rest]).permute([0, 2, 1, *range(3, len(rest) + 3)])
        return t.reshape([n, ch, *rest])

    return _nchw(run, x, last)


__all__ = ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle"]
