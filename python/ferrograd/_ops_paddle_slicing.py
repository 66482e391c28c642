"""Paddle's functional slicing: ``slice``, ``strided_slice``, ``crop`` and ``increment``.

Each builds the Python index that says the same thing and applies it (``x[key]``), so the
result is the same differentiable view a user's own ``x[1:3, :, ::2]`` gives; Paddle's
rules for the bounds are applied first: a negative start or end counts from the end, an
end past the dimension is clamped (Paddle code passes huge ends such as ``2**31 - 1`` to
mean "to the end"), and bounds may be ints, lists of ints or 1-element tensors.
"""

from __future__ import annotations

import builtins
from typing import Any, Sequence

from . import _core

Tensor = _core.Tensor

__all__ = ["slice", "strided_slice", "crop", "increment"]


def _ints(v: Any, what: str, op: str) -> list[int]:
    """A list of ints from an int, a sequence of ints / 1-element tensors, or a tensor."""
    if isinstance(v, Tensor):
        return [int(e) for e in v.reshape([-1]).tolist()]
    if isinstance(v, (builtins.int,)) and not isinstance(v, builtins.bool):
        return [v]
    if isinstance(v, Sequence):
        out = []
        for e in v:
            if isinstance(e, Tensor):
                if e.numel() != 1:
                    raise ValueError(
                        f"{op}: each of {what} must be one number, got shape {e.shape}"
                    )
                out.append(int(e.item()))
            elif isinstance(e, builtins.int) and not isinstance(e, builtins.bool):
                out.append(e)
            else:
                raise TypeError(f"{op}: {what} must hold ints, got {type(e).__name__}")
        return out
    raise TypeError(
        f"{op}: {what} must be an int, a list of ints or a Tensor, got {type(v).__name__}"
    )


def _key(x: Tensor, axes: Any, starts: Any, ends: Any, strides: Any, op: str) -> tuple:
    axes_l = _ints(axes, "axes", op)
    starts_l, ends_l = _ints(starts, "starts", op), _ints(ends, "ends", op)
    strides_l = [1] * len(axes_l) if strides is None else _ints(strides, "strides", op)
    if not len(axes_l) == len(starts_l) == len(ends_l) == len(strides_l):
        raise ValueError(
            f"{op}: axes, starts, ends (and strides) must have one entry each per axis, got "
            f"{len(axes_l)}, {len(starts_l)}, {len(ends_l)}"
            + ("" if strides is None else f", {len(strides_l)}")
        )
    key: list[Any] = [builtins.slice(None)] * x.ndim
    seen = set()
    for a, s, e, st in zip(axes_l, starts_l, ends_l, strides_l):
        if not -x.ndim <= a < x.ndim:
            raise IndexError(f"{op}: axis {a} is out of range for a {x.ndim}-d tensor")
        a %= x.ndim
        if a in seen:
            raise ValueError(f"{op}: axis {a} is given twice")
        seen.add(a)
        if st == 0:
            raise ValueError(f"{op}: a stride must not be 0 (axis {a})")
        n = x.shape[a]
        # Python's slice clamps out-of-range bounds the way Paddle does, for both signs of
        # the stride; only an end below -n must not wrap for a negative stride (to index 0)
        if st < 0 and e < -n:
            e = None  # type: ignore[assignment]
        key[a] = builtins.slice(s, e, st)
    return tuple(key)


def slice(input: Tensor, axes: Any, starts: Any, ends: Any, name: Any = None) -> Tensor:
    """Paddle's ``slice``: ``input`` restricted to ``[starts[i], ends[i])`` along each of
    ``axes`` (negative bounds count from the end; ends past the dimension are clamped)."""
    return input[_key(input, axes, starts, ends, None, "slice")]


def strided_slice(
    x: Tensor, axes: Any, starts: Any, ends: Any, strides: Any, name: Any = None
) -> Tensor:
    """Paddle's ``strided_slice``: ``slice`` with a step per axis (a negative step walks
    backwards from ``starts[i]`` down to, not including, ``ends[i]``)."""
    return x[_key(x, axes, starts, ends, strides, "strided_slice")]


def crop(x: Tensor, shape: Any = None, offsets: Any = None, name: Any = None) -> Tensor:
    """Paddle's ``crop``: the block of ``shape`` starting at ``offsets`` (zeros by
    default); a ``-1`` in ``shape`` keeps the rest of that dimension."""
    sizes = list(x.shape) if shape is None else _ints(shape, "shape", "crop")
    offs = [0] * x.ndim if offsets is None else _ints(offsets, "offsets", "crop")
    if len(sizes) != x.ndim or len(offs) != x.ndim:
        raise ValueError(
            f"crop: shape and offsets need one entry per dimension of the {x.ndim}-d input, "
            f"got {len(sizes)} and {len(offs)}"
        )
    key = []
    for d, (size, off) in enumerate(zip(sizes, offs)):
        n = x.shape[d]
        end = n if size == -1 else off + size
        if off < 0 or size < -1 or end > n:
            raise ValueError(
                f"crop: the block at offset {off} of size {size} does not fit dimension {d} "
                f"of size {n}"
            )
        key.append(builtins.slice(off, end))
    return x[tuple(key)]


def increment(x: Tensor, value: float = 1.0, name: Any = None) -> Tensor:
    """Paddle's ``increment``: adds ``value`` to the one-element tensor ``x`` in place and
    returns it."""
    if x.numel() != 1:
        raise ValueError(f"increment: x must have exactly one element, got shape {x.shape}")
    return x.add_(value)
