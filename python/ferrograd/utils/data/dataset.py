"""Datasets: the map-style ``Dataset`` and the stream-style ``IterableDataset`` base
classes, ``TensorDataset``, ``ConcatDataset``, ``ChainDataset``, ``Subset`` and
``random_split`` (the same classes serve ``torch.utils.data`` and ``paddle.io``)."""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterator, Sequence, Sized
from typing import Any, cast

from ._random import make_rng


class Dataset:
    """A map-style dataset: subclasses define ``__getitem__(index)`` and ``__len__()``.
    ``a + b`` concatenates two datasets."""

    def __getitem__(self, index: int) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define __getitem__")

    def __add__(self, other: Dataset) -> ConcatDataset:
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A stream-style dataset: subclasses define ``__iter__()``. With worker processes
    every worker iterates its own copy; use ``get_worker_info()`` inside ``__iter__`` to
    give each worker its share."""

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError(f"{type(self).__name__} must define __iter__")

    def __add__(self, other: IterableDataset) -> ChainDataset:  # type: ignore[override]
        return ChainDataset([self, other])


def _length(t: Any) -> int:
    shape = getattr(t, "shape", None)
    if shape is not None and len(shape) > 0:
        return int(shape[0])
    if shape is not None:
        raise ValueError("TensorDataset: a 0-d tensor has no first dimension to index")
    return len(t)


class TensorDataset(Dataset):
    """Samples are the ``i``-th rows of each tensor (or NumPy array): ``(t0[i], t1[i],
    ...)``. All must have the same first dimension. Paddle: ``TensorDataset([t0, t1])``."""

    def __init__(self, *tensors: Any) -> None:
        if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
            tensors = tuple(tensors[0])  # Paddle passes one list
        if not tensors:
            raise ValueError("TensorDataset needs at least one tensor")
        sizes = [_length(t) for t in tensors]
        if any(s != sizes[0] for s in sizes):
            raise ValueError(
                f"Size mismatch between tensors: first dimensions are {sizes}; all must be equal"
            )
        self.tensors = tuple(tensors)

    def __getitem__(self, index: int) -> tuple[Any, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return _length(self.tensors[0])


class ConcatDataset(Dataset):
    """Map-style datasets one after another: index ``i`` goes to the dataset that holds
    it. Negative indices count from the end."""

    def __init__(self, datasets: Sequence[Dataset]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset needs at least one dataset")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise TypeError("ConcatDataset does not support IterableDataset; use ChainDataset")
        self.cumulative_sizes: list[int] = []
        total = 0
        for d in self.datasets:
            total += len(d)  # type: ignore[arg-type]
            self.cumulative_sizes.append(total)

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, index: int) -> Any:
        n = len(self)
        if index < 0:
            if -index > n:
                raise IndexError(f"index {index} out of range for a dataset of length {n}")
            index += n
        if index >= n:
            raise IndexError(f"index {index} out of range for a dataset of length {n}")
        k = bisect.bisect_right(self.cumulative_sizes, index)
        start = self.cumulative_sizes[k - 1] if k > 0 else 0
        return self.datasets[k][index - start]


class ChainDataset(IterableDataset):
    """Iterable datasets one after another."""

    def __init__(self, datasets: Sequence[IterableDataset]) -> None:
        self.datasets = list(datasets)

    def __iter__(self) -> Iterator[Any]:
        for d in self.datasets:
            yield from d

    def __len__(self) -> int:
        return sum(len(cast(Sized, d)) for d in self.datasets)  # a TypeError if one has no len


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset: Dataset, indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = list(indices)

    def __getitem__(self, index: int) -> Any:
        if isinstance(index, list):
            return [self.dataset[self.indices[i]] for i in index]
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(
    dataset: Dataset, lengths: Sequence[int | float], generator: Any = None
) -> list[Subset]:
    """Splits ``dataset`` into non-overlapping random subsets of the given lengths
    (integers summing to ``len(dataset)``, or fractions summing to 1: each is floored and
    the remainder handed out one by one from the first). ``generator``: a seed, a NumPy
    ``Generator``, or None for ferrograd's global seed."""
    n = len(dataset)  # type: ignore[arg-type]
    lengths = list(lengths)
    if all(isinstance(x, float) for x in lengths) and math.isclose(sum(lengths), 1.0):
        if any(x < 0 or x > 1 for x in lengths):
            raise ValueError(f"fractions must be in [0, 1], got {lengths}")
        sizes = [int(math.floor(n * x)) for x in lengths]
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
        lengths = sizes
    if any(isinstance(x, bool) or not isinstance(x, int) or x < 0 for x in lengths):
        raise ValueError(f"lengths must be non-negative integers or fractions, got {lengths}")
    if sum(lengths) != n:
        raise ValueError(
            f"Sum of input lengths ({sum(lengths)}) does not equal the length of the input "
            f"dataset ({n})"
        )
    perm = make_rng(generator).permutation(n).tolist()
    out: list[Subset] = []
    offset = 0
    for length in cast("list[int]", lengths):  # checked to be ints just above
        out.append(Subset(dataset, perm[offset : offset + length]))
        offset += length
    return out
