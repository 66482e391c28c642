"""Argument handling shared by convolution and pooling: sizes given as an int or a
sequence, every padding form of both dialects, channels-last layouts.

Padding forms accepted (``nd`` = number of spatial dims):

- an int: that many zeros before and after every spatial dim;
- ``nd`` ints: per dim, before and after;
- ``2*nd`` ints (Paddle): ``[before_0, after_0, before_1, after_1, ...]``;
- ``nd`` or ``nd + 2`` pairs (Paddle): ``[[before, after], ...]`` per dim, the
  ``nd + 2`` form with zero pairs for the batch and channel dims;
- ``"valid"`` (no padding) or ``"same"`` (output size ``ceil(input / stride)``; with
  stride 1 the output keeps the input's size; the odd pad goes after, as in both peers).
"""

from __future__ import annotations

from typing import Any, List, Sequence, Tuple

from .. import _core

Tensor = _core.Tensor

_LAYOUTS_FIRST = {1: "NCL", 2: "NCHW", 3: "NCDHW"}
_LAYOUTS_LAST = {1: "NLC", 2: "NHWC", 3: "NDHWC"}
#: ``nd -> (channels-first, channels-last)`` data_format names.
LAYOUTS = {nd: (_LAYOUTS_FIRST[nd], _LAYOUTS_LAST[nd]) for nd in (1, 2, 3)}


def named(fn: Any, name: str, doc: str) -> Any:
    """Gives a function made by a per-dimension factory its public name and docstring
    (the conv/pool ``*1d/2d/3d`` functions are each one factory)."""
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


def ints(value: Any, nd: int, what: str, op: str, minimum: int = 1) -> List[int]:
    """``value`` (an int or ``nd`` ints) as a list of ``nd`` ints, each ``>= minimum``."""
    if isinstance(value, bool):
        raise TypeError(f"{op}: {what} must be an int or {nd} ints, got {value!r}")
    if isinstance(value, int):
        vals = [value] * nd
    else:
        try:
            vals = [int(v) for v in value]
        except (TypeError, ValueError):
            raise TypeError(f"{op}: {what} must be an int or {nd} ints, got {value!r}") from None
        if len(vals) == 1:
            vals = vals * nd
        if len(vals) != nd:
            raise ValueError(f"{op}: {what} needs {nd} value(s), got {len(vals)}: {value!r}")
    for v in vals:
        if v < minimum:
            raise ValueError(f"{op}: {what} must be >= {minimum}, got {value!r}")
    return vals


def is_channels_last(data_format: Any, nd: int, op: str) -> bool:
    """Whether ``data_format`` (``"NCHW"``/``"NHWC"`` and the 1-D/3-D forms) is channels-last."""
    if data_format is None:
        return False
    fmt = str(data_format).upper()
    if fmt == _LAYOUTS_FIRST[nd] or (nd == 1 and fmt == "NCW"):
        return False
    if fmt == _LAYOUTS_LAST[nd] or (nd == 1 and fmt == "NWC"):
        return True
    raise ValueError(
        f"{op}: data_format must be {_LAYOUTS_FIRST[nd]!r} or {_LAYOUTS_LAST[nd]!r}, got "
        f"{data_format!r}"
    )


def to_channels_first(x: Tensor, nd: int) -> Tensor:
    """``[N, *S, C]`` → ``[N, C, *S]``."""
    return x.permute(0, nd + 1, *range(1, nd + 1))


def to_channels_last(x: Tensor, nd: int) -> Tensor:
    """``[N, C, *S]`` → ``[N, *S, C]``."""
    return x.permute(0, *range(2, nd + 2), 1)


def padding(
    pad: Any,
    nd: int,
    op: str,
    spatial: Sequence[int],
    kernel: Sequence[int],
    stride: Sequence[int],
    dilation: Sequence[int],
    channels_last: bool = False,
) -> Tuple[List[int], List[int]]:
    """Padding before and after each spatial dim, from any accepted form (module doc)."""
    if isinstance(pad, str):
        mode = pad.lower()
        if mode == "valid":
            return [0] * nd, [0] * nd
        if mode == "same":
            lo, hi = [], []
            for s, k, st, d in zip(spatial, kernel, stride, dilation):
                out = -(-s // st)
                total = max((out - 1) * st + (k - 1) * d + 1 - s, 0)
                lo.append(total // 2)
                hi.append(total - total // 2)
            return lo, hi
        raise ValueError(f"{op}: padding must be 'same', 'valid', an int or ints, got {pad!r}")
    if isinstance(pad, bool):
        raise TypeError(f"{op}: padding must be an int, ints or a string, got {pad!r}")
    if isinstance(pad, int):
        if pad < 0:
            raise ValueError(f"{op}: padding must be >= 0, got {pad}")
        return [pad] * nd, [pad] * nd
    try:
        items = list(pad)
    except TypeError:
        raise TypeError(f"{op}: padding must be an int, ints or a string, got {pad!r}") from None
    if items and all(isinstance(p, (list, tuple)) for p in items):
        pairs = [list(p) for p in items]
        if any(len(p) != 2 for p in pairs):
            raise ValueError(f"{op}: padding pairs must be [before, after], got {pad!r}")
        if len(pairs) == nd + 2:
            outer = [pairs[0], pairs[-1]] if channels_last else pairs[:2]
            if any(v != 0 for p in outer for v in p):
                raise ValueError(
                    f"{op}: padding of the batch and channel dims must be [0, 0], got {pad!r}"
                )
            pairs = pairs[1:-1] if channels_last else pairs[2:]
        if len(pairs) != nd:
            raise ValueError(f"{op}: padding needs {nd} or {nd + 2} pairs, got {pad!r}")
        lo, hi = [int(p[0]) for p in pairs], [int(p[1]) for p in pairs]
    else:
        vals = [int(v) for v in items]
        if len(vals) == 1:
            vals = vals * nd
        if len(vals) == nd:
            lo, hi = list(vals), list(vals)
        elif len(vals) == 2 * nd:
            lo, hi = vals[0::2], vals[1::2]
        else:
            raise ValueError(f"{op}: padding needs 1, {nd} or {2 * nd} ints, got {pad!r}")
    if any(v < 0 for v in lo + hi):
        raise ValueError(f"{op}: padding must be >= 0, got {pad!r}")
    return lo, hi


def out_size(s: int, k: int, st: int, d: int, lo: int, hi: int) -> int:
    """Window positions along one dim (floor mode)."""
    return (s + lo + hi - d * (k - 1) - 1) // st + 1


def check_input(x: Any, nd: int, op: str, what: str = "the input") -> bool:
    """Checks ``x`` is a tensor ``[N, C, *S]`` or unbatched ``[C, *S]``; True when unbatched."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{op}: {what} must be a Tensor, got {type(x).__name__}")
    if x.ndim == nd + 2:
        return False
    if x.ndim == nd + 1:
        return True
    raise ValueError(
        f"{op}: {what} must be {nd + 2}-D [N, C, {', '.join('S' * nd)}] (or {nd + 1}-D "
        f"unbatched), got shape {list(x.shape)}"
    )


def pad_mode(
    x: Tensor, nd: int, lo: Sequence[int], hi: Sequence[int], mode: str, op: str
) -> Tensor:
    """Pads the spatial dims of ``[N, C, *S]`` by ``lo``/``hi`` with ``mode``
    ``"reflect"``, ``"replicate"`` or ``"circular"`` (a differentiable ``index_select``
    per dim; ``"zeros"`` is done by the kernels themselves)."""
    import numpy as np

    for d in range(nd):
        s, a, b = x.shape[2 + d], lo[d], hi[d]
        if a == 0 and b == 0:
            continue
        pos = np.arange(-a, s + b)
        if mode == "reflect":
            if max(a, b) >= s:
                raise ValueError(
                    f"{op}: reflect padding {max(a, b)} must be smaller than the input size {s}"
                )
            pos = np.abs(pos)
            pos = np.where(pos >= s, 2 * (s - 1) - pos, pos)
        elif mode == "replicate":
            pos = np.clip(pos, 0, s - 1)
        elif mode == "circular":
            if max(a, b) > s:
                raise ValueError(
                    f"{op}: circular padding {max(a, b)} must be at most the input size {s}"
                )
            pos = pos % s
        else:
            raise ValueError(
                f"{op}: padding_mode must be 'zeros', 'reflect', 'replicate' or 'circular', "
                f"got {mode!r}"
            )
        x = x.index_select(2 + d, _core.tensor(pos.astype(np.int64), dtype="int64"))
    return x
