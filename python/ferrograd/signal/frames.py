"""Paddle's ``paddle.signal.frame`` and ``paddle.signal.overlap_add`` (``python/paddle/
signal.py``): slicing a signal into overlapping frames and adding frames back together.
Both are compositions of indexing, reshapes and concatenation, so they keep the input's
dtype and are differentiable."""

from __future__ import annotations

from typing import Any

from .. import _core

Tensor = _core.Tensor

__all__ = ["frame", "overlap_add"]


def _check_axis_hop(op: str, axis: Any, hop_length: Any) -> None:
    if axis not in (0, -1):
        raise ValueError(f"{op}: unexpected axis {axis}; it should be 0 or -1")
    if isinstance(hop_length, bool) or not isinstance(hop_length, int) or hop_length <= 0:
        raise ValueError(f"{op}: unexpected hop_length {hop_length}; it should be a positive int")


def frame(
    x: Tensor, frame_length: int, hop_length: int, axis: int = -1, name: Any = None
) -> Tensor:
    """Overlapping frames of ``x`` along its last (``axis=-1``) or first (``axis=0``) dim.

    ``axis=-1``: ``[..., seq_len]`` -> ``[..., frame_length, num_frames]``; ``axis=0``:
    ``[seq_len, ...]`` -> ``[num_frames, frame_length, ...]``, with ``num_frames = 1 +
    (seq_len - frame_length) // hop_length``. Frame ``t`` starts at ``t * hop_length``.
    """
    _check_axis_hop("frame", axis, hop_length)
    if isinstance(frame_length, bool) or not isinstance(frame_length, int) or frame_length <= 0:
        raise ValueError(
            f"frame: unexpected frame_length {frame_length}; it should be a positive int"
        )
    if not isinstance(x, Tensor):
        raise TypeError(f"frame: x must be a Tensor, got {type(x).__name__}")
    if x.ndim < 1:
        raise ValueError("frame: x must have at least one dim")
    seq_len = int(x.shape[axis])
    if frame_length > seq_len:
        raise ValueError(
            f"frame: frame_length should be less than or equal to the sequence length, but "
            f"got ({frame_length}) > ({seq_len})"
        )
    num_frames = 1 + (seq_len - frame_length) // hop_length
    pos = _core.arange(frame_length, dtype=_core.int64).unsqueeze(1) + (
        _core.arange(num_frames, dtype=_core.int64).unsqueeze(0) * hop_length
    )  # [frame_length, num_frames]
    if axis == -1:
        return x[..., pos]
    return x[pos.T]


def overlap_add(x: Tensor, hop_length: int, axis: int = -1, name: Any = None) -> Tensor:
    """Add overlapping frames back into a signal (the inverse layout of :func:`frame`).

    ``axis=-1``: ``[..., frame_length, num_frames]`` -> ``[..., seq_len]``; ``axis=0``:
    ``[num_frames, frame_length, ...]`` -> ``[seq_len, ...]``, with ``seq_len =
    (num_frames - 1) * hop_length + frame_length``; overlapping samples are summed.
    """
    _check_axis_hop("overlap_add", axis, hop_length)
    if not isinstance(x, Tensor):
        raise TypeError(f"overlap_add: x must be a Tensor, got {type(x).__name__}")
    if x.ndim < 2:
        raise ValueError(f"overlap_add: x must have at least 2 dims, got shape {list(x.shape)}")
    if axis == 0:
        # [num_frames, frame_length, ...] -> [..., frame_length, num_frames] and back
        perm = list(range(2, x.ndim)) + [1, 0]
        last = overlap_add(x.permute(perm), hop_length, -1)
        return last.permute([last.ndim - 1] + list(range(last.ndim - 1)))
    lead = [int(d) for d in x.shape[:-2]]
    frame_length, num_frames = int(x.shape[-2]), int(x.shape[-1])
    seq_len = (num_frames - 1) * hop_length + frame_length
    chunks = -(-frame_length // hop_length)  # ceil
    if chunks * hop_length > frame_length:  # zero-pad each frame to a multiple of hop
        pad = _core.zeros(lead + [chunks * hop_length - frame_length, num_frames], dtype=x.dtype)
        x = _core.concat([x, pad], -2)
    total = (num_frames + chunks - 1) * hop_length
    out: Tensor | None = None
    for k in range(chunks):
        # samples k*hop..(k+1)*hop of every frame land contiguously from k*hop onwards
        part = x[..., k * hop_length : (k + 1) * hop_length, :]
        flat = part.permute(list(range(len(lead))) + [len(lead) + 1, len(lead)]).reshape(
            lead + [num_frames * hop_length]
        )
        pieces = []
        if k:
            pieces.append(_core.zeros(lead + [k * hop_length], dtype=x.dtype))
        pieces.append(flat)
        tail = total - k * hop_length - num_frames * hop_length
        if tail:
            pieces.append(_core.zeros(lead + [tail], dtype=x.dtype))
        placed = _core.concat(pieces, -1) if len(pieces) > 1 else flat
        out = placed if out is None else out + placed
    assert out is not None
    return out[..., :seq_len]
