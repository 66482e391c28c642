"""``nn.utils.rnn``: padded batches of sequences of different lengths.

``pack_padded_sequence`` / ``pad_packed_sequence`` / ``pad_sequence`` as in PyTorch. A
``PackedSequence`` holds the time-major packed ``data`` (``[sum(lengths), *]``: the
sequences still running at step 0, then at step 1, ...), ``batch_sizes`` and the sort
permutation, exactly as PyTorch lays them out. The recurrent layers accept one and return
one; internally they run on the padded batch with a mask, so final states are taken at
each sequence's own length. Packing and unpacking are differentiable (index_select).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple, Optional, Sequence

import numpy as np

from .. import _core

Tensor = _core.Tensor


class PackedSequence(NamedTuple):
    """PyTorch's packed batch: ``data``, ``batch_sizes`` (int64, per time step),
    ``sorted_indices`` and ``unsorted_indices`` (None when the batch came sorted)."""

    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Optional[Tensor] = None
    unsorted_indices: Optional[Tensor] = None

    # PyTorch's conversions (torch/nn/utils/rnn.py, PackedSequence): they act on ``data``
    # (the index tensors keep their dtype) and give back the same object when nothing
    # changes

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """``data.to(*args, **kwargs)``; ``self`` when that changes nothing."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        return PackedSequence(data, self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    def cpu(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """On the CPU (where ferrograd's tensors always are): ``self``."""
        return self.to(*args, device="cpu", **kwargs)

    def double(self) -> PackedSequence:
        """``data`` as float64."""
        return self.to(dtype=_core.float64)

    def float(self) -> PackedSequence:
        """``data`` as float32."""
        return self.to(dtype=_core.float32)

    def half(self) -> PackedSequence:
        """``data`` as float16."""
        return self.to(dtype=_core.float16)

    def long(self) -> PackedSequence:
        """``data`` as int64."""
        return self.to(dtype=_core.int64)

    def int(self) -> PackedSequence:
        """``data`` as int32."""
        return self.to(dtype=_core.int32)

    def short(self) -> PackedSequence:
        """``data`` as int16."""
        return self.to(dtype=_core.int16)

    def char(self) -> PackedSequence:
        """``data`` as int8."""
        return self.to(dtype=_core.int8)

    def byte(self) -> PackedSequence:
        """``data`` as uint8."""
        return self.to(dtype=_core.uint8)

    @property
    def is_cuda(self) -> bool:
        """False: ferrograd computes on the CPU."""
        return False

    def is_pinned(self) -> bool:
        """Whether ``data`` is in pinned memory (never, here)."""
        return bool(self.data.is_pinned())


class PackingError(RuntimeError, ValueError):
    """A batch that cannot be packed or unpacked as asked. PyTorch raises
    ``RuntimeError``; ferrograd's earlier ``ValueError`` is kept as a base."""


def lengths_array(lengths: Any, batch: int, steps: int, what: str) -> np.ndarray:
    """``lengths`` as an int64 NumPy array, checked against the batch and step counts."""
    arr = lengths.numpy() if isinstance(lengths, Tensor) else np.asarray(lengths)
    if arr.dtype.kind not in "iu" and not (arr.dtype.kind == "f" and np.all(arr == arr // 1)):
        raise TypeError(f"{what}: lengths must be integers, got dtype {arr.dtype}")
    arr = arr.astype(np.int64).reshape(-1)
    if arr.shape[0] != batch:
        raise ValueError(f"{what}: got {arr.shape[0]} lengths for a batch of {batch}")
    if arr.size and (arr.min() < 1 or arr.max() > steps):
        raise ValueError(
            f"{what}: every sequence length (lengths) must lie in [1, {steps}] (the padded length), got "
            f"values in [{arr.min()}, {arr.max()}]"
        )
    return arr


def _positions(lengths: np.ndarray, order: np.ndarray, steps: int) -> np.ndarray:
    """For each packed row, its flat index ``t * batch + b`` in a time-major padded batch."""
    batch = lengths.shape[0]
    rows = [t * batch + b for t in range(steps) for b in order if lengths[b] > t]
    return np.asarray(rows, dtype=np.int64)


def pack_padded_sequence(
    input: Tensor, lengths: Any, batch_first: bool = False, enforce_sorted: bool = True
) -> PackedSequence:
    """Packs a padded batch (``[T, B, *]``, or ``[B, T, *]`` with ``batch_first``)
    whose sequence ``b`` has ``lengths[b]`` valid steps."""
    if not isinstance(input, Tensor) or input.ndim < 2:
        raise ValueError("pack_padded_sequence: input must be a Tensor of at least 2 dims")
    if input.numel() == 0:  # (checked first, as PyTorch's _pack_padded_sequence)
        raise PackingError(
            "Cannot pack empty tensors. pack_padded_sequence: the padded batch has shape "
            f"{list(input.shape)}"
        )
    x = input.transpose(0, 1) if batch_first else input
    steps, batch = x.shape[0], x.shape[1]
    lens = lengths_array(lengths, batch, steps, "pack_padded_sequence")
    if enforce_sorted:
        if np.any(np.diff(lens) > 0):
            # PyTorch's words (its RuntimeError), then ferrograd's
            raise PackingError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` "
                "is True. You can pass `enforce_sorted=False` to pack_padded_sequence "
                "and/or pack_sequence to sidestep this requirement. (pack_padded_sequence: "
                f"got lengths {lens.tolist()})"
            )
        order = np.arange(batch)
        sorted_idx = unsorted_idx = None
    else:
        order = np.argsort(-lens, kind="stable")
        sorted_idx = _core.tensor(order.astype(np.int64))
        unsorted_idx = _core.tensor(np.argsort(order).astype(np.int64))
    return _pack(x, lens, order, sorted_idx, unsorted_idx)


def _pack(
    x: Tensor,
    lens: np.ndarray,
    order: np.ndarray,
    sorted_idx: Optional[Tensor],
    unsorted_idx: Optional[Tensor],
) -> PackedSequence:
    steps, batch = x.shape[0], x.shape[1]
    flat = x.reshape([steps * batch] + list(x.shape[2:]))
    data = flat.index_select(_core.tensor(_positions(lens, order, steps)), axis=0)
    sizes = np.array([(lens > t).sum() for t in range(int(lens.max(initial=0)))], np.int64)
    return PackedSequence(data, _core.tensor(sizes), sorted_idx, unsorted_idx)


def repack(x: Tensor, lens: np.ndarray, like: PackedSequence) -> PackedSequence:
    """Packs the time-major padded ``x`` in the batch order of ``like``."""
    idx = like.sorted_indices
    order = np.arange(lens.shape[0]) if idx is None else idx.numpy().astype(np.int64)
    return _pack(x, lens, order, like.sorted_indices, like.unsorted_indices)


def packed_lengths(packed: PackedSequence) -> np.ndarray:
    """Each sequence's length, in the original batch order."""
    sizes = packed.batch_sizes.numpy().astype(np.int64)
    batch = int(sizes[0]) if sizes.size else 0
    sorted_lens = np.array([(sizes > b).sum() for b in range(batch)], np.int64)
    if packed.unsorted_indices is None:
        return sorted_lens
    return sorted_lens[packed.unsorted_indices.numpy().astype(np.int64)]


def pad_packed_sequence(
    sequence: PackedSequence,
    batch_first: bool = False,
    padding_value: float = 0.0,
    total_length: Optional[int] = None,
) -> tuple[Tensor, Tensor]:
    """Unpacks to ``(padded, lengths)``: ``padded`` is ``[T, B, *]`` (``[B, T, *]`` with
    ``batch_first``), ``padding_value`` past each length; ``lengths`` int64."""
    if not isinstance(sequence, PackedSequence):
        raise TypeError("pad_packed_sequence: expected a PackedSequence")
    lens = packed_lengths(sequence)
    batch = lens.shape[0]
    steps = int(lens.max(initial=0))
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence "
                f"in input, but got total_length={total_length} and max sequence length "
                f"being {steps} (pad_packed_sequence)"
            )
        steps = total_length
    order = (
        np.arange(batch)
        if sequence.sorted_indices is None
        else sequence.sorted_indices.numpy().astype(np.int64)
    )
    data = sequence.data
    n = data.shape[0]
    # padded position -> packed row, or the extra padding row n
    index = np.full(steps * batch, n, dtype=np.int64)
    index[_positions(lens, order, steps)] = np.arange(n)
    pad_row = _core.full([1] + list(data.shape[1:]), padding_value, dtype=data.dtype)
    rows = _core.concat([data, pad_row]).index_select(_core.tensor(index), axis=0)
    out = rows.reshape([steps, batch] + list(data.shape[1:]))
    return (out.transpose(0, 1) if batch_first else out), _core.tensor(lens)


def pad_sequence(
    sequences: Sequence[Tensor],
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stacks tensors ``[L_i, *]`` into ``[max L, B, *]`` (``[B, max L, *]`` with
    ``batch_first``), padding with ``padding_value``."""
    if not isinstance(sequences, Iterable):  # PyTorch's RuntimeError and words
        raise PackingError(
            "Expected iterable for input sequences, but got arg of type: "
            f"{type(sequences)} (pad_sequence takes a list or tuple of tensors)"
        )
    seqs = list(sequences)
    if not seqs:
        raise ValueError("pad_sequence: got no sequences")
    if padding_side not in ("right", "left"):
        raise ValueError(
            f"pad_sequence: padding_side must be 'right' or 'left', got {padding_side!r}"
        )
    longest = max(s.shape[0] for s in seqs)
    padded = []
    for s in seqs:
        missing = longest - s.shape[0]
        if missing:
            fill = _core.full([missing] + list(s.shape[1:]), padding_value, dtype=s.dtype)
            s = _core.concat([s, fill] if padding_side == "right" else [fill, s])
        padded.append(s)
    return _core.stack(padded, 0 if batch_first else 1)


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Packs a list of ``[L_i, *]`` tensors (longest first unless ``enforce_sorted=False``)."""
    seqs = list(sequences)
    lengths = [s.shape[0] for s in seqs]
    return pack_padded_sequence(pad_sequence(seqs), lengths, enforce_sorted=enforce_sorted)


def unpad_sequence(
    padded_sequences: Tensor, lengths: Any, batch_first: bool = False
) -> list[Tensor]:
    """The inverse of :func:`pad_sequence`: the list of ``[L_i, *]`` tensors held in
    ``padded_sequences`` (``[max L, B, *]``, or ``[B, max L, *]`` with ``batch_first``),
    ``lengths[i]`` rows each (differentiable: each is a slice of the padded tensor)."""
    x = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    lens = lengths_array(lengths, x.shape[0], x.shape[1], "unpad_sequence")
    return [x[i, : int(n)] for i, n in enumerate(lens)]


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The inverse of :func:`pack_sequence`: the packed batch as a list of ``[L_i, *]``
    tensors, in the order they were packed."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


__all__ = [
    "PackedSequence",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "pack_sequence",
    "unpad_sequence",
    "unpack_sequence",
]
